package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// firstSystem opens a session with the inline settings and project files, runs one
// prompt and returns the system prompt the model was sent, and the warnings.
func firstSystem(t *testing.T, settingsJSON string, files map[string]string) (string, string, *Session) {
	t.Helper()
	home, cwd, user := t.TempDir(), t.TempDir(), t.TempDir()
	for name, text := range files {
		p := filepath.Join(cwd, name)
		if strings.HasPrefix(name, "~/") {
			p = filepath.Join(user, name[2:])
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	warn := &bytes.Buffer{}
	s, p := open(t, home, cwd, []scripted.Turn{{Text: "ok"}}, func(o *Options) {
		o.Access.Settings = settingsJSON
		o.Dirs.UserConfig = user
		o.UI.Warn = warn
	})
	if o := s.Run(context.Background(), "hi"); !o.OK() {
		t.Fatalf("outcome %+v", o)
	}
	return p.Requests()[0].System, warn.String(), s
}

const codingLine = "Work in small verified steps"

func TestAttributionReachesTheSystemPrompt(t *testing.T) {
	for _, c := range []struct {
		name, settings string
		want, not      []string
	}{
		{"default is none", `{}`, []string{"carry no trailer or footer naming you"}, []string{"exactly:"}},
		{"commit and pr set", `{"attribution":{"commit":"Co-Authored-By: Pat <pat@example.org>","pr":"Made by a bot"}}`,
			[]string{"commit message you write with a blank line and then exactly:\nCo-Authored-By: Pat <pat@example.org>\n",
				"pull request description you write with a blank line and then exactly:\nMade by a bot"}, []string{"carry no"}},
		{"empty strings are none", `{"attribution":{"commit":"","pr":""},"includeCoAuthoredBy":true}`,
			[]string{"carry no trailer or footer"}, []string{"Assisted-by"}},
		{"includeCoAuthoredBy true", `{"includeCoAuthoredBy":true}`, []string{"exactly:\nAssisted-by: ouro\n", "exactly:\nWritten with ouro."}, nil},
		{"only the commit", `{"attribution":{"commit":"Signed-off-by: Pat <pat@example.org>"}}`,
			[]string{"exactly:\nSigned-off-by: Pat", "Pull request descriptions you write carry no footer"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys, _, _ := firstSystem(t, c.settings, nil)
			for _, w := range c.want {
				if !strings.Contains(sys, w) {
					t.Errorf("system prompt lacks %q:\n%s", w, sys)
				}
			}
			for _, n := range c.not {
				if strings.Contains(sys, n) {
					t.Errorf("system prompt has %q:\n%s", n, sys)
				}
			}
		})
	}
}

func TestOutputStyleReachesTheSystemPrompt(t *testing.T) {
	custom := "---\nname: Terse Poet\ndescription: answers: in verse\nkeep-coding-instructions: false\n---\n\nAnswer in haiku, STYLE-7731.\n"
	t.Run("no style: the prompt is as it was", func(t *testing.T) {
		sys, _, s := firstSystem(t, `{}`, map[string]string{".claude/output-styles/poet.md": custom})
		if strings.Contains(sys, "Output style") || strings.Contains(sys, "STYLE-7731") || !strings.Contains(sys, codingLine) {
			t.Errorf("system prompt:\n%s", sys)
		}
		if s.OutputStyle() != "default" || len(s.OutputStyles()) != 3 {
			t.Errorf("style %q, styles %v", s.OutputStyle(), s.OutputStyles())
		}
	})
	t.Run("a custom style without keep-coding-instructions drops the coding instructions", func(t *testing.T) {
		// The description's colon breaks strict YAML: read leniently, as Claude Code does.
		sys, warn, s := firstSystem(t, `{"outputStyle":"terse poet"}`, map[string]string{".claude/output-styles/poet.md": custom})
		if !strings.Contains(sys, "# Output style: Terse Poet\nAnswer in haiku, STYLE-7731.") || strings.Contains(sys, codingLine) {
			t.Errorf("system prompt:\n%s", sys)
		}
		if !strings.Contains(sys, "<env>") || warn != "" || s.OutputStyle() != "Terse Poet" {
			t.Errorf("warnings %q, style %q, prompt:\n%s", warn, s.OutputStyle(), sys)
		}
	})
	t.Run("the user's style, keeping the coding instructions", func(t *testing.T) {
		sys, _, _ := firstSystem(t, `{"outputStyle":"mine"}`, map[string]string{"~/.claude/output-styles/mine.md": "---\nkeep-coding-instructions: true\n---\nUSER-STYLE-1\n"})
		if !strings.Contains(sys, "# Output style: mine\nUSER-STYLE-1") || !strings.Contains(sys, codingLine) {
			t.Errorf("system prompt:\n%s", sys)
		}
	})
	t.Run("built-in Explanatory", func(t *testing.T) {
		sys, _, _ := firstSystem(t, `{"outputStyle":"Explanatory"}`, nil)
		if !strings.Contains(sys, "# Output style: Explanatory\n") || !strings.Contains(sys, "Insight") || !strings.Contains(sys, codingLine) {
			t.Errorf("system prompt:\n%s", sys)
		}
	})
	t.Run("an unknown style is said and the default used", func(t *testing.T) {
		sys, warn, _ := firstSystem(t, `{"outputStyle":"nope"}`, nil)
		if strings.Contains(sys, "Output style") || !strings.Contains(warn, `outputStyle "nope"`) || !strings.Contains(warn, "no such output style") {
			t.Errorf("warn %q, prompt:\n%s", warn, sys)
		}
	})
	t.Run("saving a style writes the project's local settings, not this session's prompt", func(t *testing.T) {
		sys, _, s := firstSystem(t, `{}`, map[string]string{".claude/settings.local.json": `{"permissions":{"allow":["Read"]}}`})
		path, err := s.SaveOutputStyle("learning")
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if filepath.Base(filepath.Dir(path)) != ".ouro" || !strings.Contains(string(data), `"outputStyle": "Learning"`) || s.OutputStyle() != "default" || strings.Contains(sys, "Output style") {
			t.Errorf("%s: %s (style now %q)", path, data, s.OutputStyle())
		}
		if _, err := s.SaveOutputStyle("nope"); err == nil {
			t.Error("an unknown style was saved")
		}
	})
}
