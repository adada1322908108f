package wfproc

import (
	"os/exec"

	"github.com/ouroagent/ouro/internal/procgroup"
)

// ownGroup starts the workflow engine in a console process group of its own: a Ctrl-C at the
// console reaches ouro, which decides what to stop, not the engine behind its back.
func ownGroup(cmd *exec.Cmd) { procgroup.ConsoleGroup(cmd) }
