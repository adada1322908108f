package team

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/tool"
)

// stopper ends a run before its next model call once a shutdown was requested: the tool
// calls of the last response have finished by then.
// With plan set (placed after the inbox, which may have just delivered the answer) it
// also ends a run whose plan waits for the lead.
type stopper struct {
	tm   *teammate
	plan bool
}

func (s stopper) BeforeModel(ctx context.Context, _ *agent.Turn) error {
	why := "shutdown requested"
	s.tm.kind.checkShutdown(ctx, s.tm)
	if s.tm.stopRequested() == nil {
		if !s.plan || !s.tm.waitingForPlan() {
			return nil
		}
		// A plan waits for the lead: no model call until the answer arrives (it starts
		// the next run).
		why = "waiting for the lead to answer the plan"
		s.tm.mu.Lock()
		s.tm.paused = true
		s.tm.mu.Unlock()
	}
	s.tm.mu.Lock()
	cancel := s.tm.cancel
	s.tm.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return errors.New(why)
}

// holding sends a teammate back while the task it claimed is still open: it must verify
// and complete it, or release it and say why.
type holding struct{ tm *teammate }

func (h holding) BeforeStop(ctx context.Context, s *agent.Stop) agent.StopDecision {
	h.tm.mu.Lock()
	cur := h.tm.current
	h.tm.mu.Unlock()
	if cur == "" || h.tm.stopRequested() != nil || s.Continued >= 2 {
		return agent.StopDecision{}
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(cur, "#"), " ")
	if t, err := h.tm.board.Get(ctx, id); err != nil || t.Status == task.Completed || t.Owner != h.tm.name {
		return agent.StopDecision{}
	}
	return agent.StopDecision{Continue: true, Message: fmt.Sprintf(
		"Task %s is still yours and not completed. Verify your work, then mark it completed with TaskUpdate; or, if it cannot be done, release it (TaskUpdate owner \"\") and tell the lead why with SendMessage.", cur)}
}

// planGate keeps a teammate in plan mode from changing anything until its plan is
// approved: only tools that read, the task list, SendMessage and ExitPlanMode run.
type planGate struct{ tm *teammate }

const planDenied = "is in plan mode"

var planAllowed = []string{sendName, exitPlanName, task.ListName, task.GetName}

func (g planGate) Gate(_ context.Context, c tool.Call) agent.Decision {
	g.tm.mu.Lock()
	approved := g.tm.approved
	g.tm.mu.Unlock()
	if approved || slices.Contains(planAllowed, c.Name) {
		return agent.Decision{}
	}
	if t, ok := g.tm.m.Tools().Get(c.Name); ok && tool.IsReadOnly(t, c.Input) {
		return agent.Decision{}
	}
	return agent.Decision{Deny: true, Reason: fmt.Sprintf("%s %s: %s would change something, which waits until the lead approves your plan. Send the plan with ExitPlanMode and wait for the answer.", g.tm.name, planDenied, c.Name)}
}

// budget stops a teammate's run before a model call once the team's budget is spent.
type budget struct{ tm *teammate }

func (b budget) BeforeModel(ctx context.Context, turn *agent.Turn) error {
	if reason := b.tm.team.overBudgetWith(turn.Usage, turn.CostUSD, turn.Number-1); reason != "" {
		return fmt.Errorf("the team budget ran out: %s", reason)
	}
	return nil
}
