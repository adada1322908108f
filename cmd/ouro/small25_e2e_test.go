//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// ouro team --json with no team prints the shape a team's state has, with no members,
// and exits 0: whether no session has run here, or the list named has no team.
func TestTeamJSONWithNoTeam(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		team string
	}{{[]string{"team", "--json"}, ""}, {[]string{"team", "--json", "--list", "crew"}, "crew"}} {
		out, errOut, code := e.run("", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", c.args, code, out, errOut)
		}
		var s struct {
			Team    string            `json:"team"`
			Members []json.RawMessage `json:"members"`
			Tokens  *int              `json:"tokens"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: not JSON (%v):\n%s", c.args, err, out)
		}
		if s.Team != c.team || s.Members == nil || len(s.Members) != 0 || s.Tokens == nil {
			t.Fatalf("%v: %s", c.args, out)
		}
	}
}

// ouro workflow show takes the start of a run id (with or without wf_) or a workflow's
// name; one that fits several runs lists them. --resume resumes the run shown with its
// own script and args: a finished one replays every call, asking the model nothing.
func TestWorkflowShowPrefixAndResume(t *testing.T) {
	e := newEnv(t)
	saved := filepath.Join(e.dir, ".ouro", "workflows")
	if err := os.MkdirAll(saved, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "export const meta = { name: 'audit', description: 'one agent' };\nreturn await agent('AUDIT-PROMPT ' + args.what, {label: 'auditor'});"
	if err := os.WriteFile(filepath.Join(saved, "audit.js"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, what := range []string{"deps", "docs"} {
		e.fake(scripted.Turn{Text: "audited " + what})
		out, stderr, code := e.run("", "workflow", "run", "audit", "--args", `{"what":"`+what+`"}`)
		m := wfRunID.FindStringSubmatch(stderr)
		if code != 0 || m == nil {
			t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
		}
		ids = append(ids, m[1])
	}
	_, stderr, code := e.run("", "workflow", "show", "audit")
	if code == 0 || !strings.Contains(stderr, `"audit" matches 2 workflow runs`) || !strings.Contains(stderr, ids[0]) || !strings.Contains(stderr, ids[1]) {
		t.Fatalf("an ambiguous name: exit %d\n%s", code, stderr)
	}
	for _, prefix := range []string{ids[0][:11], strings.TrimPrefix(ids[0], "wf_")[:8]} {
		show, stderr, code := e.run("", "workflow", "show", prefix)
		if code != 0 || !strings.HasPrefix(show, ids[0]+"  audit  completed") || !strings.Contains(show, "audited deps") {
			t.Fatalf("show %s: exit %d\n%s\n%s", prefix, code, show, stderr)
		}
	}
	srv := e.fake(scripted.Turn{Text: "a model call a full replay must not make"})
	out, stderr, code := e.run("", "workflow", "show", ids[1][:12], "--resume")
	if code != 0 || !strings.Contains(out, ids[1]+"  audit  completed") || !strings.Contains(out, `"audited docs"`) ||
		!strings.Contains(stderr, "resuming "+ids[1]) || !strings.Contains(stderr, "1 agents (1 replayed)") || len(srv.Requests()) != 0 {
		t.Fatalf("show --resume: exit %d, %d requests\n%s\n%s", code, len(srv.Requests()), out, stderr)
	}
}

// A tool block names a file inside the workspace relative to it, in the terminal
// interface and in the line interface.
func TestToolBlocksShowWorkspacePathsRelative(t *testing.T) {
	e := newRewindEnv(t)
	if err := os.MkdirAll(filepath.Join(e.dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "pkg", "foo.go"), []byte("package pkg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(e.dir, "pkg", "foo.go")
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead(abs)}}, scripted.Turn{Text: "READ-DONE"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead(abs)}}, scripted.Turn{Text: "READ-AGAIN"})
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("read foo")
	r.waitFor(m, "READ-DONE")
	if s := r.text()[m:]; !strings.Contains(s, "Read(pkg/foo.go)") || strings.Contains(s, "Read("+e.dir) {
		t.Fatalf("the terminal interface's tool block:\n%s", s)
	}
	r.exit()

	out, errOut, code := e.run("read it again\n/exit\n")
	if code != 0 || !strings.Contains(out, "⏺ Read(pkg/foo.go)") || strings.Contains(out, "Read("+e.dir) {
		t.Fatalf("the line interface: exit %d\n%s\n%s", code, out, errOut)
	}
}

// The tools `ouro mcp serve` lists are the ones README.md says it serves, no more, and
// the instructions it gives the client name them.
func TestMCPServeToolsAreTheREADMEs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`ouro mcp serve` offers ouro's own\\s+tools \\(([^)]*)\\)").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md no longer says which tools `ouro mcp serve` offers")
	}
	listed := strings.Join(strings.Fields(string(m[1])), " ")
	want := strings.Split(listed, ", ")
	slices.Sort(want)
	e := newEnv(t)
	cs := serveClient(t, e)
	var got []string
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tl.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("tools/list = %v; README.md says %v", got, want)
	}
	if r := cs.InitializeResult(); r == nil || !strings.Contains(r.Instructions, "("+listed+")") {
		t.Fatalf("the instructions do not name the served tools as README.md does: %+v", r)
	}
}

// freshHomeEnv is newEnv without the developer's Go cache locations: the go and npm
// caches' defaults lie in the fresh HOME, as for someone who never ran go there.
func freshHomeEnv(t *testing.T) *env {
	e := newRewindEnv(t)
	e.vars = slices.DeleteFunc(e.vars, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "GOCACHE" || k == "GOMODCACHE" || k == "GOPATH" || k == "XDG_CACHE_HOME" || strings.HasPrefix(k, "npm_config_")
	})
	return e
}

// caches lists the tool caches that exist in HOME.
func (e *env) caches() []string {
	var found []string
	for _, c := range []string{"go", ".cache/go-build", ".npm"} {
		if _, err := os.Lstat(filepath.Join(e.home, c)); err == nil {
			found = append(found, "~/"+c)
		}
	}
	return found
}

// Starting ouro (-p, and the terminal interface) creates no go or npm cache in HOME: they
// are made when a sandboxed command first runs, which may need them.
func TestFirstStartCreatesNoToolCachesInHome(t *testing.T) {
	e := freshHomeEnv(t)
	e.fake(scripted.Turn{Text: "HELLO-P"}, scripted.Turn{Text: "HELLO-TUI"})
	out, errOut, code := e.run("", "-p", "hi")
	if code != 0 || !strings.Contains(out, "HELLO-P") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if c := e.caches(); len(c) > 0 {
		t.Fatalf("ouro -p created %v", c)
	}
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("hello")
	r.waitFor(m, "HELLO-TUI")
	r.exit()
	if c := e.caches(); len(c) > 0 {
		t.Fatalf("the terminal interface created %v", c)
	}
	// A sandboxed command gets caches of its own for the workspace (a build in it can
	// write its cache), and the user's are left alone.
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("no sandbox here: the caches a sandboxed command gets are not tried")
	}
	e.fake(scripted.Turn{ToolCalls: bash("echo built")}, scripted.Turn{Text: "RAN"})
	out, errOut, code = e.run("", "-p", "run it", "--allowedTools", "Bash(echo *)")
	own, _ := filepath.Glob(filepath.Join(e.home, ".cache", "ouro-sandbox", "*", "*"))
	if code != 0 || !strings.Contains(out, "RAN") || len(own) != 4 || len(e.caches()) != 0 {
		t.Fatalf("after a sandboxed command: exit %d, the sandbox's caches %v, the user's %v\n%s\n%s", code, own, e.caches(), out, errOut)
	}
}

// The commands Claude Code users type on day one: /config, /add-dir, /agents, /hooks,
// /context, all in /help.
func TestDayOneSlashCommands(t *testing.T) {
	e := newEnv(t)
	e.settings(".claude/settings.json", `{"memory": {"extractOnExit": false}, "model": "claude-sonnet-4-5",
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo HOOK-MARK"}]}]}}`)
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, ".claude", "agents", "reviewer.md"), []byte("---\nname: reviewer\ndescription: REVIEWS-CODE\n---\nReview.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "AGENTS.md"), []byte("# Notes\nINSTRUCTION-TEXT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "far.txt"), []byte("FAR-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	far := filepath.Join(other, "far.txt")
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead(far)}}, scripted.Turn{ExpectContains: "FAR-CONTENT", Text: "READ-FAR"})
	out, errOut, code := e.run("/help\n/config\n/hooks\n/agents\n/add-dir " + filepath.Join(e.dir, "missing") + "\n/add-dir " + other + "\nread far.txt\n/context\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	all := out + errOut
	for _, want := range []string{
		"/config", "/add-dir DIR", "/agents", "/hooks", "/context", // in /help
		"Settings files (most binding first):\n  " + filepath.Join(e.dir, ".claude", "settings.json"),
		"model             claude-sonnet-4-5 (from " + filepath.Join(e.dir, ".claude", "settings.json"),
		"PreToolUse:\n  [Bash] command: echo HOOK-MARK  — " + filepath.Join(e.dir, ".claude", "settings.json"),
		"reviewer  (project, " + filepath.Join(e.dir, ".claude", "agents", "reviewer.md"), "REVIEWS-CODE", "Explore  (built-in",
		"/add-dir: allowed directory " + filepath.Join(e.dir, "missing"),
		"added " + other + " as a working directory",
		"READ-FAR",
		"Context: ~", "system prompt", "tools  ", "messages", "(4 messages)", "instructions: " + filepath.Join(e.dir, "AGENTS.md"),
	} {
		if !strings.Contains(all, want) {
			t.Fatalf("no %q in:\n%s", want, all)
		}
	}
}
