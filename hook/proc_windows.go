package hook

import (
	"os/exec"
	"sync/atomic"

	"github.com/ouroagent/ouro/internal/gitbash"
	"github.com/ouroagent/ouro/internal/procgroup"
)

// hookShell runs the shell form in Git Bash, as Bash commands run; without it, in
// whatever bash is on PATH, and failing that the hook reports that bash is missing.
func hookShell() string {
	if p, err := gitbash.Locate(); err == nil {
		return p
	}
	return "bash"
}

// ownProcessGroup makes the hook start suspended, to join a job of its own in
// startProcess: a cancellation kills the hook and everything it started, whatever is
// left when the hook ends is killed, and all of it dies with ouro.
func ownProcessGroup(cmd *exec.Cmd, _ bool) { procgroup.Prepare(cmd) }

// startProcess starts the hook in its job. A cancellation that comes before the job
// exists kills the hook, which has not run yet.
func startProcess(cmd *exec.Cmd) error {
	var group atomic.Pointer[procgroup.Group]
	cmd.Cancel = func() error {
		if g := group.Load(); g != nil {
			g.Kill()
			return nil
		}
		return cmd.Process.Kill()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	g, err := procgroup.Attach(cmd.Process)
	if err != nil {
		_ = cmd.Wait() // Attach killed it before it ran
		return err
	}
	group.Store(g)
	return nil
}

// guardsGroup is false: the job already takes the hook's whole tree along.
const guardsGroup = false

// groupGuard is unused here.
const groupGuard = ""

// superviseCancel does nothing: there is no launcher on this system.
func superviseCancel(*exec.Cmd) {}
