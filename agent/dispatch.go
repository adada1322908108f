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
func (r *run) dispatch(ctx context.Context, calls []llm.Block, broken map[string]brokenInput) (question, abort string) {
	tools := r.a.cfg.Tools
	results := make([]tool.Result, len(calls))
	done := make([]bool, len(calls))
	// Every call is checked (tool exists, input fits its schema) before anything runs:
	// checking has no effects, and read-only grouping needs to know the tool.
	valid := make([]tool.Valid, len(calls))
	ok := make([]bool, len(calls))
	for k, b := range calls {
		c := callOf(b)
		if bi, bad := broken[c.ID]; bad {
			schema := ""
			for _, sp := range tools.Specs() {
				if s, err := json.Marshal(sp.InputSchema); sp.Name == c.Name && err == nil {
					schema = " Its input must be one JSON object matching this schema: " + string(s)
				}
			}
			results[k] = tool.Errorf("Invalid input for %s: the input is not valid JSON (%s; %d bytes, starting %s), so the call was not run (the history shows it as {}). Send the call again as complete JSON, with double quotes and nothing after the closing brace.%s", c.Name, bi.why, bi.size, bi.head, schema)
			continue
		}
		valid[k], results[k], ok[k] = tools.Check(c)
	}
	readOnly := func(k int) bool { return ok[k] && valid[k].ReadOnly() }
	var unrecorded error
	for i := 0; i < len(calls); {
		if ctx.Err() != nil {
			break
		}
		j := i + 1
		if readOnly(i) {
			for j < len(calls) && readOnly(j) {
				j++
			}
		}
		var ready []tool.Valid
		var at []int
		for k := i; k < j; k++ {
			if !ok[k] {
				done[k] = true
				c := callOf(calls[k])
				r.emit(Event{Type: EventToolEnd, Turn: r.out.Turns, Call: &c, Result: ptr(results[k].Block(c.ID))})
				continue
			}
			// Nothing runs that could not be recorded: not a gate's hooks, not the tool.
			if unrecorded = r.recordFailed(); unrecorded != nil {
				break
			}
			v, d := r.gate(ctx, valid[k])
			if d.Deny {
				if ctx.Err() != nil {
					break
				}
				c := v.Call()
				results[k] = tool.Errorf("Permission denied: %s", d.Reason)
				done[k] = true
				r.out.Denials = append(r.out.Denials, Denial{ToolName: c.Name, ToolUseID: c.ID, ToolInput: c.Input, Reason: d.Reason})
				r.emit(Event{Type: EventToolEnd, Turn: r.out.Turns, Call: &c, Result: ptr(results[k].Block(c.ID))})
				continue
			}
			ready = append(ready, v)
			at = append(at, k)
		}
		if unrecorded == nil {
			unrecorded = r.recordFailed()
		}
		if unrecorded != nil {
			break
		}
		started := make([]tool.Call, len(ready))
		for n := range ready {
			started[n] = ready[n].Call()
			r.emit(Event{Type: EventToolStart, Turn: r.out.Turns, Call: &started[n]})
		}
		out := r.runCalls(ctx, ready)
		for n := range ready {
			c := &started[n]
			res := out[n].res
			for _, s := range r.a.cfg.AfterTool {
				r.safeAfter(ctx, s, *c, &res)
			}
			k := at[n]
			results[k] = res
			done[k] = true
			r.emit(Event{Type: EventToolEnd, Turn: r.out.Turns, Call: c, Result: ptr(res.Block(c.ID)), Start: out[n].start, End: out[n].end})
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
			if unrecorded != nil {
				results[k] = tool.Errorf("Not run: the session's record could not be written (%v), so nothing more is done.", unrecorded)
			} else if timeUp(ctx) {
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

type timed struct {
	res        tool.Result
	start, end time.Time
}

// runCalls runs calls concurrently when all of them only read (bounded by MaxParallel),
// otherwise one after another, and returns results in order, each with when it ran. A
// call's progress reports become EventToolProgress events until the call returns.
func (r *run) runCalls(ctx context.Context, calls []tool.Valid) []timed {
	out := make([]timed, len(calls))
	if r.progress == nil {
		r.progress = func(c tool.Call, p tool.Progress) {
			r.emit(Event{Type: EventToolProgress, Turn: r.out.Turns, Call: &c, Progress: &p})
		}
	}
	one := func(i int) {
		out[i].start = time.Now()
		out[i].res = r.a.cfg.Tools.RunValid(ctx, calls[i], r.progress)
		out[i].end = time.Now()
	}
	parallel := len(calls) > 1
	for _, v := range calls {
		parallel = parallel && v.ReadOnly()
	}
	if !parallel {
		for i := range calls {
			if i > 0 && ctx.Err() != nil {
				out[i].res = tool.Interrupted()
				continue
			}
			one(i)
		}
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

// gate asks every Gate in order; the first denial wins. A gate that rewrites the input
// gets the new call checked again (a rewrite into something invalid is refused), so what
// runs has always passed validation. A gate that panics denies: a broken permission check
// must fail closed.
func (r *run) gate(ctx context.Context, v tool.Valid) (tool.Valid, Decision) {
	for _, g := range r.a.cfg.Gates {
		d := safeGate(ctx, g, v.Call())
		if d.Deny {
			return v, d
		}
		if len(d.UpdatedInput) > 0 {
			if !json.Valid(d.UpdatedInput) {
				return v, Decision{Deny: true, Reason: "a permission check rewrote the input into invalid JSON"}
			}
			c := v.Call()
			c.Input = d.UpdatedInput
			nv, bad, ok := r.a.cfg.Tools.Check(c)
			if !ok {
				return v, Decision{Deny: true, Reason: "a permission check rewrote the input into one the tool does not accept: " + bad.Text()}
			}
			v = nv
		}
	}
	if ctx.Err() != nil {
		return v, Decision{Deny: true, Reason: "interrupted before the call ran"}
	}
	return v, Decision{}
}

func safeGate(ctx context.Context, g Gate, c tool.Call) (d Decision) {
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
