package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

// wireParts splits a recorded chat request into its messages and tools, each as the
// exact bytes sent.
func wireParts(t *testing.T, raw []byte) (msgs, tools []string) {
	t.Helper()
	var b struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	for _, m := range b.Messages {
		msgs = append(msgs, string(m))
	}
	for _, x := range b.Tools {
		tools = append(tools, string(x))
	}
	return msgs, tools
}

// A conversation that grows by a turn, and by a tool loaded at the end of the list, goes
// on the wire as the previous request plus what is new: every earlier message (the system
// one first) and every earlier tool byte for byte the same, which is what llama.cpp's
// prompt cache reuses.
func TestWirePrefixIsStableAcrossTurns(t *testing.T) {
	bothModes(t, func(t *testing.T, noStream bool) {
		srv, base := fake(t, `{"turns":[
			{"tool_calls":[{"name":"Read","input":{"file_path":"a.go"}}]},
			{"text":"thinking","tool_calls":[{"name":"Rare","input":{"what":"x","n":2}}]},
			{"text":"done"}]}`)
		p := newProvider(t, Config{BaseURL: base, NoStream: noStream})
		read := llm.ToolSpec{Name: "Read", Description: "reads a file",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)}
		rare := llm.ToolSpec{Name: "Rare", Description: "a rare tool",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"what":{"type":"string"},"n":{"type":"integer"}}}`)}
		req := &llm.Request{Model: "local", System: "You are a coding agent.", Tools: []llm.ToolSpec{read},
			Messages: []llm.Message{llm.UserText("fix it")}}
		for turn := 0; turn < 3; turn++ {
			resp, err := p.Complete(context.Background(), req, nil)
			if err != nil {
				t.Fatalf("turn %d: %v", turn+1, err)
			}
			msgs := append(append([]llm.Message(nil), req.Messages...), resp.Message)
			var results []llm.Block
			for _, u := range resp.Message.ToolUses() {
				results = append(results, llm.ToolResultBlock(u.ID, "result of "+u.Name, false))
			}
			if len(results) > 0 {
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: results})
			}
			tools := req.Tools
			if turn == 0 {
				tools = append(append([]llm.ToolSpec(nil), tools...), rare)
			}
			req = &llm.Request{Model: req.Model, System: req.System, Tools: tools, Messages: msgs}
		}
		recs := srv.Requests()
		if len(recs) != 3 {
			t.Fatalf("%d requests, want 3", len(recs))
		}
		for i := 1; i < len(recs); i++ {
			pm, pt := wireParts(t, recs[i-1].Body)
			cm, ct := wireParts(t, recs[i].Body)
			if len(cm) <= len(pm) || len(ct) < len(pt) {
				t.Fatalf("request %d: %d messages and %d tools after %d and %d", i+1, len(cm), len(ct), len(pm), len(pt))
			}
			for j := range pm {
				if pm[j] != cm[j] {
					t.Errorf("request %d: message %d changed on the wire:\n was %s\n now %s", i+1, j, pm[j], cm[j])
				}
			}
			for j := range pt {
				if pt[j] != ct[j] {
					t.Errorf("request %d: tool %d changed on the wire:\n was %s\n now %s", i+1, j, pt[j], ct[j])
				}
			}
		}
	})
}
