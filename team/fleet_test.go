package team_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/team/registry"
	regsql "github.com/ouroagent/ouro/team/registry/sqlitestore"
)

// flakyList is a task store whose listing fails once right after each completion, as a
// JetStream cluster's may while a node fails over: the teammate's change notice is lost.
type flakyList struct {
	*task.MemStore
	fail atomic.Int32
}

func (s *flakyList) Apply(ctx context.Context, list string, cs []task.Change) error {
	err := s.MemStore.Apply(ctx, list, cs)
	for _, c := range cs {
		if err == nil && c.Op == task.Put && c.Task.Status == task.Completed {
			s.fail.Store(1)
		}
	}
	return err
}

func (s *flakyList) All(ctx context.Context, list string) ([]task.Task, error) {
	if s.fail.CompareAndSwap(1, 0) {
		return nil, errors.New("no responders available for request")
	}
	return s.MemStore.All(ctx, list)
}

// A worker process with a repository works each task in its own isolation, which is
// finished (published) exactly once when the task is done, even when the store lost the
// completion's change notice; the lead gets the completion and the publish report; the
// worker's registry record counts the tasks and says why it stopped.
func TestWorkerPublishesEachTaskOnceAndKeepsItsRecord(t *testing.T) {
	r := &router{byTask: map[string]*scripted.Provider{"1": completes("1"), "2": completes("2")}, byName: map[string]*scripted.Provider{}}
	f := newFixture(t, r)
	tasks := &flakyList{MemStore: task.NewMemStore()}
	f.tasks = tasks.MemStore
	ctx := context.Background()
	board := task.NewBoard(task.Config{Store: tasks, List: "list", Holder: "lead"})
	for i := 1; i <= 2; i++ {
		if _, err := board.Create(ctx, fmt.Sprintf("part %d", i), "", "", nil); err != nil {
			t.Fatal(err)
		}
	}
	f.team = team.New(team.Config{Name: "list", Holder: "lead", Agents: f.agent, Poll: 10 * time.Millisecond,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) {
			return f.mail, tasks, 300 * time.Millisecond, nil
		},
		Warn: func(s string) { t.Log("warn: " + s) }})
	t.Cleanup(f.team.Close)
	reg, err := regsql.Open(filepath.Join(t.TempDir(), "state.db"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	var mu sync.Mutex
	finished := map[string]int{}
	spec := team.WorkerSpec{Name: "w1", Registry: reg, Host: "box", PID: 42, Repo: "/srv/r.git",
		TaskIsolation: func(_ context.Context, id string, _ subagent.Definition) (*subagent.Isolation, error) {
			return &subagent.Isolation{Dir: t.TempDir(), Finish: func(context.Context) string {
				mu.Lock()
				finished[id]++
				mu.Unlock()
				return "w1 pushed branch ouro/w1/" + id
			}}, nil
		}}
	why, err := f.team.Work(ctx, spec)
	if err != nil || why != "no open task remains" {
		t.Fatalf("Work: %q, %v", why, err)
	}
	if finished["1"] != 1 || finished["2"] != 1 {
		t.Fatalf("each task's isolation should be finished once: %v", finished)
	}
	msgs, _ := f.mail.Pending(ctx, "list", team.Lead)
	var all []string
	for _, m := range msgs {
		all = append(all, m.Text)
	}
	text := strings.Join(all, "\n")
	for _, id := range []string{"1", "2"} {
		if strings.Count(text, "Completed task #"+id+":") != 1 || strings.Count(text, "pushed branch ouro/w1/"+id) != 1 {
			t.Errorf("task #%s: the lead should get one completion and one push report:\n%s", id, text)
		}
	}
	ws, err := reg.List(ctx, "list")
	if err != nil || len(ws) != 1 {
		t.Fatalf("registry: %+v, %v", ws, err)
	}
	w := ws[0]
	if w.TasksDone != 2 || w.Host != "box" || w.PID != 42 || w.Repo != "/srv/r.git" || w.Stopped != "no open task remains" ||
		w.StateAt(time.Now()) != registry.Stopped || w.Tokens == 0 || w.Task != "" {
		t.Fatalf("the worker's last record: %+v", w)
	}
}

// A worker started again under the same name (after a crash, or for more tasks) adds to
// what its earlier processes did: its record counts every process's tasks, tokens and
// cost, and how many processes there were, so ouro team status sums to the work done.
func TestARestartedWorkersRecordSumsItsRuns(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		r := &router{byTask: map[string]*scripted.Provider{"1": completes("1"), "2": completes("2")}, byName: map[string]*scripted.Provider{}}
		f := newFixtureOn(t, r, s)
		ctx := context.Background()
		for i := 1; i <= 2; i++ {
			if _, err := f.board.Create(ctx, fmt.Sprintf("part %d", i), "", "", nil); err != nil {
				t.Fatal(err)
			}
		}
		var tokens []int
		for run := 1; run <= 2; run++ {
			mail := s.mail
			if run > 1 {
				mail = s.reopen(t) // the first process's team closed its own
			}
			tm := team.New(team.Config{Name: "list", Holder: fmt.Sprintf("proc%d", run), Agents: f.agent, Poll: 10 * time.Millisecond,
				Open: func() (mailbox.Store, task.Store, time.Duration, error) { return mail, s.tasks, time.Minute, nil },
				Warn: func(s string) { t.Log("warn: " + s) }})
			why, err := tm.Work(ctx, team.WorkerSpec{Name: "w1", MaxTasks: 1, Registry: s.reg, Host: "box", PID: 40 + run})
			tm.Close()
			if err != nil || !strings.Contains(why, "the 1 task(s)") {
				t.Fatalf("run %d: %q, %v", run, why, err)
			}
			ws, err := s.reg.List(ctx, "list")
			if err != nil || len(ws) != 1 {
				t.Fatalf("registry after run %d: %+v, %v", run, ws, err)
			}
			tokens = append(tokens, ws[0].Tokens)
			if w := ws[0]; w.TasksDone != run || w.Runs != run || w.PID != 40+run {
				t.Fatalf("the record after run %d: %+v", run, w)
			}
		}
		if tokens[0] == 0 || tokens[1] <= tokens[0] {
			t.Errorf("tokens after each run: %v: the second run's are not added to the first's", tokens)
		}
	})
}

// The last worker to look at a finished list sends the report a dead worker owed before
// it stops: nobody else may look again.
func TestTheLastWorkerSendsAnOwedReport(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		lease := 300 * time.Millisecond
		dead := task.NewBoard(task.Config{Store: s.tasks, List: "list", Holder: "gone/w9", Lease: lease, OweReport: true})
		if _, err := dead.Create(ctx, "parse", "", "", nil); err != nil {
			t.Fatal(err)
		}
		owner, done := "w9", task.Completed
		if _, err := dead.Update(ctx, "1", task.Update{Owner: &owner}); err != nil {
			t.Fatal(err)
		}
		if _, err := dead.Update(ctx, "1", task.Update{Status: &done}); err != nil {
			t.Fatal(err)
		}
		f := newFixtureOn(t, &router{byName: map[string]*scripted.Provider{}}, s)
		tm := team.New(team.Config{Name: "list", Holder: "proc2", Agents: f.agent, Poll: 10 * time.Millisecond,
			Open: func() (mailbox.Store, task.Store, time.Duration, error) { return s.mail, s.tasks, lease, nil },
			Warn: func(w string) { t.Log("warn: " + w) }})
		t.Cleanup(tm.Close)
		why, err := tm.Work(ctx, team.WorkerSpec{Name: "w1"})
		if err != nil || why != "no open task remains" {
			t.Fatalf("Work: %q, %v", why, err)
		}
		ms, _ := s.mail.Recent(ctx, "list", 10)
		n := 0
		for _, m := range ms {
			if m.To == team.Lead && m.From == "w9" && strings.HasPrefix(m.Text, "Completed task #1:") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d reports of #1 from w9: %+v", n, ms)
		}
	})
}
