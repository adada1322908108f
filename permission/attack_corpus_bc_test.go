package permission

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// bcWorld is attackWorld with what attack_corpus_bc.txt's header describes: a committed
// link to the home, list files naming files outside, files whose names are options, and
// two repositories inside the workspace whose configs name programs.
func bcWorld(t *testing.T) (proj, home string) {
	t.Helper()
	proj, home = attackWorld(t)
	files := map[string]string{
		filepath.Join(proj, "package.json"):                          `{"scripts":{"lint":"true"}}`,
		filepath.Join(proj, "list.txt"):                              "../outside.txt\nREADME.md\n",
		filepath.Join(proj, "list0"):                                 "README.md\x00/etc/passwd\x00",
		filepath.Join(proj, "flags.txt"):                             "-exec=sh\n",
		filepath.Join(proj, "tricky", "-exec=sh"):                    "",
		filepath.Join(proj, "tricky", "--compress-program=sh"):       "",
		filepath.Join(proj, "vendor", "lib", ".git", "HEAD"):         "ref: refs/heads/main\n",
		filepath.Join(proj, "vendor", "lib", ".git", "config"):       "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch pwned\"\n",
		filepath.Join(proj, "vendor", "bare.git", "HEAD"):            "ref: refs/heads/main\n",
		filepath.Join(proj, "vendor", "bare.git", "config"):          "[core]\n\tbare = true\n\tpager = touch pwned\n",
		filepath.Join(home, ".claude", ".credentials.json"):          `{"claudeAiOauth":{"accessToken":"sk-ant-oat-SECRET"}}`,
		filepath.Join(home, ".ouro.json"):                            `{}`,
		filepath.Join(proj, "vendor", "lib", "README"):               "lib\n",
		filepath.Join(proj, "vendor", "lib", ".git", "refs", "x"):    "",
		filepath.Join(proj, "vendor", "bare.git", "refs", "x"):       "",
		filepath.Join(proj, "vendor", "lib", ".git", "objects", "x"): "",
		filepath.Join(proj, "vendor", "bare.git", "objects", "x"):    "",
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(proj, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(proj, "docs", "home")); err != nil {
		t.Fatal(err)
	}
	return proj, home
}

// bcRuleSets are the allow rules the corpus is tried under, besides none.
var bcRuleSets = map[string][]string{
	"no rules":           nil,
	"Bash(go test *)":    {"Bash(go test *)"},
	"Bash(git status)":   {"Bash(git status)"},
	"Bash(ls *)":         {"Bash(ls *)"},
	"Bash(npm run lint)": {"Bash(npm run lint)"},
}

func loadLines(t *testing.T, p string) []string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.ReplaceAll(line, "↵", "\n"))
	}
	return out
}

// TestAttackCorpusBC: issue 26's fresh attack lines in classes B and C are never
// allowed, in default or plan mode, with no rules or under the corpus' allow rules.
func TestAttackCorpusBC(t *testing.T) {
	lines := loadLines(t, filepath.Join("..", "shell", "testdata", "attack_corpus_bc.txt"))
	if len(lines) < 200 {
		t.Errorf("the corpus has %d lines, want at least 200", len(lines))
	}
	proj, home := bcWorld(t)
	rewrite := strings.NewReplacer("/work/proj", proj, "/home/user", home)
	deny := []string{"Read(./secrets/**)", "Read(./.env)"}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("repeated line %q", l)
		}
		seen[l] = true
	}
	for name, allow := range bcRuleSets {
		for _, mode := range []string{"default", "plan"} {
			p := corpusPolicy(t, &shellCorpus{allow: allow, deny: deny}, proj, home, mode)
			for _, line := range lines {
				in, _ := json.Marshal(map[string]string{"command": rewrite.Replace(line)})
				v := p.Check(context.Background(), tool.Call{ID: "bc", Name: "Bash", Input: in})
				if v.Behavior == Allow {
					t.Errorf("%s mode, %s: %q is allowed (%s: %s)", mode, name, line, v.Source, v.Reason)
				}
			}
		}
	}
}

// TestReadOnlyCorpus: ordinary read-only inspection is allowed with no rules in default
// mode; the few lines still asked about say why in the corpus, and get that verdict.
func TestReadOnlyCorpus(t *testing.T) {
	c, err := loadShellCorpus(filepath.Join("..", "shell", "testdata", "readonly_corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	proj, home := attackWorld(t)
	for p, body := range map[string]string{"package.json": `{"name":"x","scripts":{"lint":"true"}}`, "go.mod": "module x\n"} {
		if err := os.WriteFile(filepath.Join(proj, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := corpusPolicy(t, &shellCorpus{}, proj, home, "default")
	allowed, asked := 0, 0
	for _, k := range c.cases {
		in, _ := json.Marshal(map[string]string{"command": strings.ReplaceAll(k.command, "/work/proj", proj)})
		v := p.Check(context.Background(), tool.Call{ID: "ro", Name: "Bash", Input: in})
		if got := v.Behavior.String(); got != k.decision {
			t.Errorf("readonly_corpus.txt:%d: %q: got %s, want %s (%s)", k.line, k.command, got, k.decision, v.Reason)
		}
		if v.Behavior == Allow {
			allowed++
		} else {
			asked++
		}
	}
	if allowed < 100 {
		t.Errorf("%d ordinary read-only lines are allowed, want at least 100", allowed)
	}
	t.Logf("%d of %d ordinary read-only lines allowed without a rule; %d asked (reasons in the corpus)", allowed, allowed+asked, asked)
}
