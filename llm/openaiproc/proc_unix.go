//go:build unix

package openaiproc

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the helper in a process group of its own: a Ctrl-C at the terminal
// reaches ouro, which decides what to stop (it cancels the call, which kills the
// helper), and not the helper behind its back.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
