package hook

import (
	"context"
	"fmt"
	"strings"
)

// The agent-team events, as in Claude Code. None takes a matcher: every hook of the event
// runs. Exit code 2 (stderr) or decision "block" (reason) keeps things as they were and
// tells the model that tried why: a task stays open (TaskCompleted), a creation is rolled
// back (TaskCreated), a teammate about to go idle keeps working (TeammateIdle).
// continue:false blocks too; at TeammateIdle it also stops the teammate (its stopReason
// says why), never the session whose hooks these are.

// TaskEvent is a task being created or completed, and by whom.
type TaskEvent struct {
	ID, Subject, Description string
	// Teammate is the teammate doing it ("" for the lead); Team is its team.
	Teammate, Team string
}

// Verdict is what the team hooks decided.
type Verdict struct {
	// Block keeps things as they were; Reason is for the model that tried.
	Block  bool
	Reason string
	// Stop is continue:false (at TeammateIdle the teammate stops); StopReason says why.
	Stop       bool
	StopReason string
}

// TaskCreated runs the TaskCreated hooks for a task just created (the caller deletes it
// again when the verdict blocks).
func (r *Runner) TaskCreated(ctx context.Context, ev TaskEvent) Verdict {
	return r.taskEvent(ctx, TaskCreated, ev)
}

// TaskCompleted runs the TaskCompleted hooks for a task about to be marked completed
// (the caller leaves it open when the verdict blocks).
func (r *Runner) TaskCompleted(ctx context.Context, ev TaskEvent) Verdict {
	return r.taskEvent(ctx, TaskCompleted, ev)
}

func (r *Runner) taskEvent(ctx context.Context, event string, ev TaskEvent) Verdict {
	if !r.Has(event) {
		return Verdict{}
	}
	in := r.input(ctx, event)
	in.TaskID, in.TaskSubject, in.TaskDescription = ev.ID, ev.Subject, ev.Description
	in.TeammateName, in.TeamName = ev.Teammate, ev.Team
	return r.teamVerdict(ctx, in)
}

// TeammateIdle runs the TeammateIdle hooks for a teammate about to go idle: a blocking
// verdict keeps it working, with the reason as its next prompt.
func (r *Runner) TeammateIdle(ctx context.Context, teammate, team string) Verdict {
	if !r.Has(TeammateIdle) {
		return Verdict{}
	}
	in := r.input(ctx, TeammateIdle)
	in.TeammateName, in.TeamName = teammate, team
	return r.teamVerdict(ctx, in)
}

func (r *Runner) teamVerdict(ctx context.Context, in Input) Verdict {
	var v Verdict
	var reasons, stops []string
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.halt:
			v.Block, v.Stop = true, true
			stops = append(stops, orDefault(x.out.StopReason, fmt.Sprintf("the %s hook %s stopped the teammate", in.Event, x.run.Command)))
		case x.run.Outcome == OutcomeCancelled && in.Event != TeammateIdle:
			// Nobody checked: a task is not completed (nor a creation kept) on a check
			// that never ran to the end.
			v.Block = true
			reasons = append(reasons, fmt.Sprintf("the %s hook %s was cancelled before it finished", in.Event, x.run.Command))
		case x.block:
			v.Block = true
			reasons = append(reasons, orDefault(x.run.Message, fmt.Sprintf("the %s hook %s blocked it without saying why", in.Event, x.run.Command)))
		case x.isJSON && x.out.Decision == "block":
			v.Block = true
			reasons = append(reasons, orDefault(strings.TrimSpace(x.out.Reason), fmt.Sprintf("the %s hook %s blocked it without saying why", in.Event, x.run.Command)))
		}
	}
	if v.Stop {
		// fire recorded the halt for the session's next model call; it is the teammate's.
		r.mu.Lock()
		if r.halt != nil && r.halt.Event == in.Event {
			r.halt = nil
		}
		r.mu.Unlock()
		v.StopReason = strings.Join(stops, "\n")
		reasons = append(reasons, stops...)
	}
	v.Reason = strings.Join(reasons, "\n")
	return v
}
