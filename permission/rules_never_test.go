package permission

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// Rules that can never match are reported when they load, saying why; a rule naming the
// variables a command runs with matches the command with them, and only with them.
func TestRulesThatCannotMatchAndEnvPrefixes(t *testing.T) {
	for text, want := range map[string]string{
		"Bash(wget *|bash*)":   `"|" splits a line`,
		"Bash(make && make *)": `"&&" splits a line`,
		"Bash(cd x; make)":     `";" splits a line`,
		"Edit:*":               "the :* form is for Bash command prefixes",
	} {
		_, err := ParseRule(settings.Rule{Text: text, Source: "s.json"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", text, err)
		}
	}
	if _, err := ParseRule(settings.Rule{Text: `Bash(grep -E "a|b" *)`}); err != nil {
		t.Errorf("a quoted pipe was refused: %v", err)
	}
	r, err := ParseRule(settings.Rule{Text: "Bash(PYRIGHT_PYTHON_IGNORE_WARNINGS=1 uv run pyright *)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env, cmd string
		want     bool
	}{
		{"PYRIGHT_PYTHON_IGNORE_WARNINGS=1", "uv run pyright src", true},
		{"", "uv run pyright src", false},
		{"PYRIGHT_PYTHON_IGNORE_WARNINGS=0", "uv run pyright src", false},
		{"PYRIGHT_PYTHON_IGNORE_WARNINGS=1", "uv run rm -rf /", false},
	} {
		if got := r.Match(Subject{Tool: "Bash", Env: c.env, Command: c.cmd}); got != c.want {
			t.Errorf("env %q cmd %q: %v", c.env, c.cmd, got)
		}
	}
}
