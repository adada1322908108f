package memory

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// What InstructionsLoaded is told: each file loaded at the start with its memory type
// (User, Project, Local), an import as "include" with the file that imported it, and on
// a read a nested folder's CLAUDE.md (nested_traversal) and a rule whose paths: match
// (path_glob_match, with its globs and the file read).
func TestLoadedFilesReasonsAndTypes(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "CLAUDE.md"), "user notes")
	write(filepath.Join(proj, "CLAUDE.md"), "project notes\n@docs/style.md")
	write(filepath.Join(proj, "docs", "style.md"), "tabs")
	write(filepath.Join(proj, "CLAUDE.local.md"), "mine")
	write(filepath.Join(proj, "pkg", "CLAUDE.md"), "pkg notes")
	write(filepath.Join(proj, ".claude", "rules", "go.md"), "---\npaths: [\"**/*.go\"]\n---\ngo rule")
	in := Load(proj, proj, home, nil, 0)
	got := map[string]Loaded{}
	for _, l := range startLoaded(in, home, ReasonSessionStart) {
		got[filepath.Base(filepath.Dir(l.Path))+"/"+filepath.Base(l.Path)] = l
	}
	want := map[string][3]string{ // type, reason, parent
		".claude/CLAUDE.md":                      {"User", "session_start", ""},
		filepath.Base(proj) + "/CLAUDE.md":       {"Project", "session_start", ""},
		"docs/style.md":                          {"Project", "include", filepath.Join(proj, "CLAUDE.md")},
		filepath.Base(proj) + "/CLAUDE.local.md": {"Local", "session_start", ""},
	}
	for k, w := range want {
		l, ok := got[k]
		if !ok || l.MemoryType != w[0] || l.Reason != w[1] || l.Parent != w[2] {
			t.Errorf("%s: %+v (present %v), want %v", k, l, ok, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("loaded %v", got)
	}
	for _, l := range startLoaded(in, home, ReasonCompact) {
		if l.Reason != ReasonCompact || l.Parent != "" {
			t.Errorf("after a summary: %+v", l)
		}
	}

	var told []Loaded
	s := NewSeam(&OnDemand{CWD: proj, RepoRoot: proj, Home: home, Rules: in.Rules, Loaded: in.Sources}, proj, nil, func(string, ...any) {})
	s.OnLoaded(func(_ context.Context, l Loaded) { told = append(told, l) })
	b, _ := json.Marshal(map[string]string{"file_path": filepath.Join(proj, "pkg", "a.go")})
	s.AfterTool(context.Background(), tool.Call{Name: "Read", Input: b}, &tool.Result{})
	conv := &agent.Conversation{}
	if err := s.BeforeModel(context.Background(), &agent.Turn{Conv: conv, Req: &llm.Request{}}); err != nil {
		t.Fatal(err)
	}
	trigger := canonical(filepath.Join(proj, "pkg", "a.go"))
	var reasons []string
	for _, l := range told {
		reasons = append(reasons, l.Reason)
		if canonical(l.Trigger) != trigger || l.MemoryType != "Project" {
			t.Errorf("on demand: %+v", l)
		}
		if l.Reason == ReasonPathGlobMatch && !slices.Equal(l.Globs, []string{"**/*.go"}) {
			t.Errorf("rule globs %v", l.Globs)
		}
	}
	slices.Sort(reasons)
	if !slices.Equal(reasons, []string{ReasonNestedTraversal, ReasonPathGlobMatch}) {
		t.Errorf("on demand reasons %v (%+v)", reasons, told)
	}
}
