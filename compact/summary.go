package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// SummarySystem is the system prompt of the summary call.
const SummarySystem = "You write the working summary of a coding agent's session so that the agent can continue the work from it alone. Be precise and complete; quote file paths, names and error messages exactly. Do not call tools."

const summaryInstructions = `Write a summary of the session above with these sections:
1. User goals: every request the user made, in their words where it matters.
2. Decisions: what was decided and why.
3. Files: each file read, created or changed, and its current state.
4. Errors: errors met and how they were fixed (or not).
5. Open items: what remains to do, and the very next step.
6. Todo list: the current todo list, if there is one.
7. Transcript: where the full transcript is, so details can be looked up.`

// summarize asks the model for a summary of msgs and returns the new history: one user
// message with the summary and the restore blocks, then the most recent complete
// exchange. A nil history with ev.Blocked set means PreCompact refused.
func (c *Compactor) summarize(ctx context.Context, msgs []llm.Message, trigger, focus string) ([]llm.Message, Event, error) {
	ev := Event{Trigger: trigger, Layer: LayerSummary}
	if c.cfg.PreCompact != nil {
		if blocked, reason := c.cfg.PreCompact(ctx, trigger, focus); blocked {
			ev.Blocked = reason
			return nil, ev, nil
		}
	}
	if c.cfg.Provider == nil {
		return nil, ev, fmt.Errorf("compaction: no provider to write the summary")
	}
	cut := c.cutPoint(msgs, trigger == TriggerManual)
	head, tail := msgs[:cut], msgs[cut:]
	var restore []llm.Block
	if c.cfg.Restore != nil {
		restore = c.cfg.Restore()
	}
	prompt := c.summaryPrompt(head, msgs, restore, focus)
	req := &llm.Request{Model: c.cfg.Model, System: SummarySystem, MaxTokens: 8192,
		Messages: []llm.Message{llm.UserText(prompt)}}
	resp, err := c.cfg.Provider.Complete(ctx, req, nil)
	if err != nil {
		return nil, ev, fmt.Errorf("compaction: writing the summary: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.Text())
	if summary == "" {
		return nil, ev, fmt.Errorf("compaction: the model returned an empty summary")
	}
	ev.Summary, ev.Usage = summary, resp.Usage

	text := "This session is being continued from an earlier conversation that ran out of context. The summary below covers it."
	if c.cfg.TranscriptPath != "" {
		text += " The full transcript is at " + c.cfg.TranscriptPath + "."
	}
	text += "\n\n<summary>\n" + summary + "\n</summary>"
	first := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock(text)}}
	for _, b := range restore {
		if b.Type == llm.BlockText && b.Text == "" {
			continue
		}
		first.Content = append(first.Content, b)
	}
	out := []llm.Message{first}
	if len(tail) > 0 && tail[0].Role == llm.RoleUser {
		// A fresh user prompt: merge it into the first message so roles alternate.
		first.Content = append(first.Content, tail[0].Content...)
		out[0] = first
		tail = tail[1:]
	} else if len(tail) == 0 {
		first.Content = append(first.Content, llm.TextBlock("Continue from where the summary leaves off."))
		out[0] = first
	}
	out = append(out, tail...)
	if err := llm.ValidateConversation(out); err != nil {
		return nil, ev, fmt.Errorf("compaction: the compacted history is invalid: %w", err)
	}
	return out, ev, nil
}

// cutPoint returns where the kept tail starts: the latest safe cut when latest is set
// (manual compaction), else the earliest safe cut whose tail fits a
// quarter of the window, else the latest safe cut. A cut is safe at a user message with no
// tool_result or at an assistant message (after a tool_result message or a prompt); so a
// tool_use is never separated from its tool_result.
func (c *Compactor) cutPoint(msgs []llm.Message, latest bool) int {
	var cuts []int
	for i := 1; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == llm.RoleUser && !hasResult(m) {
			cuts = append(cuts, i)
		}
		if m.Role == llm.RoleAssistant {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return len(msgs) // keep nothing but the summary
	}
	if latest {
		return cuts[len(cuts)-1]
	}
	limit := c.cfg.Window // a quarter of the window in tokens is Window bytes
	tailBytes := 0
	best := cuts[len(cuts)-1]
	j := len(msgs)
	for k := len(cuts) - 1; k >= 0; k-- {
		tailBytes += messagesBytes(msgs[cuts[k]:j])
		j = cuts[k]
		if tailBytes > limit {
			break
		}
		best = cuts[k]
	}
	return best
}

// summaryPrompt renders the history as text for the summary call, with tool results
// clipped, the files touched listed and the restore blocks (the todo list) included.
func (c *Compactor) summaryPrompt(msgs, all []llm.Message, restore []llm.Block, focus string) string {
	var sb strings.Builder
	sb.WriteString("Here is the session so far.\n\n<conversation>\n")
	files := map[string]bool{}
	budget := c.cfg.Window * 2 // bytes of history in the prompt, about half the window
	var parts []string
	for _, m := range msgs {
		var p strings.Builder
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockText:
				fmt.Fprintf(&p, "[%s] %s\n", m.Role, textcut.Bytes(b.Text, 4000, "…"))
			case llm.BlockToolUse:
				fmt.Fprintf(&p, "[tool call %s] %s\n", b.Name, textcut.Bytes(string(b.Input), 1000, "…"))
			case llm.BlockToolResult:
				label := "tool result"
				if b.IsError {
					label = "tool error"
				}
				fmt.Fprintf(&p, "[%s] %s\n", label, textcut.Bytes(b.ResultText(), 1500, "…"))
			}
		}
		parts = append(parts, p.String())
	}
	for _, m := range all {
		for _, b := range m.ToolUses() {
			for _, f := range filesOf(b.Input) {
				files[f] = true
			}
		}
	}
	// Keep the start (the user's first request) and as much of the end as fits.
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	if total > budget && len(parts) > 1 {
		kept := []string{parts[0], "[... earlier part of the session omitted; see the transcript ...]\n"}
		var tail []string
		size := len(parts[0])
		for i := len(parts) - 1; i > 0 && size+len(parts[i]) <= budget; i-- {
			tail = append(tail, parts[i])
			size += len(parts[i])
		}
		for i := len(tail) - 1; i >= 0; i-- {
			kept = append(kept, tail[i])
		}
		parts = kept
	}
	for _, p := range parts {
		sb.WriteString(p)
	}
	sb.WriteString("</conversation>\n\n")
	if len(files) > 0 {
		names := make([]string, 0, len(files))
		for f := range files {
			names = append(names, f)
		}
		sort.Strings(names)
		sb.WriteString("Files touched in the session: " + strings.Join(names, ", ") + "\n\n")
	}
	for _, b := range restore {
		if b.Type == llm.BlockText && b.Text != "" {
			sb.WriteString(b.Text + "\n\n")
		}
	}
	if c.cfg.TranscriptPath != "" {
		sb.WriteString("The full transcript is at " + c.cfg.TranscriptPath + ".\n\n")
	}
	sb.WriteString(summaryInstructions)
	if focus = strings.TrimSpace(focus); focus != "" {
		sb.WriteString("\n\nFocus the summary on: " + focus)
	}
	return sb.String()
}

// filesOf returns the file paths a tool input names.
func filesOf(in json.RawMessage) []string {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"file_path", "path", "notebook_path"} {
		if s, ok := m[k].(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}
