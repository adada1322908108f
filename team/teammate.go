package team

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	"github.com/ouroagent/ouro/tool"
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

	proc     *proc           // the lead's side of a teammate in its own process (process.go)
	worker   bool            // runs as its own process (ouro team worker)
	stay     bool            // a worker its lead started: it stays until told to stop
	maxTasks int             // a worker stops after claiming this many (0: no bound)
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
		if tm.worker {
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
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		tm.checkShutdown(t.ctx)
		if req := tm.stopRequested(); req != nil {
			tm.shutdown(*req)
			return nil
		}
		if why := tm.workerDone(t.ctx); why != "" {
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

// waitingForPlan: in plan mode, with a plan sent and no answer yet, it takes no task.
func (tm *teammate) waitingForPlan() bool {
	if tm.proc != nil {
		return tm.procState().Plan == "awaiting approval"
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.plan && !tm.approved && tm.planReq != ""
}

func taskPrompt(t task.Task) string {
	s := fmt.Sprintf("You claimed task #%s of the shared task list: %s", t.ID, t.Subject)
	if d := strings.TrimSpace(t.Description); d != "" {
		s += "\n\n" + d
	}
	return s + "\n\nDo it, verify the result, then mark it completed with TaskUpdate (taskId \"" + t.ID + "\")."
}

// claim takes the lowest-numbered ready task: pending, unowned, every blocker completed.
func (tm *teammate) claim(ctx context.Context) (task.Task, bool) {
	all, err := tm.board.All(ctx)
	if err != nil {
		if ctx.Err() == nil {
			tm.team.cfg.Warn(tm.name + " reading the task list: " + err.Error())
		}
		return task.Task{}, false
	}
	tm.team.recoverReports(ctx, tm.board, all)
	done := map[string]bool{}
	for _, t := range all {
		if t.Status == task.Completed {
			done[t.ID] = true
		}
	}
	owner, status := tm.name, task.InProgress
	for _, t := range all {
		if t.Status != task.Pending || t.Owner != "" || !allDone(t.BlockedBy, done) || tm.gaveUpOn(t.ID) {
			continue
		}
		out, err := tm.board.Update(ctx, t.ID, task.Update{Owner: &owner, Status: &status})
		if err != nil {
			continue // another teammate (or process) took it first
		}
		tm.mu.Lock()
		tm.current = "#" + t.ID + " " + t.Subject
		tm.claims++
		tm.mu.Unlock()
		if !tm.enterTask(ctx, out.Task) {
			return task.Task{}, false
		}
		tm.m.Record("team_claim", map[string]string{"task": t.ID, "teammate": tm.name, "holder": tm.holder()})
		return out.Task, true
	}
	return task.Task{}, false
}

func allDone(ids []string, done map[string]bool) bool {
	for _, id := range ids {
		if !done[id] {
			return false
		}
	}
	return true
}

// tasksChanged sees the list after each change the teammate made: a task it completed
// is reported to the lead with what it unblocked.
func (tm *teammate) tasksChanged(list []task.Task) {
	tm.mu.Lock()
	cur := tm.current
	tm.mu.Unlock()
	id, _, _ := strings.Cut(strings.TrimPrefix(cur, "#"), " ")
	if id == "" {
		// A task its model claimed itself (TaskUpdate owner) is its task as much as one it
		// was given: shown as held, held to completion, given back when its run ends.
		for _, t := range list {
			if t.Open() && t.Owner != "" && t.Holder == tm.holder() {
				tm.mu.Lock()
				if tm.current == "" {
					tm.current = "#" + t.ID + " " + t.Subject
				}
				tm.mu.Unlock()
				tm.team.notify()
				break
			}
		}
		return
	}
	byID := map[string]task.Task{}
	for _, t := range list {
		byID[t.ID] = t
	}
	t, ok := byID[id]
	if !ok || (t.Status != task.Completed && t.Owner == tm.name) {
		return
	}
	tm.mu.Lock()
	tm.current = ""
	tm.mu.Unlock()
	if t.Status != task.Completed || t.Owner != tm.name {
		// Released, or completed by whoever took it over when its claim lapsed: that one
		// reports it.
		tm.team.notify()
		return
	}
	tm.fleet.completed()
	// The completion wrote that its report is owed (task.Config.OweReport): sent now, or,
	// if this process dies first, by whoever looks at the list once a lease has passed.
	tm.team.sendReport(context.Background(), tm.board, t.ID, 0, list)
}

// completionText is the report of task t's completion: what it unblocked in list.
func completionText(t task.Task, list []task.Task) string {
	byID := map[string]task.Task{}
	for _, x := range list {
		byID[x.ID] = x
	}
	var unblocked []string
	blocks := append([]string(nil), t.Blocks...)
	slices.SortFunc(blocks, func(a, b string) int { return idOrder(a) - idOrder(b) })
	for _, bid := range blocks {
		b, ok := byID[bid]
		if !ok || !b.Open() {
			continue
		}
		ready := true
		for _, x := range b.BlockedBy {
			if bx, ok := byID[x]; ok && bx.Open() && bx.ID != t.ID {
				ready = false
			}
		}
		if ready {
			unblocked = append(unblocked, "#"+b.ID+" "+b.Subject)
		}
	}
	text := fmt.Sprintf("Completed task #%s: %s.", t.ID, t.Subject)
	if len(unblocked) > 0 {
		text += " Unblocked: " + strings.Join(unblocked, ", ") + "."
	}
	return text
}

// sendReport sends the lead the completion report of task id if it is due (stale 0: owed
// and just completed by this process; else owed, or being sent, for longer than stale:
// its completer ended before it could say so) and records it sent, in the task.
func (t *Team) sendReport(ctx context.Context, b *task.Board, id string, stale time.Duration, list []task.Task) {
	x, ok, err := b.TakeReport(ctx, id, stale)
	if err != nil {
		t.cfg.Warn(fmt.Sprintf("reporting task #%s's completion: %v", id, err))
		return
	}
	if !ok || x.Owner == "" {
		return
	}
	text := completionText(x, list)
	if stale > 0 {
		// Its completer may have sent it and ended before recording that (a moment before:
		// the team's last messages hold it).
		if ms, err := t.mail.Recent(ctx, t.cfg.Name, recentReports); err == nil {
			for _, m := range ms {
				if m.To == Lead && m.From == x.Owner && strings.HasPrefix(m.Text, fmt.Sprintf("Completed task #%s:", x.ID)) {
					if err := b.MarkReported(ctx, x.ID, m.ID); err != nil {
						t.cfg.Warn(fmt.Sprintf("recording task #%s's report: %v", id, err))
					}
					return
				}
			}
		} else {
			t.cfg.Warn(fmt.Sprintf("reporting task #%s's completion: %v", id, err))
			return // the report stays owed: looked at again later
		}
		text += fmt.Sprintf(" (Sent on %s's behalf: it completed the task and ended before it could report it.)", x.Owner)
	}
	m, err := t.Send(ctx, mailbox.Message{From: x.Owner, To: Lead, Text: text, Summary: textcut.OneLine(text, 60, "…")})
	if err != nil {
		t.cfg.Warn(x.Owner + " reporting to the lead: " + err.Error())
		return // stays "sending": taken over once stale
	}
	if err := b.MarkReported(ctx, x.ID, m.ID); err != nil {
		t.cfg.Warn(fmt.Sprintf("recording task #%s's report: %v", id, err))
	}
}

// recentReports is how many of the team's last messages are searched for a report its
// sender sent and did not record.
const recentReports = 200

// recoverReports sends the completion reports owed for longer than a lease in all: their
// completers ended (kill -9) between completing and reporting.
func (t *Team) recoverReports(ctx context.Context, b *task.Board, all []task.Task) {
	for _, x := range all {
		if x.Status == task.Completed && x.Report != "" && !strings.HasPrefix(x.Report, "sent ") {
			t.sendReport(ctx, b, x.ID, t.lease, all)
		}
	}
}

// report sends the lead a message from the teammate (the team's own notices).
func (tm *teammate) report(text string) {
	if _, err := tm.team.Send(context.Background(), mailbox.Message{From: tm.name, To: Lead, Text: text, Summary: textcut.OneLine(text, 60, "…")}); err != nil {
		tm.team.cfg.Warn(tm.name + " reporting to the lead: " + err.Error())
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

// release gives back every open task it holds (the one it was given, and any its model
// claimed with TaskUpdate), so another teammate can take them; it returns how many. why,
// when not "", is why, told to the lead for each task; the teammate then does not claim
// them again by itself.
func (tm *teammate) release(why string) int {
	ctx := context.Background()
	tm.mu.Lock()
	cur := tm.current
	tm.current = ""
	tm.mu.Unlock()
	held := map[string]string{}
	if id, subject, _ := strings.Cut(strings.TrimPrefix(cur, "#"), " "); id != "" {
		held[id] = subject
	}
	all, err := tm.board.All(ctx)
	if err != nil {
		tm.team.cfg.Warn(fmt.Sprintf("%s reading the tasks it holds: %v", tm.name, err))
	}
	byID := map[string]task.Task{}
	for _, t := range all {
		byID[t.ID] = t
		if t.Open() && t.Owner != "" && t.Holder == tm.holder() {
			held[t.ID] = t.Subject
		}
	}
	ids := make([]string, 0, len(held))
	for id := range held {
		if t, ok := byID[id]; ok && (!t.Open() || t.Holder != tm.holder()) {
			continue // completed, or no longer its claim
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return idOrder(a) - idOrder(b) })
	n := 0
	for _, id := range ids {
		empty, pending := "", task.Pending
		if _, err := tm.board.Update(ctx, id, task.Update{Owner: &empty, Status: &pending}); err != nil {
			tm.team.cfg.Warn(fmt.Sprintf("%s releasing task #%s: %v", tm.name, id, err))
			continue
		}
		n++
		if why == "" {
			continue
		}
		tm.mu.Lock()
		if tm.gaveUp == nil {
			tm.gaveUp = map[string]bool{}
		}
		tm.gaveUp[id] = true
		tm.mu.Unlock()
		tm.report(fmt.Sprintf("Task #%s (%s) is back on the shared list, unowned: %s. Another teammate can take it; %s will not take it again by itself.",
			id, held[id], why, tm.name))
	}
	if n > 0 {
		tm.team.notify()
	}
	return n
}

// gaveUpOn: it gave task id back unfinished.
func (tm *teammate) gaveUpOn(id string) bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.gaveUp[id]
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
	s.tm.checkShutdown(ctx)
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

func idOrder(id string) int {
	n := 0
	for _, c := range id {
		if c < '0' || c > '9' {
			return 1 << 30
		}
		n = n*10 + int(c-'0')
	}
	return n
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
