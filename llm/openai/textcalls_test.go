package openai

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
)

func TestTextToolCalls(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "Read"}, {Name: "Bash"}}
	for _, c := range []struct {
		text  string
		calls []string // name + input
		rest  string
	}{
		{"Let me look.\n<tool_call>\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"a.go\"}}\n</tool_call>", []string{`Read{"file_path": "a.go"}`}, "Let me look."},
		{"<tool_call>{\"name\":\"Bash\",\"arguments\":{\"command\":\"ls\"}}</tool_call><tool_call>{\"name\":\"Read\",\"arguments\":\"{\\\"file_path\\\":\\\"b\\\"}\"}</tool_call>", []string{`Bash{"command":"ls"}`, `Read{"file_path":"b"}`}, ""},
		{"<|python_tag|>{\"name\": \"Bash\", \"parameters\": {\"command\": \"pwd\"}}<|eom_id|>", []string{`Bash{"command": "pwd"}`}, ""},
		{"[TOOL_CALLS][{\"name\": \"Read\", \"arguments\": {\"file_path\": \"x\"}}]", []string{`Read{"file_path": "x"}`}, ""},
		// A call to a tool nobody offered, written as a call: made, so that the model
		// hears the tool does not exist (Qwen2.5-Coder 1.5B called "Python3").
		{"<tool_call>{\"name\": \"Nope\", \"arguments\": {}}</tool_call>", []string{`Nope{}`}, ""},
		{"<tool_call>{\"name\": \"Nope\"}</tool_call>", nil, ""},            // no arguments: stays text
		{"<tool_call>{not json}</tool_call>", nil, ""},                      // unreadable: stays text
		{"Use <tool_call> tags to call tools, like the docs say.", nil, ""}, // prose about it
		{"plain answer", nil, ""},
		// The whole answer is the call's JSON (Qwen2.5-Coder 0.5B on llama.cpp, docs/local-model.md),
		// bare or fenced; arguments that are no object still become the call, for the
		// schema check to tell the model what is wrong.
		{"{\n  \"name\": \"Bash\",\n  \"arguments\": {\"command\": \"go test ./...\"}\n}", []string{`Bash{"command": "go test ./..."}`}, ""},
		{"```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"a\"}}\n```", []string{`Read{"file_path": "a"}`}, ""},
		{"{\"name\": \"Bash\", \"arguments\": [\"go test ./...\", \"timeout:120000\"]}", []string{`Bash["go test ./...", "timeout:120000"]`}, ""},
		{"[{\"name\": \"Read\", \"arguments\": {\"file_path\": \"x\"}}]", []string{`Read{"file_path": "x"}`}, ""},
		{"```json\n{\n  \"name\": \"Python3\",\n  \"arguments\": {\"command\": \"python3 -B -m unittest -v\"}\n}\n```", []string{`Python3{"command": "python3 -B -m unittest -v"}`}, ""},
		{"{\"name\": \"Nope\"}", nil, ""}, // a name alone: stays text
		{"{\"answer\": 42}", nil, ""},     // JSON, but no call
		{"The config is {\"name\": \"Bash\"} in the file.", nil, ""},
		// A fenced call among other text (Qwen2.5-Coder 1.5B on the seed's duration fix,
		// docs/local-model.md): the call is made, the rest of the text stays.
		{"```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"d.py\"}}\n```\n\nTo verify:\n```bash\npython3 -m unittest\n```\nIt should pass now.",
			[]string{`Read{"file_path": "d.py"}`}, "To verify:\n```bash\npython3 -m unittest\n```\nIt should pass now."},
		{"First:\n```\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"ls\"}}\n```\nthen:\n```json\n{\"name\": \"Read\", \"parameters\": {\"file_path\": \"x\"}}\n```", []string{`Bash{"command": "ls"}`, `Read{"file_path": "x"}`}, "First:"},
		{"```json\n{\n  \"name\": \"Read\",\n  \"arguments\": {\"file_path\": \"/t/d.py\", \"old_string\": \"a\", \"new_string\": \"b\"}\n}\n```\n\n```bash\npython3 -B -m unittest -v\n```",
			[]string{`Read{"file_path": "/t/d.py", "old_string": "a", "new_string": "b"}`}, "```bash"},
		// Fences that hold no call to a declared tool with arguments stay text.
		{"Example config:\n```json\n{\"name\": \"Bash\"}\n```\nThat is all.", nil, ""},
		{"Like this:\n```json\n{\"name\": \"Deploy\", \"arguments\": {}}\n```", nil, ""},
		{"Here:\n```python\nprint({\"name\": \"Read\", \"arguments\": {}})\n```", nil, ""},
	} {
		resp := &llm.Response{ID: "c1", Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock(c.text)}}, StopReason: llm.StopEndTurn}
		n := textToolCalls(resp, tools, "call_c1")
		uses := resp.Message.ToolUses()
		if n != len(c.calls) || len(uses) != len(c.calls) {
			t.Errorf("%q: %d calls, want %d: %+v", c.text, n, len(c.calls), resp.Message.Content)
			continue
		}
		if n == 0 {
			if resp.Message.Text() != c.text || resp.StopReason != llm.StopEndTurn {
				t.Errorf("%q was changed: %+v", c.text, resp)
			}
			continue
		}
		for i, u := range uses {
			if got := u.Name + string(u.Input); got != c.calls[i] {
				t.Errorf("%q call %d: %s, want %s", c.text, i, got, c.calls[i])
			}
		}
		if resp.StopReason != llm.StopToolUse || !strings.Contains(resp.Message.Text(), "tool call(s) the model wrote as text") || !strings.HasPrefix(resp.Message.Text(), c.rest) {
			t.Errorf("%q: stop %s, text %q", c.text, resp.StopReason, resp.Message.Text())
		}
	}
	// A structured call wins: text is left alone.
	resp := &llm.Response{Message: llm.Message{Content: []llm.Block{llm.TextBlock("<tool_call>{\"name\":\"Read\",\"arguments\":{}}</tool_call>"), llm.ToolUseBlock("x", "Bash", []byte(`{}`))}}}
	if textToolCalls(resp, tools, "p") != 0 {
		t.Error("parsed text beside a structured call")
	}
}

// The note that calls were read from text is ouro's, not the model's: the next request
// does not show it to the model as its own words (a small model repeated it as its answer).
func TestTextCallNoteIsNotSentBack(t *testing.T) {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("Looking.\n<tool_call>{\"name\": \"Read\", \"arguments\": {\"file_path\": \"a\"}}</tool_call>")}}}
	if textToolCalls(resp, []llm.ToolSpec{{Name: "Read"}}, "p") != 1 {
		t.Fatal("no call read")
	}
	msg, ok, err := convertAssistant(resp.Message, 0)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got := msg.OfAssistant.Content.OfString.Value
	if strings.Contains(got, "ouro read") || strings.TrimSpace(got) != "Looking." || len(msg.OfAssistant.ToolCalls) != 1 {
		t.Fatalf("sent back %q with %d calls", got, len(msg.OfAssistant.ToolCalls))
	}
	// Only the note and a call: no content at all.
	resp = &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("<tool_call>{\"name\": \"Read\", \"arguments\": {}}</tool_call>")}}}
	textToolCalls(resp, []llm.ToolSpec{{Name: "Read"}}, "q")
	msg, _, _ = convertAssistant(resp.Message, 0)
	if msg.OfAssistant.Content.OfString.Valid() {
		t.Fatalf("a note alone was sent as content: %q", msg.OfAssistant.Content.OfString.Value)
	}
}
