package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
)

// events returns the event types of the stream_event lines in out, with the parent each
// names ("" for none).
func partialEvents(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			Type   string  `json:"type"`
			Parent *string `json:"parent_tool_use_id"`
			Event  struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
			} `json:"event"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if m.Type != "stream_event" {
			got = append(got, m.Type)
			continue
		}
		s := m.Event.Type
		if strings.HasPrefix(s, "content_block") {
			s += "#" + string(rune('0'+m.Event.Index))
		}
		if m.Parent != nil {
			s = *m.Parent + ":" + s
		}
		got = append(got, s)
	}
	return got
}

func TestPartialMessagesWithoutDeltasAndAfterARetry(t *testing.T) {
	var buf bytes.Buffer
	h, _ := NewHeadless(&buf, FormatStreamJSON)
	h.IncludePartialMessages("m")
	delta := func(kind, text string) agent.Event {
		return agent.Event{Type: agent.EventDelta, Delta: llm.Delta{Kind: kind, Text: text}}
	}
	msg := &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("hello"),
		{Type: llm.BlockToolUse, ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"/a"}`)},
		{Type: llm.BlockToolUse, ID: "t2", Name: "Read"}}}
	// A stream cut mid-answer and started over: the first attempt's pieces are void.
	h.Observe(delta("text", "hel"))
	h.Observe(delta("retry", "cut"))
	h.Observe(delta("waiting", "429"))
	h.Observe(delta("text", "hello"))
	h.Observe(agent.Event{Type: agent.EventMessage, Message: msg, Response: &llm.Response{StopReason: "tool_use"}})
	// A subagent that did not stream at all: every block is written whole, tagged.
	h.ObserveChild("task1", agent.Event{Type: agent.EventMessage, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("child")}}})
	want := "message_start,content_block_start#0,content_block_delta#0," + // hel
		"message_start,content_block_start#0,content_block_delta#0,content_block_stop#0," + // hello
		"content_block_start#1,content_block_delta#1,content_block_stop#1," +
		"content_block_start#2,content_block_delta#2,content_block_stop#2,message_delta,message_stop,assistant," +
		"task1:message_start,task1:content_block_start#0,task1:content_block_delta#0,task1:content_block_stop#0,task1:message_delta,task1:message_stop,assistant"
	if got := strings.Join(partialEvents(t, buf.String()), ","); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(buf.String(), `"partial_json":"{}"`) || !strings.Contains(buf.String(), `"stop_reason":"tool_use"`) {
		t.Fatalf("a tool call without input must stream as {}, and message_delta carries the stop reason:\n%s", buf.String())
	}
}

func TestPartialMessagesOffByDefault(t *testing.T) {
	var buf bytes.Buffer
	h, _ := NewHeadless(&buf, FormatStreamJSON)
	h.Observe(agent.Event{Type: agent.EventDelta, Delta: llm.Delta{Kind: "text", Text: "x"}})
	if buf.Len() != 0 {
		t.Fatalf("a delta was written without IncludePartialMessages: %s", buf.String())
	}
}
