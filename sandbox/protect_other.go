//go:build !linux

package sandbox

// ProtectGuard is not needed where there is no sandbox.
type ProtectGuard struct{}

// GuardProtected does nothing on this system.
func (p Policy) GuardProtected() *ProtectGuard { return nil }

// Restore does nothing on this system.
func (g *ProtectGuard) Restore() string { return "" }
