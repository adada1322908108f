package mcpclient

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/ouroagent/ouro/internal/procgroup"
)

// dieWithOuro: on Windows the server's job dies with ouro (see ownGroup).
func dieWithOuro(*syscall.SysProcAttr) {}

// group is a server's job: the server and everything it starts.
type group struct{ g *procgroup.Group }

// ownGroup makes the server start suspended, to join a job of its own in startGroup.
func ownGroup(cmd *exec.Cmd) { procgroup.Prepare(cmd) }

// startGroup puts the started server p in its job and lets it run.
func startGroup(p *os.Process) (group, error) {
	g, err := procgroup.Attach(p)
	return group{g: g}, err
}

// kill ends the server and every process it started (there is no launcher here).
func (g group) kill(bool) { g.g.Kill() }
