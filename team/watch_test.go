package team_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// Stores that count the reads idle teammates make; the versioned ones also say when
// they changed, as the SQLite and in-memory stores do.
type countingMail struct {
	mailbox.Store
	reads *atomic.Int64
}

func (c countingMail) Pending(ctx context.Context, team, to string) ([]mailbox.Message, error) {
	c.reads.Add(1)
	return c.Store.Pending(ctx, team, to)
}

type countingTasks struct {
	task.Store
	reads *atomic.Int64
}

func (c countingTasks) All(ctx context.Context, list string) ([]task.Task, error) {
	c.reads.Add(1)
	return c.Store.All(ctx, list)
}

type versionedMail struct {
	countingMail
	mem *mailbox.MemStore
}

func (v versionedMail) Version(ctx context.Context) (uint64, error) { return v.mem.Version(ctx) }

type versionedTasks struct {
	countingTasks
	mem *task.MemStore
}

func (v versionedTasks) Version(ctx context.Context) (uint64, error) { return v.mem.Version(ctx) }

// watchedTeam is a team of idle teammates on counting stores, versioned or not.
func watchedTeam(t *testing.T, versioned bool, poll time.Duration, names ...string) (*team.Team, *task.Board, *atomic.Int64) {
	t.Helper()
	reads := &atomic.Int64{}
	mem, tmem := mailbox.NewMemStore(), task.NewMemStore()
	var mail mailbox.Store = countingMail{mem, reads}
	var tasks task.Store = countingTasks{tmem, reads}
	if versioned {
		mail, tasks = versionedMail{countingMail{mem, reads}, mem}, versionedTasks{countingTasks{tmem, reads}, tmem}
	}
	r := &router{byTask: map[string]*scripted.Provider{"1": completes("1")}, byName: map[string]*scripted.Provider{}}
	for _, n := range names {
		r.byName[n] = scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ready"}}})
	}
	agents, _ := subagent.NewTool(subagent.Config{Provider: r, Model: "scripted", Tools: tool.NewRegistry()})
	tm := team.New(team.Config{Name: "list", Holder: "lead", Agents: agents, Poll: poll,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) { return mail, tasks, time.Minute, nil },
		Warn: func(s string) { t.Log("warn: " + s) }})
	agents.SetSpawner(tm)
	t.Cleanup(tm.Close)
	f := &fixture{team: tm, agent: agents}
	for _, n := range names {
		f.spawn(t, n, "general-purpose", "Join the team and wait for tasks.")
	}
	waitFor(t, "every teammate idle", func() bool {
		idle := 0
		for _, m := range tm.Snapshot().Members {
			if m.Status == team.StatusIdle {
				idle++
			}
		}
		return idle == len(names)
	})
	return tm, task.NewBoard(task.Config{Store: tasks, List: "list", Holder: "lead"}), reads
}

// Idle teammates of a team whose stores say when they changed do not read their
// messages and the task list every Poll: the team reads the stores' versions once per
// Poll and wakes them only on a change. Without versions each reads every Poll.
func TestIdleTeammatesReadTheStoresOnlyWhenTheyChanged(t *testing.T) {
	const poll = 10 * time.Millisecond
	names := []string{"w1", "w2", "w3", "w4", "w5"}
	quiet := func(versioned bool) int64 {
		_, _, reads := watchedTeam(t, versioned, poll, names...)
		time.Sleep(5 * poll) // settle: the first version reading counts as a change
		before := reads.Load()
		time.Sleep(40 * poll)
		return reads.Load() - before
	}
	polled, watched := quiet(false), quiet(true)
	t.Logf("reads by %d idle teammates in 40 Polls: %d polling, %d watched", len(names), polled, watched)
	if watched*4 > polled {
		t.Fatalf("watched idle teammates read the stores %d times in 40 Polls, polling ones %d: the version watch does not spare the reads", watched, polled)
	}
}

// A task another process adds (written to the store, no teammate of this one told) is
// claimed at the watch's next reading, not at the idle teammate's own slow recheck (20
// Polls: 20 s here, past the wait).
func TestAWatchedTeamWakesOnAnotherProcesssTask(t *testing.T) {
	tm, board, _ := watchedTeam(t, true, time.Second, "w1")
	if _, err := board.Create(context.Background(), "step 1", "", "", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the task claimed and completed", func() bool {
		x, err := board.Get(context.Background(), "1")
		return err == nil && x.Status == task.Completed
	})
	if n := len(tm.Snapshot().Members); n != 1 {
		t.Fatal(fmt.Sprint(n, " members"))
	}
}
