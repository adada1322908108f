//go:build !unix

package hook

import "os/exec"

// ownProcessGroup: without process groups, cancellation kills the hook process itself
// (exec.CommandContext's default).
func ownProcessGroup(*exec.Cmd) {}
