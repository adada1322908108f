package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// gitRunner runs git as a subprocess the caller cannot steer: no GIT_* variable of the
// caller's environment reaches it (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
// GIT_CONFIG_PARAMETERS ... would point it at another repository or change its config),
// and nothing the repository's own configuration names is executed: hooks
// (core.hooksPath, .git/hooks), the fsmonitor, and the clean/smudge/process filters the
// repository's local config defines (a .gitattributes line can send every checked-out
// file through one). Diffs never run external diff drivers or textconv.
type gitRunner struct {
	bin string
	env []string

	once sync.Once
	safe []string // the -c overrides for the repository at root, computed once
	root string
}

func newGit(bin string) *gitRunner {
	if bin == "" {
		bin = "git"
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "LC_ALL" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	return &gitRunner{bin: bin, env: env}
}

// baseArgs are the overrides every call carries.
var baseArgs = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"}

// GitError is a git command that failed: what ran, where, and what git said.
type GitError struct {
	Args   []string
	Dir    string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s (in %s): %s", strings.Join(e.Args, " "), e.Dir, msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// run runs git in dir and returns its stdout.
func (g *gitRunner) run(ctx context.Context, dir string, args ...string) (string, error) {
	full := append(append([]string(nil), baseArgs...), g.safe...)
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, g.bin, full...)
	cmd.Dir = dir
	cmd.Env = g.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git could not be run (%s): %w; worktrees need git installed", g.bin, err)
		}
		return stdout.String(), &GitError{Args: args, Dir: dir, Stderr: stderr.String(), Err: err}
	}
	return stdout.String(), nil
}

// neutralize reads the filters the repository at root defines in its own config (local
// or worktree scope, includes followed) and turns each off for every later call. Filters
// in the user's global or the system config are the user's own and stay.
func (g *gitRunner) neutralize(ctx context.Context, root string) error {
	var err error
	g.once.Do(func() {
		g.root = root
		var out string
		out, err = g.run(ctx, root, "config", "--show-scope", "--get-regexp", `^filter\.`)
		var ge *GitError
		if errors.As(err, &ge) {
			err = nil // exit 1: no filter configured
		}
		if err != nil {
			return
		}
		var safe []string
		seen := map[string]bool{}
		for _, line := range strings.Split(out, "\n") {
			scope, rest, ok := strings.Cut(line, "\t")
			if !ok || (scope != "local" && scope != "worktree" && scope != "command") {
				continue
			}
			key, _, _ := strings.Cut(rest, " ")
			dot := strings.LastIndexByte(key, '.')
			if dot <= len("filter.") || seen[key[:dot]] {
				continue
			}
			drv := key[:dot]
			seen[drv] = true
			safe = append(safe, "-c", drv+".clean=", "-c", drv+".smudge=", "-c", drv+".process=", "-c", drv+".required=false")
		}
		g.safe = safe
	})
	return err
}
