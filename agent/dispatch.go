package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// dispatch runs one assistant message's calls and appends the user message that answers
// them: exactly one tool_result per tool_use, in call order, whatever happens. Calls run
// in order; a run of consecutive read-only calls runs concurrently (bounded). It returns
// the question of the first call that needs the user's input and the reason of the first
// call that asks to abort the run, if any.
func (r *run) dispatch(ctx, runCtx context.Context, calls []llm.Block) (question, abort string) {
	results := make([]tool.Result, len(calls))
	done := make([]bool, len(calls))
	for i := 0; i < len(calls); {
		if runCtx.Err() != nil {
			break
		}
		j := i + 1
		if r.readOnly(calls[i]) {
			for j < len(calls) && r.readOnly(calls[j]) {
				j++
			}
		}
		var ready []tool.Call
		var at []int
		for k := i; k < j; k++ {
			c := callOf(calls[k])
			if !json.Valid(c.Input) {
				results[k] = tool.Errorf("Invalid input for %s: the input is not valid JSON (%d bytes), so the call was not run. Send the call again with complete JSON.", c.Name, len(c.Input))
				done[k] = true
				r.emit(Event{Type: EventToolEnd, Turn: r.out.Turns, Call: &c, Result: ptr(results[k].Block(c.ID))})
				continue
			}
			if bad, ok := r.a.cfg.Tools.Check(c); !ok {
				results[k] = bad
				done[k] = true
				r.emit(Event{Type: EventToolEnd, Turn: r.out.Turns, Call: &c, Result: ptr(results[k].Block(c.ID))})
				continue
			}
			c.Checked = true // a gate that rewrites the input clears it
			if d := r.gate(runCtx, &c); d.Deny {
				if runCtx.Err() != nil {
					break
				}
				results[k] = tool.Errorf("Permission denied: %s", d.Reason)
				done[k] = true
				r.out.Denials = append(r.out.Denials, Denial{ToolName: c.Name, ToolUseID: c.ID, ToolInput: c.Input, Reason: d.Reason})
				r.emit(Event{Type: EventToolEnd, Turn: r.out.Turns, Call: &c, Result: ptr(results[k].Block(c.ID))})
				continue
			}
			ready = append(ready, c)
			at = append(at, k)
		}
		for n := range ready {
			r.emit(Event{Type: EventToolStart, Turn: r.out.Turns, Call: &ready[n]})
		}
		out := r.runCalls(runCtx, ready)
		for n, c := range ready {
			res := out[n].res
			for _, s := range r.a.cfg.AfterTool {
				r.safeAfter(runCtx, s, c, &res)
			}
			k := at[n]
			results[k] = res
			done[k] = true
			r.emit(Event{Type: EventToolEnd, Turn: r.out.Turns, Call: &c, Result: ptr(res.Block(c.ID)), Start: out[n].start, End: out[n].end})
			if question == "" && res.NeedsInput != "" {
				question = res.NeedsInput
			}
			if abort == "" && res.Abort != "" {
				abort = res.Abort
			}
		}
		i = j
	}
	blocks := make([]llm.Block, len(calls))
	for k, c := range calls {
		if !done[k] {
			if ctx.Err() == nil && runCtx.Err() != nil {
				results[k] = tool.Errorf("Not run: the run reached its wall-time limit of %s.", r.a.cfg.Limits.MaxDuration)
			} else {
				results[k] = tool.Interrupted()
			}
		}
		blocks[k] = results[k].Block(c.ID)
	}
	r.append(llm.Message{Role: llm.RoleUser, Content: blocks})
	return question, abort
}

func (r *run) readOnly(b llm.Block) bool {
	t, ok := r.a.cfg.Tools.Get(b.Name)
	return ok && tool.IsReadOnly(t, b.Input)
}

type timed struct {
	res        tool.Result
	start, end time.Time
}

// runCalls runs calls concurrently (bounded by MaxParallel) and returns results in order,
// each with when it ran.
func (r *run) runCalls(ctx context.Context, calls []tool.Call) []timed {
	out := make([]timed, len(calls))
	one := func(i int) {
		out[i].start = time.Now()
		out[i].res = r.a.cfg.Tools.Run(ctx, calls[i])
		out[i].end = time.Now()
	}
	if len(calls) == 1 {
		one(0)
		return out
	}
	sem := make(chan struct{}, r.a.cfg.MaxParallel)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			one(i)
		}()
	}
	wg.Wait()
	return out
}

// gate asks every Gate in order; the first denial wins. A gate that panics denies: a
// broken permission check must fail closed.
func (r *run) gate(ctx context.Context, c *tool.Call) (d Decision) {
	for _, g := range r.a.cfg.Gates {
		d = safeGate(ctx, g, c)
		if d.Deny {
			return d
		}
		if len(d.UpdatedInput) > 0 {
			if !json.Valid(d.UpdatedInput) {
				return Decision{Deny: true, Reason: "a permission check rewrote the input into invalid JSON"}
			}
			c.Input, c.Checked = d.UpdatedInput, false
		}
	}
	if ctx.Err() != nil {
		return Decision{Deny: true, Reason: "interrupted before the call ran"}
	}
	return Decision{}
}

func safeGate(ctx context.Context, g Gate, c *tool.Call) (d Decision) {
	defer func() {
		if p := recover(); p != nil {
			d = Decision{Deny: true, Reason: fmt.Sprintf("the permission check failed (%v), so the call was not run", p)}
		}
	}()
	return g.Gate(ctx, c)
}

func (r *run) safeAfter(ctx context.Context, s AfterTool, c tool.Call, res *tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			r.emit(Event{Type: EventNotice, Turn: r.out.Turns, Text: fmt.Sprintf("an after-tool step failed on %s: %v", c.Name, p)})
		}
	}()
	s.AfterTool(ctx, c, res)
}

func safeStop(ctx context.Context, s BeforeStop, st *Stop) (d StopDecision) {
	defer func() {
		if p := recover(); p != nil {
			d = StopDecision{}
		}
	}()
	return s.BeforeStop(ctx, st)
}

func ptr[T any](v T) *T { return &v }
