//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// The slash commands of issue 18 through the real binary: /status, /permissions (view
// and allow), /memory, /export (never over an existing file), /doctor.
func TestSlashCommandsStatusPermissionsMemoryExport(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(scripted.Turn{Text: "hello there"})
	if err := os.WriteFile(filepath.Join(e.dir, "taken.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.run("hi\n/status\n/permissions allow Bash(go test:*)\n/permissions\n/memory\n/export out.txt\n/export taken.txt\n/doctor\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"transcript", "mode        default", "allow rule Bash(go test:*) added, saved to",
		"Bash(go test:*)  — ", "project memory", "exported 2 messages to", "taken.txt exists; give another path"} {
		if !strings.Contains(out+errOut, want) {
			t.Fatalf("no %q in:\n%s\n%s", want, out, errOut)
		}
	}
	// The rule saved is listed with the file it went to, not as a session-only one.
	if !strings.Contains(out, "Bash(go test:*)  — "+filepath.Join(e.dir, ".ouro", "settings.local.json")) || strings.Contains(out, "Bash(go test:*)  — this session") {
		t.Fatalf("/permissions does not say where the rule was saved:\n%s", out)
	}
	if got := e.readFile("out.txt"); !strings.Contains(got, "hello there") || !strings.Contains(got, "hi") {
		t.Fatalf("export = %q", got)
	}
	if got := e.readFile("taken.txt"); got != "mine\n" {
		t.Fatalf("an existing file was overwritten: %q", got)
	}
	local := e.readFile(".ouro/settings.local.json")
	var s struct {
		Permissions struct{ Allow []string } `json:"permissions"`
	}
	if err := json.Unmarshal([]byte(local), &s); err != nil || len(s.Permissions.Allow) != 1 || s.Permissions.Allow[0] != "Bash(go test:*)" {
		t.Fatalf("settings.local.json = %s (%v)", local, err)
	}
}

// /resume lists this folder's earlier sessions and continues the one picked; /model
// switches the model and keeps the conversation.
func TestSlashResumePickerAndModel(t *testing.T) {
	e := newRewindEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "first answer"},
		scripted.Turn{Text: "second session"},
		scripted.Turn{ExpectContains: "continue", Text: "continued"},
	)
	if out, errOut, code := e.run("remember the word kiwi\n/exit\n"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := e.run("another\n/resume\n1\n/model claude-haiku-4-5\ncontinue\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, `"remember the word kiwi"`) || !strings.Contains(out, "resumed session") || !strings.Contains(out, "model: claude-haiku-4-5") {
		t.Fatalf("no picker or switch:\n%s\n%s", out, errOut)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var body struct{ Model string }
	if err := json.Unmarshal(last.Body, &body); err != nil || body.Model != "claude-haiku-4-5" {
		t.Fatalf("the last request went to %q (%v)", body.Model, err)
	}
	var texts []string
	for _, m := range last.Messages {
		for _, b := range m.Content {
			texts = append(texts, b.Text)
		}
	}
	if j := strings.Join(texts, "|"); !strings.Contains(j, "kiwi") || strings.Contains(j, "another") {
		t.Fatalf("the resumed conversation is not the picked one: %s", j)
	}
}

// /init writes AGENTS.md from the scout's checked survey, and keeps an existing one.
func TestSlashInitWritesAgentsFromScout(t *testing.T) {
	e := newRewindEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := "## Entry points\n- `main.go:3` — main does nothing yet.\n## Core modules\n- `main.go:1` — one package.\n## Tests\n- `go.mod:1` — go test ./... (module example.com/demo).\n## Risks\n- `main.go:3` — nothing is implemented."
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead("main.go"), rwRead("go.mod")}},
		scripted.Turn{Text: report},
	)
	out, errOut, code := e.run("/init\n/init\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	got := e.readFile("AGENTS.md")
	if !strings.Contains(got, "main.go:3") || !strings.Contains(got, "## Risks") || !strings.Contains(out, "wrote ") {
		t.Fatalf("AGENTS.md = %q\n%s\n%s", got, out, errOut)
	}
	if !strings.Contains(errOut, "AGENTS.md exists; /init force replaces it") {
		t.Fatalf("the second /init did not keep the file:\n%s", errOut)
	}
}

// /permissions deny and ask take effect at once and are saved; /permissions remove
// takes a rule out of .ouro/settings.local.json and the session, and says which file
// holds one it cannot remove.
func TestSlashPermissionsDenyAskRemove(t *testing.T) {
	e := newRewindEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(echo:*)"]}}`)
	e.fake(
		scripted.Turn{ToolCalls: bash("echo one")},
		scripted.Turn{ExpectContains: "denied", Text: "refused as asked"},
		scripted.Turn{ToolCalls: bash("echo two")},
		scripted.Turn{ExpectContains: "two", Text: "ran again"},
	)
	in := "/permissions deny Bash(echo:*)\n/permissions ask Read\ntry\n/permissions remove Bash(echo:*)\n/permissions remove Bash(echo:*)\n/permissions remove Nothing(here)\nagain\n/exit\n"
	out, errOut, code := e.run(in)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"deny rule Bash(echo:*) added", "ask rule Read added", "refused as asked",
		"removed Bash(echo:*) (deny)", "Bash(echo:*) stays: it comes from " + filepath.Join(e.dir, ".claude", "settings.json"),
		"there is no rule Nothing(here)", "ran again"} {
		if !strings.Contains(out+errOut, want) {
			t.Fatalf("no %q in:\n%s\n%s", want, out, errOut)
		}
	}
	local := e.readFile(".ouro/settings.local.json")
	var s struct {
		Permissions struct{ Allow, Ask, Deny []string } `json:"permissions"`
	}
	if err := json.Unmarshal([]byte(local), &s); err != nil || len(s.Permissions.Deny) != 0 || len(s.Permissions.Ask) != 1 || s.Permissions.Ask[0] != "Read" {
		t.Fatalf("settings.local.json = %s (%v)", local, err)
	}
}
