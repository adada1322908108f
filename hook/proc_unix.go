//go:build unix

package hook

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the hook as the leader of a new process group and makes a
// cancellation kill the whole group, children and grandchildren included. Where the
// system allows it, the leader is also killed when ouro dies (kill -9 included).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
