package repo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.hooksPath=/dev/null", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// hostile makes a bare repository that tries every way to run code on whoever clones,
// fetches from or pushes to it: hooks of its own, a hooksPath and fsmonitor in its config,
// a filter its .gitattributes asks for. Each would create a file in marks.
func hostile(t *testing.T) (remote, marks string) {
	root := t.TempDir()
	marks = filepath.Join(root, "marks")
	os.Mkdir(marks, 0o755)
	seed := filepath.Join(root, "seed")
	os.Mkdir(seed, 0o755)
	git(t, seed, "init", "-q")
	os.WriteFile(filepath.Join(seed, ".gitattributes"), []byte("* filter=evil\n"), 0o644)
	os.WriteFile(filepath.Join(seed, "README"), []byte("hello\n"), 0o644)
	git(t, seed, "add", "-A")
	git(t, seed, "commit", "-qm", "init")
	remote = filepath.Join(root, "remote.git")
	git(t, root, "clone", "-q", "--bare", seed, remote)
	script := func(name string) string {
		p := filepath.Join(root, "evil-"+name)
		os.WriteFile(p, []byte("#!/bin/sh\ntouch "+filepath.Join(marks, name)+"\ncat >/dev/null\nexit 0\n"), 0o755)
		return p
	}
	for _, h := range []string{"pre-receive", "update", "post-receive", "post-update", "reference-transaction", "pre-upload-pack"} {
		os.WriteFile(filepath.Join(remote, "hooks", h), []byte("#!/bin/sh\ntouch "+filepath.Join(marks, "hook-"+h)+"\ncat >/dev/null\nexit 0\n"), 0o755)
	}
	hooksDir := filepath.Join(root, "evil-hooks")
	os.Mkdir(hooksDir, 0o755)
	for _, h := range []string{"pre-receive", "post-receive", "post-checkout", "reference-transaction", "post-merge"} {
		os.WriteFile(filepath.Join(hooksDir, h), []byte("#!/bin/sh\ntouch "+filepath.Join(marks, "hookspath-"+h)+"\ncat >/dev/null\nexit 0\n"), 0o755)
	}
	git(t, remote, "config", "core.hooksPath", hooksDir)
	git(t, remote, "config", "core.fsmonitor", script("fsmonitor"))
	git(t, remote, "config", "filter.evil.smudge", script("smudge"))
	git(t, remote, "config", "filter.evil.clean", script("clean"))
	git(t, remote, "config", "uploadpack.packObjectsHook", script("packobjects"))
	return remote, marks
}

func noMarks(t *testing.T, marks, when string) {
	t.Helper()
	es, _ := os.ReadDir(marks)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Fatalf("the hostile repository ran code on the worker %s: %v", when, names)
	}
}

// A hostile shared repository runs nothing on the worker: not when cloned, fetched or
// pushed to; the pushed branch arrives.
func TestHostileRemoteRunsNothing(t *testing.T) {
	remote, marks := hostile(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "w1", "repo")
	r, err := Sync(ctx, remote, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	noMarks(t, marks, "on clone")
	if data, _ := os.ReadFile(filepath.Join(dir, "README")); string(data) != "hello\n" {
		t.Fatalf("the clone's checkout: %q", data)
	}
	git(t, dir, "checkout", "-q", "-b", "ouro/w1/1")
	os.WriteFile(filepath.Join(dir, "out.txt"), []byte("work\n"), 0o644)
	git(t, dir, "add", "out.txt")
	git(t, dir, "commit", "-qm", "task 1")
	if err := r.Push(ctx, "ouro/w1/1"); err != nil {
		t.Fatal(err)
	}
	noMarks(t, marks, "on push")
	if log := git(t, remote, "log", "--format=%s", "ouro/w1/1"); !strings.HasPrefix(log, "task 1\n") {
		t.Fatalf("the branch did not arrive: %q", log)
	}
	git(t, dir, "checkout", "-q", "main")
	if _, err := Sync(ctx, remote, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	noMarks(t, marks, "on fetch")
}

// Bad remotes are refused before git runs; a clone of another remote is not reused.
func TestBadRemotes(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []string{"", "--upload-pack=touch /tmp/x", "ext::sh -c touch% /tmp/pwned", "fd::3", "a\nb"} {
		if _, err := Sync(ctx, bad, filepath.Join(t.TempDir(), "c"), Options{}); err == nil {
			t.Errorf("Sync(%q) was accepted", bad)
		}
	}
	remote, _ := hostile(t)
	dir := filepath.Join(t.TempDir(), "c")
	if _, err := Sync(ctx, remote, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	other, _ := hostile(t)
	if _, err := Sync(ctx, other, dir, Options{}); err == nil || !strings.Contains(err.Error(), "holds a clone of") {
		t.Fatalf("a clone of another remote was reused: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.git")
	git(t, filepath.Dir(empty), "init", "-q", "--bare", empty)
	if _, err := Sync(ctx, empty, filepath.Join(t.TempDir(), "e"), Options{}); err == nil || !strings.Contains(err.Error(), "no commits") {
		t.Fatalf("an empty remote: %v", err)
	}
	if p, err := Sync(ctx, "/does/not/exist", filepath.Join(t.TempDir(), "n"), Options{}); err == nil || !strings.Contains(err.Error(), "cloning") {
		t.Fatalf("a missing remote: %v %v", p, err)
	}
}

// A check refusing a command stops it before git runs.
func TestCheckRefuses(t *testing.T) {
	remote, _ := hostile(t)
	ctx := context.Background()
	no := func(cmd string) error {
		if strings.HasPrefix(cmd, "git push") {
			return fmt.Errorf("%s is denied", cmd)
		}
		return nil
	}
	r, err := Sync(ctx, remote, filepath.Join(t.TempDir(), "c"), Options{Check: no})
	if err != nil {
		t.Fatal(err)
	}
	git(t, r.Dir, "branch", "ouro/w/1")
	if err := r.Push(ctx, "ouro/w/1"); err == nil || !strings.Contains(err.Error(), "git push origin ouro/w/1 is denied") {
		t.Fatalf("a denied push: %v", err)
	}
	if out := git(t, remote, "branch", "--list", "ouro/*"); out != "" {
		t.Fatalf("the denied push reached the remote: %q", out)
	}
	if _, err := Sync(ctx, remote, filepath.Join(t.TempDir(), "d"), Options{Check: func(string) error { return fmt.Errorf("no") }}); err == nil {
		t.Fatal("a denied clone ran")
	}
}
