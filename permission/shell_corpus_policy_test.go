package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// TestShellCorpus decides every line of the corpus with the policy and compares.
func TestShellCorpus(t *testing.T) {
	c, err := loadShellCorpus(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	home := filepath.Join(root, "home")
	for _, d := range []string{proj, filepath.Join(proj, "src"), filepath.Join(proj, "sub"),
		filepath.Join(proj, "secrets"), filepath.Join(proj, ".git"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The folders are real paths (a symlinked TMPDIR would not match its rewrites).
	if proj, err = filepath.EvalSymlinks(proj); err != nil {
		t.Fatal(err)
	}
	if home, err = filepath.EvalSymlinks(home); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(proj)
	if err != nil {
		t.Fatal(err)
	}
	rules := func(texts []string) []settings.Rule {
		var out []settings.Rule
		for _, s := range texts {
			out = append(out, settings.Rule{Text: s, Source: "shell_corpus.txt", Root: proj})
		}
		return out
	}
	st := &settings.Settings{Permissions: settings.Permissions{
		Allow: rules(c.allow), Ask: rules(c.ask), Deny: rules(c.deny), DefaultMode: settings.Sourced[string]{Value: c.mode},
	}}
	p, err := NewPolicy(PolicyConfig{Settings: st, Workspace: ws, Home: home, ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Fatalf("the corpus rules do not parse: %v", probs)
	}
	rewrite := strings.NewReplacer(c.workspace, proj, c.home, home)
	for _, k := range c.cases {
		command := rewrite.Replace(k.command)
		in, _ := json.Marshal(map[string]string{"command": command})
		v := p.Check(context.Background(), tool.Call{ID: "corpus", Name: "Bash", Input: in})
		if got := v.Behavior.String(); got != k.decision {
			t.Errorf("shell_corpus.txt:%d: %q: got %s, want %s\n\tsource: %s\n\treason: %s",
				k.line, k.command, got, k.decision, v.Source, v.Reason)
		}
	}
}
