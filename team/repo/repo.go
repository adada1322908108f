// Package repo keeps a worker's clone of the team's shared repository (ouro team worker
// --repo): it clones it, or fetches into the clone it made before, and pushes each
// task's branch back. git runs so that nothing the repository controls runs code on the
// worker: no GIT_* variable of the caller reaches it, hooks are off (core.hooksPath is
// /dev/null, also for the receive-pack and upload-pack that a remote on this machine
// runs), there is no fsmonitor, no ext:: transport, and submodules are not fetched. A
// clone never copies the remote's hooks or config.
package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// safe are the overrides every git call carries.
var safe = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "protocol.ext.allow=never",
	"-c", "submodule.recurse=false", "-c", "fetch.recurseSubmodules=false", "-c", "core.untrackedCache=false"}

// packCmd runs receive-pack and upload-pack for a remote on this machine (a path or
// file://) without the remote repository's hooks: the -c above does not reach the
// process git starts for a local remote.
const packCmd = "git -c core.hooksPath=/dev/null -c core.fsmonitor=false "

// Repo is a worker's clone.
type Repo struct {
	// Remote is the shared repository as given; Dir the clone.
	Remote, Dir string
	opts        Options
	git         string
	env         []string
}

// Options are how the worker's session has its say over git.
type Options struct {
	// Check, when set, may refuse a git command before it runs (the worker's permission
	// rules: a deny rule on Bash(git push *) stops pushes).
	Check func(command string) error
	// Command, when set, makes the process of a git call (in the session's OS sandbox);
	// writable are the folders that call writes (the clone's folder first, then a remote
	// on this machine it pushes to). nil runs git directly.
	Command func(ctx context.Context, writable []string, name string, args ...string) (*exec.Cmd, error)
}

// CheckRemote refuses a remote git would read as an option or run a program for.
func CheckRemote(remote string) error {
	r := strings.TrimSpace(remote)
	switch {
	case r == "":
		return errors.New("--repo is empty: give the team's repository, a git URL (https://, ssh://, git@host:path) or a path")
	case strings.HasPrefix(r, "-"):
		return fmt.Errorf("--repo %q starts with '-'; give a git URL or a path", remote)
	case strings.Contains(r, "::"):
		return fmt.Errorf("--repo %q names a git remote helper (%s); give a git URL (https://, ssh://, git@host:path) or a path", remote, r[:strings.Index(r, "::")])
	case strings.ContainsAny(r, "\n\r\x00"):
		return fmt.Errorf("--repo %q has a control character in it", remote)
	}
	return nil
}

// local reports whether git reaches remote on this machine (a path or file://), where it
// runs receive-pack and upload-pack itself.
func local(remote string) bool {
	if strings.HasPrefix(remote, "file://") {
		return true
	}
	if strings.Contains(remote, "://") {
		return false
	}
	// scp-like syntax (host:path) has a ':' before any '/'.
	colon, slash := strings.Index(remote, ":"), strings.Index(remote, "/")
	return colon < 0 || (slash >= 0 && slash < colon)
}

// Sync makes dir a clone of remote: cloned when dir holds none, else fetched (a clone of
// another remote is refused). The clone's checkout moves to the remote's default branch,
// which the tasks' worktrees start from.
func Sync(ctx context.Context, remote, dir string, o Options) (*Repo, error) {
	if err := CheckRemote(remote); err != nil {
		return nil, err
	}
	remote = strings.TrimSpace(remote)
	if local(remote) && !strings.HasPrefix(remote, "file://") {
		abs, err := filepath.Abs(remote)
		if err != nil {
			return nil, err
		}
		remote = abs
	}
	r := &Repo{Remote: remote, Dir: dir, opts: o, git: "git", env: cleanEnv()}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		got, err := r.run(ctx, dir, "config", "--get", "remote.origin.url")
		if got = strings.TrimSpace(got); err != nil || got != remote {
			return nil, fmt.Errorf("%s holds a clone of %q, not of %q; remove it (nothing is lost there that was pushed) or start this worker under another --name", dir, got, remote)
		}
		if err := r.packConfig(ctx); err != nil {
			return nil, err
		}
		if err := r.check("git fetch origin"); err != nil {
			return nil, err
		}
		if _, err := r.run(ctx, dir, "fetch", "--quiet", "--prune", "--no-recurse-submodules", "origin"); err != nil {
			return nil, fmt.Errorf("fetching %s into %s: %w", remote, dir, err)
		}
		if _, err := r.run(ctx, dir, "remote", "set-head", "origin", "--auto"); err != nil {
			return nil, fmt.Errorf("finding the default branch of %s: %w", remote, err)
		}
		if _, err := r.run(ctx, dir, "reset", "--quiet", "--hard", "refs/remotes/origin/HEAD"); err != nil {
			return nil, fmt.Errorf("moving %s to the default branch of %s: %w", dir, remote, err)
		}
		return r, nil
	}
	if err := r.check("git clone " + remote); err != nil {
		return nil, err
	}
	// The clone's folder is made here, empty: in a sandbox whose root is the folder
	// holding it, a command may not create entries directly in the root.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	args := append([]string{"clone", "--quiet", "--no-recurse-submodules"}, r.pack("upload")...)
	if _, err := r.run(ctx, filepath.Dir(dir), append(args, "--", remote, dir)...); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("cloning %s: %w", remote, err)
	}
	if err := r.packConfig(ctx); err != nil {
		return nil, err
	}
	if _, err := r.run(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return nil, fmt.Errorf("the repository %s has no commits on its default branch; the tasks' worktrees start from one: push a first commit", remote)
	}
	return r, nil
}

// pack is the --upload-pack option for cloning a local remote.
func (r *Repo) pack(kind string) []string {
	if !local(r.Remote) {
		return nil
	}
	return []string{"--" + kind + "-pack=" + packCmd + kind + "-pack"}
}

// packConfig makes every later fetch, push and ls-remote of a local origin run its
// upload-pack and receive-pack without the remote's hooks.
func (r *Repo) packConfig(ctx context.Context) error {
	if !local(r.Remote) {
		return nil
	}
	for _, kind := range []string{"upload", "receive"} {
		if _, err := r.run(ctx, r.Dir, "config", "remote.origin."+kind+"pack", packCmd+kind+"-pack"); err != nil {
			return fmt.Errorf("configuring the clone %s: %w", r.Dir, err)
		}
	}
	return nil
}

// Push pushes branch to origin under the same name.
func (r *Repo) Push(ctx context.Context, branch string) error {
	if strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, ": \n") {
		return fmt.Errorf("%q is no branch to push", branch)
	}
	if err := r.check("git push origin " + branch); err != nil {
		return err
	}
	ref := "refs/heads/" + branch
	if _, err := r.run(ctx, r.Dir, "push", "--quiet", "--no-recurse-submodules", "origin", ref+":"+ref); err != nil {
		return fmt.Errorf("pushing %s to %s: %w", branch, r.Remote, err)
	}
	return nil
}

// Options are the options the clone was synced with.
func (r *Repo) Options() Options { return r.opts }

func (r *Repo) check(command string) error {
	if r.opts.Check == nil {
		return nil
	}
	return r.opts.Check(command)
}

// writable are the folders a git call may write: the folder holding the clone (so that
// its .git is not the sandbox's protected one: ouro writes the clone's config itself),
// and a remote on this machine, which a push writes into.
func (r *Repo) writable() []string {
	w := []string{filepath.Dir(r.Dir)}
	if local(r.Remote) {
		w = append(w, strings.TrimPrefix(r.Remote, "file://"))
	}
	return w
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "LC_ALL" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

func (r *Repo) run(ctx context.Context, dir string, args ...string) (string, error) {
	full := append(append([]string(nil), safe...), args...)
	var cmd *exec.Cmd
	if r.opts.Command != nil {
		var err error
		if cmd, err = r.opts.Command(ctx, r.writable(), r.git, full...); err != nil {
			return "", fmt.Errorf("git %s: %w", args[0], err)
		}
	} else {
		cmd = exec.CommandContext(ctx, r.git, full...)
	}
	cmd.Dir = dir
	cmd.Env = r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git could not be run: %w; a worker with --repo needs git installed", err)
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.String(), nil
}
