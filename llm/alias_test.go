package llm

import "testing"

// The model names Claude Code users put in settings.json resolve to a model the API
// knows, never verbatim ("sonnet[1m]" would be refused).
func TestResolveClaudeCodeAliases(t *testing.T) {
	for in, want := range map[string]string{
		"sonnet": DefaultModel, "Opus": "claude-opus-5-5", " haiku ": "claude-haiku-5-5",
		"default": DefaultModel, "opusplan": DefaultModel, "sonnet[1m]": DefaultModel, "opus[1M]": "claude-opus-5-5",
		"claude-sonnet-4-5-20250929[1m]": "claude-sonnet-4-5-20250929", "claude-sonnet-4-5": "claude-sonnet-4-5",
		"[1m]": "[1m]", "openai:gpt-5": "openai:gpt-5",
	} {
		if got := ResolveAlias(in); got != want {
			t.Errorf("ResolveAlias(%q) = %q, want %q", in, got, want)
		}
	}
}
