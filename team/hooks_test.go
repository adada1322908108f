package team_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// fakeHooks refuses completion until verified, and keeps an idle teammate working idleN
// times (-1: always), or stops it.
type fakeHooks struct {
	mu        sync.Mutex
	verified  bool
	idleN     int
	idleStop  string
	idles     int
	completes []string
}

func (h *fakeHooks) TaskCreated(context.Context, string, task.Task) error { return nil }

func (h *fakeHooks) TaskCompleted(_ context.Context, who string, t task.Task) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.completes = append(h.completes, who+" #"+t.ID)
	if !h.verified {
		return errors.New("TaskCompleted hook feedback: the tests fail")
	}
	return nil
}

func (h *fakeHooks) TeammateIdle(_ context.Context, who string) (string, bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.idles++
	if h.idleStop != "" {
		return "", false, h.idleStop
	}
	if h.idleN < 0 || h.idles <= h.idleN {
		return "keep going", true, ""
	}
	return "", false, ""
}

func hookedFixture(t *testing.T, r *router, h team.Hooks) (*fixture, *mailbox.MemStore) {
	mail := mailbox.NewMemStore()
	tasks := task.NewMemStore()
	agents, _ := subagent.NewTool(subagent.Config{Provider: r, Model: "scripted", Tools: tool.NewRegistry()})
	tm := team.New(team.Config{Name: "list", Holder: "lead", Agents: agents, Poll: 10 * time.Millisecond, Hooks: h,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) { return mail, tasks, time.Minute, nil },
		Warn: func(s string) { t.Log("warn: " + s) }})
	agents.SetSpawner(tm)
	t.Cleanup(tm.Close)
	return &fixture{team: tm, agent: agents, tasks: tasks, mail: mail,
		board: task.NewBoard(task.Config{Store: tasks, List: "list", Holder: "lead"})}, mail
}

// A lying model marks its task completed without doing it: the TaskCompleted hook keeps
// the task open and the model reads why.
func TestTaskCompletedHookKeepsTheTaskOpen(t *testing.T) {
	done := call("c1", "TaskUpdate", map[string]string{"taskId": "1", "status": "completed"})
	turns := []scripted.Turn{{ToolCalls: []scripted.ToolCall{done}}, {ExpectContains: "the tests fail", Text: "I give up"}}
	for range 5 {
		turns = append(turns, scripted.Turn{Text: "still not done"})
	}
	r := &router{byTask: map[string]*scripted.Provider{"1": scripted.New(&scripted.Script{Turns: turns})},
		byName: map[string]*scripted.Provider{"w1": scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ready"}}})}}
	h := &fakeHooks{}
	f, _ := hookedFixture(t, r, h)
	ctx := context.Background()
	if _, err := f.board.Create(ctx, "fix the parser", "", "", nil); err != nil {
		t.Fatal(err)
	}
	f.spawn(t, "w1", "general-purpose", "Join.")
	waitFor(t, "w1 to give up", func() bool { return r.byTask["1"].Remaining() <= 5 })
	waitFor(t, "w1 to go idle", func() bool {
		s := f.team.Snapshot()
		return s.Members[0].Status == team.StatusIdle
	})
	tk, _ := f.board.Get(ctx, "1")
	if tk.Status == task.Completed {
		t.Fatal("the task was completed though its hook refused")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.completes) != 1 || h.completes[0] != "w1 #1" {
		t.Fatalf("TaskCompleted saw %q", h.completes)
	}
}

// A TeammateIdle hook that always blocks does not keep a teammate busy forever: the
// loop's cap on continuations (8) ends the run and the teammate goes idle.
func TestTeammateIdleHookIsBounded(t *testing.T) {
	var turns []scripted.Turn
	for range 20 {
		turns = append(turns, scripted.Turn{Text: "nothing to do"})
	}
	r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{
		"w1": scripted.New(&scripted.Script{Turns: turns})}}
	h := &fakeHooks{idleN: -1}
	f, _ := hookedFixture(t, r, h)
	f.spawn(t, "w1", "general-purpose", "Join.")
	waitFor(t, "w1 to go idle", func() bool {
		s := f.team.Snapshot()
		return r.byName["w1"].Remaining() < 20 && s.Members[0].Status == team.StatusIdle
	})
	time.Sleep(50 * time.Millisecond)
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(r.byName["w1"].Requests()); h.idles != 8 || n != 9 {
		t.Fatalf("TeammateIdle ran %d times over %d requests; want 8 continuations, 9 requests", h.idles, n)
	}
}

// continue:false at TeammateIdle stops the teammate, gives its task back and tells the lead.
func TestTeammateIdleHookStopsTheTeammate(t *testing.T) {
	r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{
		"w1": scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "done for now"}}})}}
	h := &fakeHooks{idleStop: "budget policy"}
	f, mail := hookedFixture(t, r, h)
	f.spawn(t, "w1", "general-purpose", "Say hi.")
	waitFor(t, "w1 to stop", func() bool {
		s := f.team.Snapshot()
		return len(s.Members) == 1 && s.Members[0].Status == team.StatusStopped
	})
	if s := f.team.Snapshot().Members[0].Reason; !strings.Contains(s, "budget policy") {
		t.Fatalf("reason %q", s)
	}
	ms, _ := mail.Pending(context.Background(), "list", team.Lead)
	if len(ms) != 1 || !strings.Contains(ms[0].Text, "TeammateIdle hook stopped it (budget policy)") {
		t.Fatalf("the lead was not told: %+v", ms)
	}
}
