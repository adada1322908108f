//go:build !unix

package grant

// Elsewhere the ledger is locked within one process only (Ledger.mu).
func lockFile(string) (func(), error) { return func() {}, nil }
