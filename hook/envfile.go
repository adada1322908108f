package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CLAUDE_ENV_FILE (Claude Code's contract): each Setup, SessionStart, CwdChanged or FileChanged command hook is
// given, in CLAUDE_ENV_FILE, a file of its own in the session's env folder; what it writes
// there (typically `export NAME=value` lines) is sourced by the shell before every later
// Bash command of the session. The folder is made at the first such hook, with mode 0700,
// in the system temp dir where sandboxed commands cannot write there (else see
// envParent), so that a command cannot plant code a later unsandboxed one would source,
// and removed by Close.

// envEvents are the events whose hooks get a CLAUDE_ENV_FILE.
var envEvents = map[string]bool{SessionStart: true, Setup: true, CwdChanged: true, FileChanged: true}

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
		parent, err := r.envParent()
		if err != nil {
			return "", err
		}
		dir, err := os.MkdirTemp(parent, "ouro-session-env-")
		if err != nil {
			return "", fmt.Errorf("CLAUDE_ENV_FILE: making its folder: %w", err)
		}
		bg.envDir = dir
	}
	bg.envSeq++
	// The number first, zero-padded, so that name order (the order they are sourced in)
	// is run order whatever the event: what a CwdChanged hook exports after a cd
	// overrides what SessionStart exported.
	p := filepath.Join(bg.envDir, fmt.Sprintf("%04d-%s-hook.sh", bg.envSeq, event))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("CLAUDE_ENV_FILE: %w", err)
	}
	return p, f.Close()
}

// EnvDir is the folder of the files Setup, SessionStart, CwdChanged and FileChanged hooks were given as
// CLAUDE_ENV_FILE, whose *.sh the Bash tool sources before each command; "" while no
// such hook has run.
func (r *Runner) EnvDir() string {
	r.bg.mu.Lock()
	defer r.bg.mu.Unlock()
	return r.bg.envDir
}

// clearCwdEnv removes what CwdChanged and FileChanged hooks wrote to their
// CLAUDE_ENV_FILE: the working directory moved, so what they exported for the old one
// no longer applies (the new one's CwdChanged hooks export afresh). What Setup and
// SessionStart hooks wrote stays.
func (r *Runner) clearCwdEnv() {
	bg := r.bg
	bg.mu.Lock()
	defer bg.mu.Unlock()
	if bg.envDir == "" {
		return
	}
	for _, ev := range []string{CwdChanged, FileChanged} {
		files, _ := filepath.Glob(filepath.Join(bg.envDir, "*-"+ev+"-hook.sh"))
		for _, f := range files {
			_ = os.Remove(f)
		}
	}
}

// removeEnvDir deletes the env folder; the caller holds bg.mu.
func (bg *background) removeEnvDir() {
	if bg.envDir != "" {
		_ = os.RemoveAll(bg.envDir)
		bg.envDir = ""
	}
}

// envParent is where the env folder is made: the system temp dir, unless sandboxed
// commands may write there ($TMPDIR inside the workspace, or a sandbox.filesystem.allowWrite
// entry covering it), then the first of $XDG_RUNTIME_DIR, /tmp and /var/tmp they
// may not. A folder a sandboxed command could add a script to would turn its next
// unsandboxed command (dangerouslyDisableSandbox, which the user approved seeing only
// its own text) into the sandboxed one's.
func (r *Runner) envParent() (string, error) {
	cands := []string{os.TempDir(), os.Getenv("XDG_RUNTIME_DIR"), "/tmp", "/var/tmp"}
	if r.cfg.SandboxWritable == nil {
		return cands[0], nil
	}
	for _, c := range cands {
		if st, err := os.Stat(c); c == "" || !filepath.IsAbs(c) || err != nil || !st.IsDir() {
			continue
		}
		if !r.cfg.SandboxWritable(filepath.Join(c, "ouro-session-env-x", "a.sh")) {
			return c, nil
		}
	}
	return "", fmt.Errorf("CLAUDE_ENV_FILE: every temp dir (%s) is writable by sandboxed commands (sandbox.filesystem.allowWrite, or TMPDIR inside the workspace), so none can hold scripts later Bash commands source; set TMPDIR to a folder outside the workspace", strings.Join(cands, ", "))
}
