package llm_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

func TestBlockConstructors(t *testing.T) {
	if got, want := llm.TextBlock("hi"), (llm.Block{Type: "text", Text: "hi"}); !reflect.DeepEqual(got, want) {
		t.Errorf("TextBlock = %+v, want %+v", got, want)
	}

	in := json.RawMessage(`{"command":"ls"}`)
	use := llm.ToolUseBlock("toolu_1", "Bash", in)
	if use.Type != "tool_use" || use.ID != "toolu_1" || use.Name != "Bash" || string(use.Input) != `{"command":"ls"}` {
		t.Errorf("ToolUseBlock = %+v", use)
	}

	for _, isErr := range []bool{false, true} {
		res := llm.ToolResultBlock("toolu_1", "out", isErr)
		want := llm.Block{Type: "tool_result", ToolUseID: "toolu_1", IsError: isErr, Content: []llm.Block{{Type: "text", Text: "out"}}}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("ToolResultBlock(isError=%v) = %+v, want %+v", isErr, res, want)
		}
	}

	m := llm.UserText("hello")
	if want := (llm.Message{Role: "user", Content: []llm.Block{{Type: "text", Text: "hello"}}}); !reflect.DeepEqual(m, want) {
		t.Errorf("UserText = %+v", m)
	}
}

func TestMessageText(t *testing.T) {
	tests := []struct {
		name    string
		content []llm.Block
		want    string
	}{
		{"no blocks", nil, ""},
		{"one text", []llm.Block{llm.TextBlock("a")}, "a"},
		{"texts concatenate without separator", []llm.Block{llm.TextBlock("a"), llm.TextBlock("b")}, "ab"},
		{"other blocks are skipped", []llm.Block{
			{Type: llm.BlockThinking, Thinking: "hmm"},
			llm.TextBlock("x"),
			llm.ToolUseBlock("t1", "Bash", json.RawMessage(`{}`)),
			llm.ToolResultBlock("t0", "result text", false),
			llm.TextBlock("y"),
		}, "xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := llm.Message{Role: llm.RoleAssistant, Content: tt.content}
			if got := m.Text(); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMessageToolUses(t *testing.T) {
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.TextBlock("looking"),
		llm.ToolUseBlock("a", "Read", json.RawMessage(`{}`)),
		{Type: llm.BlockThinking, Thinking: "..."},
		llm.ToolUseBlock("b", "Bash", json.RawMessage(`{}`)),
	}}
	uses := m.ToolUses()
	if len(uses) != 2 || uses[0].ID != "a" || uses[1].ID != "b" {
		t.Fatalf("ToolUses() = %+v, want the blocks a then b", uses)
	}
	if got := (llm.Message{Content: []llm.Block{llm.TextBlock("x")}}).ToolUses(); len(got) != 0 {
		t.Errorf("ToolUses() of a text-only message = %+v, want none", got)
	}
}

func TestResultText(t *testing.T) {
	b := llm.Block{Type: llm.BlockToolResult, ToolUseID: "a", Content: []llm.Block{
		llm.TextBlock("line 1\n"),
		{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}},
		llm.TextBlock("line 2"),
	}}
	if got, want := b.ResultText(), "line 1\nline 2"; got != want {
		t.Errorf("ResultText() = %q, want %q", got, want)
	}
	if got := (llm.Block{Type: llm.BlockToolResult}).ResultText(); got != "" {
		t.Errorf("ResultText() of an empty result = %q", got)
	}
}

// The JSON form is the Anthropic wire form: transcripts and stream-json events carry it.
func TestBlockJSONIsAnthropicWireForm(t *testing.T) {
	tests := []struct {
		name  string
		block llm.Block
		want  string
	}{
		{"text", llm.TextBlock("hi"), `{"type":"text","text":"hi"}`},
		{"tool_use", llm.ToolUseBlock("toolu_1", "Bash", json.RawMessage(`{"command":"ls"}`)),
			`{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}`},
		{"tool_result", llm.ToolResultBlock("toolu_1", "boom", true),
			`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"boom"}],"is_error":true}`},
		{"thinking", llm.Block{Type: llm.BlockThinking, Thinking: "hmm", Signature: "sig"},
			`{"type":"thinking","thinking":"hmm","signature":"sig"}`},
		{"redacted_thinking", llm.Block{Type: llm.BlockRedactedThinking, Data: "xyz"},
			`{"type":"redacted_thinking","data":"xyz"}`},
		{"image", llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}},
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.block)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("marshal = %s\nwant      %s", got, tt.want)
			}
			var back llm.Block
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.block) {
				t.Errorf("round trip = %+v, want %+v", back, tt.block)
			}
		})
	}
}

func TestMessageAndUsageJSON(t *testing.T) {
	got, err := json.Marshal(llm.UserText("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"role":"user","content":[{"type":"text","text":"hi"}]}`; string(got) != want {
		t.Errorf("message = %s, want %s", got, want)
	}

	u := llm.Usage{InputTokens: 1, OutputTokens: 2, CacheCreationInputTokens: 3, CacheReadInputTokens: 4}
	got, err = json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_read_input_tokens":4}`; string(got) != want {
		t.Errorf("usage = %s, want %s", got, want)
	}
}
