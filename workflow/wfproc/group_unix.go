//go:build unix

package wfproc

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the workflow engine in a process group of its own: a Ctrl-C at the terminal goes
// to the terminal's foreground group, and reaches ouro, which decides what to stop (it
// interrupts the turn; a background workflow run goes on), not the engine behind its back.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}
