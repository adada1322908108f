//go:build unix

package hook

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ownProcessGroup starts the hook as the leader of a new process group and makes a
// cancellation kill the whole group, children and grandchildren included. Where the
// system allows it, the leader also learns that ouro died (kill -9 included): a plain
// hook is killed; a guarded one (groupGuard) gets SIGTERM and kills its whole group.
func ownProcessGroup(cmd *exec.Cmd, guarded bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sig := syscall.SIGKILL
	if guarded {
		sig = syscall.SIGTERM
	}
	dieWithParent(cmd.SysProcAttr, sig)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// hookShell runs the shell form: bash when it is on PATH, else sh.
func hookShell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

// startProcess starts the hook.
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }

// groupGuard is the shell script an async hook runs under (its arguments the hook's argv:
// the shell, -c and the command, or the exec form's program and arguments): the hook runs
// as a child with the hook's stdin, and a SIGTERM (sent when ouro dies) kills the whole
// process group. Its exit status is the hook's.
const groupGuard = `exec 3<&0; trap 'kill -KILL 0' TERM; "$@" 0<&3 3<&- & wait $!; exit $?`

// superviseCancel makes a cancellation of a hook under the launcher ask the launcher to
// kill the hook's whole tree (SIGHUP, its "stop everything now"; see sandbox.Supervised)
// rather than kill the launcher itself, which would leave the tree behind. The launcher
// leads a process group of its own, so a terminal's signals meant for ouro do not reach
// it. Should it not exit, os/exec kills it once WaitDelay has passed.
//
// The SIGHUP is said again every 100 ms until the launcher is gone: one that has not yet
// set up its handler loses a SIGHUP it inherited as ignored (ouro started under nohup),
// and would start the hook all the same and wait for a signal that never comes; after
// WaitDelay os/exec killed it, leaving the hook's tree to init (an async hook cancelled
// as ouro ended, milliseconds after it started: strace showed the lost signal).
func superviseCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error {
		err := cmd.Process.Signal(syscall.SIGHUP)
		go func(p *os.Process) {
			for range 30 {
				time.Sleep(100 * time.Millisecond)
				if p.Signal(syscall.SIGHUP) != nil { // gone, and waited for
					return
				}
			}
		}(cmd.Process)
		return err
	}
}
