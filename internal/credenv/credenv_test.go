package credenv

import (
	"slices"
	"testing"
)

func TestStrip(t *testing.T) {
	in := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-ant", "OPENAI_API_KEY=sk-oa", "ANTHROPIC_AUTH_TOKEN=tok", "HOME=/h", "ANTHROPIC_API_KEY_X=kept", "CLAUDE_CODE_OAUTH_TOKEN=o",
		"AWS_BEARER_TOKEN_BEDROCK=b", "AWS_ACCESS_KEY_ID=kept"}
	if got, want := Strip(in), []string{"PATH=/bin", "HOME=/h", "ANTHROPIC_API_KEY_X=kept", "AWS_ACCESS_KEY_ID=kept"}; !slices.Equal(got, want) {
		t.Errorf("Strip = %q, want %q", got, want)
	}
	if got := Strip(in, "OPENAI_API_KEY"); !slices.Contains(got, "OPENAI_API_KEY=sk-oa") || slices.Contains(got, "ANTHROPIC_API_KEY=sk-ant") {
		t.Errorf("keep: %q", got)
	}
	if in[1] != "ANTHROPIC_API_KEY=sk-ant" {
		t.Error("the input was changed")
	}
}
