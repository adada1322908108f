package team

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team/registry"
)

// fleetWork is what a worker process adds to a teammate: its record in the team's
// worker registry, renewed as it renews its task leases, and, with a repository, a
// worktree of its own for each task it claims.
type fleetWork struct {
	spec WorkerSpec

	mu      sync.Mutex
	started time.Time
	done    int
	tokens  int
	cost    float64
	taskID  string          // the task whose worktree the member works in
	prior   registry.Worker // what earlier processes under this name did (Runs 0: none)
}

// carryOn takes the totals of the record an earlier process under this name left.
func (f *fleetWork) carryOn(prev registry.Worker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prior = prev
	f.prior.Runs = max(prev.Runs, 1)
}

func (f *fleetWork) completed() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.done++
	f.mu.Unlock()
}

func (f *fleetWork) spent(out agent.Outcome) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.tokens += out.Usage.Total()
	f.cost += out.CostUSD
	f.mu.Unlock()
}

// record is the worker's registry record as it stands; stopped says why it stopped.
func (tm *teammate) record(stopped string) registry.Worker {
	f := tm.fleet
	tm.mu.Lock()
	cur := tm.current
	tm.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	return registry.Worker{Team: tm.team.cfg.Name, Name: tm.name, Host: f.spec.Host, PID: f.spec.PID, Agent: tm.def.Name,
		Repo: f.spec.Repo, Started: f.started, Heartbeat: time.Now().UTC(), Lease: tm.team.lease, Task: cur,
		TasksDone: f.prior.TasksDone + f.done, Tokens: f.prior.Tokens + f.tokens, CostUSD: f.prior.CostUSD + f.cost,
		Stopped: stopped, Runs: f.prior.Runs + 1}
}

// heartbeat writes the worker's record now and every third of a lease until ctx ends.
func (tm *teammate) heartbeat(ctx context.Context) {
	reg := tm.fleet.spec.Registry
	put := func() {
		if err := reg.Put(ctx, tm.record("")); err != nil && ctx.Err() == nil {
			tm.team.cfg.Warn(tm.name + " writing its worker record: " + err.Error())
		}
	}
	put()
	tick := time.NewTicker(max(tm.team.lease/3, 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			put()
		case <-tm.team.changes():
			// A change (a claim, a completion) shows at once, not a third of a lease later;
			// on a busy team at most two writes a second, the second one carrying what
			// changed meanwhile.
			put()
			select {
			case <-ctx.Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
			put()
		}
	}
}

// enterTask moves a worker with a repository into the worktree of the task it just
// claimed (a fresh member, working there); false: it could not, and the task is given
// back.
func (tm *teammate) enterTask(ctx context.Context, t task.Task) bool {
	if tm.fleet == nil || tm.fleet.spec.TaskIsolation == nil {
		return true
	}
	// A worktree still open (its task's end went unnoticed) is published first.
	tm.finishTask()
	iso, err := tm.fleet.spec.TaskIsolation(ctx, t.ID, tm.def)
	if err == nil {
		old := tm.m
		tm.mu.Lock()
		tm.iso = iso
		tm.mu.Unlock()
		if err = tm.newMember("team worker, task #" + t.ID); err == nil {
			old.Close()
			tm.fleet.mu.Lock()
			tm.fleet.taskID = t.ID
			tm.fleet.mu.Unlock()
			return true
		}
		tm.mu.Lock()
		tm.m = old
		tm.mu.Unlock()
		tm.finishWorktree()
	}
	tm.team.cfg.Warn(fmt.Sprintf("%s: task #%s has no worktree: %v", tm.name, t.ID, err))
	tm.report(fmt.Sprintf("%s could not start task #%s: its worktree could not be made (%v). The task is given back.", tm.name, t.ID, err))
	tm.release("")
	return false
}

// afterRun finishes the task's worktree once the task is completed or given back: its
// branch is pushed and the lead told.
func (tm *teammate) afterRun() {
	if tm.fleet == nil || tm.fleet.spec.TaskIsolation == nil {
		return
	}
	tm.mu.Lock()
	cur := tm.current
	tm.mu.Unlock()
	if cur != "" {
		// The task looks held. Its completion may have gone unnoticed (the store could not
		// list the tasks just after the change, as while a node fails over): ask the task.
		id, _, _ := strings.Cut(strings.TrimPrefix(cur, "#"), " ")
		t, err := tm.board.Get(tm.team.ctx, id)
		if err != nil || (t.Status != task.Completed && t.Owner == tm.name) {
			return // still its task, or the store cannot say: the worktree stays
		}
		if all, err := tm.board.All(tm.team.ctx); err == nil {
			tm.tasksChanged(all) // reports the completion and lets the task go
		}
		tm.mu.Lock()
		cur = tm.current
		tm.mu.Unlock()
		if cur != "" {
			return
		}
	}
	tm.finishTask()
}

// finishTask ends the worktree the teammate works in: a worker's task worktree is
// published and the lead gets its report; any other worktree just ends.
func (tm *teammate) finishTask() {
	text := tm.finishWorktree()
	if tm.fleet == nil || tm.fleet.spec.TaskIsolation == nil || text == "" {
		return
	}
	tm.fleet.mu.Lock()
	tm.fleet.taskID = ""
	tm.fleet.mu.Unlock()
	tm.report(text)
}
