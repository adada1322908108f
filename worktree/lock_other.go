//go:build !unix

package worktree

// lockFile is a no-op where flock does not exist: one process at a time is assumed.
func lockFile(string) (func(), error) { return func() {}, nil }
