package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

var errDiskFull = errors.New("write transcript: no space left on device")

// failingRecord fails from the n-th message event on (1-based), as a transcript on a
// disk that fills up does.
func failingRecord(n int) (func(agent.Event) error, *int) {
	seen := 0
	return func(e agent.Event) error {
		if e.Type != agent.EventMessage {
			return nil
		}
		seen++
		if seen >= n {
			return errDiskFull
		}
		return nil
	}, &seen
}

type countGate struct{ n int }

func (g *countGate) Gate(context.Context, tool.Call) agent.Decision { g.n++; return agent.Decision{} }

type stopSeam struct{ n int }

func (s *stopSeam) BeforeStop(context.Context, *agent.Stop) agent.StopDecision {
	s.n++
	return agent.StopDecision{}
}

// A run whose record fails stops before the next side effect: when the assistant
// message with the calls cannot be written, no gate and no tool runs, every call is
// answered "not run", no further model call is made, and the run fails with the error.
func TestRunStopsWhenItCannotBeRecorded(t *testing.T) {
	rec, _ := failingRecord(2) // the prompt is recorded, the first answer is not
	gate := &countGate{}
	bash, read := echo("Bash"), echo("Read")
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Bash", `{"c":1}`), call("Read", `{"p":1}`)}},
		{Text: "never asked"},
	}, agent.Config{Record: rec, Gates: []agent.Gate{gate}}, bash, read)
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || !strings.Contains(out.Reason, errDiskFull.Error()) || !strings.Contains(out.Reason, "could not be written") {
		t.Fatalf("outcome %s: %s", out.Status, out.Reason)
	}
	if bash.calls.Load() != 0 || read.calls.Load() != 0 || gate.n != 0 {
		t.Errorf("after the record failed: %d Bash, %d Read runs, %d gate calls", bash.calls.Load(), read.calls.Load(), gate.n)
	}
	if n := len(h.prov.Requests()); n != 1 {
		t.Errorf("%d model calls; the run went on after its record failed", n)
	}
	checkInvariants(t, h.conv)
	for _, b := range lastResults(h.conv) {
		if !b.IsError || !strings.Contains(b.ResultText(), "Not run: the session's record could not be written") {
			t.Errorf("result %q", b.ResultText())
		}
	}
	// The outcome event still reaches the record, which may say how the run ended.
	if last := h.events[len(h.events)-1]; last.Type != agent.EventOutcome || last.Outcome.Status != agent.StatusFailed {
		t.Errorf("last event %+v", last)
	}
}

// When a tool's result cannot be recorded, the calls after it in the same message do not
// run, and the model is not called again.
func TestRunStopsBetweenCallsWhenTheRecordFails(t *testing.T) {
	fail := false
	rec := func(e agent.Event) error {
		if fail {
			return errDiskFull
		}
		return nil
	}
	first := &fakeTool{name: "First", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		fail = true // the disk fills while it runs
		return tool.Text("first ran"), nil
	}}
	second := echo("Second")
	h := newHarness(t, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("First", `{}`), call("Second", `{}`)}},
		{Text: "never asked"},
	}, agent.Config{Record: rec}, first, second)
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || second.calls.Load() != 0 || len(h.prov.Requests()) != 1 {
		t.Fatalf("outcome %s (%s), second ran %d times, %d model calls", out.Status, out.Reason, second.calls.Load(), len(h.prov.Requests()))
	}
	res := lastResults(h.conv)
	if len(res) != 2 || res[0].ResultText() != "first ran" || !strings.Contains(res[1].ResultText(), "Not run") {
		t.Fatalf("results %+v", res)
	}
	checkInvariants(t, h.conv)
}

// A final answer that cannot be recorded does not make the run completed (exit 0), and
// the stop checks (Stop hooks) do not run.
func TestFinalAnswerNotRecordedFailsTheRun(t *testing.T) {
	rec, _ := failingRecord(2)
	stop := &stopSeam{}
	h := newHarness(t, []scripted.Turn{{Text: "all done"}}, agent.Config{Record: rec, BeforeStop: []agent.BeforeStop{stop}})
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || !strings.Contains(out.Reason, errDiskFull.Error()) || stop.n != 0 {
		t.Fatalf("outcome %s: %s; stop checks %d", out.Status, out.Reason, stop.n)
	}
	if out.Result != "all done" {
		t.Errorf("the answer the model gave is lost from the outcome: %q", out.Result)
	}
	// With a record that works, the same run completes.
	ok := newHarness(t, []scripted.Turn{{Text: "all done"}}, agent.Config{Record: func(agent.Event) error { return nil }})
	if out := ok.run(context.Background(), "go"); out.Status != agent.StatusCompleted {
		t.Fatalf("a recorded run: %s %s", out.Status, out.Reason)
	}
}

type notifySeam struct{}

func (notifySeam) BeforeModel(_ context.Context, t *agent.Turn) error {
	t.AppendUser(llm.TextBlock("a notification"))
	return nil
}

// What a BeforeModel seam adds (a notification, a message from the inbox) that cannot be
// recorded is not sent to the model either.
func TestSeamMessageNotRecordedStopsBeforeTheModel(t *testing.T) {
	rec, _ := failingRecord(2) // the prompt is recorded, the notification is not
	h := newHarness(t, []scripted.Turn{{Text: "answered"}}, agent.Config{Record: rec, BeforeModel: []agent.BeforeModel{notifySeam{}}})
	out := h.run(context.Background(), "go")
	if out.Status != agent.StatusFailed || len(h.prov.Requests()) != 0 {
		t.Fatalf("outcome %s (%s), %d model calls", out.Status, out.Reason, len(h.prov.Requests()))
	}
}
