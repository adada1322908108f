//go:build unix

package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// In a worktree, a sandboxed command cannot overwrite an object of the user's history in
// the shared .git/objects (git does not check a loose object's hash when it reads it, so
// that would change what the main checkout shows and checks out), nor plant an object
// under a name its content does not hash to; an ordinary commit still works, and is
// visible from the main checkout after the command.
func TestAttackWorktreeCannotOverwriteSharedObjects(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	file := strings.Fields(wtGit(t, e.dir, "ls-files"))[0]
	want := wtGit(t, e.dir, "cat-file", "-p", "HEAD:"+file)
	blob := strings.TrimSpace(wtGit(t, e.dir, "rev-parse", "HEAD:"+file))
	fake := strings.Repeat("ab", 20)
	// The evil object is a valid, zlib-compressed loose object of other content, made by
	// git wherever this command's git writes objects.
	prep := `o=$(git rev-parse --path-format=absolute --git-common-dir)/objects; e=$(echo evil | git hash-object -w --stdin); src=${GIT_OBJECT_DIRECTORY:-$o}/${e:0:2}/${e:2}; `
	overwrite := prep + `f=$o/` + blob[:2] + `/` + blob[2:] + `; chmod u+w "$f" 2>&1; cat "$src" > "$f" && echo OVERWROTE`
	lie := prep + `d=${GIT_OBJECT_DIRECTORY:-$o}/` + fake[:2] + `; mkdir -p "$d" && cp "$src" "$d/` + fake[2:] + `" && echo PLANTED`
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "obj"})},
		scripted.Turn{ToolCalls: bash("echo z > z.txt && git add z.txt && " + commitAs + " 'own commit' && echo COMMITTED")},
		scripted.Turn{ToolCalls: bash(overwrite)},
		scripted.Turn{ToolCalls: bash(lie)},
		scripted.Turn{Text: "done"})
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "sandbox") && strings.Contains(stderr, "not available") {
		t.Skip("no OS sandbox here: " + stderr)
	}
	res := wtResults(srv)
	if !strings.Contains(res["toolu_02_01"], "COMMITTED") {
		t.Fatalf("a commit inside the worktree failed: %s", res["toolu_02_01"])
	}
	if strings.Contains(res["toolu_03_01"], "OVERWROTE") {
		t.Errorf("the sandboxed command overwrote a shared object: %s", res["toolu_03_01"])
	}
	if got := wtGit(t, e.dir, "cat-file", "-p", "HEAD:"+file); got != want {
		t.Errorf("main's %s now reads %q, want %q", file, got, want)
	}
	if log := wtGit(t, e.dir, "log", "--format=%s", "ouro/obj"); !strings.HasPrefix(log, "own commit\n") {
		t.Errorf("the worktree's commit is not visible from the main checkout: %q", log)
	}
	if strings.Contains(res["toolu_04_01"], "PLANTED") && !strings.Contains(res["toolu_04_01"], fake) {
		t.Errorf("the lying object is not reported: %s", res["toolu_04_01"])
	}
	check := exec.Command("git", "cat-file", "-e", fake)
	check.Dir = e.dir
	if err := check.Run(); err == nil {
		t.Errorf("an object whose name lies reached the shared store under that name")
	}
	if fsck := exec.Command("git", "fsck", "--no-dangling"); true {
		fsck.Dir = e.dir
		if b, err := fsck.CombinedOutput(); err != nil {
			t.Errorf("git fsck in the main checkout: %v\n%s", err, b)
		}
	}
}

// The same for a child with isolation "worktree": its attack on a shared object fails,
// and its commit reaches the lead's summary (read from the main checkout's store).
func TestAttackIsolatedChildCannotOverwriteSharedObjects(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	file := strings.Fields(wtGit(t, e.dir, "ls-files"))[0]
	want := wtGit(t, e.dir, "cat-file", "-p", "HEAD:"+file)
	blob := strings.TrimSpace(wtGit(t, e.dir, "rev-parse", "HEAD:"+file))
	overwrite := `o=$(git rev-parse --path-format=absolute --git-common-dir)/objects; e=$(echo evil | git hash-object -w --stdin); src=${GIT_OBJECT_DIRECTORY:-$o}/${e:0:2}/${e:2}; f=$o/` +
		blob[:2] + `/` + blob[2:] + `; chmod u+w "$f" 2>&1; cat "$src" > "$f" && echo OVERWROTE`
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{agentCall("work", false)}},
		scripted.Turn{ToolCalls: bash(overwrite)},
		scripted.Turn{ToolCalls: bash("echo x > f.txt && git add f.txt && " + commitAs + " 'child work'")},
		scripted.Turn{Text: "CHILD DONE"},
		scripted.Turn{Text: "done"})
	out, stderr, code := e.run("", "-p", "delegate", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "sandbox") && strings.Contains(stderr, "not available") {
		t.Skip("no OS sandbox here: " + stderr)
	}
	res := wtResults(srv)
	if strings.Contains(res["toolu_02_01"], "OVERWROTE") {
		t.Errorf("the child overwrote a shared object: %s", res["toolu_02_01"])
	}
	if got := wtGit(t, e.dir, "cat-file", "-p", "HEAD:"+file); got != want {
		t.Errorf("main's %s now reads %q, want %q", file, got, want)
	}
	if r := res["toolu_01_01"]; !strings.Contains(r, "child work") || !strings.Contains(r, "f.txt | 1 +") {
		t.Errorf("the lead's result lacks the child's commit:\n%s", r)
	}
}
