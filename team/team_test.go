package team_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// router is a model for a team: each task a teammate claims has its own script (which
// teammate takes which task is a race), other requests go to the teammate's own.
type router struct {
	mu     sync.Mutex
	byTask map[string]*scripted.Provider
	byName map[string]*scripted.Provider
}

var claimedRE = regexp.MustCompile(`You claimed task #(\d+)`)
var nameRE = regexp.MustCompile(`You are teammate "([^"]+)"`)

func (r *router) Name() string { return "scripted" }

func (r *router) Complete(ctx context.Context, req *llm.Request, on llm.StreamFunc) (*llm.Response, error) {
	key := ""
	for _, m := range req.Messages {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, b := range m.Content {
			if sm := claimedRE.FindAllStringSubmatch(b.Text, -1); sm != nil {
				key = sm[len(sm)-1][1]
			}
		}
	}
	r.mu.Lock()
	p := r.byTask[key]
	if p == nil || p.Remaining() == 0 {
		if sm := nameRE.FindStringSubmatch(req.System); sm != nil {
			p = r.byName[sm[1]]
		}
	}
	r.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("router: no script for task %q / system %.80q", key, req.System)
	}
	return p.Complete(ctx, req, on)
}

func call(id, name string, in any) scripted.ToolCall {
	b, _ := json.Marshal(in)
	return scripted.ToolCall{ID: id, Name: name, Input: b}
}

// completes is the script of a task: mark it completed, then say so.
func completes(id string) *scripted.Provider {
	return scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("c"+id, "TaskUpdate", map[string]string{"taskId": id, "status": "completed"})}},
		{Text: "done #" + id},
	}})
}

type fixture struct {
	team  *team.Team
	tasks task.Store
	mail  mailbox.Store
	board *task.Board
	agent *subagent.Tool
}

func newFixture(t *testing.T, p llm.Provider, defs ...subagent.Definition) *fixture {
	return newFixtureOn(t, p, stores{mail: mailbox.NewMemStore(), tasks: task.NewMemStore()}, defs...)
}

// newFixtureOn is newFixture on the stores s.
func newFixtureOn(t *testing.T, p llm.Provider, s stores, defs ...subagent.Definition) *fixture {
	f := &fixture{tasks: s.tasks, mail: s.mail}
	reg := tool.NewRegistry()
	f.agent, _ = subagent.NewTool(subagent.Config{Provider: p, Model: "scripted", Tools: reg, Definitions: defs})
	warn := s.warn
	if warn == nil {
		warn = func(s string) { t.Log("warn: " + s) }
	}
	f.team = team.New(team.Config{Name: "list", Holder: "lead", Agents: f.agent, Poll: 10 * time.Millisecond,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) { return f.mail, f.tasks, time.Minute, nil },
		Warn: warn})
	f.agent.SetSpawner(f.team)
	f.board = task.NewBoard(task.Config{Store: f.tasks, List: "list", Holder: "lead"})
	t.Cleanup(f.team.Close)
	return f
}

func (f *fixture) spawn(t *testing.T, name, typ, prompt string) string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"description": "d", "prompt": prompt, "subagent_type": typ, "run_in_background": true, "name": name})
	res, _ := f.agent.Run(context.Background(), tool.NewExec(tool.Call{ID: "spawn-" + name, Name: "Agent", Input: in}, nil, nil))
	if res.IsError {
		t.Fatalf("spawn %s: %s", name, res.Text())
	}
	return res.Text()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Three teammates work through a graph of six tasks: each task is claimed once, in a
// dependency order, and each completion tells the lead what it unblocked.
func TestTeammatesCompleteATaskGraph(t *testing.T) {
	r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{}}
	for i := 1; i <= 6; i++ {
		r.byTask[fmt.Sprint(i)] = completes(fmt.Sprint(i))
	}
	for _, n := range []string{"w1", "w2", "w3"} {
		r.byName[n] = scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ready"}}})
	}
	f := newFixture(t, r)
	ctx := context.Background()
	for i := 1; i <= 6; i++ {
		if _, err := f.board.Create(ctx, fmt.Sprintf("step %d", i), "", "", nil); err != nil {
			t.Fatal(err)
		}
	}
	// 1 → 2 → 4; 1 → 3 → 5; 4,5 → 6.
	for blocked, by := range map[string][]string{"2": {"1"}, "3": {"1"}, "4": {"2"}, "5": {"3"}, "6": {"4", "5"}} {
		if _, err := f.board.Update(ctx, blocked, task.Update{AddBlockedBy: by}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"w1", "w2", "w3"} {
		f.spawn(t, n, "general-purpose", "Join the team and wait for tasks.")
	}
	waitFor(t, "all tasks completed", func() bool {
		all, _ := f.board.All(ctx)
		for _, x := range all {
			if x.Status != task.Completed {
				return false
			}
		}
		return true
	})
	waitFor(t, "every task's script to be played", func() bool {
		for _, p := range r.byTask {
			if p.Remaining() != 0 {
				return false
			}
		}
		return true
	})
	msgs, _ := f.mail.Pending(ctx, "list", team.Lead)
	var reports []string
	for _, m := range msgs {
		reports = append(reports, m.From+": "+m.Text)
	}
	joined := strings.Join(reports, "\n")
	for i := 1; i <= 6; i++ {
		if c := strings.Count(joined, fmt.Sprintf("Completed task #%d:", i)); c != 1 {
			t.Errorf("task #%d reported %d times:\n%s", i, c, joined)
		}
	}
	if !strings.Contains(joined, "Unblocked: #2 step 2, #3 step 3") || !strings.Contains(joined, "Unblocked: #6 step 6") {
		t.Errorf("completions do not say what they unblocked:\n%s", joined)
	}
	for i := 1; i <= 6; i++ {
		if n := len(r.byTask[fmt.Sprint(i)].Requests()); n != 2 {
			t.Errorf("task #%d's script got %d requests: it was not worked on exactly once", i, n)
		}
	}
	snap := f.team.Snapshot()
	if len(snap.Members) != 3 || snap.Tokens == 0 {
		t.Errorf("snapshot: %+v", snap)
	}
}

// A teammate in plan mode cannot write until the lead approves its plan; a rejection
// carries the reason; only the lead may answer, and only a request that exists.
func TestPlanModeBlocksWritesUntilApproved(t *testing.T) {
	plan := subagent.Definition{Name: "planner", Description: "plans", PermissionMode: "plan", Source: "project",
		Tools: []string{"Write"}, Prompt: "You plan."}
	writes := 0
	reg := tool.NewRegistry(&fakeWrite{n: &writes})
	r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{
		"p1": scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{ToolCalls: []scripted.ToolCall{call("w1", "Write", map[string]string{"file_path": "a.txt", "content": "x"})}},
			{ExpectContains: "plan mode", ToolCalls: []scripted.ToolCall{call("p1", "ExitPlanMode", map[string]string{"plan": "write a.txt"})}},
			{ExpectContains: "Not yet: say which file", ToolCalls: []scripted.ToolCall{call("p2", "ExitPlanMode", map[string]string{"plan": "write a.txt only"})}},
			{ExpectContains: `approve="true"`, ToolCalls: []scripted.ToolCall{call("w2", "Write", map[string]string{"file_path": "a.txt", "content": "x"})}},
			{Text: "written"},
		}}),
	}}
	f := &fixture{tasks: task.NewMemStore(), mail: mailbox.NewMemStore()}
	f.agent, _ = subagent.NewTool(subagent.Config{Provider: r, Model: "scripted", Tools: reg, Definitions: []subagent.Definition{plan}})
	f.team = team.New(team.Config{Name: "list", Holder: "lead", Agents: f.agent, Poll: 10 * time.Millisecond,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) { return f.mail, f.tasks, time.Minute, nil }})
	f.agent.SetSpawner(f.team)
	t.Cleanup(f.team.Close)
	ctx := context.Background()
	if out := f.spawn(t, "p1", "planner", "Plan then write a.txt"); !strings.Contains(out, "plan mode") {
		t.Fatalf("spawn result does not mention plan mode: %s", out)
	}
	reqID := func() string {
		ms, _ := f.mail.Pending(ctx, "list", team.Lead)
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].Kind == mailbox.PlanApprovalRequest {
				return ms[i].RequestID
			}
		}
		return ""
	}
	waitFor(t, "a plan request", func() bool { return reqID() != "" })
	first := reqID()
	no, yes := false, true
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: "plan-p1-9", Approve: &yes}); err == nil {
		t.Fatal("an approval naming no open request was accepted")
	}
	if _, err := f.team.Send(ctx, mailbox.Message{From: "p1", To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: first, Approve: &yes}); err == nil {
		t.Fatal("a teammate approved a plan")
	}
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: first, Approve: &no}); err == nil {
		t.Fatal("a rejection without a reason was accepted")
	}
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: first, Approve: &no, Text: "Not yet: say which file"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a second plan request", func() bool { r := reqID(); return r != "" && r != first })
	if writes != 0 {
		t.Fatalf("%d writes before approval", writes)
	}
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: reqID(), Approve: &yes}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the write after approval", func() bool { return r.byName["p1"].Remaining() == 0 })
	if writes != 1 {
		t.Fatalf("%d writes after approval, want 1", writes)
	}
	// Shutdown: acknowledged with the request's id, then stopped.
	sd, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.ShutdownRequest, Text: "done"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the shutdown", func() bool { return f.team.Snapshot().Members[0].Status == team.StatusStopped })
	ms, _ := f.mail.Pending(ctx, "list", team.Lead)
	last := ms[len(ms)-1]
	if last.Kind != mailbox.ShutdownResponse || last.RequestID != sd.RequestID || last.From != "p1" {
		t.Fatalf("the last message to the lead is %+v, want p1's shutdown_response to %s", last, sd.RequestID)
	}
}

type fakeWrite struct{ n *int }

func (w *fakeWrite) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Write", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (w *fakeWrite) ReadOnly() bool { return false }
func (w *fakeWrite) Run(context.Context, *tool.Exec) (tool.Result, error) {
	*w.n++
	return tool.Text("written"), nil
}

// A team budget bounds all teammates together: past it a teammate stops, releases
// nothing it has not claimed, and the lead is told why.
func TestTeamBudgetStopsTeammates(t *testing.T) {
	r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{}}
	for i := 1; i <= 3; i++ {
		r.byTask[fmt.Sprint(i)] = completes(fmt.Sprint(i))
	}
	r.byName["w1"] = scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ready"}}})
	f := &fixture{tasks: task.NewMemStore(), mail: mailbox.NewMemStore()}
	f.agent, _ = subagent.NewTool(subagent.Config{Provider: r, Model: "scripted", Tools: tool.NewRegistry()})
	f.team = team.New(team.Config{Name: "list", Holder: "lead", Agents: f.agent, Poll: 10 * time.Millisecond,
		Budget: agentLimits(3),
		Open:   func() (mailbox.Store, task.Store, time.Duration, error) { return f.mail, f.tasks, time.Minute, nil }})
	f.agent.SetSpawner(f.team)
	t.Cleanup(f.team.Close)
	f.board = task.NewBoard(task.Config{Store: f.tasks, List: "list", Holder: "lead"})
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		f.board.Create(ctx, fmt.Sprintf("step %d", i), "", "", nil)
	}
	f.spawn(t, "w1", "general-purpose", "go")
	waitFor(t, "the teammate to stop", func() bool {
		s := f.team.Snapshot()
		return len(s.Members) == 1 && s.Members[0].Status == team.StatusStopped
	})
	ms, _ := f.mail.Pending(ctx, "list", team.Lead)
	if len(ms) == 0 || !strings.Contains(ms[len(ms)-1].Text, "the team budget ran out (3 of 3 turns)") {
		t.Fatalf("the lead was not told of the budget: %+v", ms)
	}
	// Issue 33 item 8: a message to the stopped teammate says it is stopped, not "it
	// arrives in their next request", which had the lead wait for ever.
	in, _ := json.Marshal(map[string]string{"to": "w1", "message": "one more thing"})
	res := f.team.NewSendTool().Run
	got, err := res(ctx, &tool.Exec{Call: tool.Call{ID: "s", Name: "SendMessage", Input: in}})
	if err != nil || !strings.Contains(got.Text(), "w1 has stopped") || !strings.Contains(got.Text(), "Do not wait") || strings.Contains(got.Text(), "next request") {
		t.Errorf("SendMessage to a stopped teammate: %v %q", err, got.Text())
	}
	all, _ := f.board.All(ctx)
	if all[2].Status == task.Completed {
		t.Fatal("the teammate went on past the team budget")
	}
	for _, bad := range []string{"turns=0", "cost=x", "speed=3", "time=-1s"} {
		if _, err := team.ParseBudget(bad); err == nil {
			t.Errorf("ParseBudget(%q) was accepted", bad)
		}
	}
	if l, err := team.ParseBudget("turns=5, tokens=100,cost=1.5,time=2m"); err != nil || l.MaxTurns != 5 || l.MaxTokens != 100 || l.MaxCostUSD != 1.5 || l.MaxDuration != 2*time.Minute {
		t.Fatalf("ParseBudget: %+v, %v", l, err)
	}
}

func agentLimits(turns int) agent.Limits { return agent.Limits{MaxTurns: turns} }

// goid is the id of the calling goroutine, from its stack's first line; the test below
// uses it to tell the lead's own notification from the teammate's.
func goid() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

// A shutdown request stops an idle teammate, often before the lead's SendMessage
// returns; the reply still says the request was sent (it was read), not that the teammate
// "has stopped and reads nothing now" (the s13 example failed in CI on that race). The
// lead's own change notification waits here until the teammate has stopped, which opens
// the window every time.
func TestShutdownToAnIdleTeammateIsSentEvenIfItStopsAtOnce(t *testing.T) {
	r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{}}
	r.byName["w1"] = scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ready"}}})
	f := &fixture{tasks: task.NewMemStore(), mail: mailbox.NewMemStore()}
	f.agent, _ = subagent.NewTool(subagent.Config{Provider: r, Model: "scripted", Tools: tool.NewRegistry()})
	var lead atomic.Value
	lead.Store("")
	f.team = team.New(team.Config{Name: "list", Holder: "lead", Agents: f.agent, Poll: 10 * time.Millisecond,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) { return f.mail, f.tasks, time.Minute, nil },
		OnChange: func(team.Snapshot) {
			if id := lead.Load().(string); id == "" || id != goid() {
				return
			}
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				if s := f.team.Snapshot(); len(s.Members) == 1 && s.Members[0].Status == team.StatusStopped {
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
		}})
	f.agent.SetSpawner(f.team)
	t.Cleanup(f.team.Close)
	f.spawn(t, "w1", "general-purpose", "wait")
	waitFor(t, "the teammate to go idle", func() bool {
		s := f.team.Snapshot()
		return len(s.Members) == 1 && s.Members[0].Status == team.StatusIdle
	})
	lead.Store(goid())
	in, _ := json.Marshal(map[string]any{"to": "w1", "message": map[string]string{"type": "shutdown_request", "reason": "all done"}})
	got, err := f.team.NewSendTool().Run(context.Background(), &tool.Exec{Call: tool.Call{ID: "s", Name: "SendMessage", Input: in}})
	lead.Store("")
	if s := f.team.Snapshot(); s.Members[0].Status != team.StatusStopped {
		t.Fatalf("the teammate is %s after the shutdown request; the test did not open the window", s.Members[0].Status)
	}
	if err != nil || !strings.Contains(got.Text(), "sent to w1") || strings.Contains(got.Text(), "reads nothing") {
		t.Fatalf("SendMessage of a shutdown request to an idle teammate: %v %q", err, got.Text())
	}
}
