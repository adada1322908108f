package hook

import (
	"fmt"
	"os"
	"path/filepath"
)

// CLAUDE_ENV_FILE (Claude Code's contract): each Setup or SessionStart command hook is
// given, in CLAUDE_ENV_FILE, a file of its own in the session's env folder; what it writes
// there (typically `export NAME=value` lines) is sourced by the shell before every later
// Bash command of the session. The folder is made at the first such hook, in the system
// temp dir with mode 0700 (outside what a sandboxed command may write, so a command
// cannot plant code that a later unsandboxed one would source), and removed by Close.

// envEvents are the events whose hooks get a CLAUDE_ENV_FILE.
var envEvents = map[string]bool{SessionStart: true, Setup: true}

// envFile makes a new empty file for one run of a hook of event in the env folder and
// returns its path; "" for other events.
func (r *Runner) envFile(event string) (string, error) {
	if !envEvents[event] {
		return "", nil
	}
	bg := r.bg
	bg.mu.Lock()
	defer bg.mu.Unlock()
	if bg.closed {
		return "", nil
	}
	if bg.envDir == "" {
		dir, err := os.MkdirTemp("", "ouro-session-env-")
		if err != nil {
			return "", fmt.Errorf("CLAUDE_ENV_FILE: making its folder: %w", err)
		}
		bg.envDir = dir
	}
	bg.envSeq++
	// Zero-padded, so that name order (the order they are sourced in) is run order.
	p := filepath.Join(bg.envDir, fmt.Sprintf("%s-hook-%04d.sh", event, bg.envSeq))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("CLAUDE_ENV_FILE: %w", err)
	}
	return p, f.Close()
}

// EnvDir is the folder of the files Setup and SessionStart hooks were given as
// CLAUDE_ENV_FILE, whose *.sh the Bash tool sources before each command; "" while no
// such hook has run.
func (r *Runner) EnvDir() string {
	r.bg.mu.Lock()
	defer r.bg.mu.Unlock()
	return r.bg.envDir
}

// removeEnvDir deletes the env folder; the caller holds bg.mu.
func (bg *background) removeEnvDir() {
	if bg.envDir != "" {
		_ = os.RemoveAll(bg.envDir)
		bg.envDir = ""
	}
}
