package hook

import (
	"context"
	"os/exec"

	"github.com/ouroagent/ouro/sandbox"
)

// hookCommand returns the process for one command hook, with cancellation (its timeout,
// or the session's end) set to end everything the hook started.
//
// Where the binary has the sandbox launcher (Linux), the hook runs under its supervision,
// unsandboxed, as Bash commands and MCP servers do: when the hook's shell ends, whatever
// it left running (cmd &, nohup, setsid, a double fork) is killed, and when ouro dies,
// even by kill -9, the launcher kills the hook's whole tree. Nothing a hook starts
// outlives it or ouro. Elsewhere the hook leads a process group of its own, which a
// cancellation kills; on Linux without the launcher its leader dies with ouro too, and an
// async hook runs under groupGuard, which takes its whole group along.
func (r *Runner) hookCommand(ctx context.Context, e entry) *exec.Cmd {
	argv := e.argv
	if argv == nil {
		argv = []string{r.shell, "-c", e.command}
	}
	if cmd, err := sandbox.Supervised(ctx, argv[0], argv[1:]...); err == nil {
		superviseCancel(cmd)
		return cmd
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if e.async && guardsGroup {
		// An async hook runs under a shell that kills the hook's whole process group
		// when ouro dies (even by kill -9): nothing it started outlives the session. The
		// hook's argv reaches it as arguments, never as program text.
		cmd = exec.CommandContext(ctx, "sh", append([]string{"-c", groupGuard, "ouro-hook"}, argv...)...)
	}
	ownProcessGroup(cmd, e.async && guardsGroup)
	return cmd
}
