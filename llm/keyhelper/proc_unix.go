//go:build unix

package keyhelper

import (
	"os/exec"
	"syscall"
)

// shell is Claude Code's: the helper runs in /bin/sh.
func shell() (string, error) { return "/bin/sh", nil }

// ownGroup makes the helper lead a process group that a cancellation kills whole.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
