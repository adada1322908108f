// Package agent is the loop: send the conversation and the tool list to the model, run the
// tool calls it makes, answer each with a tool_result, repeat until it stops. Everything
// else (permissions, hooks, compaction, memory, reminders, goal checks) takes part through
// the seams in seams.go; this package imports no mechanism and no concrete tool.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Limits bound a run; zero means unlimited.
type Limits struct {
	MaxTurns    int           // model calls that returned a message
	MaxDuration time.Duration // wall time of the run
	MaxTokens   int           // all tokens billed (input, output, cache) in this run
	MaxCostUSD  float64
}

// Config assembles an Agent. Provider, Model and Tools are required.
type Config struct {
	Provider llm.Provider
	Model    string
	System   string
	// Tools checks and runs the model's calls (a *tool.Registry); nil offers none.
	Tools Tools
	// MaxOutput is the output token limit per response; 0 means min(model max, 32000).
	MaxOutput int
	// Effort is sent with each request (llm.Request.Effort); "" leaves the model's default.
	Effort string
	// Thinking is sent with each request (llm.Request.Thinking); the zero value asks for
	// no extended thinking.
	Thinking llm.Thinking
	Limits   Limits
	// MaxContinuations bounds how often the loop asks the model to go on after a
	// response was cut by max_tokens (default 3).
	MaxContinuations int
	// MaxStopContinues bounds consecutive BeforeStop continuations (default 8); past it
	// the run completes anyway, as Claude Code does with Stop hooks that keep blocking,
	// unless a seam ends it otherwise (Stop.Last, StopDecision.End).
	MaxStopContinues int
	// MaxParallel bounds concurrent read-only calls (default 8).
	MaxParallel int

	// SideUsage, when set, reports usage and cost spent on a run's behalf outside the
	// loop's own model calls (subagents), as running totals. The loop counts what it adds
	// during a run towards the run's limits and outcome.
	SideUsage func() (llm.Usage, float64)

	BeforeModel []BeforeModel
	Gates       []Gate
	AfterTool   []AfterTool
	BeforeStop  []BeforeStop
	Observers   []Observer
	// Record, when set, keeps the run's record (the session transcript): it sees every
	// event before the observers, synchronously. A run that cannot be recorded must not
	// go on acting: once Record fails, nothing else happens (no gate, hook or tool runs,
	// no model is called, no stop check), every call still unanswered gets a result
	// saying it was not run, and the run ends failed with Record's error, whatever it
	// would have ended as. Later events are still passed to Record.
	Record func(Event) error
}

// Agent runs conversations with one configuration. It holds no per-run state, so one
// Agent may serve several conversations, one Run at a time for each.
type Agent struct {
	cfg Config
}

// New checks cfg and returns an Agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Provider == nil {
		return nil, errors.New("agent: a provider is required")
	}
	if cfg.Model == "" {
		return nil, errors.New("agent: a model name is required")
	}
	if cfg.Tools == nil {
		cfg.Tools = tool.NewRegistry()
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = min(llm.LookupModel(cfg.Model).MaxOutput, 32_000)
	}
	if cfg.MaxContinuations <= 0 {
		cfg.MaxContinuations = 3
	}
	if cfg.MaxStopContinues <= 0 {
		cfg.MaxStopContinues = 8
	}
	if cfg.MaxParallel <= 0 {
		cfg.MaxParallel = 8
	}
	return &Agent{cfg: cfg}, nil
}

// Config returns the agent's configuration (with defaults applied).
func (a *Agent) Config() Config { return a.cfg }

// run is the state of one Run.
type run struct {
	a       *Agent
	conv    *Conversation
	start   time.Time
	out     Outcome
	last    llm.Usage
	maxOut  int
	raised  bool // output limit already raised once for a cut tool_use
	contins int  // continuations after max_tokens
	stops   int  // consecutive BeforeStop continuations

	// emitMu delivers events one at a time: a running tool's progress arrives from its
	// own goroutine while the loop waits for it.
	emitMu   sync.Mutex
	progress func(tool.Call, tool.Progress) // made once per run, shared by its calls

	sideUsage0 llm.Usage // SideUsage totals when the run started
	sideCost0  float64

	// unrecorded is Record's first failure (under emitMu).
	unrecorded error
}

// recordFailed returns Record's first failure, nil while the run is recorded.
func (r *run) recordFailed() error {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	return r.unrecorded
}

// stopUnrecorded ends the run as failed when it can no longer be recorded, and reports
// whether it did.
func (r *run) stopUnrecorded() bool {
	err := r.recordFailed()
	if err == nil {
		return false
	}
	r.finish(StatusFailed, unrecordedReason(err))
	return true
}

func unrecordedReason(err error) string {
	return "the session's record could not be written, so the run stopped before doing anything more: " + err.Error()
}

// side returns the usage and cost spent on this run's behalf outside its own model calls.
func (r *run) side() (llm.Usage, float64) {
	if r.a.cfg.SideUsage == nil {
		return llm.Usage{}, 0
	}
	u, c := r.a.cfg.SideUsage()
	return llm.Usage{
		InputTokens: u.InputTokens - r.sideUsage0.InputTokens, OutputTokens: u.OutputTokens - r.sideUsage0.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens - r.sideUsage0.CacheCreationInputTokens,
		CacheReadInputTokens:     u.CacheReadInputTokens - r.sideUsage0.CacheReadInputTokens,
	}, c - r.sideCost0
}

// errBudget marks a limit; its text is the reason.
type errBudget struct{ kind, msg string }

func (e *errBudget) Error() string { return e.msg }

// Run appends input (if any) as a user message and runs the loop until the model stops,
// a limit is reached, the context is cancelled or an error makes going on pointless.
// Whatever happens, every tool_use in conv is answered by a tool_result when Run returns.
func (a *Agent) Run(ctx context.Context, conv *Conversation, input ...llm.Block) (out Outcome) {
	r := &run{a: a, conv: conv, start: time.Now(), maxOut: a.cfg.MaxOutput}
	if a.cfg.SideUsage != nil {
		r.sideUsage0, r.sideCost0 = a.cfg.SideUsage()
	}
	if d := a.cfg.Limits.MaxDuration; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errWallTime)
		defer cancel()
	}
	defer func() {
		if err := r.recordFailed(); err != nil && r.out.Status != StatusFailed {
			// Whatever it would have ended as, a run that was not recorded failed.
			r.finish(StatusFailed, unrecordedReason(err))
		}
		out = r.out
		su, sc := r.side()
		out.Usage = out.Usage.Add(su)
		out.CostUSD += sc
		out.Duration = time.Since(r.start)
		r.emit(Event{Type: EventOutcome, Turn: out.Turns, Outcome: &out})
	}()
	if len(input) > 0 {
		r.append(llm.Message{Role: llm.RoleUser, Content: input})
	}
	if len(conv.Messages) == 0 {
		r.finish(StatusFailed, "there is nothing to answer: the conversation is empty and no prompt was given")
		return
	}
	r.loop(ctx)
	return
}

func (r *run) emit(e Event) {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	if rec := r.a.cfg.Record; rec != nil {
		if err := rec(e); err != nil && r.unrecorded == nil {
			r.unrecorded = err
		}
	}
	for _, o := range r.a.cfg.Observers {
		o(e)
	}
}

func (r *run) append(m llm.Message) {
	r.conv.Messages = append(r.conv.Messages, m)
	r.emit(Event{Type: EventMessage, Turn: r.out.Turns, Message: &r.conv.Messages[len(r.conv.Messages)-1]})
}

func (r *run) finish(s Status, reason string) {
	r.out.Status = s
	r.out.Reason = reason
}

// errWallTime is the cancel cause of a run's context when its time budget runs out; any
// other cause is the caller's (an interrupt).
var errWallTime = errors.New("the run reached its wall-time limit")

// timeUp reports whether ctx ended because the run's time budget ran out.
func timeUp(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errWallTime) }

// ctxEnded finishes the run if ctx ended, naming why: the time budget or an interrupt.
func (r *run) ctxEnded(ctx context.Context) bool {
	if ctx.Err() == nil {
		return false
	}
	if timeUp(ctx) {
		r.out.Budget = BudgetTime
		r.finish(StatusBudgetExhausted, fmt.Sprintf("the run reached its wall-time limit of %s", r.a.cfg.Limits.MaxDuration))
		return true
	}
	r.finish(StatusInterrupted, "interrupted by the user")
	return true
}

func (r *run) loop(ctx context.Context) {
	cfg := &r.a.cfg
	promptRetried := false
	for {
		if r.ctxEnded(ctx) || r.stopUnrecorded() {
			return
		}
		if b := r.checkBudget(); b != nil {
			r.out.Budget = b.kind
			r.finish(StatusBudgetExhausted, b.msg)
			return
		}
		req := &llm.Request{Model: cfg.Model, System: cfg.System, Messages: r.conv.Messages, Tools: cfg.Tools.Specs(), MaxTokens: r.maxOut, Effort: cfg.Effort, Thinking: cfg.Thinking}
		turn := &Turn{Number: r.out.Turns + 1, Conv: r.conv, Req: req, Usage: r.out.Usage, LastUsage: r.last, CostUSD: r.out.CostUSD, PromptTooLong: promptRetried, emit: r.emit}
		r.emit(Event{Type: EventTurnStart, Turn: turn.Number})
		for _, s := range cfg.BeforeModel {
			if err := s.BeforeModel(ctx, turn); err != nil {
				if r.ctxEnded(ctx) {
					return
				}
				if end := (*EndRun)(nil); errors.As(err, &end) && end.Status != "" {
					r.out.Budget = end.Budget
					r.finish(end.Status, end.Reason)
					return
				}
				r.finish(StatusFailed, "preparing the model call: "+err.Error())
				return
			}
		}
		if turn.replaced {
			r.emit(Event{Type: EventReplace, Turn: turn.Number, Messages: r.conv.Messages})
		}
		if r.stopUnrecorded() { // what the seams added could not be recorded
			return
		}
		resp, err := cfg.Provider.Complete(ctx, req, func(d llm.Delta) {
			r.emit(Event{Type: EventDelta, Turn: turn.Number, Delta: d})
		})
		if err != nil {
			if r.ctxEnded(ctx) {
				return
			}
			if llm.IsKind(err, llm.ErrKindPromptTooLong) && !promptRetried && len(cfg.BeforeModel) > 0 {
				promptRetried = true
				r.emit(Event{Type: EventNotice, Turn: turn.Number, Text: "the model rejected the request as too long; shrinking the context and retrying once"})
				continue
			}
			r.finish(StatusFailed, err.Error())
			return
		}
		promptRetried = false
		r.account(resp)
		msg := resp.Message
		msg.Role = llm.RoleAssistant
		msg.Content = withoutEmptyText(msg.Content)
		r.out.StopReason = resp.StopReason

		switch resp.StopReason {
		case llm.StopRefusal:
			msg.Content = withoutToolUse(msg.Content)
			if len(msg.Content) > 0 {
				r.appendAssistant(msg, resp)
			}
			r.out.Result = msg.Text()
			r.endTurn(turn.Number)
			r.finish(StatusRefused, "the model declined to continue (stop_reason refusal)")
			return
		case llm.StopMaxTokens:
			if !r.handleMaxTokens(msg, resp, turn.Number) {
				return
			}
			continue
		case llm.StopPauseTurn:
			if len(msg.Content) > 0 {
				r.appendAssistant(msg, resp)
			}
			r.endTurn(turn.Number)
			continue
		}

		var broken map[string]brokenInput
		msg.Content, broken = repairInputs(msg.Content)
		calls := msg.ToolUses()
		if len(msg.Content) > 0 {
			r.appendAssistant(msg, resp)
		} else {
			// The API rejects empty messages in a request; keep none in the history.
			r.emit(Event{Type: EventNotice, Turn: turn.Number, Text: "the model returned an empty response"})
		}
		if len(calls) == 0 && r.stopUnrecorded() {
			r.out.Result = msg.Text()
			r.endTurn(turn.Number)
			return
		}
		if len(calls) == 0 {
			r.out.Result = msg.Text()
			r.endTurn(turn.Number)
			last := r.stops >= cfg.MaxStopContinues
			d := r.beforeStop(ctx, msg, last)
			switch {
			case d.End != "":
				r.out.Budget, r.out.Question = d.Budget, d.Question
				r.finish(d.End, d.Reason)
				return
			case d.Continue && !last:
				r.stops++
				r.append(llm.UserText(d.Message))
				continue
			case last && len(cfg.BeforeStop) > 0:
				r.emit(Event{Type: EventNotice, Turn: turn.Number, Text: fmt.Sprintf("stop checks asked to continue %d times in a row; ending the run anyway", r.stops)})
			}
			r.finish(StatusCompleted, "")
			return
		}
		r.stops = 0
		r.contins = 0
		// Limits are checked before the next model call, not here: the calls were already
		// paid for, and running them costs no tokens.
		question, abort := r.dispatch(ctx, calls, broken)
		r.endTurn(turn.Number)
		if r.ctxEnded(ctx) || r.stopUnrecorded() {
			return
		}
		if abort != "" {
			r.finish(StatusFailed, abort)
			return
		}
		if question != "" {
			r.out.Question = question
			r.finish(StatusNeedsInput, "the model asked the user a question and the run cannot wait for the answer")
			return
		}
	}
}

func (r *run) appendAssistant(msg llm.Message, resp *llm.Response) {
	r.conv.Messages = append(r.conv.Messages, msg)
	r.emit(Event{Type: EventMessage, Turn: r.out.Turns, Message: &r.conv.Messages[len(r.conv.Messages)-1], Response: resp})
}

func (r *run) endTurn(n int) { r.emit(Event{Type: EventTurnEnd, Turn: n}) }

func (r *run) account(resp *llm.Response) {
	r.out.Turns++
	r.out.Usage = r.out.Usage.Add(resp.Usage)
	r.last = resp.Usage
	model := resp.Model
	if model == "" {
		model = r.a.cfg.Model
	}
	r.out.CostUSD += llm.LookupModel(model).Cost(resp.Usage)
	r.out.APIDuration += resp.Duration
}

func (r *run) checkBudget() *errBudget {
	l := r.a.cfg.Limits
	su, sc := r.side()
	tokens, cost := r.out.Usage.Total()+su.Total(), r.out.CostUSD+sc
	switch {
	case l.MaxTurns > 0 && r.out.Turns >= l.MaxTurns:
		return &errBudget{BudgetTurns, fmt.Sprintf("the run reached its limit of %d turns", l.MaxTurns)}
	case l.MaxTokens > 0 && tokens >= l.MaxTokens:
		return &errBudget{BudgetTokens, fmt.Sprintf("the run used %d tokens, reaching its limit of %d", tokens, l.MaxTokens)}
	case l.MaxCostUSD > 0 && cost >= l.MaxCostUSD:
		return &errBudget{BudgetCost, fmt.Sprintf("the run cost $%.4f, reaching its limit of $%.4f", cost, l.MaxCostUSD)}
	}
	return nil
}

// handleMaxTokens deals with a response cut by the output limit. A cut tool_use is never
// run: the first time the request is repeated with the output limit raised to the
// model's maximum; after that the model is told the call was not run and asked to go on
// in smaller steps, a bounded number of times. A cut text answer is kept and continued.
// It reports whether the loop should go on.
func (r *run) handleMaxTokens(msg llm.Message, resp *llm.Response, turn int) bool {
	cfg := &r.a.cfg
	cutCall := len(msg.ToolUses()) > 0
	if cutCall && !r.raised {
		r.raised = true
		if max := llm.LookupModel(cfg.Model).MaxOutput; max > r.maxOut {
			r.maxOut = max
			r.emit(Event{Type: EventNotice, Turn: turn, Text: fmt.Sprintf("the response was cut by the output limit inside a tool call; the call was not run; retrying with the limit raised to %d tokens", max)})
			return true
		}
	}
	if r.contins >= cfg.MaxContinuations {
		kept := withoutToolUse(msg.Content)
		if len(kept) > 0 {
			r.appendAssistant(llm.Message{Role: llm.RoleAssistant, Content: kept}, resp)
			r.out.Result = llm.Message{Content: kept}.Text()
		}
		r.endTurn(turn)
		r.finish(StatusFailed, fmt.Sprintf("the model's responses kept hitting the output limit (%d tokens): %d continuations did not finish the answer", r.maxOut, r.contins))
		return false
	}
	r.contins++
	kept := withoutToolUse(msg.Content)
	if len(kept) > 0 {
		r.appendAssistant(llm.Message{Role: llm.RoleAssistant, Content: kept}, resp)
	}
	var note string
	if cutCall {
		note = "Your last response hit the output token limit while writing a tool call, so that call was not run. Continue from there, keeping each tool input small (for example, write a large file in several parts)."
	} else {
		note = "Your last response hit the output token limit. Continue exactly where it stopped."
	}
	r.append(llm.UserText(note))
	r.endTurn(turn)
	r.emit(Event{Type: EventNotice, Turn: turn, Text: "the response was cut by the output limit; asking the model to continue"})
	return true
}

func (r *run) beforeStop(ctx context.Context, final llm.Message, last bool) StopDecision {
	for _, s := range r.a.cfg.BeforeStop {
		d := safeStop(ctx, s, &Stop{Conv: r.conv, Final: final, Continued: r.stops, Last: last})
		if d.End != "" {
			if d.End == StatusCompleted {
				d.End, d.Reason = "", "" // completed is how a run ends when nothing objects
				continue
			}
			return d
		}
		if d.Continue && !last {
			d.Message = strings.TrimSpace(d.Message)
			if d.Message == "" {
				d.Message = "A completion check found the task is not finished. Continue."
			}
			return d
		}
	}
	return StopDecision{}
}

// withoutEmptyText drops empty text blocks, which the API rejects when they are sent back.
func withoutEmptyText(bs []llm.Block) []llm.Block {
	for _, b := range bs {
		if b.Type == llm.BlockText && b.Text == "" {
			out := make([]llm.Block, 0, len(bs))
			for _, b := range bs {
				if b.Type != llm.BlockText || b.Text != "" {
					out = append(out, b)
				}
			}
			return out
		}
	}
	return bs
}

// repairInputs replaces each tool_use input that is not valid JSON (a model that wrote
// broken input without being cut off) with {} before the message enters the history: the
// API rejects the whole conversation otherwise. broken maps each such call's id to the
// size of what the model sent, so the call is answered with an error, never run with {}.
func repairInputs(bs []llm.Block) (out []llm.Block, broken map[string]brokenInput) {
	out = bs
	for i, b := range bs {
		if b.Type != llm.BlockToolUse || len(b.Input) == 0 || json.Valid(b.Input) {
			continue
		}
		if broken == nil {
			broken = map[string]brokenInput{}
			out = append([]llm.Block(nil), bs...)
		}
		broken[b.ID] = readBroken(b.Input)
		out[i].Input = json.RawMessage(`{}`)
	}
	return out, broken
}

// brokenInput is what the model is told about a tool call's input that is not JSON.
type brokenInput struct {
	size int
	why  string // the decoder's complaint, with where it stopped
	head string // the start of what was sent, escaped
}

func readBroken(raw []byte) brokenInput {
	var v any
	err := json.Unmarshal(raw, &v)
	why := "it is not valid JSON"
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		why = fmt.Sprintf("%v, at byte %d", syn, syn.Offset)
	case err != nil:
		why = err.Error()
	}
	head := string(raw)
	if len(head) > 200 {
		head = head[:200] + "…"
	}
	return brokenInput{size: len(raw), why: why, head: strconv.Quote(head)}
}

func withoutToolUse(bs []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range bs {
		if b.Type != llm.BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

func callOf(b llm.Block) tool.Call {
	in := b.Input
	if len(in) == 0 {
		in = json.RawMessage(`{}`)
	}
	return tool.Call{ID: b.ID, Name: b.Name, Input: in}
}
