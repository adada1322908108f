package team

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
)

// Status of a teammate.
type Status string

// The statuses a teammate goes through.
const (
	StatusStarting Status = "starting"
	StatusWorking  Status = "working"
	StatusIdle     Status = "idle"
	StatusStopped  Status = "stopped"
)

// teammate is one member of the team: its agent, its inbox and its loop.
type teammate struct {
	team  *Team
	name  string
	def   subagent.Definition
	m     *subagent.Member
	inbox *mailbox.Inbox
	board *task.Board
	plan  bool // started in plan mode
	iso   *subagent.Isolation
	wake  chan struct{}

	mu       sync.Mutex
	status   Status
	current  string // the task it holds, "#3 subject"
	last     string // its last message, "to main: summary"
	approved bool   // its plan was approved (plan mode only)
	planReq  string // its open plan request
	stopReq  *mailbox.Message
	paused   bool               // its run ended to wait for the plan's answer
	cancel   context.CancelFunc // ends the current run
	reason   string             // why it stopped

	kind     member          // in this process, its own process, or this process as a worker (member.go)
	claims   int             // tasks claimed
	hookStop string          // why a TeammateIdle hook stopped it (continue:false)
	gaveUp   map[string]bool // tasks it gave back unfinished: it does not claim them again by itself
	fleet    *fleetWork      // a worker's record and per-task worktrees (fleet.go); nil otherwise
}

// holder is the teammate's identity in task claims.
func (tm *teammate) holder() string { return tm.team.cfg.Holder + "/" + tm.name }

// build makes the teammate's agent: its definition's tools and prompt, its own view of
// the task list (claims in its name), SendMessage from it, its inbox and the team's seams.
func (tm *teammate) build(description string) error {
	t := tm.team
	tm.plan = tm.def.PermissionMode == "plan"
	bcfg := task.Config{Store: t.tasks, List: t.cfg.Name, Holder: tm.holder(), Lease: t.lease,
		OnChange: tm.tasksChanged, OweReport: true}
	tm.boardHooks(&bcfg)
	tm.board = task.NewBoard(bcfg)
	tm.inbox = &mailbox.Inbox{Store: t.mail, Team: t.cfg.Name, Name: tm.name,
		Persist:   func() error { return tm.m.Sync() },
		OnDeliver: tm.delivered,
		OnError:   func(err error) { t.cfg.Warn(tm.name + ": " + err.Error()) }}
	return tm.newMember(description)
}

// newMember makes the teammate's agent (again, when a worker moves to a task's worktree).
func (tm *teammate) newMember(description string) error {
	t := tm.team
	tools := append(task.NewTools(task.NewLazy(func() (*task.Board, error) { return tm.board, nil })),
		&sendTool{team: t, from: tm.name})
	var gates []agent.Gate
	if tm.plan {
		tools = append(tools, &exitPlanTool{tm: tm})
		gates = append(gates, planGate{tm: tm})
	}
	var obs agent.Observer
	if t.cfg.Observer != nil {
		obs = func(e agent.Event) { t.cfg.Observer(tm.name, e) }
	}
	m, err := t.cfg.Agents.NewMember(subagent.MemberSpec{
		Def: tm.def, Name: "teammate-" + tm.name, Description: description, Tools: tools,
		BeforeModel: []agent.BeforeModel{stopper{tm: tm}, tm.inbox, stopper{tm: tm, plan: true}, budget{tm}},
		BeforeStop:  []agent.BeforeStop{holding{tm}, idle{tm}},
		Gates:       gates, Modeless: tm.plan, Observer: obs,
		System: teammatePrompt(tm.name, tm.plan), Isolation: tm.iso,
	})
	if err != nil {
		return err
	}
	tm.mu.Lock() // state() reads it from other goroutines; a worker replaces it per task
	tm.m = m
	tm.mu.Unlock()
	return nil
}

func teammatePrompt(name string, plan bool) string {
	s := fmt.Sprintf(`# Team
You are teammate %q of a team; the lead is %q. Your plain text reaches nobody: tell the lead or a
teammate what matters with SendMessage. Messages to you arrive as <teammate-message> blocks.
When you finish a task of the shared list, verify it (run its tests or check its result),
then mark it completed with TaskUpdate; if it cannot be done, release it (owner "") and tell
the lead why. When idle you are given the next ready task.`, name, Lead)
	if plan {
		s += "\nYou are in plan mode: explore read-only, then send your plan with ExitPlanMode and wait for the lead's approval before changing anything."
	}
	return s
}

// poke wakes an idle teammate.
func (tm *teammate) poke() {
	select {
	case tm.wake <- struct{}{}:
	default:
	}
}

func (tm *teammate) setStatus(s Status) {
	tm.mu.Lock()
	tm.status = s
	tm.mu.Unlock()
	tm.team.notify()
}

func (tm *teammate) setLast(m mailbox.Message) {
	what := m.Summary
	if what == "" {
		what = m.Text
	}
	if m.Kind != mailbox.Text {
		what = string(m.Kind) + " " + m.RequestID
	}
	tm.mu.Lock()
	tm.last = "to " + m.To + ": " + textcut.OneLine(what, 80, "…")
	tm.mu.Unlock()
}

// requestStop records a shutdown request; a running teammate stops before its next
// model call, an idle one at once.
func (tm *teammate) requestStop(m mailbox.Message) {
	tm.mu.Lock()
	if tm.stopReq == nil {
		tm.stopReq = &m
	}
	tm.mu.Unlock()
	tm.poke()
}

func (tm *teammate) stopRequested() *mailbox.Message {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.stopReq
}

// delivered sees the messages that reached the teammate's conversation: an approval of
// its open plan lifts plan mode.
func (tm *teammate) delivered(ms []mailbox.Message) {
	for _, m := range ms {
		if m.Kind == mailbox.PlanApprovalResponse && m.From == Lead && m.Approve != nil {
			tm.mu.Lock()
			if m.RequestID == tm.planReq {
				tm.planReq = ""
				tm.approved = *m.Approve
			}
			tm.mu.Unlock()
		}
	}
}

// loop runs the teammate until it is asked to stop or the team closes: a run for each
// prompt; when idle, its messages, else the next ready task, else a wait.
func (tm *teammate) loop(prompt string) {
	t := tm.team
	defer t.wg.Done()
	defer func() { tm.m.Close() }() // the member of the last task, for a worker with --repo
	defer tm.finishTask()
	go tm.board.KeepAlive(t.ctx, func(err error) { t.cfg.Warn(tm.name + " renewing task claims: " + err.Error()) })
	var input []llm.Block
	if prompt != "" {
		input = []llm.Block{llm.TextBlock(prompt)}
	}
	for {
		if len(input) > 0 {
			tm.setStatus(StatusWorking)
			// Nobody waits on a teammate's calls: AskUserQuestion refuses (background), and
			// a permission ask reaches the lead's approver with its name.
			ctx, cancel := context.WithCancel(WithTeammate(background.Context(t.ctx), tm.name))
			tm.mu.Lock()
			tm.cancel = cancel
			tm.mu.Unlock()
			out := tm.m.Run(ctx, input...)
			cancel()
			tm.account(out)
			tm.afterRun()
			if tm.ended(out) {
				return
			}
		}
		input = tm.next()
		if input == nil {
			return
		}
	}
}

// ended handles how a run ended: a shutdown request or a closing team stops the
// teammate; a run that failed or ran out of budget is reported to the lead.
func (tm *teammate) ended(out agent.Outcome) bool {
	t := tm.team
	if req := tm.stopRequested(); req != nil {
		tm.shutdown(*req)
		return true
	}
	if t.ctx.Err() != nil {
		tm.stop("the session ended")
		return true
	}
	if why := tm.stoppedByHook(); why != "" {
		tm.release("")
		tm.stop("a TeammateIdle hook stopped it: " + why)
		tm.report(fmt.Sprintf("%s stopped: a TeammateIdle hook stopped it (%s).", tm.name, why))
		return true
	}
	if reason := t.overBudget(); reason != "" {
		tm.stop("the team budget ran out: " + reason)
		tm.report(fmt.Sprintf("%s stopped: the team budget ran out (%s).", tm.name, reason))
		return true
	}
	tm.mu.Lock()
	paused := tm.paused
	tm.paused = false
	tm.mu.Unlock()
	for _, d := range out.Denials {
		if strings.Contains(d.Reason, planDenied) {
			continue // plan mode at work, not an ask
		}
		why := d.Reason
		if why == "" {
			why = "no reason given"
		}
		tm.report(fmt.Sprintf("%s was refused permission for %s: %s", tm.name, d.ToolName, why))
	}
	if out.Status != agent.StatusCompleted && !paused {
		why := out.Reason
		if why == "" {
			why = string(out.Status)
		}
		tm.report(fmt.Sprintf("%s's run ended %s: %s", tm.name, out.Status, why))
		// Nobody will resume this run: its tasks go back to the list for another
		// teammate, rather than stay claimed by one that renews their leases and works on
		// something else.
		tm.release(fmt.Sprintf("%s's run ended %s (%s) without completing it", tm.name, out.Status, why))
		if tm.kind.failureStops() {
			// A worker stops: its next run would start from the same failure.
			tm.stop(fmt.Sprintf("its run ended %s: %s", out.Status, why))
			return true
		}
		tm.afterRun()
		return false
	}
	if !paused {
		// The run ended (after the reminders to complete or release its task) with a task
		// still claimed: nobody works on it now, so it goes back to the list.
		if tm.release(fmt.Sprintf("%s's run ended without completing it or giving it back, after being reminded", tm.name)) > 0 {
			tm.afterRun()
		}
	}
	return false
}

// next waits for the teammate's next prompt: its messages, or a task it claimed. nil:
// it stopped.
func (tm *teammate) next() []llm.Block {
	t := tm.team
	tm.setStatus(StatusIdle)
	tick := time.NewTicker(t.idleEvery())
	defer tick.Stop()
	for {
		tm.kind.checkShutdown(t.ctx, tm)
		if req := tm.stopRequested(); req != nil {
			tm.shutdown(*req)
			return nil
		}
		if why := tm.kind.idleDone(t.ctx, tm); why != "" {
			tm.stop(why)
			return nil
		}
		if t.ctx.Err() != nil {
			tm.stop("the session ended")
			return nil
		}
		if text, _ := tm.inbox.Stage(t.ctx); text != "" {
			return []llm.Block{llm.TextBlock(text)}
		}
		if !tm.waitingForPlan() && t.overBudget() == "" {
			// Working while it looks: a lead checking whether the team is done must not
			// see it idle between claiming a task and starting on it.
			tm.mu.Lock()
			tm.status = StatusWorking
			tm.mu.Unlock()
			if tk, ok := tm.claim(t.ctx); ok {
				return []llm.Block{llm.TextBlock(taskPrompt(tk))}
			}
			tm.mu.Lock()
			tm.status = StatusIdle
			tm.mu.Unlock()
		}
		select {
		case <-tm.wake:
		case <-tick.C:
		case <-t.ctx.Done():
		}
	}
}

// shutdown acknowledges a shutdown request and stops.
func (tm *teammate) shutdown(req mailbox.Message) {
	yes := true
	t := tm.team
	text := tm.name + " finished its current work and has shut down."
	if wt := tm.finishWorktree(); wt != "" {
		text += "\n" + wt
	}
	m, err := t.mail.Send(context.Background(), t.cfg.Name, mailbox.Message{From: tm.name, To: Lead, Kind: mailbox.ShutdownResponse,
		RequestID: req.RequestID, Approve: &yes, Text: text, Summary: "shut down"})
	if err != nil {
		t.cfg.Warn(tm.name + " acknowledging shutdown: " + err.Error())
	} else {
		tm.setLast(m)
		if t.cfg.OnMessage != nil {
			t.cfg.OnMessage(m)
		}
	}
	// The request itself is delivered to the teammate's transcript, not to its model.
	_ = t.mail.Ack(context.Background(), t.cfg.Name, tm.name, []string{req.ID})
	tm.m.Record("team_shutdown", map[string]string{"request_id": req.RequestID, "message_id": req.ID})
	t.mu.Lock()
	delete(t.requests, req.RequestID)
	t.mu.Unlock()
	tm.release("")
	tm.stop("shut down at the lead's request")
}

func (tm *teammate) stop(reason string) {
	tm.mu.Lock()
	tm.status, tm.reason = StatusStopped, reason
	tm.mu.Unlock()
	tm.team.notify()
}

// account adds a run's usage to the team's totals.
func (tm *teammate) account(out agent.Outcome) {
	t := tm.team
	t.mu.Lock()
	t.spent = t.spent.Add(out.Usage)
	t.cost += out.CostUSD
	t.turns += out.Turns
	t.mu.Unlock()
	tm.fleet.spent(out)
}

// finishWorktree ends the teammate's worktree once: an unchanged one is removed, else
// it says the branch, commits and diffstat for the lead to merge (nothing is merged).
func (tm *teammate) finishWorktree() string {
	tm.mu.Lock()
	iso := tm.iso
	tm.iso = nil
	tm.mu.Unlock()
	if iso == nil || iso.Finish == nil {
		return ""
	}
	text := iso.Finish(context.Background())
	if tm.m == nil {
		return text
	}
	tm.m.Record("team_worktree", map[string]string{"dir": iso.Dir, "report": text})
	return text
}
