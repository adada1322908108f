//go:build unix

package helperbin

import (
	"os/exec"
	"syscall"
)

// OwnGroup starts a helper in a process group of its own: a Ctrl-C at the terminal goes
// to the terminal's foreground group, and reaches ouro, which decides what to stop (it
// interrupts the turn; a background workflow run goes on), not the helper behind its back.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}
