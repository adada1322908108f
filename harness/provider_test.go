package harness

import (
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Another provider's model named without its prefix is refused before any request when
// it would go to the Anthropic API itself, with the name it was meant as; a server of
// the user's (ANTHROPIC_BASE_URL) may serve any name, and Claude names pass.
func TestNonClaudeNameOnTheAnthropicAPI(t *testing.T) {
	key := map[string]string{"ANTHROPIC_API_KEY": "sk-test"}
	for _, name := range []string{"gpt-4o", "o3", "llama3"} {
		_, _, err := newProvider(name, "", envOf(key))
		if err == nil || !strings.Contains(err.Error(), "did you mean openai:"+name+"?") || !strings.Contains(err.Error(), "PROVIDER:NAME") {
			t.Errorf("%s: %v", name, err)
		}
	}
	official := map[string]string{"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": "https://api.anthropic.com/"}
	if _, _, err := newProvider("gpt-4o", "", envOf(official)); err == nil {
		t.Error("gpt-4o to api.anthropic.com named explicitly was accepted")
	}
	gateway := map[string]string{"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": "http://127.0.0.1:4000"}
	if _, name, err := newProvider("gpt-4o", "", envOf(gateway)); err != nil || name != "gpt-4o" {
		t.Errorf("gpt-4o to the user's own server: %q, %v", name, err)
	}
	for _, name := range []string{"claude-haiku-4-5", "claude-sonnet-5-5"} {
		if _, _, err := newProvider(name, "", envOf(key)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
