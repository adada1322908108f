package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// webSearchScript is a turn searching Go's release notes twice (the second past the one
// use allowed) and answering with a citation, then the answer to a continued turn.
const webSearchScript = `{"turns": [
  {"web_search": [
    {"query": "go 1.24 release notes", "results": [
      {"url": "https://go.dev/doc/go1.24", "title": "Go 1.24 Release Notes - The Go Programming Language", "page_age": "February 11, 2025"},
      {"url": "https://github.com/golang/go/milestone/322", "title": "Go1.24 Milestone · golang/go"}]},
    {"query": "go 1.24 swiss tables", "results": [{"url": "https://go.dev/blog/swisstable", "title": "Faster Go maps with Swiss Tables"}]}],
   "text": "Go 1.24 was released in February 2025.", "stop_reason": "pause_turn"},
  {"text": "It brought generic type aliases."}
]}`

// On the wire a web search request declares Anthropic's web_search_20250305 tool with the
// domain list and max_uses; the answer's server_tool_use and web_search_tool_result
// blocks come back on the SDK's types (results filtered by the list, the search past
// max_uses an error), streamed and not, and a paused turn sent back whole is accepted.
func TestWebSearchOnTheWire(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		p, fs := newTestProvider(t, webSearchScript, Config{NoStream: noStream})
		req := &llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{llm.UserText("Perform a web search for the query: go 1.24")},
			Tools:     []llm.ToolSpec{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			WebSearch: &llm.WebSearch{MaxUses: 1, BlockedDomains: []string{"github.com"}}}
		resp, err := p.Complete(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Tools []map[string]any `json:"tools"`
		}
		if err := json.Unmarshal(fs.Requests()[0].Body, &body); err != nil {
			t.Fatal(err)
		}
		last := body.Tools[len(body.Tools)-1]
		if len(body.Tools) != 2 || last["type"] != "web_search_20250305" || last["name"] != "web_search" ||
			last["max_uses"] != float64(1) || last["blocked_domains"].([]any)[0] != "github.com" || last["allowed_domains"] != nil {
			t.Fatalf("tools sent: %v", body.Tools)
		}
		c := resp.Message.Content
		if resp.StopReason != llm.StopPauseTurn || len(c) != 5 {
			t.Fatalf("stream=%v: stop %s, blocks %+v", !noStream, resp.StopReason, c)
		}
		if c[0].Type != llm.BlockServerToolUse || c[0].Name != "web_search" || !strings.Contains(string(c[0].Input), "go 1.24 release notes") {
			t.Errorf("server_tool_use: %+v", c[0])
		}
		hits := c[1].Content
		if c[1].Type != llm.BlockWebSearchResult || c[1].ToolUseID != c[0].ID || len(hits) != 1 || hits[0].URL != "https://go.dev/doc/go1.24" ||
			hits[0].PageAge != "February 11, 2025" || hits[0].EncryptedContent == "" || hits[0].Title == "" {
			t.Errorf("web_search_tool_result: %+v", c[1])
		}
		if c[3].Type != llm.BlockWebSearchResult || len(c[3].Content) != 1 || c[3].Content[0].ErrorCode != "max_uses_exceeded" {
			t.Errorf("the search past max_uses: %+v", c[3])
		}
		if resp.Usage.ServerToolUse.WebSearchRequests != 2 {
			t.Errorf("usage: %+v", resp.Usage)
		}
		if fee := llm.LookupModel("claude-sonnet-4-5").Cost(resp.Usage) - llm.LookupModel("claude-sonnet-4-5").Cost(llm.Usage{InputTokens: resp.Usage.InputTokens,
			OutputTokens: resp.Usage.OutputTokens}); fee < 0.0199 || fee > 0.0201 {
			t.Errorf("two searches cost %v beyond their tokens, want $0.02", fee)
		}
		if c[4].Text != "Go 1.24 was released in February 2025." {
			t.Errorf("text: %+v", c[4])
		}
		// The paused turn goes back as it came; the server reads its blocks.
		req.Messages = append(req.Messages, resp.Message)
		resp, err = p.Complete(context.Background(), req, nil)
		if err != nil {
			t.Fatalf("continuing the paused turn: %v", err)
		}
		if resp.Message.Text() != "It brought generic type aliases." {
			t.Errorf("continued: %+v", resp.Message)
		}
		back := fs.Requests()[1].Messages[1].Content
		if len(back) != 5 || back[1].Content[0].EncryptedContent != hits[0].EncryptedContent || back[3].Content[0].ErrorCode != "max_uses_exceeded" {
			t.Errorf("sent back: %+v", back)
		}
	}
}

// A request without WebSearch declares no server tool: the default path sends only the
// session's own tools.
func TestNoWebSearchByDefault(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"text":"ok"}]}`, Config{})
	req := &llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{llm.UserText("hi")},
		Tools: []llm.ToolSpec{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	if _, err := p.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if b := string(fs.Requests()[0].Body); strings.Contains(b, "web_search") {
		t.Errorf("the request declares web search: %s", b)
	}
}
