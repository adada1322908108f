package resolve

import (
	"strings"
	"testing"
)

// Check takes what a provider knows and refuses a typo, naming the close models and
// the way to force it; another provider's model without its prefix gets the prefixed name.
func TestCheckModel(t *testing.T) {
	env := envOf(map[string]string{"ANTHROPIC_API_KEY": "k"})
	check := func(name string) error { return Check(name, "claude-sonnet-5-5", env) }
	for _, ok := range []string{"haiku", "opus", "claude-haiku-4-5", "claude-sonnet-4-5-20250929", "openai:gpt-4o", "openai:o3", "scripted:run.json", "claude-sonnet-5-5"} {
		if err := check(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for name, want := range map[string]string{
		"claude-sonet-4-5": "did you mean claude-sonnet-4-5",
		"haiku4":           "haiku",
		"openai:gpt5":      "openai:gpt-5",
		"gtp-4o":           "openai:gpt-4o",
		"gpt-4o":           "did you mean openai:gpt-4o?",
		"claude-nova-9":    "/model --force claude-nova-9",
	} {
		err := check(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q in it", name, err, want)
		}
	}
	if err := check("claude-nova-9"); !strings.Contains(err.Error(), "--force") {
		t.Errorf("the refusal does not say how to force: %v", err)
	}
}

// The picker offers the session's model first, then the listed models of the providers
// configured only.
func TestModelChoices(t *testing.T) {
	names := func(current string, env func(string) string) string {
		var out []string
		for _, c := range Choices(current, env) {
			out = append(out, c.Name)
		}
		return strings.Join(out, " ")
	}
	got := names("claude-haiku-4-5", envOf(map[string]string{"ANTHROPIC_API_KEY": "k"}))
	if !strings.HasPrefix(got, "claude-haiku-4-5 claude-opus-5-5") || strings.Count(got, "claude-haiku-4-5") != 1 || strings.Contains(got, "openai:") {
		t.Errorf("Anthropic only: %s", got)
	}
	if got := names("claude-haiku-4-5", envOf(map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_BASE_URL": "http://localhost:11434/v1"})); !strings.Contains(got, "openai:gpt-5") || !strings.Contains(got, "claude-sonnet-5-5") {
		t.Errorf("both: %s", got)
	}
	if c := Choices("x", nil); c != nil {
		t.Errorf("a given provider offers %v", c)
	}
}
