package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRenderMessagesKeepsTheEnd(t *testing.T) {
	msgs := []Message{
		UserText("first request " + strings.Repeat("x", 100)),
		{Role: RoleAssistant, Content: []Block{TextBlock("looking"), ToolUseBlock("t1", "Read", json.RawMessage(`{"file_path":"a.go"}`))}},
		{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "t1", IsError: true, Content: []Block{TextBlock("no such file")}}}},
	}
	all := RenderMessages(msgs, 0)
	for _, want := range []string{"user: first request", "assistant: looking\n[tool call Read {\"file_path\":\"a.go\"}]", "user: [tool error] no such file"} {
		if !strings.Contains(all, want) {
			t.Errorf("rendering lacks %q:\n%s", want, all)
		}
	}
	tail := RenderMessages(msgs, 60)
	if strings.Contains(tail, "first request") || !strings.Contains(tail, "no such file") {
		t.Errorf("a bounded rendering should keep the latest messages:\n%s", tail)
	}
}

func TestDecodeJSONIn(t *testing.T) {
	var v struct{ OK bool }
	if err := DecodeJSONIn("Sure:\n```json\n{\"ok\": true}\n```", '{', '}', &v); err != nil || !v.OK {
		t.Fatalf("v=%+v err=%v", v, err)
	}
	var names []string
	if err := DecodeJSONIn(`["a","b"]`, '[', ']', &names); err != nil || len(names) != 2 {
		t.Fatalf("names=%v err=%v", names, err)
	}
	if err := DecodeJSONIn("no json here", '{', '}', &v); err == nil || !strings.Contains(err.Error(), "no JSON") {
		t.Errorf("err = %v", err)
	}
}
