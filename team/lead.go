package team

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
)

// The lead's side: its messages reach its next request (LeadInbox); a headless lead
// whose model stops while its team still works waits for the team (LeadWaiter).

// LeadInbox is the lead's agent.BeforeModel seam: the messages teammates sent the lead
// join its next request, exactly once. It opens nothing while the team is unused.
func (t *Team) LeadInbox() agent.BeforeModel { return leadInbox{t} }

type leadInbox struct{ t *Team }

func (l leadInbox) BeforeModel(ctx context.Context, turn *agent.Turn) error {
	if in := l.t.leadInbox(); in != nil {
		in.Deliver(ctx, turn.AppendUser)
	}
	return nil
}

// leadInbox is the lead's inbox once the team is in use, else nil.
func (t *Team) leadInbox() *mailbox.Inbox {
	if !t.used.Load() {
		return nil
	}
	if t.open() != nil {
		return nil
	}
	return t.leadIn
}

// SeenByLead records the message ids a resumed lead's transcript holds: they are never
// delivered again.
func (t *Team) SeenByLead(ids ...string) {
	t.mu.Lock()
	t.leadSeen = append(t.leadSeen, ids...)
	t.mu.Unlock()
}

// Resume is a lead's session continued from its transcript msgs (ouro -c after a crash,
// or to hear from its workers): what it already received is never delivered again, and a
// lead that had led the team (it received a teammate's message, sent one, or spawned a
// teammate) has the team in use from the start, so the reports that arrived while it
// was gone join its first request and its stops wait for the team, without its having to
// send a message first.
func (t *Team) Resume(msgs []llm.Message) {
	ids := mailbox.IDsIn(msgs)
	t.SeenByLead(ids...)
	if len(ids) > 0 || ledIn(msgs) {
		t.used.Store(true)
	}
}

// ledIn reports whether the lead's conversation msgs sent a team message or spawned a
// named teammate.
func ledIn(msgs []llm.Message) bool {
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type != llm.BlockToolUse {
				continue
			}
			switch b.Name {
			case sendName:
				return true
			case subagent.AgentName, subagent.TaskName:
				var in struct {
					Name string `json:"name"`
				}
				if json.Unmarshal(b.Input, &in) == nil && strings.TrimSpace(in.Name) != "" {
					return true
				}
			}
		}
	}
	return false
}

// Take stages the lead's pending messages as one prompt ("" when none), for a REPL that
// runs it as a turn of its own; they count as delivered at that turn's first request.
func (t *Team) Take(ctx context.Context) string {
	in := t.leadInbox()
	if in == nil {
		return ""
	}
	text, _ := in.Stage(ctx)
	return text
}

// LeadWaiter is the BeforeStop seam of a headless lead: while teammates still work (or
// could: ready tasks, undelivered messages) it waits, then continues the lead with its
// messages once all are idle, or at once for a protocol request. It never waits longer
// than limit in one go.
func (t *Team) LeadWaiter(limit time.Duration) agent.BeforeStop {
	return waiter{t: t, limit: limit}
}

type waiter struct {
	t     *Team
	limit time.Duration
}

func (w waiter) BeforeStop(ctx context.Context, s *agent.Stop) agent.StopDecision {
	t := w.t
	in := t.leadInbox()
	if in == nil {
		return agent.StopDecision{}
	}
	if s.Last {
		// The loop ends the run whatever this says: take nothing it would not deliver (on
		// JetStream a message taken stays hidden from the next process for the ack wait),
		// and say what is left.
		if why := t.leftAtCap(ctx, s.Continued); why != "" {
			t.cfg.Warn(why)
		}
		return agent.StopDecision{}
	}
	deadline := time.Now().Add(w.limit)
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		busy := t.busy(ctx)
		pending, protocol := t.leadPending(ctx)
		if pending && (!busy || protocol) {
			if text, _ := in.Stage(ctx); text != "" {
				return agent.StopDecision{Continue: true, Message: text}
			}
		}
		if !busy && !pending {
			if open := t.unanswered(); open != "" {
				return agent.StopDecision{Continue: true, Message: "Teammates are waiting for your answer before they can go on: " + open +
					". Answer each with SendMessage (plan_approval_response with its request_id), or shut the teammate down."}
			}
			return agent.StopDecision{}
		}
		if time.Now().After(deadline) {
			return agent.StopDecision{Continue: true, Message: fmt.Sprintf(
				"Your teammates are still working after %s (%s). Wait for them by ending your turn again, or shut them down with SendMessage shutdown_request.", w.limit, t.working())}
		}
		select {
		case <-ctx.Done():
			return agent.StopDecision{Continue: true, Message: "The run ended while teammates were still working; they stop with the session."}
		case <-t.changes():
		case <-tick.C:
		}
	}
}

// leftAtCap says what a lead's run leaves behind when it ends at its cap of stop
// continuations: messages waiting for it, teammates still at work ("" when nothing).
func (t *Team) leftAtCap(ctx context.Context, continued int) string {
	n, err := waitingFor(ctx, t.mail, t.cfg.Name, Lead)
	busy := t.busy(ctx)
	var left []string
	switch {
	case err != nil:
		left = append(left, "the messages waiting for it could not be counted ("+err.Error()+")")
	case n > 0:
		left = append(left, fmt.Sprintf("%d message(s) from teammates wait in its mailbox, not taken", n))
	}
	if busy {
		left = append(left, "teammates were still at work ("+t.working()+"); they stop with the session")
	}
	if len(left) == 0 {
		return ""
	}
	return fmt.Sprintf("the lead's run ended: its stop checks had sent it back %d times in a row, the most allowed; %s. Continue the session (ouro -c) to have them delivered.",
		continued, strings.Join(left, "; "))
}

// waitingFor counts to's undelivered messages, without taking them where the store can
// (a JetStream consumer's pending count).
func waitingFor(ctx context.Context, ms mailbox.Store, team, to string) (int, error) {
	if c, ok := ms.(interface {
		Waiting(ctx context.Context, team, to string) (int, error)
	}); ok {
		return c.Waiting(ctx, team, to)
	}
	p, err := ms.Pending(ctx, team, to)
	return len(p), err
}

func (t *Team) leadPending(ctx context.Context) (pending, protocol bool) {
	ms, err := t.mail.Pending(ctx, t.cfg.Name, Lead)
	if err != nil {
		return false, false
	}
	for _, m := range ms {
		if m.Kind == mailbox.PlanApprovalRequest {
			protocol = true
		}
	}
	return len(ms) > 0, protocol
}

// busy reports whether a teammate works or is about to: running, or idle with messages
// waiting for it or a ready task it could claim.
func (t *Team) busy(ctx context.Context) bool {
	t.mu.Lock()
	var live []*teammate
	for _, n := range t.order {
		live = append(live, t.members[n])
	}
	t.mu.Unlock()
	var claimers []*teammate
	for _, tm := range live {
		st, p := tm.state(), tm.kind.process()
		if st.Status == StatusStopped && p.alive() {
			// A teammate process is busy until it has ended, even once it reported that it
			// stopped: what it sends last (a report, an acknowledgement) may still be coming.
			return true
		}
		switch st.Status {
		case StatusStopped, StatusFailed:
			continue
		case StatusWorking, StatusStarting:
			return true
		}
		if p != nil {
			// Counted, not taken: what the lead's process takes from a teammate process's
			// mailbox is hidden from that process (on JetStream, for the ack wait).
			if n, err := waitingFor(ctx, t.mail, t.cfg.Name, tm.name); err == nil && n > 0 {
				return true
			}
			if p.behind() {
				return true // it took a message its state does not show yet
			}
		} else if ms, err := t.mail.Pending(ctx, t.cfg.Name, tm.name); err == nil && len(ms) > 0 {
			return true
		}
		if !tm.waitingForPlan() {
			claimers = append(claimers, tm)
		}
	}
	return t.readyTask(ctx, claimers) || t.heldByProcess(ctx)
}

// readyTask reports whether one of claimers can claim some task now (a teammate does
// not take again by itself a task it gave back unfinished).
func (t *Team) readyTask(ctx context.Context, claimers []*teammate) bool {
	all, err := t.board.All(ctx) // a lapsed claim is released: its task is ready again
	if err != nil {
		// Unknown is not idle: a read that fails (a busy state.db under load, a leader
		// election) must not end the lead's wait while a teammate may be about to claim;
		// the wait's own limit still bounds it.
		return len(claimers) > 0
	}
	t.recoverReports(ctx, t.board, all)
	if len(claimers) == 0 {
		return false
	}
	done := map[string]bool{}
	for _, x := range all {
		if x.Status == task.Completed {
			done[x.ID] = true
		}
	}
	for _, x := range all {
		if x.Status == task.Pending && x.Owner == "" && allDone(x.BlockedBy, done) {
			for _, tm := range claimers {
				if !tm.gaveUpOn(x.ID) {
					return true
				}
			}
		}
	}
	return false
}

// working names the teammates still working.
func (t *Team) working() string {
	s := ""
	for _, m := range t.Snapshot().Members {
		if m.Status == StatusWorking {
			if s != "" {
				s += ", "
			}
			s += m.Name
			if m.Task != "" {
				s += " on " + m.Task
			}
		}
	}
	return s
}

// unanswered names the plan requests the lead has seen and not answered, each once: a
// lead that ends its turn without answering is reminded, not left waiting forever.
func (t *Team) unanswered() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for id, r := range t.requests {
		if r.kind == mailbox.PlanApprovalRequest && !t.reminded[id] {
			t.reminded[id] = true
			out = append(out, fmt.Sprintf("%s asks you to approve its plan (request_id %s)", r.from, id))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
