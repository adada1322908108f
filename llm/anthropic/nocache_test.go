package anthropic

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// DISABLE_PROMPT_CACHING: the same request carries cache_control without it and none
// with it.
func TestNoPromptCacheSendsNoCacheControl(t *testing.T) {
	req := &llm.Request{Model: "claude-sonnet-4-5", System: "be brief", MaxTokens: 100,
		Messages: []llm.Message{llm.UserText("one"), {Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("two")}}, llm.UserText("three")}}
	for _, off := range []bool{false, true} {
		p, fs := newTestProvider(t, `{"turns": [{"text": "ok"}]}`, Config{NoPromptCache: off})
		if _, err := complete(t, p, req, nil); err != nil {
			t.Fatal(err)
		}
		raw := string(fs.Requests()[0].Body)
		if has := strings.Contains(raw, "cache_control"); has == off {
			t.Errorf("NoPromptCache %v: cache_control in the body %v:\n%s", off, has, raw)
		}
	}
}
