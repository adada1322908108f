package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

// execTool is a tool that sees its whole call: it records what each run received and may
// report progress, even after it returned (from a goroutine it left behind).
type execTool struct {
	name     string
	readOnly bool
	mu       sync.Mutex
	seen     []tool.Call
	after    chan func()
}

func (e *execTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: e.name, Description: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (e *execTool) ReadOnly() bool { return e.readOnly }
func (e *execTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	e.mu.Lock()
	e.seen = append(e.seen, x.Call)
	e.mu.Unlock()
	x.Progress(tool.Progress{Message: "half way " + x.ID, Done: 1, Total: 2})
	if e.after != nil {
		e.after <- func() { x.Progress(tool.Progress{Message: "too late " + x.ID}) }
	}
	return tool.Text("ran " + x.ID), nil
}

// Every call learns its own tool_use id and name, also when several identical calls run
// at once (nothing has to match input bytes to tell them apart).
func TestToolsReceiveTheirCall(t *testing.T) {
	tl := &execTool{name: "Probe", readOnly: true}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Probe", `{"q":1}`), call("Probe", `{"q":1}`), call("Probe", `{"q":1}`)}},
		{Text: "ok"},
	}, agent.Config{}, tl)
	if out := h.run(context.Background(), "go"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	ids := map[string]bool{}
	for _, c := range tl.seen {
		if c.Name != "Probe" || string(c.Input) != `{"q":1}` {
			t.Errorf("call = %+v", c)
		}
		ids[c.ID] = true
	}
	for _, want := range []string{"toolu_01_01", "toolu_01_02", "toolu_01_03"} {
		if !ids[want] {
			t.Errorf("no run received id %s: %v", want, tl.seen)
		}
	}
	for i, b := range h.conv.Messages[2].Content {
		if want := "ran " + b.ToolUseID; b.ResultText() != want {
			t.Errorf("result %d = %q, want %q", i, b.ResultText(), want)
		}
	}
}

// Progress reaches observers as EventToolProgress between the call's start and end,
// tagged with the call; what a tool reports after it returned is dropped.
func TestProgressEventsBelongToTheirCall(t *testing.T) {
	tl := &execTool{name: "Probe", after: make(chan func(), 1)}
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Probe", `{}`)}},
		{Text: "ok"},
	}, agent.Config{}, tl)
	if out := h.run(context.Background(), "go"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	(<-tl.after)() // the tool's leftover goroutine speaks after the result
	var order []string
	for _, e := range h.events {
		switch e.Type {
		case agent.EventToolStart, agent.EventToolEnd:
			order = append(order, string(e.Type))
		case agent.EventToolProgress:
			order = append(order, e.Progress.Message)
			if e.Call == nil || e.Call.ID != "toolu_01_01" || e.Progress.Total != 2 {
				t.Errorf("progress event = %+v", e)
			}
		}
	}
	if got := strings.Join(order, ","); got != "tool_start,half way toolu_01_01,tool_end" {
		t.Errorf("events = %s", got)
	}
}

// appender is a BeforeModel seam that adds a user message for good, once.
type appender struct{ done bool }

func (a *appender) BeforeModel(_ context.Context, t *agent.Turn) error {
	if !a.done && t.Number == 2 {
		a.done = true
		t.AddEphemeral(llm.TextBlock("ephemeral note"))
		t.AppendUser(llm.TextBlock("<task-notification>build finished</task-notification>"))
	}
	return nil
}

// A message a seam appends is sent, kept in the conversation and reported to observers
// (so the transcript has it); an ephemeral note beside it is sent once and not kept.
func TestAppendUserIsKeptAndObserved(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Echo", `{}`)}},
		{ExpectContains: "build finished", Text: "seen"},
		{Text: "still there"},
	}, agent.Config{BeforeModel: []agent.BeforeModel{&appender{}}}, echo("Echo"))
	if out := h.run(context.Background(), "go"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if out := h.run(context.Background(), "again"); !out.OK() {
		t.Fatalf("second outcome = %+v", out)
	}
	reqs := h.prov.Requests()
	if !strings.Contains(llm.RenderMessages(reqs[1].Messages, 0), "ephemeral note") {
		t.Error("the ephemeral note was not sent with the appended message")
	}
	if later := llm.RenderMessages(reqs[2].Messages, 0); strings.Contains(later, "ephemeral note") || !strings.Contains(later, "build finished") {
		t.Errorf("the next request should keep the appended message and drop the note:\n%s", later)
	}
	if err := llm.ValidateConversation(h.conv.Messages); err != nil {
		t.Fatal(err)
	}
	observed := 0
	for _, e := range h.events {
		if e.Type == agent.EventMessage && strings.Contains(e.Message.Text(), "build finished") {
			observed++
		}
	}
	if observed != 1 {
		t.Errorf("the appended message was observed %d times, want 1", observed)
	}
}

// One context carries why a run stopped: the time budget is told apart from an
// interrupt by its cause, also when the caller's own context has a deadline.
func TestTimeBudgetAndInterruptAreToldApartByCause(t *testing.T) {
	hang := &fakeTool{name: "Hang", run: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	turns := []scripted.Turn{{ToolCalls: []scripted.ToolCall{call("Hang", `{}`)}}, {Text: "never"}}

	h := newHarness(t, turns, agent.Config{Limits: agent.Limits{MaxDuration: 30 * time.Millisecond}}, hang)
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusBudgetExhausted || out.Budget != agent.BudgetTime {
		t.Fatalf("time budget: outcome = %+v", out)
	}
	if txt := h.conv.Messages[2].Content[0].ResultText(); !strings.HasPrefix(txt, "Interrupted") {
		t.Errorf("result = %q", txt)
	}

	h = newHarness(t, turns, agent.Config{Limits: agent.Limits{MaxDuration: time.Hour}}, hang)
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(30*time.Millisecond, func() { cancel(errors.New("user pressed Ctrl-C")) })
	if out := h.run(ctx, "go"); out.Status != agent.StatusInterrupted {
		t.Fatalf("interrupt: outcome = %+v", out)
	}
}

// A model that writes broken JSON input without being cut off gets an error result, and
// the broken call enters the history as {} so the next request is still valid (the API
// would reject the whole conversation otherwise); the tool never runs.
func TestBrokenInputIsRepairedBeforeTheHistory(t *testing.T) {
	bash := echo("Bash")
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Bash", PartialInput: `{"command": "ls`}, call("Bash", `{"command":"pwd"}`)}},
		{ExpectContains: "is not valid JSON (unexpected end of JSON input, at byte 15; 15 bytes", Text: "sorry"},
	}, agent.Config{}, bash)
	if out := h.run(context.Background(), "go"); !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
	if bash.calls.Load() != 1 {
		t.Errorf("Bash ran %d times, want only the valid call", bash.calls.Load())
	}
	if got := string(h.conv.Messages[1].Content[0].Input); got != `{}` {
		t.Errorf("history keeps input %s", got)
	}
	checkInvariants(t, h.conv)
}

// An outcome's JSON gives durations in milliseconds under Claude Code's names, and reads
// back the same.
func TestOutcomeJSONDurationsInMilliseconds(t *testing.T) {
	o := agent.Outcome{Status: agent.StatusCompleted, Duration: 1500 * time.Millisecond, APIDuration: 250 * time.Millisecond}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"duration_ms":1500`) || !strings.Contains(string(b), `"duration_api_ms":250`) || strings.Contains(string(b), `"duration":`) {
		t.Fatalf("JSON = %s", b)
	}
	var back agent.Outcome
	if err := json.Unmarshal(b, &back); err != nil || back.Duration != o.Duration || back.APIDuration != o.APIDuration || back.Status != o.Status {
		t.Fatalf("read back %+v, %v", back, err)
	}
}

// endAfter ends the run from BeforeModel once turn calls have been made.
type endAfter struct{ at int }

func (e endAfter) BeforeModel(_ context.Context, t *agent.Turn) error {
	if t.Number > e.at {
		return fmt.Errorf("seam: %w", &agent.EndRun{Status: agent.StatusBudgetExhausted, Budget: "own_limit", Reason: "its own limit ran out"})
	}
	return nil
}

// A BeforeModel seam's *EndRun ends the run with its status and budget, before the call,
// instead of failing it.
func TestBeforeModelEndRun(t *testing.T) {
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Echo", `{"a":1}`)}},
		{Text: "never asked"},
	}, agent.Config{BeforeModel: []agent.BeforeModel{endAfter{at: 1}}}, echo("Echo"))
	o := h.run(context.Background(), "go")
	if o.Status != agent.StatusBudgetExhausted || o.Budget != "own_limit" || o.Reason != "its own limit ran out" || o.Turns != 1 {
		t.Fatalf("outcome = %+v, want budget_exhausted/own_limit after 1 turn", o)
	}
	checkInvariants(t, h.conv)
}
