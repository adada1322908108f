package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// cacheMarks lists where cache_control appears in a request body, as "system.0" or
// "messages.I.content.J".
func cacheMarks(t *testing.T, b map[string]any) []string {
	t.Helper()
	var marks []string
	if sys, ok := b["system"].([]any); ok {
		for i, s := range sys {
			if cc, ok := s.(map[string]any)["cache_control"].(map[string]any); ok && cc["type"] == "ephemeral" {
				marks = append(marks, "system."+itoa(i))
			}
		}
	}
	for i, m := range b["messages"].([]any) {
		for j, c := range m.(map[string]any)["content"].([]any) {
			if cc, ok := c.(map[string]any)["cache_control"].(map[string]any); ok && cc["type"] == "ephemeral" {
				marks = append(marks, "messages."+itoa(i)+".content."+itoa(j))
			}
		}
	}
	if tools, ok := b["tools"].([]any); ok {
		for i, tl := range tools {
			if _, ok := tl.(map[string]any)["cache_control"]; ok {
				marks = append(marks, "tools."+itoa(i))
			}
		}
	}
	return marks
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestCacheBreakpoints(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"text":"first"},{"text":"second"}]}`, Config{})
	req := &llm.Request{
		Model:  "claude-test",
		System: "You are a careful coding agent.",
		Tools:  []llm.ToolSpec{{Name: "Bash", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("context"), llm.TextBlock("run ls")}},
		},
	}
	if _, err := complete(t, p, req, nil); err != nil {
		t.Fatal(err)
	}
	b := body(t, fs, 0)
	if got := strings.Join(cacheMarks(t, b), " "); got != "system.0 messages.0.content.1" {
		t.Errorf("first request marks: %s", got)
	}
	if sys := b["system"].([]any)[0].(map[string]any); sys["text"] != "You are a careful coding agent." {
		t.Errorf("system %v", sys)
	}

	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockThinking, Thinking: "t", Signature: scripted.Signature("t")},
			llm.ToolUseBlock("toolu_1", "Bash", json.RawMessage(`{"command":"ls"}`)),
		}},
		llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("toolu_1", "a.go", false), llm.TextBlock("go on")}},
	)
	if _, err := complete(t, p, req, nil); err != nil {
		t.Fatal(err)
	}
	// The last message's last block, and the previous user message's, which the first
	// request wrote to the cache; never more than four breakpoints.
	if got := strings.Join(cacheMarks(t, body(t, fs, 1)), " "); got != "system.0 messages.0.content.1 messages.2.content.1" {
		t.Errorf("second request marks: %s", got)
	}
}

func TestCacheBreakpointSkipsThinking(t *testing.T) {
	params, err := toParams(&llm.Request{Messages: []llm.Message{
		llm.UserText("q"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("prefill"), {Type: llm.BlockThinking, Thinking: "t", Signature: "s"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	params.Model = "m"
	data, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cacheMarks(t, b), " "); got != "messages.0.content.0 messages.1.content.0" {
		t.Errorf("marks %s in %s", got, data)
	}
	if _, ok := b["system"]; ok {
		t.Errorf("an empty system prompt was sent: %s", data)
	}
}

func TestImagesAndToolResultContent(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"text":"seen"}]}`, Config{})
	img := &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo="}
	result := llm.Block{Type: llm.BlockToolResult, ToolUseID: "toolu_1", Content: []llm.Block{llm.TextBlock("screenshot:"), {Type: llm.BlockImage, Source: img}}}
	req := &llm.Request{Model: "claude-test", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("look"), {Type: llm.BlockImage, Source: img}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock("toolu_1", "Screenshot", nil)}},
		{Role: llm.RoleUser, Content: []llm.Block{result}},
	}}
	if _, err := complete(t, p, req, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(fs.Requests()[0].Messages)
	want := req.Messages
	// A tool_use without input goes out with the empty object.
	want[1].Content[0].Input = json.RawMessage(`{}`)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("sent\n got %s\nwant %s", got, exp)
	}
}

func TestBadBlocksAreRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name  string
		block llm.Block
		msg   string
	}{
		{"unknown type", llm.Block{Type: "video"}, `unknown block type "video"`},
		{"image without data", llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png"}}, "media_type and data"},
		{"url image", llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "url", MediaType: "image/png", Data: "x"}}, "only base64"},
		{"tool result with tool use inside", llm.Block{Type: llm.BlockToolResult, ToolUseID: "x", Content: []llm.Block{llm.ToolUseBlock("a", "b", nil)}}, "text and images"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, fs := newTestProvider(t, `{"turns":[{"text":"never"}]}`, Config{})
			req := &llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{tt.block}}}}
			_, err := complete(t, p, req, nil)
			if !llm.IsKind(err, llm.ErrKindInvalid) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "messages.0.content.0") {
				t.Errorf("error %v", err)
			}
			if len(fs.Requests()) != 0 {
				t.Error("the request was sent")
			}
		})
	}
	p, _ := newTestProvider(t, `{"turns":[{"text":"never"}]}`, Config{})
	req := userReq("claude-test", "x")
	req.Tools = []llm.ToolSpec{{Name: "Bad", InputSchema: json.RawMessage(`[1]`)}}
	if _, err := complete(t, p, req, nil); !llm.IsKind(err, llm.ErrKindInvalid) || !strings.Contains(err.Error(), "tools.0 (Bad)") {
		t.Errorf("bad schema: %v", err)
	}
	if _, err := complete(t, p, &llm.Request{Messages: []llm.Message{llm.UserText("x")}}, nil); !llm.IsKind(err, llm.ErrKindInvalid) {
		t.Errorf("no model: %v", err)
	}
}
