package tools

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ouroagent/ouro/internal/gitbash"
	"github.com/ouroagent/ouro/internal/procgroup"
)

// defaultShell is Git Bash, as Claude Code runs commands on Windows.
func defaultShell() (string, error) { return gitbash.Locate() }

// platformNote tells the model where its commands run here, and that nothing but the
// permission rules bounds them: Windows has no OS sandbox in ouro.
func platformNote(shell string, err error) string {
	if err != nil {
		return "\n- This is Windows, and Git Bash, which commands run in, was not found: every call fails until it is installed. Use the other tools meanwhile."
	}
	return fmt.Sprintf("\n- This is Windows: commands run in Git Bash (%s), so write them for bash; paths may be written C:/Users/... or /c/Users/.... There is no OS sandbox here: only the permission rules limit what a command may read, write or reach.", shell)
}

// wrapperCall passes the command through the environment (see envCall); pwd -W writes
// the final directory as Windows knows it (C:/Users/...), not as MSYS does (/c/Users/...).
func wrapperCall(shell, command, cwdPath, envDir string) (args, env []string) {
	if envDir != "" {
		envDir = filepath.ToSlash(envDir)
	}
	return envCall(shell, command, filepath.ToSlash(cwdPath), envDir, "pwd -W")
}

// nativePath is the recorded directory with Windows' separators.
func nativePath(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Clean(dir)
}

// dieWithOuro: the command's job dies with ouro (see ownGroup).
func dieWithOuro(*syscall.SysProcAttr) {}

// ownGroup makes the shell start suspended, to join a job of its own in startTree: the
// shell and everything it starts, killed together, and with ouro.
func ownGroup(cmd *exec.Cmd) { procgroup.Prepare(cmd) }

// procTree is a command's job.
type procTree struct{ g *procgroup.Group }

// startTree starts cmd in its job.
func startTree(cmd *exec.Cmd) (procTree, error) {
	if err := cmd.Start(); err != nil {
		return procTree{}, err
	}
	g, err := procgroup.Attach(cmd.Process)
	if err != nil {
		_ = cmd.Wait() // Attach killed it before it ran
		return procTree{}, err
	}
	return procTree{g: g}, nil
}

// terminate kills the whole job at once: Windows has no SIGTERM to ask first, so there
// is no grace period.
func (t procTree) terminate(bool, time.Duration) { t.g.Kill() }
