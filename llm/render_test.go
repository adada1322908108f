package llm

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
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

// A judge or memory extraction reads this rendering: a clipped tool call or result must
// stay valid text, with no character and no emoji cut in half.
func TestRenderMessagesCutsChineseAndEmojiCleanly(t *testing.T) {
	const family, thumb = "👨‍👩‍👧", "👍🏽" // a ZWJ family (18 bytes) and a thumb with a skin tone (8)
	result := "x" + strings.Repeat("代理循环工具", 100)
	msgs := []Message{
		{Role: RoleAssistant, Content: []Block{ToolUseBlock("t1", "Note", json.RawMessage(`{"n":"`+strings.Repeat(family+thumb, 30)+`"}`))}},
		{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "t1", Content: []Block{TextBlock(result)}}}},
	}
	out := RenderMessages(msgs, 0)
	if !utf8.ValidString(out) {
		t.Fatalf("rendering is not valid UTF-8:\n%q", out)
	}
	call, ok := between(out, "[tool call Note ", "]\n")
	if !ok || len(call) > 500 || !strings.HasSuffix(call, "…") {
		t.Fatalf("tool call should be clipped to 500 bytes with a marker, got %d bytes:\n%s", len(call), call)
	}
	rest := strings.TrimSuffix(strings.TrimPrefix(call, `{"n":"`), "…")
	if rest = strings.ReplaceAll(strings.ReplaceAll(rest, family, ""), thumb, ""); rest != "" {
		t.Errorf("the clipped call splits an emoji, leaving %q", rest)
	}
	res, ok := between(out, "[tool result] ", "\n")
	if !ok || len(res) > 1500 || !strings.HasSuffix(res, "…") {
		t.Fatalf("tool result should be clipped to 1500 bytes with a marker, got %d bytes:\n%s", len(res), res)
	}
	if !strings.HasPrefix(result, strings.TrimSuffix(res, "…")) || len(res) < 1490 {
		t.Errorf("the clipped result is not the start of the result, cut at the last whole character: %q", res)
	}
}

// between returns the text after start up to end, or to the end of s when end is not in it.
func between(s, start, end string) (string, bool) {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return "", false
	}
	in, _, _ := strings.Cut(after, end)
	return in, true
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
