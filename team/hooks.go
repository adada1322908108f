package team

import (
	"context"
	"fmt"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/task"
)

// Hooks are the team's hook events (Claude Code's TaskCreated, TaskCompleted and
// TeammateIdle): the mechanism that makes "completed only when verified" hold whatever
// the model says. teammate is "" for the lead.
type Hooks interface {
	// TaskCreated sees a task just created; an error rolls the creation back and is what
	// the model that created it reads.
	TaskCreated(ctx context.Context, teammate string, t task.Task) error
	// TaskCompleted sees a task about to be marked completed; an error keeps it open and
	// is what the model that tried reads.
	TaskCompleted(ctx context.Context, teammate string, t task.Task) error
	// TeammateIdle sees a teammate about to go idle: keep sends it back to work with
	// feedback as its next message; stop (continue:false) stops it, saying why.
	TeammateIdle(ctx context.Context, teammate string) (feedback string, keep bool, stop string)
}

// boardHooks wires the team's hooks into a teammate's view of the task list.
func (tm *teammate) boardHooks(cfg *task.Config) {
	h := tm.team.cfg.Hooks
	if h == nil {
		return
	}
	cfg.Created = func(ctx context.Context, t task.Task) error { return h.TaskCreated(ctx, tm.name, t) }
	cfg.Completing = func(ctx context.Context, t task.Task) error { return h.TaskCompleted(ctx, tm.name, t) }
}

// idle runs the TeammateIdle hooks when a teammate's run is about to end with nothing
// else keeping it going (it placed last among its BeforeStop seams): a hook that blocks
// sends it back with its feedback; the loop's cap on continuations bounds a hook that
// always blocks.
type idle struct{ tm *teammate }

func (i idle) BeforeStop(ctx context.Context, s *agent.Stop) agent.StopDecision {
	tm := i.tm
	h := tm.team.cfg.Hooks
	if h == nil || s.Last || tm.stopRequested() != nil || tm.team.ctx.Err() != nil || tm.waitingForPlan() {
		return agent.StopDecision{}
	}
	feedback, keep, stop := h.TeammateIdle(ctx, tm.name)
	if stop != "" {
		tm.mu.Lock()
		tm.hookStop = stop
		tm.mu.Unlock()
		return agent.StopDecision{}
	}
	if !keep {
		return agent.StopDecision{}
	}
	return agent.StopDecision{Continue: true, Message: fmt.Sprintf("TeammateIdle hook feedback:\n%s", feedback)}
}

// stoppedByHook reports (once) why a TeammateIdle hook stopped the teammate, "" if none did.
func (tm *teammate) stoppedByHook() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	s := tm.hookStop
	tm.hookStop = ""
	return s
}
