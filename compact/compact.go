// Package compact keeps a conversation inside the model's context window (s08). It sits on
// the agent's BeforeModel seam and works in layers, cheapest first:
//
//  1. budget: the context in use is estimated from the previous call's usage plus about
//     four bytes a token for what was added since; below Threshold*Window nothing happens;
//  2. clear: old tool results the model has already seen, beyond the most recent
//     KeepRecent and never in the latest batch, become one-line pointers to the transcript,
//     or to the spill file for outputs the output budget already cut to a preview (recent
//     Read and Edit results are kept longest);
//  3. summary: one model call without tools writes a summary of the session; the history
//     becomes the summary (plus the Restore blocks) and the most recent complete exchange.
//
// When the provider rejects a request as too long the loop retries once and the seam
// compacts at once (layers 2 then 3). If a summary is not enough the seam fails the run
// rather than loop. Compact runs layer 3 on demand (/compact [focus]).
package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Triggers, as Claude Code's PreCompact hooks name them.
const (
	TriggerAuto   = "auto"
	TriggerManual = "manual"
)

// Layers reported in Event.Layer.
const (
	LayerClear   = "clear"
	LayerSummary = "summary"
)

// Config sets up a Compactor.
type Config struct {
	// Provider and Model write the summary.
	Provider llm.Provider
	Model    string
	// Window is the context window in tokens; 0 takes the model's from llm.LookupModel.
	Window int
	// Threshold is the fraction of Window above which the seam compacts (default 0.8).
	Threshold float64
	// KeepRecent is how many of the most recent tool results are kept verbatim (default 6).
	KeepRecent int
	// TranscriptPath is named in pointers and in the summary, so the model can look back.
	TranscriptPath string
	// Restore returns the blocks put back after a summary: the todo snapshot, instruction
	// files, invoked skills.
	Restore func() []llm.Block
	// PreCompact runs before a summary (hooks); blocked skips it with reason.
	PreCompact func(ctx context.Context, trigger, instructions string) (blocked bool, reason string)
	// PostCompact runs after a summary replaced the history.
	PostCompact func(ctx context.Context, trigger string)
	// OnCompact reports every change, for the transcript and the UI.
	OnCompact func(Event)
}

// Event describes one compaction step.
type Event struct {
	Trigger  string // TriggerAuto or TriggerManual
	Reactive bool   // the provider had rejected the request as too long
	Layer    string // LayerClear or LayerSummary
	// Before and After are estimated tokens of the request.
	Before, After int
	// Cleared counts tool results replaced by pointers (LayerClear).
	Cleared int
	// Summary is the model's summary (LayerSummary); Usage what writing it cost.
	Summary string
	Usage   llm.Usage
	// Blocked is the PreCompact hook's reason when it refused a summary.
	Blocked string
	// Messages is the history after the step.
	Messages []llm.Message
}

// Compactor is the BeforeModel seam. It is safe for concurrent use, but holds the state of
// one conversation (how many messages the last call carried): use one per session. The
// Config callbacks run while it holds its lock and must not call back into it.
type Compactor struct {
	cfg Config

	mu        sync.Mutex
	sentCount int  // messages the previous model call carried
	usageOK   bool // LastUsage measures the history up to sentCount
	fixed     int  // bytes of system prompt and tool specs last seen
	peak      int  // highest estimate of a request sent
}

// New returns a Compactor with defaults applied.
func New(cfg Config) *Compactor {
	if cfg.Window <= 0 {
		cfg.Window = llm.LookupModel(cfg.Model).ContextWindow
	}
	if cfg.Threshold <= 0 || cfg.Threshold > 1 {
		cfg.Threshold = 0.8
	}
	if cfg.KeepRecent <= 0 {
		cfg.KeepRecent = 6
	}
	return &Compactor{cfg: cfg}
}

// Config returns the configuration with defaults applied.
func (c *Compactor) Config() Config { return c.cfg }

// Budget is the estimate in tokens above which the seam compacts.
func (c *Compactor) Budget() int { return int(c.cfg.Threshold * float64(c.cfg.Window)) }

// Peak is the highest estimated size, in tokens, of a request the seam let through.
func (c *Compactor) Peak() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak
}

// Estimate returns the estimated tokens of a request from its bytes, about four a token.
func Estimate(req *llm.Request) int {
	n := len(req.System)
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema) + 40
	}
	return (n + messagesBytes(req.Messages)) / 4
}

// BeforeModel implements agent.BeforeModel.
func (c *Compactor) BeforeModel(ctx context.Context, t *agent.Turn) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fixed = Estimate(&llm.Request{System: t.Req.System, Tools: t.Req.Tools}) * 4
	est := c.estimate(t)
	budget := c.Budget()
	if est > budget || t.PromptTooLong {
		var err error
		est, err = c.shrink(ctx, t, est)
		if err != nil {
			return err
		}
	}
	c.sentCount = len(t.Conv.Messages)
	c.usageOK = true
	c.peak = max(c.peak, est)
	return nil
}

// estimate is LastUsage plus the bytes added since that call, or the byte estimate of the
// whole request when the usage does not describe the history (first call, after a change).
func (c *Compactor) estimate(t *agent.Turn) int {
	msgs := t.Req.Messages
	if !c.usageOK || t.LastUsage.Total() == 0 || c.sentCount > len(msgs) {
		return c.bytesEstimate(msgs)
	}
	added := msgs[c.sentCount:]
	// The first message added is usually the previous call's answer, already counted in
	// its output tokens.
	if len(added) > 0 && added[0].Role == llm.RoleAssistant {
		added = added[1:]
	}
	return t.LastUsage.Total() + messagesBytes(added)/4
}

func (c *Compactor) bytesEstimate(msgs []llm.Message) int {
	return (c.fixed + messagesBytes(msgs)) / 4
}

// shrink runs layer 2 and, when that is not enough (or the provider already refused the
// request), layer 3.
func (c *Compactor) shrink(ctx context.Context, t *agent.Turn, before int) (int, error) {
	budget := c.Budget()
	msgs, cleared := c.clear(t.Conv.Messages, c.sentCount, budget*3/4)
	est := before
	if cleared > 0 {
		t.ReplaceMessages(msgs)
		c.usageOK = false
		est = c.bytesEstimate(msgs)
		c.emit(Event{Trigger: TriggerAuto, Reactive: t.PromptTooLong, Layer: LayerClear, Before: before, After: est, Cleared: cleared, Messages: msgs})
	}
	if est <= budget && !t.PromptTooLong {
		return est, nil
	}
	next, ev, err := c.summarize(ctx, t.Conv.Messages, TriggerAuto, "")
	if err != nil {
		return est, err
	}
	if next == nil { // blocked by PreCompact
		if t.PromptTooLong || est > c.cfg.Window {
			return est, fmt.Errorf("compaction: the context (~%d tokens) does not fit the window of %d tokens and the summary was blocked: %s", est, c.cfg.Window, ev.Blocked)
		}
		return est, nil
	}
	t.ReplaceMessages(next)
	c.usageOK = false
	after := c.bytesEstimate(next)
	ev.Reactive, ev.Before, ev.After, ev.Messages = t.PromptTooLong, est, after, next
	c.emit(ev)
	if c.cfg.PostCompact != nil {
		c.cfg.PostCompact(ctx, TriggerAuto)
	}
	if after > budget {
		return after, fmt.Errorf("compaction: even after a summary the context is ~%d tokens, over the budget of %d (%.0f%% of a %d-token window); the most recent exchange alone is too large", after, budget, c.cfg.Threshold*100, c.cfg.Window)
	}
	return after, nil
}

// Compact summarizes conv now (a manual /compact with an optional focus) and replaces its
// history. The next model call is estimated from the new history's bytes.
func (c *Compactor) Compact(ctx context.Context, conv *agent.Conversation, focus string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(conv.Messages) == 0 {
		return errors.New("compaction: there is nothing to compact")
	}
	before := c.bytesEstimate(conv.Messages)
	next, ev, err := c.summarize(ctx, conv.Messages, TriggerManual, focus)
	if err != nil {
		return err
	}
	if next == nil {
		return fmt.Errorf("compaction blocked: %s", ev.Blocked)
	}
	conv.Messages = next
	c.usageOK = false
	c.sentCount = len(next)
	ev.Before, ev.After, ev.Messages = before, c.bytesEstimate(next), next
	c.emit(ev)
	if c.cfg.PostCompact != nil {
		c.cfg.PostCompact(ctx, TriggerManual)
	}
	return nil
}

func (c *Compactor) emit(e Event) {
	if c.cfg.OnCompact != nil {
		c.cfg.OnCompact(e)
	}
}

// ---- layer 2 ----

const clearedPrefix = "[earlier result of "

type candidate struct {
	msg, block int
	name       string
	input      json.RawMessage
	size       int
	keepLong   bool
}

// clear replaces old, seen tool results with pointers until the estimate is at most
// target. It returns a new slice (messages it changes are copied) and how many it cleared.
func (c *Compactor) clear(msgs []llm.Message, seen, target int) ([]llm.Message, int) {
	uses := map[string]llm.Block{}
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			for _, b := range m.Content {
				if b.Type == llm.BlockToolUse {
					uses[b.ID] = b
				}
			}
		}
	}
	// The latest batch of results is never cleared, nor anything the model has not seen.
	limit := min(seen, len(msgs))
	if last := lastResultMessage(msgs); last >= 0 {
		limit = min(limit, last)
	}
	var all []candidate
	for i := range limit {
		m := msgs[i]
		if m.Role != llm.RoleUser {
			continue
		}
		for j, b := range m.Content {
			if b.Type != llm.BlockToolResult {
				continue
			}
			if len(b.Content) > 0 && strings.HasPrefix(b.Content[0].Text, clearedPrefix) {
				continue
			}
			u := uses[b.ToolUseID]
			all = append(all, candidate{msg: i, block: j, name: u.Name, input: u.Input, size: blockBytes(b),
				keepLong: isReadEdit(u.Name)})
		}
	}
	// The most recent KeepRecent results stay verbatim.
	if len(all) <= c.cfg.KeepRecent {
		return msgs, 0
	}
	cands := all[:len(all)-c.cfg.KeepRecent]
	// Oldest first, other tools before Read and Edit.
	sort.SliceStable(cands, func(a, b int) bool { return !cands[a].keepLong && cands[b].keepLong })

	est := c.bytesEstimate(msgs)
	out := msgs
	copied := map[int]bool{}
	n := 0
	for _, cd := range cands {
		if est <= target {
			break
		}
		if cd.size < 400 {
			continue
		}
		if n == 0 {
			out = append([]llm.Message(nil), msgs...)
		}
		if !copied[cd.msg] {
			out[cd.msg].Content = append([]llm.Block(nil), out[cd.msg].Content...)
			copied[cd.msg] = true
		}
		old := out[cd.msg].Content[cd.block]
		chars := 0
		for _, x := range old.Content {
			chars += len(x.Text)
		}
		ptr := c.pointer(cd.name, describeInput(cd.input), chars, spillNote(old))
		out[cd.msg].Content[cd.block] = llm.ToolResultBlock(old.ToolUseID, ptr, old.IsError)
		est -= (cd.size - len(ptr) - 40) / 4
		n++
	}
	return out, n
}

// spillNote finds the file an output budget spilled a result to, from its preview's note,
// and says what the file holds.
func spillNote(b llm.Block) string {
	for _, x := range b.Content {
		if path, full := tool.SpillFile(x.Text); path != "" {
			if full {
				return "the full output is in " + path
			}
			return "what the tool returned (the tool had already left part of its output out) is in " + path
		}
	}
	return ""
}

func (c *Compactor) pointer(name, arg string, chars int, spilled string) string {
	what := name
	if what == "" {
		what = "a tool call"
	}
	if arg != "" {
		what += " " + arg
	}
	s := fmt.Sprintf("%s%s (%d chars) cleared to save context", clearedPrefix, what, chars)
	switch {
	case spilled != "":
		s += "; " + spilled
	case c.cfg.TranscriptPath != "":
		s += "; it is in the transcript at " + c.cfg.TranscriptPath
	}
	return s + "]"
}

func isReadEdit(name string) bool {
	switch name {
	case "Read", "Edit", "MultiEdit", "Write", "NotebookEdit":
		return true
	}
	return false
}

// describeInput picks the argument that names what a call was about.
func describeInput(in json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return ""
	}
	for _, k := range []string{"file_path", "path", "notebook_path", "command", "pattern", "url", "query", "description"} {
		if s, ok := m[k].(string); ok && s != "" {
			return textcut.Bytes(strings.Join(strings.Fields(s), " "), 80, "…")
		}
	}
	return ""
}

func lastResultMessage(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if hasResult(msgs[i]) {
			return i
		}
	}
	return -1
}

func hasResult(m llm.Message) bool {
	if m.Role != llm.RoleUser {
		return false
	}
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}

func blockBytes(b llm.Block) int {
	n := 24 + len(b.Type) + len(b.Text) + len(b.ID) + len(b.Name) + len(b.Input) + len(b.ToolUseID) +
		len(b.Thinking) + len(b.Signature) + len(b.Data)
	if b.Source != nil {
		n += len(b.Source.Data) + len(b.Source.MediaType)
	}
	for _, c := range b.Content {
		n += blockBytes(c)
	}
	return n
}

func messagesBytes(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += 24
		for _, b := range m.Content {
			n += blockBytes(b)
		}
	}
	return n
}
