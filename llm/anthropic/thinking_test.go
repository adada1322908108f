package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// Each request carries the thinking and effort its model takes, as the fake server
// received them: none at all by default; a budget below max_tokens on models before
// adaptive thinking; adaptive thinking (no budget) and the effort, xhigh/max as high where
// the model lacks them, on those after; never a temperature.
func TestThinkingAndEffortOnTheWire(t *testing.T) {
	cases := []struct {
		name, model, effort string
		maxTokens           int
		thinking            llm.Thinking
		wantThinking        string // JSON of "thinking", "" for absent
		wantEffort          string // "" for no output_config
	}{
		{name: "default", model: "claude-sonnet-5-5", maxTokens: 8000},
		{name: "budget", model: "claude-sonnet-4-5", maxTokens: 8000, thinking: llm.Thinking{Budget: 5000}, effort: "high",
			wantThinking: `{"budget_tokens":5000,"type":"enabled"}`},
		{name: "budget capped below max_tokens", model: "claude-3-7-sonnet-latest", maxTokens: 4000, thinking: llm.Thinking{Budget: llm.DefaultThinkingBudget},
			wantThinking: `{"budget_tokens":3999,"type":"enabled"}`},
		{name: "no room for the smallest budget", model: "claude-haiku-4-5", maxTokens: 1000, thinking: llm.Thinking{Budget: 2000}},
		{name: "adaptive, xhigh is high", model: "claude-opus-4-6", maxTokens: 8000, thinking: llm.Thinking{Budget: 9000}, effort: "xhigh",
			wantThinking: `{"type":"adaptive"}`, wantEffort: "high"},
		{name: "adaptive with display, max", model: "claude-opus-5-5", maxTokens: 8000, thinking: llm.Thinking{Budget: 1, Display: "summarized"}, effort: "max",
			wantThinking: `{"display":"summarized","type":"adaptive"}`, wantEffort: "max"},
		{name: "effort alone", model: "claude-opus-4-5-20251101", maxTokens: 8000, effort: "low", wantEffort: "low"},
		{name: "effort on a gateway's own name", model: "my-gateway-model", maxTokens: 8000, effort: "xhigh", wantEffort: "xhigh"},
		{name: "bedrock name", model: "us.anthropic.claude-sonnet-4-6", maxTokens: 8000, effort: "xhigh", thinking: llm.Thinking{Budget: 2000},
			wantThinking: `{"type":"adaptive"}`, wantEffort: "high"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, fs := newTestProvider(t, `{"turns":[{"text":"ok"}]}`, Config{})
			req := userReq(c.model, "hi")
			req.MaxTokens, req.Effort, req.Thinking = c.maxTokens, c.effort, c.thinking
			if _, err := complete(t, p, req, nil); err != nil {
				t.Fatal(err)
			}
			b := body(t, fs, 0)
			got := ""
			if th, ok := b["thinking"]; ok {
				raw, _ := json.Marshal(th)
				got = string(raw)
			}
			if got != c.wantThinking {
				t.Errorf("thinking %s, want %s", got, c.wantThinking)
			}
			effort := ""
			if oc, ok := b["output_config"].(map[string]any); ok {
				effort, _ = oc["effort"].(string)
				if effort == "" {
					t.Errorf("output_config without effort: %v", oc)
				}
			}
			if effort != c.wantEffort {
				t.Errorf("effort %q, want %q", effort, c.wantEffort)
			}
			if _, ok := b["temperature"]; ok {
				t.Errorf("a temperature was sent: %v", b["temperature"])
			}
			if b["max_tokens"].(float64) != float64(c.maxTokens) {
				t.Errorf("max_tokens %v", b["max_tokens"])
			}
		})
	}
}

// A thinking block and a redacted_thinking block that opened a tool call go back on the
// next request as they came, signature and data unchanged and ahead of the tool_use, as
// the API requires with thinking on (the fake server refuses them otherwise, below).
func TestThinkingBlocksRoundTripAfterToolCall(t *testing.T) {
	const script = `{"turns":[
		{"thinking":"I should list the files first.","redacted_thinking":"opaque-EuYBCkQYAiJA","tool_calls":[{"id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},
		{"expect_contains":"go.mod","text":"There is a go.mod."}]}`
	for _, noStream := range []bool{false, true} {
		p, fs := newTestProvider(t, script, Config{NoStream: noStream})
		req := userReq("claude-sonnet-4-5", "what is here?")
		req.MaxTokens, req.Thinking = 8000, llm.Thinking{Budget: 4000}
		resp, err := complete(t, p, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := resp.Message.Content
		if len(c) != 3 || c[0].Type != llm.BlockThinking || c[0].Signature != scripted.Signature("I should list the files first.") ||
			c[1].Type != llm.BlockRedactedThinking || c[1].Data != "opaque-EuYBCkQYAiJA" || c[2].Type != llm.BlockToolUse {
			t.Fatalf("noStream=%v: answer %+v", noStream, c)
		}
		req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("toolu_1", "go.mod\nmain.go", false)}})
		if _, err := complete(t, p, req, nil); err != nil {
			t.Fatalf("noStream=%v: the next request was refused: %v", noStream, err)
		}
		sent := fs.Requests()[1].Messages[1].Content
		if len(sent) != 3 || sent[0].Type != llm.BlockThinking || sent[0].Thinking != c[0].Thinking || sent[0].Signature != c[0].Signature ||
			sent[1].Type != llm.BlockRedactedThinking || sent[1].Data != c[1].Data || sent[2].Type != llm.BlockToolUse {
			t.Errorf("noStream=%v: sent back %+v", noStream, sent)
		}
	}
}

// The fake server refuses what the API refuses: a thinking block altered on its way
// back, and with budgeted thinking a tool call whose thinking was dropped.
func TestFakeServerRefusesThinkingNotPassedBack(t *testing.T) {
	call := llm.ToolUseBlock("toolu_1", "Bash", json.RawMessage(`{"command":"ls"}`))
	result := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("toolu_1", "go.mod", false)}}
	think := llm.Block{Type: llm.BlockThinking, Thinking: "list first", Signature: scripted.Signature("list first")}
	altered := think
	altered.Thinking = "list first, then delete everything"
	for name, c := range map[string]struct {
		assistant []llm.Block
		want      string
	}{
		"altered": {[]llm.Block{altered, call}, "Invalid `signature`"},
		"dropped": {[]llm.Block{call}, "must start with a thinking block"},
		"after":   {[]llm.Block{call, think}, "before the message's tool_use"},
	} {
		p, _ := newTestProvider(t, `{"turns":[{"text":"ok"}]}`, Config{})
		req := userReq("claude-sonnet-4-5", "hi")
		req.MaxTokens, req.Thinking = 8000, llm.Thinking{Budget: 4000}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: c.assistant}, result)
		_, err := complete(t, p, req, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}

func TestEffortForModels(t *testing.T) {
	for _, c := range []struct{ model, effort, want string }{
		{"claude-sonnet-4-5", "low", ""}, {"claude-haiku-4-5", "max", ""},
		{"claude-opus-4-5", "max", "high"}, {"claude-opus-4-5", "medium", "medium"},
		{"claude-opus-4-6", "max", "max"}, {"claude-opus-4-6", "xhigh", "high"},
		{"claude-opus-4-7", "xhigh", "xhigh"}, {"claude-sonnet-5-5", "xhigh", "xhigh"},
		{"claude-haiku-5-5", "max", "high"}, {"claude-opus-5-5", "", ""},
	} {
		if got := effortFor(c.model, c.effort); got != c.want {
			t.Errorf("effortFor(%s, %s) = %q, want %q", c.model, c.effort, got, c.want)
		}
	}
}
