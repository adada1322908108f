package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/ouroagent/ouro/checkpoint"
	"github.com/ouroagent/ouro/internal/prompttext"
	"github.com/ouroagent/ouro/llm"
)

// HistoryItem is one piece of a resumed conversation, shown again before the input: the
// person's prompt, an answer of the model, or a tool call with its result.
type HistoryItem struct {
	Prompt string     // as typed (prompttext.Readable)
	Answer string     // the model's text (Markdown)
	Call   *llm.Block // a tool_use block
	Result *llm.Block // its tool_result, nil if none came back
}

const (
	historyTurns       = 10 // prompts shown again on resume, the last ones
	historyAnswerLines = 40 // lines of an answer shown again
)

// History is the recent turns of msgs: the last turns prompts and all that followed each,
// and how many prompts came before them. The person's prompts are the messages the
// session's checkpoints start at; the other user messages (tool results, reminders and
// notices that mechanisms add) are not shown as prompts. Without checkpoints, every user
// message with text is taken for a prompt.
func History(msgs []llm.Message, cps []checkpoint.Prompt, turns int) (items []HistoryItem, skipped int) {
	prompt := map[int]bool{}
	for _, p := range cps {
		if !p.Compacted && p.At >= 0 && p.At < len(msgs) && msgs[p.At].Role == llm.RoleUser && userText(msgs[p.At]) != "" {
			prompt[p.At] = true
		}
	}
	if len(prompt) == 0 {
		for i, m := range msgs {
			if m.Role == llm.RoleUser && userText(m) != "" && !hasResults(m) {
				prompt[i] = true
			}
		}
	}
	var at []int
	for i := range msgs {
		if prompt[i] {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil, 0
	}
	start := at[max(0, len(at)-turns)]
	skipped = max(0, len(at)-turns)
	calls := map[string]int{} // tool_use id → its item
	for i := start; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == llm.RoleUser {
			if prompt[i] {
				items = append(items, HistoryItem{Prompt: prompttext.Readable(userText(m))})
			}
			for j := range m.Content {
				if b := &m.Content[j]; b.Type == llm.BlockToolResult {
					if k, ok := calls[b.ToolUseID]; ok {
						items[k].Result = b
					}
				}
			}
			continue
		}
		for j := range m.Content {
			switch b := &m.Content[j]; b.Type {
			case llm.BlockText:
				if strings.TrimSpace(b.Text) != "" {
					items = append(items, HistoryItem{Answer: b.Text})
				}
			case llm.BlockToolUse:
				calls[b.ID] = len(items)
				items = append(items, HistoryItem{Call: b})
			}
		}
	}
	return items, skipped
}

// ShortAnswer is the answer cut to its first lines: it was read when it came.
func (it HistoryItem) ShortAnswer() string {
	lines := strings.Split(strings.TrimRight(it.Answer, "\n"), "\n")
	if n := len(lines); n > historyAnswerLines {
		lines = append(lines[:historyAnswerLines], fmt.Sprintf("… (%d more lines)", n-historyAnswerLines))
	}
	return strings.Join(lines, "\n")
}

func userText(m llm.Message) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == llm.BlockText && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func hasResults(m llm.Message) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}

// showHistory shows a resumed session's recent turns before the first prompt: on the
// screen when there is one, as lines otherwise.
func (r *REPL) showHistory() {
	cps, _ := r.sess.Checkpoints() // without them, History tells prompts apart itself
	items, skipped := History(r.sess.Conv.Messages, cps, historyTurns)
	if len(items) == 0 {
		return
	}
	if r.Screen != nil {
		r.Screen.History(items, skipped)
		return
	}
	writeHistory(r.Out, items, skipped)
}

// writeHistory writes the turns as the line mode shows a run: the prompt after "› ", the
// answer, each tool call and a line of its result.
func writeHistory(w io.Writer, items []HistoryItem, skipped int) {
	head := "── the conversation so far"
	if skipped > 0 {
		head += fmt.Sprintf(" (%d earlier prompt(s) not shown)", skipped)
	}
	fmt.Fprintln(w, head+" ──")
	for _, it := range items {
		switch {
		case it.Prompt != "":
			fmt.Fprintf(w, "\n› %s\n", strings.ReplaceAll(it.Prompt, "\n", "\n  "))
		case it.Answer != "":
			fmt.Fprintln(w, it.ShortAnswer())
		case it.Call != nil:
			fmt.Fprintf(w, "⏺ %s(%s)\n", it.Call.Name, callSummary(it.Call.Name, it.Call.Input))
			if it.Result != nil {
				fmt.Fprintf(w, "  ⎿ %s\n", resultSummary(it.Result))
			}
		}
	}
	fmt.Fprintln(w, "── resumed here ──")
}
