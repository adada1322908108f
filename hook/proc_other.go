//go:build !unix

package hook

import "os/exec"

// ownProcessGroup: without process groups, cancellation kills the hook process itself
// (exec.CommandContext's default).
func ownProcessGroup(*exec.Cmd, bool) {}

// guardsGroup is false: there are no process groups to guard.
const guardsGroup = false

// groupGuard is unused here.
const groupGuard = ""

// superviseCancel does nothing: there is no launcher on this system.
func superviseCancel(*exec.Cmd) {}
