package helperbin

import (
	"os/exec"

	"github.com/ouroagent/ouro/internal/procgroup"
)

// OwnGroup starts a helper in a console process group of its own: a Ctrl-C at the
// console reaches ouro, which decides what to stop, not the helper behind its back.
func OwnGroup(cmd *exec.Cmd) { procgroup.ConsoleGroup(cmd) }
