//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// gitRepo makes e.dir a repository with one commit (the go.mod newEnv wrote).
func wtRepo(t *testing.T, e *env) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "init"}} {
		wtGit(t, e.dir, args...)
	}
}

func wtGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.hooksPath=/dev/null"}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// wtResults are the texts of every tool result the model saw, by tool_use id.
func wtResults(srv *fakeserver.Server) map[string]string {
	out := map[string]string{}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			for _, b := range m.Content {
				if b.Type == llm.BlockToolResult {
					out[b.ToolUseID] = b.ResultText()
				}
			}
		}
	}
	return out
}

const commitAs = "git -c user.name=a -c user.email=a@example.com commit -qm"

// The session enters a worktree: Bash runs there and its commit lands on ouro/feat, a
// write aimed at the main checkout is refused, removal is refused while the commit is on
// no other branch (naming it), and keeping it reports the branch, commit and diffstat.
func TestEnterExitWorktreeThroughBinary(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	wt := filepath.Join(e.dir, ".ouro", "worktrees", "feat")
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "feat"})},
		scripted.Turn{ToolCalls: bash("pwd -P && echo hi > new.txt && git add new.txt && " + commitAs + " 'add new.txt'")},
		scripted.Turn{ToolCalls: bash("echo escaped > " + filepath.Join(e.dir, "escaped.txt"))},
		scripted.Turn{ToolCalls: call("ExitWorktree", map[string]string{"action": "remove"})},
		scripted.Turn{ToolCalls: call("ExitWorktree", map[string]string{"action": "keep"})},
		scripted.Turn{ToolCalls: bash("pwd -P")},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "work in a worktree", "--allowedTools", "Bash(pwd *),Bash(echo *),Bash(git *)")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res := wtResults(srv)
	if r := res["toolu_01_01"]; !strings.Contains(r, "Created and entered worktree feat") || !strings.Contains(r, "ouro/feat") {
		t.Errorf("EnterWorktree: %s", r)
	}
	real, _ := filepath.EvalSymlinks(wt)
	if r := res["toolu_02_01"]; !strings.HasPrefix(r, real) {
		t.Errorf("Bash did not run in the worktree: %s", r)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "escaped.txt")); err == nil {
		t.Errorf("a write to the main checkout went through: %s", res["toolu_03_01"])
	}
	if r := res["toolu_04_01"]; !strings.Contains(r, "was not removed") || !strings.Contains(r, "add new.txt") || !strings.Contains(r, "discard_changes") {
		t.Errorf("ExitWorktree remove: %s", r)
	}
	if r := res["toolu_05_01"]; !strings.Contains(r, "branch ouro/feat") || !strings.Contains(r, "add new.txt") || !strings.Contains(r, "new.txt | 1 +") || !strings.Contains(r, "Nothing was merged") {
		t.Errorf("ExitWorktree keep: %s", r)
	}
	main, _ := filepath.EvalSymlinks(e.dir)
	if r := strings.TrimSpace(res["toolu_06_01"]); r != main {
		t.Errorf("Bash after leaving runs in %q, want %s", r, main)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "new.txt")); err == nil {
		t.Error("the worktree's file appeared in the main checkout")
	}
	if log := wtGit(t, e.dir, "log", "--format=%s", "ouro/feat"); !strings.HasPrefix(log, "add new.txt\n") {
		t.Errorf("branch ouro/feat: %q", log)
	}
	if st := wtGit(t, e.dir, "status", "--porcelain"); st != "" {
		t.Errorf("the main checkout is not clean: %q", st)
	}
}

// EnterWorktree outside a repository, or with a hostile name, is a clear error and
// changes nothing.
func TestEnterWorktreeErrorsThroughBinary(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "x"})},
		scripted.Turn{ToolCalls: call("ExitWorktree", map[string]string{"action": "keep"})},
		scripted.Turn{Text: "done"},
	)
	if out, stderr, code := e.run("", "-p", "go"); code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res := wtResults(srv)
	if r := res["toolu_01_01"]; !strings.Contains(r, "not inside a git repository") {
		t.Errorf("outside a repo: %s", r)
	}
	if r := res["toolu_02_01"]; !strings.Contains(r, "not in a worktree") {
		t.Errorf("exit without enter: %s", r)
	}

	e2 := newEnv(t)
	wtRepo(t, e2)
	srv = e2.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "../../escape"})},
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "-b"})},
		scripted.Turn{Text: "done"},
	)
	if out, stderr, code := e2.run("", "-p", "go"); code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res = wtResults(srv)
	for _, id := range []string{"toolu_01_01", "toolu_02_01"} {
		if !strings.Contains(res[id], "invalid worktree name") {
			t.Errorf("%s: %s", id, res[id])
		}
	}
	if b := wtGit(t, e2.dir, "branch", "--list"); strings.TrimSpace(b) != "* main" {
		t.Errorf("branches: %q", b)
	}
}

func agentCall(prompt string, background bool) scripted.ToolCall {
	return call("Agent", map[string]any{"description": "work apart", "prompt": prompt, "subagent_type": "general-purpose",
		"isolation": "worktree", "run_in_background": background})[0]
}

// isolation "worktree": the child works and commits in a fresh worktree (never the main
// checkout), and the lead's result ends with its branch, commit and diffstat; a child
// that changed nothing leaves no worktree or branch behind.
func TestAgentIsolationWorktreeThroughBinary(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	// A branch left by an earlier run under the name the child's worktree would take:
	// the worktree gets a suffix instead of failing the child.
	wtGit(t, e.dir, "branch", "ouro/agent-toolu_01_01")
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{agentCall("make f.txt", false)}},
		scripted.Turn{ExpectContains: "your own git worktree", ToolCalls: bash("pwd -P && echo x > f.txt && git add f.txt && " + commitAs + " 'child work'")},
		scripted.Turn{ToolCalls: bash("echo escaped > " + filepath.Join(e.dir, "escaped.txt"))},
		scripted.Turn{Text: "CHILD DONE"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{agentCall("just look", false)}},
		scripted.Turn{Text: "NOTHING CHANGED"},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "delegate", "--allowedTools", "Bash(pwd *),Bash(echo *),Bash(git *)")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res := wtResults(srv)
	wt := filepath.Join(e.dir, ".ouro", "worktrees", "agent-toolu_01_01-2")
	real, _ := filepath.EvalSymlinks(wt)
	if r := res["toolu_02_01"]; real == "" || !strings.HasPrefix(r, real) {
		t.Errorf("the child's Bash ran in %q, want its worktree %s", r, wt)
	}
	r := res["toolu_01_01"]
	for _, want := range []string{"CHILD DONE", "branch ouro/agent-toolu_01_01-2", "child work", "f.txt | 1 +", "Nothing was merged", "git merge ouro/agent-toolu_01_01-2"} {
		if !strings.Contains(r, want) {
			t.Errorf("the lead's result lacks %q:\n%s", want, r)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "f.txt")); err == nil {
		t.Error("the child's file appeared in the main checkout")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "escaped.txt")); err == nil {
		t.Errorf("the isolated child wrote the main checkout: %s", res["toolu_03_01"])
	}
	if r := res["toolu_03_01"]; !strings.Contains(r, "outside the workspace") {
		t.Errorf("the child's write to the main checkout was not refused as outside its workspace: %s", r)
	}
	if r := res["toolu_05_01"]; !strings.Contains(r, "NOTHING CHANGED") || !strings.Contains(r, "no changes; removed") {
		t.Errorf("the unchanged child's result: %s", r)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".ouro", "worktrees", "agent-toolu_05_01")); !os.IsNotExist(err) {
		t.Error("the unchanged worktree was kept")
	}
	if b := wtGit(t, e.dir, "branch", "--list", "ouro/*"); b != "  ouro/agent-toolu_01_01\n+ ouro/agent-toolu_01_01-2\n" {
		t.Errorf("branches: %q", b)
	}
	if log := wtGit(t, e.dir, "log", "--format=%s", "main"); log != "init\n" {
		t.Errorf("something was merged into main: %q", log)
	}
}

// An agent isolated in a worktree is told its worktree as its working directory (its
// system prompt named the lead's), and even in bypassPermissions mode its writes by
// absolute path into the main checkout (Write and a Bash redirect) are judged as writes
// outside its workspace: asked about, so refused with nobody to ask. Its writes in the
// worktree go through.
func TestIsolatedAgentInBypassModeKeepsToItsWorktree(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{agentCall("make f.txt", false)}},
		scripted.Turn{ExpectContains: "your own git worktree", ToolCalls: []scripted.ToolCall{rwWrite(filepath.Join(e.dir, "escaped.txt"), "x\n")}},
		scripted.Turn{ToolCalls: bash("echo y > " + filepath.Join(e.dir, "escaped2.txt"))},
		scripted.Turn{ToolCalls: bash("echo z > f.txt")},
		scripted.Turn{Text: "CHILD DONE"},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "delegate", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	wt, err := filepath.EvalSymlinks(filepath.Join(e.dir, ".ouro", "worktrees", "agent-toolu_01_01"))
	if err != nil {
		t.Fatalf("the child's worktree was not kept: %v", err)
	}
	reqs := srv.Requests()
	_, _, lead := requestFields(t, reqs[0].Body)
	_, _, child := requestFields(t, reqs[1].Body)
	mainDir, _ := filepath.EvalSymlinks(e.dir)
	if !strings.Contains(lead, "Working directory: "+e.dir) && !strings.Contains(lead, "Working directory: "+mainDir) {
		t.Fatalf("the lead's system prompt does not name its directory; the test shows nothing:\n%s", lead)
	}
	if strings.Contains(child, "Working directory: "+e.dir+"\n") || strings.Contains(child, "Working directory: "+mainDir+"\n") ||
		(!strings.Contains(child, "Working directory: "+wt) && !strings.Contains(child, "Working directory: "+filepath.Join(e.dir, ".ouro", "worktrees", "agent-toolu_01_01"))) {
		t.Errorf("the isolated child's system prompt does not name its worktree %s:\n%s", wt, child)
	}
	res := wtResults(srv)
	for _, id := range []string{"toolu_02_01", "toolu_03_01"} {
		if !strings.Contains(res[id], "outside the workspace") {
			t.Errorf("%s: the child's write into the main checkout was not judged as outside its workspace: %s", id, res[id])
		}
	}
	for _, f := range []string{"escaped.txt", "escaped2.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err == nil {
			t.Errorf("the isolated child wrote %s in the main checkout in bypass mode", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(wt, "f.txt")); err != nil || string(b) != "z\n" {
		t.Errorf("the child's write in its worktree: %q %v (%s)", b, err, res["toolu_04_01"])
	}
}

// With run_in_background the worktree's summary arrives in the task notification.
func TestBackgroundAgentIsolationThroughBinary(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{agentCall("make g.txt", true), bash("sleep 5")[0]}},
		scripted.Turn{ExpectContains: "make g.txt", ToolCalls: bash("echo y > g.txt && git add g.txt && " + commitAs + " 'background work'")},
		scripted.Turn{Text: "BG DONE"},
		scripted.Turn{ExpectContains: "<task-notification>", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "delegate", "--allowedTools", "Bash(sleep *),Bash(echo *),Bash(git *)")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	last := allText(reqs[len(reqs)-1].Messages)
	for _, want := range []string{"BG DONE", "branch ouro/agent-toolu_01_01", "background work", "g.txt | 1 +", "Nothing was merged"} {
		if !strings.Contains(last, want) {
			t.Errorf("the notification lacks %q:\n%s", want, last)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "g.txt")); err == nil {
		t.Error("the child's file appeared in the main checkout")
	}
}

// A WorktreeCreate hook replaces git (it makes the folder and prints its path, as in
// Claude Code) and the session moves there; WorktreeRemove hooks hear of the removal.
func TestWorktreeHooksThroughBinary(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	elsewhere := filepath.Join(e.home, "wts")
	script := `#!/bin/sh
cat > "$CLAUDE_PROJECT_DIR/create-input.json"
name=$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' "$CLAUDE_PROJECT_DIR/create-input.json")
mkdir -p ` + elsewhere + `
git worktree add -q -b "hook/$name" "` + elsewhere + `/$name" >&2 || exit 1
echo "made $name" >&2
echo "` + elsewhere + `/$name"
`
	if err := os.WriteFile(filepath.Join(e.dir, "mk.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.settings(".claude/settings.json", `{"hooks":{
"WorktreeCreate":[{"hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/mk.sh"}]}],
"WorktreeRemove":[{"hooks":[{"type":"command","command":"cat > \"$CLAUDE_PROJECT_DIR\"/removed.json"}]}]}}`)
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "hooked"})},
		scripted.Turn{ToolCalls: bash("pwd -P")},
		scripted.Turn{ToolCalls: call("ExitWorktree", map[string]string{"action": "remove"})},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--allowedTools", "Bash(pwd *)")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res := wtResults(srv)
	made, _ := filepath.EvalSymlinks(filepath.Join(elsewhere, "hooked"))
	if made == "" || !strings.Contains(res["toolu_01_01"], made) || strings.TrimSpace(res["toolu_02_01"]) != made {
		t.Fatalf("the session did not move into the hook's folder %q: %q", made, res)
	}
	var in map[string]any
	if b, err := os.ReadFile(filepath.Join(e.dir, "create-input.json")); err != nil || json.Unmarshal(b, &in) != nil ||
		in["hook_event_name"] != "WorktreeCreate" || in["name"] != "hooked" || in["session_id"] == "" {
		t.Errorf("WorktreeCreate input: %s %v", b, err)
	}
	var rm map[string]any
	if b, err := os.ReadFile(filepath.Join(e.dir, "removed.json")); err != nil || json.Unmarshal(b, &rm) != nil ||
		rm["hook_event_name"] != "WorktreeRemove" || rm["worktree_path"] != made {
		t.Errorf("WorktreeRemove input: %s %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".ouro", "worktrees", "hooked")); err == nil {
		t.Error("git made a worktree too")
	}
}

// Even where no rule asks (bypassPermissions), the sandbox confines a session in a
// worktree: Bash may commit there (the repository's git dir is writable) but not write
// the main checkout.
func TestWorktreeSandboxConfinesThroughBinary(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "sb"})},
		scripted.Turn{ToolCalls: bash("echo escaped > " + filepath.Join(e.dir, "escaped.txt"))},
		scripted.Turn{ToolCalls: bash("echo z > z.txt && git add z.txt && " + commitAs + " 'sandboxed commit' && echo COMMITTED")},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	res := wtResults(srv)
	if strings.Contains(stderr, "sandbox") && strings.Contains(stderr, "not available") {
		t.Skip("no OS sandbox here: " + stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "escaped.txt")); err == nil {
		t.Errorf("the sandbox let a write reach the main checkout: %s", res["toolu_02_01"])
	}
	if !strings.Contains(res["toolu_03_01"], "COMMITTED") {
		t.Errorf("a commit inside the worktree failed: %s", res["toolu_03_01"])
	}
}

// The git dir a worktree shares with the main checkout takes its commits, but a sandboxed
// command there cannot move the user's branches or tags, nor touch the main checkout's
// HEAD and index.
func TestWorktreeCannotMoveTheUsersBranches(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	before := strings.TrimSpace(wtGit(t, e.dir, "rev-parse", "refs/heads/main"))
	wtGit(t, e.dir, "tag", "v1")
	attacks := []string{
		"git update-ref refs/heads/main $(git -c user.name=a -c user.email=a@example.com commit-tree -m evil HEAD^{tree}) 2>&1",
		"git branch -f main HEAD 2>&1",
		"git tag -f v1 $(git -c user.name=a -c user.email=a@example.com commit-tree -m evil HEAD^{tree}) 2>&1",
		"echo 'ref: refs/heads/evil' > " + filepath.Join(e.dir, ".git", "HEAD") + " 2>&1",
	}
	turns := []scripted.Turn{{ToolCalls: call("EnterWorktree", map[string]string{"name": "atk"})},
		{ToolCalls: bash("echo z > z.txt && git add z.txt && " + commitAs + " 'own commit' && echo COMMITTED")}}
	for _, a := range attacks {
		turns = append(turns, scripted.Turn{ToolCalls: bash(a)})
	}
	turns = append(turns, scripted.Turn{Text: "done"})
	srv := e.fake(turns...)
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
	if after := strings.TrimSpace(wtGit(t, e.dir, "rev-parse", "refs/heads/main")); after != before {
		t.Errorf("main moved from %s to %s\n%v", before, after, res)
	}
	if tag := strings.TrimSpace(wtGit(t, e.dir, "rev-parse", "v1^{commit}")); tag != before {
		t.Errorf("tag v1 moved to %s", tag)
	}
	if head, _ := os.ReadFile(filepath.Join(e.dir, ".git", "HEAD")); strings.Contains(string(head), "evil") {
		t.Errorf("the main checkout's HEAD was rewritten: %s", head)
	}
}

// A session that was in a worktree goes back into it when continued.
func TestWorktreeSurvivesResumeThroughBinary(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	srv := e.fake(
		scripted.Turn{ToolCalls: call("EnterWorktree", map[string]string{"name": "res"})},
		scripted.Turn{Text: "entered"},
		scripted.Turn{ToolCalls: bash("pwd -P")},
		scripted.Turn{Text: "done"},
	)
	if out, stderr, code := e.run("", "-p", "enter"); code != 0 || out != "entered\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	out, stderr, code := e.run("", "-p", "where am I", "--continue", "--allowedTools", "Bash(pwd *)")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	wt, _ := filepath.EvalSymlinks(filepath.Join(e.dir, ".ouro", "worktrees", "res"))
	if r := strings.TrimSpace(wtResults(srv)["toolu_03_01"]); wt == "" || r != wt {
		t.Errorf("after --continue Bash runs in %q, want the worktree %s\n%s", r, wt, stderr)
	}
}
