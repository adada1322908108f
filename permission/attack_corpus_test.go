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

var attackCorpusPath = filepath.Join("..", "shell", "testdata", "attack_corpus.txt")

// attackWorld lays out the workspace the attack corpus describes and returns the
// workspace and home folders (real paths).
func attackWorld(t *testing.T) (proj, home string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, home = filepath.Join(root, "proj"), filepath.Join(root, "home", "user")
	files := map[string]string{
		filepath.Join(proj, "README.md"):        "hello\n",
		filepath.Join(proj, "count.txt"):        "a[$(touch pwned)]\n",
		filepath.Join(proj, "secrets", "key"):   "s3cret\n",
		filepath.Join(proj, ".env"):             "TOKEN=s3cret\n",
		filepath.Join(proj, "protected.txt"):    "keep\n",
		filepath.Join(root, "outside.txt"):      "outside\n",
		filepath.Join(home, ".ssh", "id_rsa"):   "private\n",
		filepath.Join(proj, ".git", "HEAD"):     "ref: refs/heads/main\n",
		filepath.Join(proj, "src", "main.go"):   "package main\n",
		filepath.Join(proj, "sub", "notes.txt"): "notes\n",
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(proj, "secrets", "key"), filepath.Join(proj, "link.txt")); err != nil {
		t.Fatal(err)
	}
	return proj, home
}

// corpusPolicy is the policy of a corpus header in a mode.
func corpusPolicy(t *testing.T, c *shellCorpus, proj, home, mode string) *Policy {
	t.Helper()
	ws, err := workspace.New(proj)
	if err != nil {
		t.Fatal(err)
	}
	rules := func(texts []string) []settings.Rule {
		var out []settings.Rule
		for _, s := range texts {
			out = append(out, settings.Rule{Text: s, Source: "attack_corpus.txt", Root: proj})
		}
		return out
	}
	st := &settings.Settings{Permissions: settings.Permissions{
		Allow: rules(c.allow), Ask: rules(c.ask), Deny: rules(c.deny), DefaultMode: settings.Sourced[string]{Value: mode},
	}}
	p, err := NewPolicy(PolicyConfig{Settings: st, Workspace: ws, Home: home, ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Fatalf("the corpus rules do not parse: %v", probs)
	}
	return p
}

// TestAttackCorpus: no line of the attack corpus is allowed, in default or plan mode,
// and each gets the verdict the corpus records for default mode.
func TestAttackCorpus(t *testing.T) {
	c, err := loadShellCorpus(attackCorpusPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.cases) < 150 {
		t.Errorf("the attack corpus has %d lines, want at least 150", len(c.cases))
	}
	proj, home := attackWorld(t)
	rewrite := strings.NewReplacer(c.workspace, proj, c.home, home)
	def := corpusPolicy(t, c, proj, home, "default")
	plan := corpusPolicy(t, c, proj, home, "plan")
	seen := map[string]int{}
	for _, k := range c.cases {
		if k.decision == "allow" {
			t.Errorf("attack_corpus.txt:%d: an attack line may not expect allow: %q", k.line, k.command)
		}
		if prev, dup := seen[k.command]; dup {
			t.Errorf("attack_corpus.txt:%d repeats line %d", k.line, prev)
		}
		seen[k.command] = k.line
		in, _ := json.Marshal(map[string]string{"command": rewrite.Replace(k.command)})
		call := tool.Call{ID: "attack", Name: "Bash", Input: in}
		v := def.Check(context.Background(), call)
		if got := v.Behavior.String(); got != k.decision {
			t.Errorf("attack_corpus.txt:%d: %q: got %s, want %s\n\tsource: %s\n\treason: %s",
				k.line, k.command, got, k.decision, v.Source, v.Reason)
		}
		if os.Getenv("OURO_CORPUS_REASONS") != "" {
			t.Logf("%s\t%s\t%s", v.Behavior, k.command, v.Reason)
		}
		if pv := plan.Check(context.Background(), call); pv.Behavior == Allow {
			t.Errorf("attack_corpus.txt:%d: %q is allowed in plan mode (%s: %s)", k.line, k.command, pv.Source, pv.Reason)
		}
	}
}

// A hard link to a denied file is that file, for the Read tool too.
func TestReadToolHardLinkToDeniedFile(t *testing.T) {
	c, err := loadShellCorpus(attackCorpusPath)
	if err != nil {
		t.Fatal(err)
	}
	proj, home := attackWorld(t)
	p := corpusPolicy(t, c, proj, home, "default")
	for name, want := range map[string]Behavior{"link.txt": Deny, "README.md": Allow} {
		in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(proj, name)})
		v := p.Check(context.Background(), tool.Call{ID: "r", Name: "Read", Input: in})
		if v.Behavior != want {
			t.Errorf("Read %s: %s (%s), want %s", name, v.Behavior, v.Reason, want)
		}
	}
}
