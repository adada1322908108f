package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/tool"
)

// A call's progress becomes Claude Code's tool_progress line in stream-json, with the
// time since the call started, for the main loop and for a child (parent_tool_use_id);
// the REPL shows it under the call.
func TestToolProgressIsShown(t *testing.T) {
	var buf bytes.Buffer
	h, err := NewHeadless(&buf, FormatStreamJSON)
	if err != nil {
		t.Fatal(err)
	}
	h.Start(Init{SessionID: "s1"})
	c := &tool.Call{ID: "toolu_1", Name: "Task"}
	h.Observe(agent.Event{Type: agent.EventToolStart, Call: c})
	h.Observe(agent.Event{Type: agent.EventToolProgress, Call: c, Progress: &tool.Progress{Message: "Explore: Grep", Done: 1, Total: 4}})
	h.ObserveChild("toolu_1", agent.Event{Type: agent.EventToolProgress, Call: &tool.Call{ID: "toolu_9", Name: "Bash"}, Progress: &tool.Progress{Message: "compiling"}})
	h.Observe(agent.Event{Type: agent.EventToolEnd, Call: c})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines:\n%s", buf.String())
	}
	var main, child map[string]any
	_ = json.Unmarshal([]byte(lines[1]), &main)
	_ = json.Unmarshal([]byte(lines[2]), &child)
	if main["type"] != "tool_progress" || main["tool_use_id"] != "toolu_1" || main["tool_name"] != "Task" || main["parent_tool_use_id"] != nil ||
		main["message"] != "Explore: Grep" || main["progress"] != 1.0 || main["total"] != 4.0 || main["session_id"] != "s1" {
		t.Errorf("main progress line: %s", lines[1])
	}
	if _, ok := main["elapsed_time_seconds"].(float64); !ok {
		t.Errorf("no elapsed time: %s", lines[1])
	}
	if child["parent_tool_use_id"] != "toolu_1" || child["tool_use_id"] != "toolu_9" || child["progress"] != nil {
		t.Errorf("child progress line: %s", lines[2])
	}

	var out bytes.Buffer
	r := &REPL{Out: &out, Err: &out}
	r.observe(agent.Event{Type: agent.EventToolProgress, Call: c, Progress: &tool.Progress{Message: "Explore: turn 2\nmore"}})
	if got := out.String(); got != "  ⋯ Explore: turn 2 more\n" {
		t.Errorf("REPL shows %q", got)
	}
}
