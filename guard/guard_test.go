package guard

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// scriptedApprover answers prompts in order (Once when it runs out) and keeps them.
type scriptedApprover struct {
	answers []permission.Choice
	prompts []permission.Prompt
}

func (a *scriptedApprover) Approve(_ context.Context, p permission.Prompt) (permission.Answer, error) {
	a.prompts = append(a.prompts, p)
	c := permission.Once
	if i := len(a.prompts) - 1; i < len(a.answers) {
		c = a.answers[i]
	}
	return permission.Answer{Choice: c, Reason: "not that one"}, nil
}

func toolCall(name string, in map[string]any) []scripted.ToolCall {
	b, _ := json.Marshal(in)
	return []scripted.ToolCall{{Name: name, Input: b}}
}

// run is a session of the guard alone: its part on an agent with the file tools and
// Bash, in cwd, with settings allow (permission flags) in default mode.
type run struct {
	guard *Guard
	ws    *workspace.Workspace
	agent *agent.Agent
}

func newRun(t *testing.T, cwd, project string, allow []string, c Config, turns []scripted.Turn) *run {
	t.Helper()
	ws, err := workspace.New(cwd)
	if err != nil {
		t.Fatal(err)
	}
	var rules []settings.Rule
	for _, a := range allow {
		rules = append(rules, settings.Rule{Text: a, Source: "--allowedTools", Root: cwd})
	}
	if c.Settings == nil {
		c.Settings = &settings.Settings{Permissions: settings.Permissions{Allow: rules, DefaultMode: settings.Sourced[string]{Value: "default"}}}
	}
	if c.Warn == nil {
		c.Warn = io.Discard
	}
	c.Home = t.TempDir()
	p, err := Join(mechanism.Env{Workspace: ws, CWD: cwd, Project: project}, c)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Handle.(*Guard)
	t.Cleanup(func() { g.Close(context.Background()) })
	files := tools.NewFileState()
	grep := tools.NewGrep(ws)
	grep.SetReadFilter(g.Policy.ReadDenied)
	reg := tool.NewRegistry()
	for _, tl := range []tool.Tool{tools.NewRead(ws, files), grep, tools.NewWrite(ws, files), tools.NewBash(tools.BashConfig{Dir: cwd, Within: ws.Contains})} {
		if err := reg.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	g.Policy.SetTools(reg)
	cfg := agent.Config{Provider: scripted.New(&scripted.Script{Turns: turns}), Model: "scripted", Tools: reg}
	mechanism.Seams(&cfg, p)
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &run{guard: g, ws: ws, agent: a}
}

func (r *run) run(prompt string) agent.Outcome {
	return r.agent.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
}

// A read outside the workspace that the person approves happens; that approval reaches
// that one file only: a sibling is asked about again.
func TestApprovedOutsideReadHappens(t *testing.T) {
	cwd := realDir(t)
	other := realDir(t)
	notes, sibling := filepath.Join(other, "notes.txt"), filepath.Join(other, "sibling.txt")
	if err := os.WriteFile(notes, []byte("the outside notes say 4217\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sibling, []byte("sibling secret 9931\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ap := &scriptedApprover{answers: []permission.Choice{permission.Once, permission.No, permission.Once}}
	r := newRun(t, cwd, t.TempDir(), nil, Config{Approver: ap}, []scripted.Turn{
		{ToolCalls: toolCall("Read", map[string]any{"file_path": notes})},
		{ExpectContains: "the outside notes say 4217", ToolCalls: toolCall("Read", map[string]any{"file_path": sibling})},
		{ExpectContains: "the user refused", ToolCalls: toolCall("Read", map[string]any{"file_path": notes})},
		{ExpectContains: "the outside notes say 4217", Text: "done"},
	})
	if out := r.run("read the notes"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if len(ap.prompts) != 3 {
		t.Fatalf("asked %d times, want 3 (the sibling and the second read, approved once, are asked about again)", len(ap.prompts))
	}
	if !strings.Contains(ap.prompts[1].Summary, sibling) {
		t.Fatalf("second prompt is about %q, want the sibling", ap.prompts[1].Summary)
	}
	if _, err := r.ws.Resolve(sibling); err == nil {
		t.Fatal("the refused sibling became reachable")
	}
	if r.ws.Contains(notes) {
		t.Fatalf("an approved file became part of the workspace: roots %v", r.ws.Roots())
	}
}

// An approved search of a folder outside the workspace searches it; an approved write
// outside creates the file.
func TestApprovedOutsideSearchAndWriteHappen(t *testing.T) {
	cwd, other := realDir(t), realDir(t)
	if err := os.WriteFile(filepath.Join(other, "a.txt"), []byte("needle 5520\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	created := filepath.Join(other, "sub", "new.txt")
	ap := &scriptedApprover{}
	r := newRun(t, cwd, t.TempDir(), nil, Config{Approver: ap}, []scripted.Turn{
		{ToolCalls: toolCall("Grep", map[string]any{"pattern": "needle", "path": other, "output_mode": "content"})},
		{ExpectContains: "needle 5520", ToolCalls: toolCall("Write", map[string]any{"file_path": created, "content": "hi\n"})},
		{ExpectContains: "created", Text: "done"},
	})
	if out := r.run("search and write"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if b, err := os.ReadFile(created); err != nil || string(b) != "hi\n" {
		t.Fatalf("written file: %q, %v", b, err)
	}
	if len(ap.prompts) != 2 {
		t.Fatalf("asked %d times, want 2", len(ap.prompts))
	}
}

// An allow rule for a path outside the workspace works at the tool too (before, the rule
// allowed the call and the tool then refused it as outside); a path no rule covers is
// still refused in a headless run.
func TestRuleAllowedOutsideReadHappens(t *testing.T) {
	cwd, other := realDir(t), realDir(t)
	notes, sibling := filepath.Join(other, "notes.txt"), filepath.Join(other, "sibling.txt")
	for f, text := range map[string]string{notes: "allowed notes 5150\n", sibling: "sibling 8080\n"} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := newRun(t, cwd, t.TempDir(), []string{"Read(/" + notes + ")"}, Config{}, []scripted.Turn{
		{ToolCalls: toolCall("Read", map[string]any{"file_path": notes})},
		{ExpectContains: "allowed notes 5150", ToolCalls: toolCall("Read", map[string]any{"file_path": sibling})},
		{ExpectContains: "Permission denied", Text: "done"},
	})
	if out := r.run("read the notes"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
}

// An audit log that cannot be written (here: on a full disk) stops nothing, and the user
// is told once, however many records are lost.
func TestAuditWriteFailureIsToldOnce(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to stand for a full disk")
	}
	cwd, proj := realDir(t), t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(proj, "audit.jsonl")); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	r := newRun(t, cwd, proj, []string{"Bash"}, Config{Warn: &warn}, []scripted.Turn{
		{ToolCalls: toolCall("Bash", map[string]any{"command": "echo one > a.txt"})},
		{ToolCalls: toolCall("Bash", map[string]any{"command": "echo two > b.txt"})},
		{Text: "wrote both"},
	})
	if out := r.run("write"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "b.txt")); err != nil || string(b) != "two\n" {
		t.Fatalf("the second call did not run: %q %v", b, err)
	}
	const told = "ouro: WARNING: the audit log could not be written"
	if n := strings.Count(warn.String(), told); n != 1 || !strings.Contains(warn.String(), "no space left on device") {
		t.Fatalf("told %d times, want once:\n%s", n, warn.String())
	}
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
