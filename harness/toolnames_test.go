package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool/toolnames"
)

// The names of ouro's tools that agent files, rules and matchers are read with come from
// the registries sessions assemble, not from a list kept by hand: this test assembles
// sessions that offer every tool (the default, with workflows on, with a skill), and
// tool/toolnames/ouro.go must hold exactly their names. Run `go generate
// ./tool/toolnames` (OURO_WRITE_TOOLNAMES=1) to write it after adding a tool.
func TestToolNamesComeFromTheRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range defaultHidden { // registered, then kept back for agents that name them
		seen[n] = true
	}
	for _, mod := range []func(*Options, string){
		nil,
		func(o *Options, _ string) {
			// The Workflow tool is offered when the program serves the workflow engine
			// mode (TestMain calls wfserve.MaybeServe).
			o.Access.Workflows = true
		},
		func(_ *Options, cwd string) {
			dir := filepath.Join(cwd, ".claude", "skills", "pdf")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pdf\ndescription: reads PDF files\n---\nUse pdftotext.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		func(o *Options, _ string) { o.JSONSchema = json.RawMessage(`{"type":"object"}`) }, // StructuredOutput
	} {
		home, cwd := t.TempDir(), t.TempDir()
		s, _ := open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, func(o *Options) {
			if mod != nil {
				mod(o, cwd)
			}
		})
		for _, n := range s.Tools.Names() {
			seen[n] = true
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, must := range []string{"Bash", "CronCreate", "SendMessage", "Skill", "Workflow", "TodoWrite", "StructuredOutput"} {
		if !seen[must] {
			t.Errorf("no session registered %s: the configurations above no longer offer every tool (%v)", must, names)
		}
	}
	want := toolnames.Source(names)
	path := filepath.Join("..", "tool", "toolnames", "ouro.go")
	if os.Getenv("OURO_WRITE_TOOLNAMES") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return // the package compiled into this test still holds the old names
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: the registries hold %s; run go generate ./tool/toolnames", path, strings.Join(names, ", "))
	}
	if !slices.Equal(toolnames.Ouro(), names) {
		t.Errorf("toolnames.Ouro() = %v, want %v", toolnames.Ouro(), names)
	}
}
