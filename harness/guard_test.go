package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/permission"
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

// A read outside the workspace that the person approves happens; that approval reaches
// that one file only: a sibling is asked about again.
func TestApprovedOutsideReadHappens(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notes, sibling := filepath.Join(other, "notes.txt"), filepath.Join(other, "sibling.txt")
	if err := os.WriteFile(notes, []byte("the outside notes say 4217\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sibling, []byte("sibling secret 9931\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ap := &scriptedApprover{answers: []permission.Choice{permission.Once, permission.No, permission.Once}}
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: toolCall("Read", map[string]any{"file_path": notes})},
		{ExpectContains: "the outside notes say 4217", ToolCalls: toolCall("Read", map[string]any{"file_path": sibling})},
		{ExpectContains: "the user refused", ToolCalls: toolCall("Read", map[string]any{"file_path": notes})},
		{ExpectContains: "the outside notes say 4217", Text: "done"},
	}, func(o *Options) { o.Access.Mode = ""; o.UI.Approver = ap })
	if out := s.Run(context.Background(), "read the notes"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if len(ap.prompts) != 3 {
		t.Fatalf("asked %d times, want 3 (the sibling and the second read, approved once, are asked about again)", len(ap.prompts))
	}
	if !strings.Contains(ap.prompts[1].Summary, sibling) {
		t.Fatalf("second prompt is about %q, want the sibling", ap.prompts[1].Summary)
	}
	if _, err := s.Workspace.Resolve(sibling); err == nil {
		t.Fatal("the refused sibling became reachable")
	}
	if s.Workspace.Contains(notes) {
		t.Fatalf("an approved file became part of the workspace: roots %v", s.Workspace.Roots())
	}
}

// An approved search of a folder outside the workspace searches it; an approved write
// outside creates the file.
func TestApprovedOutsideSearchAndWriteHappen(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "a.txt"), []byte("needle 5520\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	created := filepath.Join(other, "sub", "new.txt")
	ap := &scriptedApprover{}
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: toolCall("Grep", map[string]any{"pattern": "needle", "path": other, "output_mode": "content"})},
		{ExpectContains: "needle 5520", ToolCalls: toolCall("Write", map[string]any{"file_path": created, "content": "hi\n"})},
		{ExpectContains: "created", Text: "done"},
	}, func(o *Options) { o.Access.Mode = ""; o.UI.Approver = ap })
	if out := s.Run(context.Background(), "search and write"); !out.OK() {
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
	home, cwd := t.TempDir(), t.TempDir()
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notes, sibling := filepath.Join(other, "notes.txt"), filepath.Join(other, "sibling.txt")
	for f, text := range map[string]string{notes: "allowed notes 5150\n", sibling: "sibling 8080\n"} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: toolCall("Read", map[string]any{"file_path": notes})},
		{ExpectContains: "allowed notes 5150", ToolCalls: toolCall("Read", map[string]any{"file_path": sibling})},
		{ExpectContains: "Permission denied", Text: "done"},
	}, func(o *Options) { o.Access.Mode = ""; o.Access.Allow = []string{"Read(/" + notes + ")"} })
	if out := s.Run(context.Background(), "read the notes"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
}

// An audit log that cannot be written (here: on a full disk) stops nothing, and the user
// is told once, however many records are lost.
func TestAuditWriteFailureIsToldOnce(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to stand for a full disk")
	}
	home, cwd := t.TempDir(), t.TempDir()
	proj := ProjectDirFor(home, cwd)
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", filepath.Join(proj, "audit.jsonl")); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: bash("echo one > a.txt")},
		{ToolCalls: bash("echo two > b.txt")},
		{Text: "wrote both"},
	}, func(o *Options) { o.UI.Warn = &warn })
	if out := s.Run(context.Background(), "write"); !out.OK() {
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
