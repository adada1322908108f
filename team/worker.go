package team

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team/registry"
)

// WorkerSpec is a teammate that runs as its own process (ouro team worker) for a team
// whose lead runs elsewhere: it shares the team's stores, not the lead's memory.
type WorkerSpec struct {
	// Name is the teammate's name in messages and claims.
	Name string
	// AgentType is the agent definition it runs ("" for the general one).
	AgentType string
	// MaxTasks stops it after it claimed this many tasks (0: no bound).
	MaxTasks int
	// Worktree has it work in its own git worktree.
	Worktree bool
	// Delivered are the ids of messages an earlier run of this worker (same name) had in
	// its transcript: a worker killed between persisting a message and acknowledging it
	// acknowledges them now instead of delivering them twice.
	Delivered []string
	// AfterPersist is for tests only (mailbox.Inbox.AfterPersist).
	AfterPersist func()
	// Stay keeps it until a shutdown request or the end of ctx, even with no task left:
	// a worker its lead started (--team-process), which the lead may still message.
	Stay bool
	// Report, when set, receives its state after each change; Observe its events.
	Report  func(Member)
	Observe func(agent.Event)

	// Registry, when set, keeps the worker's record (ouro team status): written when it
	// starts, renewed as it renews its task leases, and once more when it stops. Host,
	// PID and Repo go into the record.
	Registry registry.Store
	Host     string
	PID      int
	Repo     string
	// TaskIsolation, when set, gives each task the worker claims a worktree of its own:
	// the worker's agent is made afresh there for the task, and once the task is
	// completed or given back the Isolation's Finish runs (it pushes the task's branch)
	// and what it returns is sent to the lead.
	TaskIsolation func(ctx context.Context, taskID string, d subagent.Definition) (*subagent.Isolation, error)
}

// Work runs this process as teammate spec.Name of the team until a shutdown request
// arrives, ctx ends, it did MaxTasks tasks, or no open task remains and no message waits.
// It returns why it stopped.
func (t *Team) Work(ctx context.Context, spec WorkerSpec) (string, error) {
	if err := CheckName(spec.Name); err != nil {
		return "", err
	}
	t.used.Store(true)
	if err := t.open(); err != nil {
		return "", fmt.Errorf("the team could not start: %w", err)
	}
	def, err := t.cfg.Agents.Definition(spec.AgentType)
	if err != nil {
		return "", err
	}
	if spec.Observe != nil {
		t.cfg.Observer = func(_ string, e agent.Event) { spec.Observe(e) }
	}
	if spec.Report != nil {
		prev := t.cfg.OnChange
		t.cfg.OnChange = func(s Snapshot) {
			if prev != nil {
				prev(s)
			}
			for _, m := range s.Members {
				if m.Name == spec.Name {
					spec.Report(m)
				}
			}
		}
	}
	tm := &teammate{team: t, name: spec.Name, def: def, status: StatusStarting, wake: make(chan struct{}, 1),
		kind: worker{maxTasks: spec.MaxTasks, stay: spec.Stay}, fleet: &fleetWork{spec: spec, started: time.Now().UTC()}}
	t.mu.Lock()
	t.members[tm.name] = tm
	t.order = append(t.order, tm.name)
	t.mu.Unlock()
	if spec.Worktree {
		iso, err := t.cfg.Agents.Isolate(ctx, "teammate-"+tm.name, def)
		if err != nil {
			return "", fmt.Errorf("teammate %q has no worktree: %w", tm.name, err)
		}
		tm.iso = iso
	}
	if err := tm.build("team worker"); err != nil {
		tm.finishWorktree()
		return "", err
	}
	tm.inbox.Seen(spec.Delivered...)
	if len(spec.Delivered) > 0 {
		// Acknowledged before this run writes its status file (which then names its own
		// transcript, not the one holding these): a second crash cannot repeat them.
		if err := t.mail.Ack(ctx, t.cfg.Name, tm.name, spec.Delivered); err != nil {
			t.cfg.Warn(tm.name + " acknowledging what its last run delivered: " + err.Error())
		}
	}
	tm.inbox.AfterPersist = spec.AfterPersist
	stop := context.AfterFunc(ctx, t.cancel)
	defer stop()
	var beats sync.WaitGroup
	bctx, endBeats := context.WithCancel(t.ctx)
	if spec.Registry != nil {
		// A worker started again under its name (after a crash, or to take more tasks)
		// adds to what its earlier processes did: ouro team status counts them all.
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		prev, ok, err := registry.Previous(rctx, spec.Registry, t.cfg.Name, tm.name)
		cancel()
		switch {
		case err != nil:
			t.cfg.Warn(tm.name + " reading the record of its earlier runs (its totals start again from zero): " + err.Error())
		case ok:
			tm.fleet.carryOn(prev)
		}
		beats.Add(1)
		go func() {
			defer beats.Done()
			tm.heartbeat(bctx)
		}()
	}
	t.wg.Add(1)
	tm.loop("")
	endBeats()
	beats.Wait()
	st := tm.state()
	if spec.Registry != nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if err := spec.Registry.Put(wctx, tm.record(st.Reason)); err != nil {
			t.cfg.Warn(tm.name + " writing its last worker record: " + err.Error())
		}
		cancel()
	}
	return st.Reason, nil
}

// worker is this process as a teammate of a lead that runs elsewhere (ouro team worker):
// its loop runs here like an in-process teammate's.
type worker struct {
	inProcess
	maxTasks int  // it stops after claiming this many (0: no bound)
	stay     bool // its lead started it: it stays until told to stop
}

// failureStops: a worker stops, since its next run would start from the same failure.
func (worker) failureStops() bool { return true }

// checkShutdown finds a shutdown request in a worker's mailbox: in its own process
// nobody calls requestStop, the request comes through the store.
func (worker) checkShutdown(ctx context.Context, tm *teammate) {
	if tm.stopRequested() != nil {
		return
	}
	ms, err := tm.team.mail.Pending(ctx, tm.team.cfg.Name, tm.name)
	if err != nil {
		return
	}
	for _, m := range ms {
		if m.Kind == mailbox.ShutdownRequest && m.From == Lead {
			tm.requestStop(m)
			return
		}
	}
}

// idleDone reports why a worker stops when idle: it did its tasks, or nothing is left
// (no open task in the list, no message for it). "": it goes on.
func (w worker) idleDone(ctx context.Context, tm *teammate) string {
	tm.mu.Lock()
	n := tm.claims
	tm.mu.Unlock()
	if w.maxTasks > 0 && n >= w.maxTasks {
		return fmt.Sprintf("it did the %d task(s) it was started for", w.maxTasks)
	}
	if w.stay {
		return ""
	}
	if tm.inbox.Pending(ctx) {
		return ""
	}
	all, err := tm.board.All(ctx)
	if err != nil {
		return ""
	}
	for _, x := range all {
		if x.Status != task.Completed {
			return ""
		}
	}
	// A report still owed (its sender may have died) keeps the worker until it is sent:
	// it may be the last one to look at the list.
	tm.team.recoverReports(ctx, tm.board, all)
	if all, err = tm.board.All(ctx); err != nil {
		return ""
	}
	for _, x := range all {
		if x.Report != "" && !strings.HasPrefix(x.Report, "sent ") {
			return ""
		}
	}
	return "no open task remains"
}
