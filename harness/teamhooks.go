package harness

import (
	"context"
	"fmt"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/task"
)

// teamHooks runs the session's TaskCreated, TaskCompleted and TeammateIdle hooks for
// the lead's task list and its teammates (team.Hooks); what they say reaches the model
// that acted, as a tool error or the teammate's next message.
type teamHooks struct {
	r    *hook.Runner
	team string
}

func (h teamHooks) event(teammate string, t task.Task) hook.TaskEvent {
	return hook.TaskEvent{ID: t.ID, Subject: t.Subject, Description: t.Description, Teammate: teammate, Team: h.team}
}

func (h teamHooks) TaskCreated(ctx context.Context, teammate string, t task.Task) error {
	v := h.r.TaskCreated(ctx, h.event(teammate, t))
	if !v.Block {
		return nil
	}
	return fmt.Errorf("TaskCreated hook feedback:\n%s\nThe task was not created.", v.Reason)
}

func (h teamHooks) TaskCompleted(ctx context.Context, teammate string, t task.Task) error {
	v := h.r.TaskCompleted(ctx, h.event(teammate, t))
	if !v.Block {
		return nil
	}
	return fmt.Errorf("TaskCompleted hook feedback:\n%s\nTask #%s is not completed (it stays %s): do what the feedback asks, then mark it completed again.", v.Reason, t.ID, t.Status)
}

func (h teamHooks) TeammateIdle(ctx context.Context, teammate string) (string, bool, string) {
	v := h.r.TeammateIdle(ctx, teammate, h.team)
	if v.Stop {
		return "", false, v.StopReason
	}
	return v.Reason, v.Block, ""
}

// boardHooks gives the lead's view of the task list the task hooks.
func (h *teamHooks) boardHooks(cfg *task.Config) {
	if h == nil || h.r == nil {
		return
	}
	cfg.Created = func(ctx context.Context, t task.Task) error { return h.TaskCreated(ctx, "", t) }
	cfg.Completing = func(ctx context.Context, t task.Task) error { return h.TaskCompleted(ctx, "", t) }
}
