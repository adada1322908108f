package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

// fakeTool is a configurable tool for exercising the loop.
type fakeTool struct {
	name     string
	readOnly bool
	run      func(ctx context.Context, in json.RawMessage) (tool.Result, error)
	calls    atomic.Int32
	schema   string // "" → any object
}

func (f *fakeTool) Spec() llm.ToolSpec {
	schema := f.schema
	if schema == "" {
		schema = `{"type":"object"}`
	}
	return llm.ToolSpec{Name: f.name, Description: "test tool", InputSchema: json.RawMessage(schema)}
}
func (f *fakeTool) ReadOnly() bool { return f.readOnly }
func (f *fakeTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	in := x.Input
	f.calls.Add(1)
	if f.run == nil {
		return tool.Text("ok " + string(in)), nil
	}
	return f.run(ctx, in)
}

func echo(name string) *fakeTool { return &fakeTool{name: name} }

func call(name, input string) scripted.ToolCall {
	return scripted.ToolCall{Name: name, Input: json.RawMessage(input)}
}

type harness struct {
	prov   *scripted.Provider
	agent  *agent.Agent
	conv   *agent.Conversation
	events []agent.Event
}

func newHarness(t *testing.T, turns []scripted.Turn, cfg agent.Config, tools ...tool.Tool) *harness {
	t.Helper()
	h := &harness{prov: scripted.New(&scripted.Script{Turns: turns}), conv: &agent.Conversation{}}
	cfg.Provider = h.prov
	if cfg.Model == "" {
		cfg.Model = "claude-sonnet-5-5"
	}
	cfg.Tools = tool.NewRegistry(tools...)
	cfg.Observers = append(cfg.Observers, func(e agent.Event) { h.events = append(h.events, e) })
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	return h
}

func (h *harness) run(ctx context.Context, prompt string) agent.Outcome {
	return h.agent.Run(ctx, h.conv, llm.TextBlock(prompt))
}

// checkInvariants asserts what the loop guarantees whatever happened: the conversation
// is valid for the API (every tool_use answered once, in order, right after its call).
func checkInvariants(t *testing.T, conv *agent.Conversation) {
	t.Helper()
	if err := llm.ValidateConversation(conv.Messages); err != nil {
		t.Fatalf("conversation breaks the protocol: %v", err)
	}
	for i, m := range conv.Messages {
		uses := m.ToolUses()
		if len(uses) == 0 {
			continue
		}
		next := conv.Messages[i+1].Content
		for k, u := range uses {
			if next[k].Type != llm.BlockToolResult || next[k].ToolUseID != u.ID {
				t.Fatalf("message %d: result %d answers %q, want %q in call order", i+1, k, next[k].ToolUseID, u.ID)
			}
		}
	}
}

func lastResults(conv *agent.Conversation) []llm.Block {
	for i := len(conv.Messages) - 1; i >= 0; i-- {
		m := conv.Messages[i]
		if m.Role == llm.RoleUser && len(m.Content) > 0 && m.Content[0].Type == llm.BlockToolResult {
			return m.Content
		}
	}
	return nil
}

func TestCompletesWithText(t *testing.T) {
	h := newHarness(t, []scripted.Turn{{Text: "All done."}}, agent.Config{})
	out := h.run(context.Background(), "hi")
	if out.Status != agent.StatusCompleted || out.Result != "All done." || out.Turns != 1 {
		t.Fatalf("outcome = %+v", out)
	}
	if out.Usage.Total() == 0 {
		t.Fatalf("usage not accounted: %+v", out.Usage)
	}
	if out.CostUSD <= 0 {
		t.Fatalf("cost not computed for a known model: %v", out.CostUSD)
	}
	if last := h.events[len(h.events)-1]; last.Type != agent.EventOutcome {
		t.Fatalf("last event = %s, want outcome", last.Type)
	}
}

func TestToolRoundTrip(t *testing.T) {
	bash := echo("Bash")
	h := newHarness(t, []scripted.Turn{
		{Text: "Listing.", ToolCalls: []scripted.ToolCall{call("Bash", `{"command":"ls"}`)}},
		{ExpectContains: `ok {"command":"ls"}`, Text: "Found it."},
	}, agent.Config{}, bash)
	out := h.run(context.Background(), "list")
	if out.Status != agent.StatusCompleted || out.Turns != 2 {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
	reqs := h.prov.Requests()
	second := reqs[1].Messages[len(reqs[1].Messages)-1]
	if second.Content[0].ToolUseID != "toolu_01_01" {
		t.Fatalf("second request answers %q", second.Content[0].ToolUseID)
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "Bash" {
		t.Fatalf("tools not declared: %+v", reqs[0].Tools)
	}
}

func TestUnknownToolAndPanicBecomeErrorResults(t *testing.T) {
	boom := &fakeTool{name: "Boom", run: func(context.Context, json.RawMessage) (tool.Result, error) { panic("kaboom") }}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Nope", `{}`), call("Boom", `{}`), call("Echo", `{"a":1}`)}},
		{Text: "ok"},
	}, agent.Config{}, boom, echo("Echo"))
	out := h.run(context.Background(), "go")
	if !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
	res := lastResults(h.conv)
	if !res[0].IsError || !strings.Contains(res[0].ResultText(), "Boom, Echo") {
		t.Fatalf("unknown tool result = %+v", res[0])
	}
	if !res[1].IsError || !strings.Contains(res[1].ResultText(), "kaboom") {
		t.Fatalf("panic result = %+v", res[1])
	}
	if res[2].IsError {
		t.Fatalf("third call should still run: %+v", res[2])
	}
}

func TestReadOnlyCallsRunConcurrentlyInOrder(t *testing.T) {
	started := make(chan struct{})
	var a, b *fakeTool
	a = &fakeTool{name: "A", readOnly: true, run: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		select { // A finishes only once B has started: impossible if run one at a time
		case <-started:
			return tool.Text("A"), nil
		case <-time.After(10 * time.Second):
			return tool.Result{}, errors.New("B never started while A ran")
		}
	}}
	b = &fakeTool{name: "B", readOnly: true, run: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		close(started)
		return tool.Text("B"), nil
	}}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("A", `{}`), call("B", `{}`)}},
		{Text: "ok"},
	}, agent.Config{}, a, b)
	h.run(context.Background(), "go")
	res := lastResults(h.conv)
	if res[0].ResultText() != "A" || res[1].ResultText() != "B" {
		t.Fatalf("results = %q, %q", res[0].ResultText(), res[1].ResultText())
	}
}

func TestWritesRunOneAtATimeInOrder(t *testing.T) {
	var order []string
	var running atomic.Int32
	mk := func(name string) *fakeTool {
		return &fakeTool{name: name, run: func(context.Context, json.RawMessage) (tool.Result, error) {
			if running.Add(1) != 1 {
				t.Errorf("%s ran while another write was running", name)
			}
			order = append(order, name)
			running.Add(-1)
			return tool.Text(name), nil
		}}
	}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("W1", `{}`), call("W2", `{}`), call("W3", `{}`)}},
		{Text: "ok"},
	}, agent.Config{}, mk("W1"), mk("W2"), mk("W3"))
	h.run(context.Background(), "go")
	if strings.Join(order, ",") != "W1,W2,W3" {
		t.Fatalf("order = %v", order)
	}
}

type denyGate struct{ name string }

func (g denyGate) Gate(_ context.Context, c tool.Call) agent.Decision {
	if c.Name == g.name {
		return agent.Decision{Deny: true, Reason: "rule Bash(rm *) denies it"}
	}
	return agent.Decision{}
}

func TestGateDenialIsAnErrorResultAndRecorded(t *testing.T) {
	bash := echo("Bash")
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Bash", `{"command":"rm -rf x"}`)}},
		{ExpectContains: "Permission denied: rule Bash(rm *) denies it", Text: "ok"},
	}, agent.Config{Gates: []agent.Gate{denyGate{"Bash"}}}, bash)
	out := h.run(context.Background(), "go")
	if !out.OK() || bash.calls.Load() != 0 {
		t.Fatalf("outcome = %+v, calls = %d", out, bash.calls.Load())
	}
	if len(out.Denials) != 1 || out.Denials[0].ToolName != "Bash" || out.Denials[0].ToolUseID != "toolu_01_01" {
		t.Fatalf("denials = %+v", out.Denials)
	}
}

type rewriteGate struct{}

func (rewriteGate) Gate(_ context.Context, c tool.Call) agent.Decision {
	return agent.Decision{UpdatedInput: json.RawMessage(`{"command":"ls -la"}`)}
}

func TestGateMayRewriteInput(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Bash", `{"command":"ls"}`)}},
		{ExpectContains: `ok {"command":"ls -la"}`, Text: "ok"},
	}, agent.Config{Gates: []agent.Gate{rewriteGate{}}}, echo("Bash"))
	if out := h.run(context.Background(), "go"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestInterruptMidToolAnswersEveryCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	slow := &fakeTool{name: "Slow", run: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		cancel() // the user presses Ctrl-C while this runs
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	after := echo("After")
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Slow", `{}`), call("After", `{}`)}},
		{Text: "never"},
	}, agent.Config{}, slow, after)
	out := h.run(ctx, "go")
	if out.Status != agent.StatusInterrupted {
		t.Fatalf("status = %s", out.Status)
	}
	checkInvariants(t, h.conv)
	res := lastResults(h.conv)
	if len(res) != 2 || !res[0].IsError || !res[1].IsError || !strings.Contains(res[1].ResultText(), "Interrupted") {
		t.Fatalf("results = %+v", res)
	}
	if after.calls.Load() != 0 {
		t.Fatal("a call after the interruption ran")
	}
}

func TestInterruptDuringModelCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := newHarness(t, []scripted.Turn{{Text: "never"}}, agent.Config{})
	out := h.run(ctx, "go")
	if out.Status != agent.StatusInterrupted {
		t.Fatalf("status = %s", out.Status)
	}
}

func TestMaxTokensInsideToolUseNeverRunsHalfACall(t *testing.T) {
	bash := echo("Bash")
	h := newHarness(t, []scripted.Turn{
		{StopReason: llm.StopMaxTokens, ToolCalls: []scripted.ToolCall{{Name: "Bash", PartialInput: `{"command":"echo hel`}}},
		{ToolCalls: []scripted.ToolCall{call("Bash", `{"command":"echo hello"}`)}},
		{Text: "done"},
	}, agent.Config{MaxOutput: 1000}, bash)
	out := h.run(context.Background(), "go")
	if !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if bash.calls.Load() != 1 {
		t.Fatalf("bash ran %d times, want once (never the half call)", bash.calls.Load())
	}
	reqs := h.prov.Requests()
	if reqs[0].MaxTokens != 1000 || reqs[1].MaxTokens <= 1000 {
		t.Fatalf("output limit not raised: %d then %d", reqs[0].MaxTokens, reqs[1].MaxTokens)
	}
	for _, m := range h.conv.Messages {
		for _, b := range m.ToolUses() {
			if !json.Valid(b.Input) {
				t.Fatalf("half-formed call kept in history: %s", b.Input)
			}
		}
	}
	checkInvariants(t, h.conv)
}

func TestMaxTokensRepeatedIsBounded(t *testing.T) {
	cut := scripted.Turn{StopReason: llm.StopMaxTokens, Text: "partial", ToolCalls: []scripted.ToolCall{{Name: "Bash", PartialInput: `{"comm`}}}
	turns := []scripted.Turn{cut, cut, cut, cut, cut, cut, {Text: "unreached"}}
	bash := echo("Bash")
	h := newHarness(t, turns, agent.Config{MaxContinuations: 2}, bash)
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || !strings.Contains(out.Reason, "output limit") {
		t.Fatalf("outcome = %+v", out)
	}
	if bash.calls.Load() != 0 {
		t.Fatal("a cut call ran")
	}
	if out.Turns != 4 { // first, raised retry, two continuations
		t.Fatalf("turns = %d, want 4", out.Turns)
	}
	checkInvariants(t, h.conv)
}

func TestMaxTokensTextIsContinued(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{StopReason: llm.StopMaxTokens, Text: "The answer is"},
		{ExpectContains: "output token limit", Text: " 42."},
	}, agent.Config{})
	out := h.run(context.Background(), "go")
	if !out.OK() || out.Result != " 42." {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
}

func TestRefusal(t *testing.T) {
	h := newHarness(t, []scripted.Turn{{StopReason: llm.StopRefusal, Text: "I can't help with that."}}, agent.Config{})
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusRefused || out.Result != "I can't help with that." {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestPauseTurnContinues(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{StopReason: llm.StopPauseTurn, Text: "Searching..."},
		{Text: "Found."},
	}, agent.Config{})
	out := h.run(context.Background(), "go")
	if !out.OK() || out.Result != "Found." || out.Turns != 2 {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestNeedsInput(t *testing.T) {
	ask := &fakeTool{name: "AskUserQuestion", readOnly: true, run: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: []llm.Block{llm.TextBlock("nobody here")}, NeedsInput: "Which database?"}, nil
	}}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("AskUserQuestion", `{}`)}},
		{Text: "unreached"},
	}, agent.Config{}, ask)
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusNeedsInput || out.Question != "Which database?" {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
	if h.prov.Remaining() != 1 {
		t.Fatal("the run went on after the question")
	}
}

func TestMaxTurns(t *testing.T) {
	loop := scripted.Turn{ToolCalls: []scripted.ToolCall{call("Bash", `{}`)}}
	h := newHarness(t, []scripted.Turn{loop, loop, loop, loop}, agent.Config{Limits: agent.Limits{MaxTurns: 2}}, echo("Bash"))
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusBudgetExhausted || out.Budget != agent.BudgetTurns || out.Turns != 2 {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
}

func TestTokenAndCostBudgets(t *testing.T) {
	big := &llm.Usage{InputTokens: 600_000, OutputTokens: 1000}
	loop := scripted.Turn{ToolCalls: []scripted.ToolCall{call("Bash", `{}`)}, Usage: big}
	for _, tc := range []struct {
		limits agent.Limits
		budget string
	}{
		{agent.Limits{MaxTokens: 1_000_000}, agent.BudgetTokens},
		{agent.Limits{MaxCostUSD: 2}, agent.BudgetCost},
	} {
		h := newHarness(t, []scripted.Turn{loop, loop, loop, loop}, agent.Config{Limits: tc.limits}, echo("Bash"))
		out := h.run(context.Background(), "go")
		if out.Status != agent.StatusBudgetExhausted || out.Budget != tc.budget || out.Turns != 2 {
			t.Fatalf("%s: outcome = %+v", tc.budget, out)
		}
	}
}

func TestWallTimeBudget(t *testing.T) {
	hang := &fakeTool{name: "Hang", run: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Hang", `{}`), call("Hang", `{}`)}},
		{Text: "unreached"},
	}, agent.Config{Limits: agent.Limits{MaxDuration: 50 * time.Millisecond}}, hang)
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusBudgetExhausted || out.Budget != agent.BudgetTime {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
	res := lastResults(h.conv)
	if !strings.Contains(res[1].ResultText(), "wall-time limit") {
		t.Fatalf("second call's result = %q", res[1].ResultText())
	}
}

func TestProviderErrorFails(t *testing.T) {
	h := newHarness(t, []scripted.Turn{{Fault: &scripted.Fault{Status: 401, Message: "invalid x-api-key"}}}, agent.Config{})
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || !strings.Contains(out.Reason, "invalid x-api-key") {
		t.Fatalf("outcome = %+v", out)
	}
}

type shrink struct{ saw []bool }

func (s *shrink) BeforeModel(_ context.Context, t *agent.Turn) error {
	s.saw = append(s.saw, t.PromptTooLong)
	if t.PromptTooLong {
		t.ReplaceMessages([]llm.Message{llm.UserText("summary of earlier work")})
	}
	return nil
}

func TestPromptTooLongRetriesOnceAfterSeams(t *testing.T) {
	s := &shrink{}
	h := newHarness(t, []scripted.Turn{
		{Fault: &scripted.Fault{PromptTooLong: true}},
		{ExpectContains: "summary of earlier work", Text: "ok"},
	}, agent.Config{BeforeModel: []agent.BeforeModel{s}})
	out := h.run(context.Background(), "go")
	if !out.OK() || len(s.saw) != 2 || s.saw[0] || !s.saw[1] {
		t.Fatalf("outcome = %+v, seam saw %v", out, s.saw)
	}
	var replaced bool
	for _, e := range h.events {
		replaced = replaced || e.Type == agent.EventReplace
	}
	if !replaced {
		t.Fatal("no replace event after the history was replaced")
	}
}

type reminder struct{}

func (reminder) BeforeModel(_ context.Context, t *agent.Turn) error {
	t.AddEphemeral(llm.TextBlock("<reminder>update your todo list</reminder>"))
	return nil
}

func TestEphemeralContextDoesNotEnterHistory(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{ExpectContains: "<reminder>", ToolCalls: []scripted.ToolCall{call("Bash", `{}`)}},
		{ExpectContains: "<reminder>", Text: "ok"},
	}, agent.Config{BeforeModel: []agent.BeforeModel{reminder{}}}, echo("Bash"))
	if out := h.run(context.Background(), "go"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	for _, m := range h.conv.Messages {
		for _, b := range m.Content {
			if strings.Contains(b.Text, "<reminder>") {
				t.Fatal("ephemeral reminder entered the history")
			}
		}
	}
}

type budgetAfter struct{}

func (budgetAfter) AfterTool(_ context.Context, c tool.Call, r *tool.Result) {
	r.Content = append(r.Content, llm.TextBlock("[checked by after-tool]"))
}

func TestAfterToolChangesResult(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Bash", `{}`)}},
		{ExpectContains: "[checked by after-tool]", Text: "ok"},
	}, agent.Config{AfterTool: []agent.AfterTool{budgetAfter{}}}, echo("Bash"))
	if out := h.run(context.Background(), "go"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
}

type nagger struct{ n int }

func (s *nagger) BeforeStop(_ context.Context, st *agent.Stop) agent.StopDecision {
	if st.Last {
		return agent.StopDecision{} // it cannot end a run: nothing to do
	}
	s.n++
	return agent.StopDecision{Continue: true, Message: "tests have not been run"}
}

func TestBeforeStopContinuesBounded(t *testing.T) {
	n := &nagger{}
	turns := make([]scripted.Turn, 10)
	for i := range turns {
		turns[i] = scripted.Turn{Text: "done"}
	}
	turns[1].ExpectContains = "tests have not been run"
	h := newHarness(t, turns, agent.Config{BeforeStop: []agent.BeforeStop{n}, MaxStopContinues: 3})
	out := h.run(context.Background(), "go")
	if !out.OK() || out.Turns != 4 || n.n != 3 {
		t.Fatalf("outcome = %+v, stop checks = %d", out, n.n)
	}
}

// ender ends the run with its status once it has seen Last (or at once when now is set).
type ender struct {
	now    bool
	end    agent.Status
	budget string
	seen   []bool // Last, per call
}

func (s *ender) BeforeStop(_ context.Context, st *agent.Stop) agent.StopDecision {
	s.seen = append(s.seen, st.Last)
	if s.now || st.Last {
		return agent.StopDecision{End: s.end, Reason: "the goal cannot be met", Budget: s.budget}
	}
	return agent.StopDecision{Continue: true, Message: "not yet"}
}

func TestBeforeStopEndsTheRunWithItsStatus(t *testing.T) {
	h := newHarness(t, []scripted.Turn{{Text: "done"}}, agent.Config{BeforeStop: []agent.BeforeStop{&ender{now: true, end: agent.StatusFailed}}})
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || out.Reason != "the goal cannot be met" || out.Result != "done" {
		t.Fatalf("outcome = %+v", out)
	}
	// Completed is no way to end early: the seam is taken as having no objection.
	h = newHarness(t, []scripted.Turn{{Text: "done"}}, agent.Config{BeforeStop: []agent.BeforeStop{&ender{now: true, end: agent.StatusCompleted}}})
	if out := h.run(context.Background(), "go"); !out.OK() || out.Reason != "" {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestBeforeStopPastTheCapMayStillEndTheRun(t *testing.T) {
	// A seam that keeps sending the model back is asked once more at the cap, with Last
	// set; its End then decides how the run ends instead of completed.
	turns := make([]scripted.Turn, 5)
	for i := range turns {
		turns[i] = scripted.Turn{Text: "done"}
	}
	e := &ender{end: agent.StatusBudgetExhausted, budget: "goal_rounds"}
	n := &nagger{}
	h := newHarness(t, turns, agent.Config{BeforeStop: []agent.BeforeStop{n, e}, MaxStopContinues: 2})
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusBudgetExhausted || out.Budget != "goal_rounds" || out.Turns != 3 {
		t.Fatalf("outcome = %+v", out)
	}
	// The nagger came first and sent the model back twice; past the cap its Continue is
	// ignored and the ender is asked, once, with Last.
	if n.n != 2 || len(e.seen) != 1 || !e.seen[0] {
		t.Fatalf("nagger %d, ender saw %v", n.n, e.seen)
	}
}

func TestResumeAfterInterruptionKeepsProtocol(t *testing.T) {
	// A conversation left with a trailing user prompt (the model call was interrupted)
	// takes a new prompt and goes on.
	h := newHarness(t, []scripted.Turn{{Text: "hello again"}}, agent.Config{})
	h.conv.Messages = []llm.Message{llm.UserText("first prompt, never answered")}
	out := h.run(context.Background(), "second prompt")
	if !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
}

func TestEmptyConversationFails(t *testing.T) {
	h := newHarness(t, []scripted.Turn{{Text: "x"}}, agent.Config{})
	out := h.agent.Run(context.Background(), h.conv)
	if out.Status != agent.StatusFailed {
		t.Fatalf("outcome = %+v", out)
	}
}

type emptyOnce struct{ n int }

func (p *emptyOnce) Name() string { return "empty" }
func (p *emptyOnce) Complete(context.Context, *llm.Request, llm.StreamFunc) (*llm.Response, error) {
	p.n++
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("")}}, StopReason: llm.StopEndTurn}, nil
}

func TestEmptyResponseKeepsNoEmptyMessage(t *testing.T) {
	a, err := agent.New(agent.Config{Provider: &emptyOnce{}, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	conv := &agent.Conversation{}
	out := a.Run(context.Background(), conv, llm.TextBlock("hi"))
	if !out.OK() || len(conv.Messages) != 1 {
		t.Fatalf("outcome = %+v, messages = %+v", out, conv.Messages)
	}
	if err := llm.ValidateConversation(conv.Messages); err != nil {
		t.Fatal(err)
	}
}

func TestToolAbortEndsRunFailedAfterAnsweringAll(t *testing.T) {
	stuck := &fakeTool{name: "Stuck", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		r := tool.Errorf("same failure again")
		r.Abort = "the same failing call was repeated 3 times with nothing changed"
		return r, nil
	}}
	other := echo("Other")
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Stuck", `{}`), call("Other", `{}`)}},
		{Text: "unreached"},
	}, agent.Config{}, stuck, other)
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || !strings.Contains(out.Reason, "repeated 3 times") {
		t.Fatalf("outcome = %+v", out)
	}
	checkInvariants(t, h.conv)
	if other.calls.Load() != 1 {
		t.Fatal("the other call of the turn should still run")
	}
}

func TestSideUsageCountsTowardsBudgetAndOutcome(t *testing.T) {
	var side llm.Usage
	var sideCost float64
	spender := &fakeTool{name: "Delegate", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		side.InputTokens += 500_000 // a subagent spent this on the run's behalf
		sideCost += 1.5
		return tool.Text("delegated"), nil
	}}
	loop := scripted.Turn{ToolCalls: []scripted.ToolCall{call("Delegate", `{}`)}, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 1}}
	h := newHarness(t, []scripted.Turn{loop, loop, loop, loop}, agent.Config{
		Limits:    agent.Limits{MaxCostUSD: 2},
		SideUsage: func() (llm.Usage, float64) { return side, sideCost },
	}, spender)
	side, sideCost = llm.Usage{InputTokens: 7}, 0.25 // spent before this run: not counted
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusBudgetExhausted || out.Budget != agent.BudgetCost || out.Turns != 2 {
		t.Fatalf("outcome = %+v", out)
	}
	if out.Usage.InputTokens != 20+1_000_000 || out.CostUSD < 3 {
		t.Fatalf("side usage not in the outcome: %+v %v", out.Usage, out.CostUSD)
	}
}

// A malformed call is reported as malformed, not put to the permission gates: no rule or
// person should be asked about a tool that does not exist or input that cannot run.
func TestMalformedCallsAreCheckedBeforeTheGates(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("read_file", `{"path":"x"}`), call("Bash", `{"cmd":"ls"}`)}},
		{ExpectContains: `Unknown tool "read_file"`, Text: "ok"},
	}, agent.Config{Gates: []agent.Gate{denyGate{"Bash"}, denyGate{"read_file"}}}, &fakeTool{name: "Bash",
		schema: `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`})
	out := h.run(context.Background(), "go")
	if !out.OK() || len(out.Denials) != 0 {
		t.Fatalf("outcome = %+v, want completed with no denials", out)
	}
	res := h.conv.Messages[2].Content
	if !strings.Contains(res[1].Content[0].Text, "Invalid input for Bash") {
		t.Errorf("second result = %q, want the schema error", res[1].Content[0].Text)
	}
}

// Input a gate rewrote is validated again: the loop's check before the gates covered
// the model's input, not the gate's.
func TestRewrittenInputIsValidatedAgain(t *testing.T) {
	bash := &fakeTool{name: "Bash", schema: `{"type":"object","properties":{"command":{"type":"string","maxLength":3}},"required":["command"]}`}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Bash", `{"command":"ls"}`)}},
		{ExpectContains: "Invalid input for Bash", Text: "ok"},
	}, agent.Config{Gates: []agent.Gate{rewriteGate{}}}, bash)
	if out := h.run(context.Background(), "go"); !out.OK() || bash.calls.Load() != 0 {
		t.Fatalf("outcome = %+v, calls %d", out, bash.calls.Load())
	}
}
