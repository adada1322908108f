package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// Trajectory prints a run as the protocol sees it: each model turn, the blocks of each
// assistant message (text, tool_use with its id and input), each tool_result with the id
// it answers, and why the run stopped. `ouro demo` uses it to teach the loop.
type Trajectory struct {
	W io.Writer
	// Width clips long outputs (0 = 600 characters).
	Width int

	running int // calls started and not yet ended
}

// Observe is an agent.Observer.
func (t *Trajectory) Observe(e agent.Event) {
	w := t.W
	switch e.Type {
	case agent.EventTurnStart:
		fmt.Fprintf(w, "\n── turn %d: request sent to the model (history + tool list) ──\n", e.Turn)
	case agent.EventMessage:
		m := e.Message
		if m.Role == llm.RoleAssistant {
			stop := ""
			if e.Response != nil {
				stop = e.Response.StopReason
			}
			fmt.Fprintf(w, "assistant message, stop_reason=%q:\n", stop)
			for _, b := range m.Content {
				switch b.Type {
				case llm.BlockText:
					fmt.Fprintf(w, "  [text]     %s\n", indent(t.clip(b.Text), "             "))
				case llm.BlockToolUse:
					fmt.Fprintf(w, "  [tool_use] id=%s name=%s input=%s\n", b.ID, b.Name, compactJSON(b.Input))
				case llm.BlockThinking:
					fmt.Fprintf(w, "  [thinking] %s\n", indent(t.clip(b.Thinking), "             "))
				}
			}
			return
		}
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolResult:
				fmt.Fprintf(w, "user message carries [tool_result] tool_use_id=%s is_error=%v:\n    %s\n",
					b.ToolUseID, b.IsError, indent(t.clip(strings.TrimRight(b.ResultText(), "\n")), "    "))
			case llm.BlockText:
				fmt.Fprintf(w, "user: %s\n", indent(t.clip(b.Text), "      "))
			}
		}
	case agent.EventToolStart:
		t.running++
		fmt.Fprintf(w, "  → ouro runs %s (%s)\n", e.Call.Name, e.Call.ID)
	case agent.EventToolEnd:
		if t.running > 1 {
			fmt.Fprintf(w, "  (these %d calls only read, so they ran at the same time)\n", t.running)
		}
		t.running = 0
	case agent.EventNotice:
		fmt.Fprintf(w, "  ! %s\n", e.Text)
	case agent.EventOutcome:
		o := e.Outcome
		fmt.Fprintf(w, "\n── the model asked for no more tools (stop_reason %q): run %s after %d turns ──\n", o.StopReason, o.Status, o.Turns)
		if o.Reason != "" {
			fmt.Fprintf(w, "reason: %s\n", o.Reason)
		}
	}
}

func (t *Trajectory) clip(s string) string {
	n := t.Width
	if n <= 0 {
		n = 600
	}
	return Clip(s, n)
}

// Clip shortens s to about n characters, saying how much was left out.
func Clip(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	head := textcut.Runes(s, n, "")
	return head + fmt.Sprintf("… [%d more characters]", total-utf8.RuneCountInString(head))
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }

func compactJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSpace(sb.String())
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
