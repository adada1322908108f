//go:build !unix && !windows

package hook

import "os/exec"

// ownProcessGroup: without process groups, cancellation kills the hook process itself
// (exec.CommandContext's default).
func ownProcessGroup(*exec.Cmd, bool) {}

// hookShell runs the shell form: bash when it is on PATH, else sh.
func hookShell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

// startProcess starts the hook.
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }

// guardsGroup is false: there are no process groups to guard.
const guardsGroup = false

// groupGuard is unused here.
const groupGuard = ""

// superviseCancel does nothing: there is no launcher on this system.
func superviseCancel(*exec.Cmd) {}
