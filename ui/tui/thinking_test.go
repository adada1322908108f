package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

func thinkDelta(d string) eventMsg {
	return eventMsg{e: agent.Event{Type: agent.EventDelta, Delta: llm.Delta{Kind: "thinking", Text: d}}}
}

// Thinking streams as one live line ("Thinking…" and the line being thought), is printed
// folded to one line once the answer goes on, and Ctrl-O prints it whole; after a tool
// block Ctrl-O expands the tool again. A retry drops the thinking of the attempt that
// failed; escapes in thinking are shown escaped.
func TestThinkingIsShownFolded(t *testing.T) {
	m, _, printed := testModel(t, 80)
	t0 := m.now()
	now := t0
	m.now = func() time.Time { return now }
	joined := func() string { return ansi.Strip(strings.Join(*printed, "\n")) }
	m.Update(runStartMsg{})
	m.Update(thinkDelta("The user asks about main.go.\nLet me read it\x1b[2J "))
	m.Update(thinkDelta("before answering."))
	live := ansi.Strip(m.render())
	if !strings.Contains(live, "Thinking… Let me read it") || !strings.Contains(live, "before answering.") || strings.Contains(live, "The user asks") {
		t.Fatalf("live area while thinking:\n%s", live)
	}
	if strings.Contains(live, "\x1b[2J") {
		t.Fatal("an escape in thinking reached the screen")
	}
	if strings.Contains(joined(), "Let me read it") {
		t.Fatalf("the thinking was printed whole: %s", joined())
	}
	now = t0.Add(2500 * time.Millisecond)
	m.Update(delta("It prints hello.\n\n"))
	p := joined()
	if !strings.Contains(p, "✻ Thought for 2.5s · 2 lines (ctrl+o to expand)") || strings.Contains(p, "Let me read it") || !strings.Contains(p, "It prints hello.") {
		t.Fatalf("printed after the answer began:\n%s", p)
	}
	if strings.Index(p, "Thought for") > strings.Index(p, "It prints hello.") {
		t.Fatalf("the folded thought comes after the answer:\n%s", p)
	}
	if live := ansi.Strip(m.render()); strings.Contains(live, "Thinking…") {
		t.Fatalf("the thinking line stays once the answer goes on:\n%s", live)
	}
	m.Update(key("ctrl+o"))
	last := ansi.Strip((*printed)[len(*printed)-1])
	if !strings.Contains(last, "The user asks about main.go.") || !strings.Contains(last, "before answering.") {
		t.Fatalf("ctrl+o printed %q", last)
	}

	// A tool block is newer: Ctrl-O expands it, not the thought.
	in, _ := json.Marshal(map[string]string{"command": "ls"})
	call := &tool.Call{ID: "t1", Name: "Bash", Input: in}
	m.Update(eventMsg{e: agent.Event{Type: agent.EventToolStart, Call: call}})
	res := llm.Block{Type: llm.BlockToolResult, Content: []llm.Block{llm.TextBlock("a\nb\nc\nd\ne")}}
	m.Update(eventMsg{e: agent.Event{Type: agent.EventToolEnd, Call: call, Result: &res, Start: t0, End: t0.Add(time.Second)}})
	m.Update(key("ctrl+o"))
	if last := ansi.Strip((*printed)[len(*printed)-1]); !strings.Contains(last, "Bash(ls)") || !strings.Contains(last, "e") {
		t.Fatalf("ctrl+o after a tool printed %q", last)
	}

	// A retry discards the attempt's thinking; the next attempt's is folded alone.
	n := len(*printed)
	m.Update(thinkDelta("first attempt's thought"))
	m.Update(eventMsg{e: agent.Event{Type: agent.EventDelta, Delta: llm.Delta{Kind: "retry", Text: "stream cut; retrying"}}})
	m.Update(thinkDelta("second attempt's thought"))
	m.Update(eventMsg{e: agent.Event{Type: agent.EventTurnEnd}})
	after := ansi.Strip(strings.Join((*printed)[n:], "\n"))
	if strings.Count(after, "Thought for") != 1 {
		t.Fatalf("after a retry:\n%s", after)
	}
	m.Update(key("ctrl+o"))
	if last := ansi.Strip((*printed)[len(*printed)-1]); !strings.Contains(last, "second attempt's thought") || strings.Contains(last, "first attempt") {
		t.Fatalf("ctrl+o after a retry printed %q", last)
	}
}
