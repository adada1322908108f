package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/internal/textcut"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadInstructionsOrderAndImports(t *testing.T) {
	home := t.TempDir()
	repo := t.TempDir()
	cwd := filepath.Join(repo, "pkg", "sub")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "user rule @~/extra.md")
	write(t, filepath.Join(home, "extra.md"), "extra from home")
	write(t, filepath.Join(repo, "AGENTS.md"), "root agents <!-- secret comment --> visible")
	write(t, filepath.Join(repo, "CLAUDE.md"), "root claude\nsee @docs/style.md\n`@notimported.md`\n```\n@alsonot.md\n```\n<!--\nmulti\n-->after")
	write(t, filepath.Join(repo, "docs", "style.md"), "style guide @../a.md")
	write(t, filepath.Join(repo, "a.md"), "A @b.md")
	write(t, filepath.Join(repo, "b.md"), "B @a.md")
	write(t, filepath.Join(repo, "notimported.md"), "NOPE1")
	write(t, filepath.Join(repo, "alsonot.md"), "NOPE2")
	write(t, filepath.Join(repo, "pkg", ".claude", "CLAUDE.md"), "pkg dot claude")
	write(t, filepath.Join(cwd, "CLAUDE.md"), "sub claude")
	write(t, filepath.Join(repo, "CLAUDE.local.md"), "local notes")

	text, sources, warnings := LoadInstructions(cwd, repo, home, nil)
	order := []string{"user rule", "extra from home", "root agents", "visible", "root claude", "style guide", "A ", "B ", "after", "local notes", "pkg dot claude", "sub claude"}
	pos := -1
	for _, s := range order {
		i := strings.Index(text, s)
		if i < 0 || i < pos {
			t.Fatalf("%q missing or out of order in:\n%s", s, text)
		}
		pos = i
	}
	for _, bad := range []string{"secret comment", "multi", "NOPE1", "NOPE2"} {
		if strings.Contains(text, bad) {
			t.Errorf("text contains %q", bad)
		}
	}
	if !strings.Contains(text, "Contents of "+filepath.Join(repo, "CLAUDE.md")) {
		t.Errorf("part not headed with its path")
	}
	if len(sources) != 10 {
		t.Errorf("sources = %v", sources)
	}
	found := false
	for _, w := range warnings {
		if strings.Contains(w, "cycle") {
			found = true
		}
	}
	if !found {
		t.Errorf("no cycle warning: %v", warnings)
	}
}

func TestLoadInstructionsDepthAndCap(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "CLAUDE.md"), "L0 @1.md")
	for i := 1; i <= 7; i++ {
		write(t, filepath.Join(repo, string(rune('0'+i))+".md"), "L"+string(rune('0'+i))+" @"+string(rune('0'+i+1))+".md")
	}
	text, _, warnings := LoadInstructions(repo, repo, "", nil)
	if !strings.Contains(text, "L5") || strings.Contains(text, "L6") {
		t.Errorf("depth not capped at 5:\n%s", text)
	}
	if len(warnings) == 0 || !strings.Contains(warnings[0], "deep") {
		t.Errorf("warnings = %v", warnings)
	}

	// Over budget, the least specific file gives way, not the most specific.
	sub := filepath.Join(repo, "sub")
	write(t, filepath.Join(repo, "AGENTS.md"), strings.Repeat("x", 40*1024))
	write(t, filepath.Join(sub, "CLAUDE.md"), "MOST-SPECIFIC rule")
	text, _, warnings = LoadInstructions(sub, repo, "", nil)
	if len(text) > MaxInstructionBytes || !strings.Contains(text, "MOST-SPECIFIC rule") || !strings.Contains(text, "AGENTS.md left out") {
		t.Errorf("budget: %d bytes\n%s", len(text), textcutHead(text))
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "AGENTS.md was left out") {
		t.Errorf("no warning: %v", warnings)
	}
	// A larger budget (a share of a big context window) keeps everything.
	text, _, _ = LoadInstructionsWithin(sub, repo, "", nil, 1<<20)
	if !strings.Contains(text, strings.Repeat("x", 40*1024)) || !strings.Contains(text, "MOST-SPECIFIC rule") {
		t.Error("a large budget still cut")
	}
	// The most specific file alone over budget is cut at its end.
	write(t, filepath.Join(sub, "CLAUDE.md"), "MOST-SPECIFIC "+strings.Repeat("y", 40*1024))
	text, _, _ = LoadInstructions(sub, repo, "", nil)
	if !strings.Contains(text, "MOST-SPECIFIC") || !strings.Contains(text, "truncated") {
		t.Errorf("most specific alone: %s", textcutHead(text))
	}
}

func textcutHead(s string) string { return textcut.Bytes(s, 300, "…") }

// CLAUDE.md that imports the AGENTS.md beside it (what most projects do) has it once.
func TestLoadInstructionsEachFileOnce(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "AGENTS.md"), "SHARED-RULES")
	write(t, filepath.Join(repo, "CLAUDE.md"), "@AGENTS.md\nclaude only")
	text, _, warnings := LoadInstructions(repo, repo, "", nil)
	if n := strings.Count(text, "SHARED-RULES"); n != 1 || !strings.Contains(text, "claude only") {
		t.Errorf("AGENTS.md appears %d times:\n%s", n, text)
	}
	for _, w := range warnings {
		if strings.Contains(w, "cycle") {
			t.Errorf("a cycle warning without a cycle: %s", w)
		}
	}
}

func TestLoadInstructionsUserOuroAndNoRepo(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	write(t, filepath.Join(home, ".ouro", "AGENTS.md"), "ouro agents; mail me at a@b.io")
	write(t, filepath.Join(home, ".ouro", "CLAUDE.md"), "ouro claude")
	write(t, filepath.Join(cwd, "AGENTS.md"), "cwd agents")
	text, sources, warnings := LoadInstructions(cwd, "", home, nil)
	if len(sources) != 3 || len(warnings) != 0 {
		t.Fatalf("sources %v warnings %v", sources, warnings)
	}
	if !(strings.Index(text, "ouro agents") < strings.Index(text, "ouro claude") && strings.Index(text, "ouro claude") < strings.Index(text, "cwd agents")) {
		t.Errorf("order:\n%s", text)
	}
	if !strings.Contains(text, "a@b.io") {
		t.Errorf("e-mail mangled:\n%s", text)
	}
	if text, sources, _ := LoadInstructions(t.TempDir(), "", t.TempDir(), nil); text != "" || len(sources) != 0 {
		t.Errorf("empty dirs gave %q %v", text, sources)
	}
}
