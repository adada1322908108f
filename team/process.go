package team

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/tool"
)

// Teammates in processes of their own (--team-process). The lead starts `ouro team
// worker` for each (Config.Launch), sharing the stores; the spawn prompt is the first
// message in the teammate's mailbox, so a crash loses nothing. The worker reports its
// state and its conversation as JSON lines on its standard output (Line); the lead shows
// them as it shows an in-process teammate's. A worker that dies is shown failed, with
// its exit status and the tail of its stderr, and the lead is told; its task goes back to
// the list when its claim's lease runs out. A worker never outlives its lead: at the
// lead's end it gets SIGTERM, then its process group is killed after Config.Grace; on
// Linux the kernel sends SIGTERM if the lead dies; and the worker watches its lead too
// (WatchLead).

// StatusFailed: a teammate's process died (killed, crashed, a non-zero exit).
const StatusFailed Status = "failed"

// DefaultGrace is how long a teammate process has to stop at the lead's end before its
// process group is killed.
const DefaultGrace = 5 * time.Second

// Line is one line a worker started by its lead writes on its standard output: its state
// after a change, or a message of its conversation (with the response that made it).
type Line struct {
	Member   *Member       `json:"member,omitempty"`
	Message  *llm.Message  `json:"message,omitempty"`
	Response *LineResponse `json:"response,omitempty"`
}

// LineResponse is what a Line carries of a model response.
type LineResponse struct {
	ID         string    `json:"id,omitempty"`
	Model      string    `json:"model,omitempty"`
	StopReason string    `json:"stop_reason,omitempty"`
	Usage      llm.Usage `json:"usage"`
}

// EventLine is the Line for a teammate's event; false for events the lead does not show.
func EventLine(e agent.Event) (Line, bool) {
	if e.Type != agent.EventMessage || e.Message == nil {
		return Line{}, false
	}
	l := Line{Message: e.Message}
	if r := e.Response; r != nil {
		l.Response = &LineResponse{ID: r.ID, Model: r.Model, StopReason: r.StopReason, Usage: r.Usage}
	}
	return l, true
}

// maxLine bounds one line of a worker's output; longer ones are dropped.
const maxLine = 4 << 20

// proc is the lead's side of a teammate process.
type proc struct {
	cmd    *exec.Cmd
	stderr *tailBuffer

	mu         sync.Mutex
	pid        int
	started    bool
	last       Member // as the worker last reported it
	reported   bool
	exited     bool
	exit       string // how it ended, when not cleanly ("signal: killed", "exit status 2")
	budgetStop bool   // told to stop: the team budget ran out
	sent       string // the newest message id known to be in its mailbox (mailbox.Later)
	buf        []byte // a line not yet ended
	onLine     func([]byte)
}

// Write takes the worker's standard output and hands on each whole line.
func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.buf = append(p.buf, b...)
	var lines [][]byte
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, append([]byte(nil), p.buf[:i]...))
		p.buf = p.buf[i+1:]
	}
	if len(p.buf) > maxLine {
		p.buf = p.buf[:0]
	}
	on := p.onLine
	p.mu.Unlock()
	for _, l := range lines {
		on(l)
	}
	return len(b), nil
}

// ownProcess is the lead's side of a teammate it started as a process of its own: no
// loop runs here; its state is what the process last reported, and it reads its messages
// and its shutdown request from the store.
type ownProcess struct{ p *proc }

func (k ownProcess) state(tm *teammate) Member { return tm.procState() }
func (k ownProcess) planPending(tm *teammate) bool {
	return tm.procState().Plan == "awaiting approval"
}
func (k ownProcess) mailed(id string)                         { k.p.mailed(id) }
func (k ownProcess) process() *proc                           { return k.p }
func (ownProcess) checkShutdown(context.Context, *teammate)   {}
func (ownProcess) idleDone(context.Context, *teammate) string { return "" }
func (ownProcess) failureStops() bool                         { return false }

// mailed notes that message id was in the teammate's mailbox.
func (p *proc) mailed(id string) {
	p.mu.Lock()
	if mailbox.Later(id, p.sent) {
		p.sent = id
	}
	p.mu.Unlock()
}

// behind: the state it last reported is older than a message known to be in its
// mailbox. Its lines reach the lead through a pipe, the acknowledgement of what it took
// through the store; a lead must not read "idle, nothing pending" from an idle line still
// ahead of the "working" one when the store already shows the message taken.
func (p *proc) behind() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return mailbox.Later(p.sent, p.last.LastRead)
}

// ended: it was started and has ended. A nil proc (a teammate whose loop runs in this
// process) has neither started nor ended.
func (p *proc) ended() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

// alive: started and not ended.
func (p *proc) alive() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started && !p.exited
}

// tailBuffer keeps the last bytes written to it (a worker's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const stderrTail = 2048

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > stderrTail {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-stderrTail:]...)
	}
	b.mu.Unlock()
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(b.buf), ""))
}

// procState is a process teammate as `ouro team` shows it.
func (tm *teammate) procState() Member {
	// tm.last is written under tm.mu (setLast, from the supervising goroutine); read it
	// first, so the two locks are never held together.
	tm.mu.Lock()
	last := tm.last
	tm.mu.Unlock()
	p := tm.kind.process()
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.last
	m.Name, m.AgentType, m.Pid = tm.name, tm.def.Name, p.pid
	if !p.reported {
		m.Status = StatusStarting
	}
	if p.exited {
		switch {
		case p.exit != "":
			m.Status, m.Exit, m.Stderr, m.Reason = StatusFailed, p.exit, p.stderr.String(), "its process ended: "+p.exit
		case m.Status != StatusStopped:
			m.Status = StatusStopped
			if m.Reason == "" {
				m.Reason = "its process ended"
			}
		}
	}
	if m.LastMessage == "" {
		m.LastMessage = last
	}
	return m
}

// spawnProcess starts teammate tm as a process of its own: the prompt goes to its
// mailbox first, then `ouro team worker` starts and is watched until it ends.
func (t *Team) spawnProcess(ctx context.Context, tm *teammate, in subagent.SpawnInput) tool.Result {
	var prompt mailbox.Message
	if strings.TrimSpace(in.Prompt) != "" {
		var err error
		prompt, err = t.mail.Send(ctx, t.cfg.Name, mailbox.Message{From: Lead, To: tm.name, Text: in.Prompt, Summary: textcut.OneLine(in.Description, 40, "…")})
		if err != nil {
			t.forget(tm)
			return tool.Errorf("Teammate %q was not started: its prompt could not be stored: %v", tm.name, err)
		}
		tm.kind.mailed(prompt.ID)
	}
	fail := func(err error) tool.Result {
		if prompt.ID != "" {
			// Nobody will read it: a teammate started later under this name must not.
			_ = t.mail.Ack(context.Background(), t.cfg.Name, tm.name, []string{prompt.ID})
		}
		t.forget(tm)
		return tool.Errorf("Teammate %q was not started: %v", tm.name, err)
	}
	cmd, err := t.cfg.Launch(WorkerSpec{Name: tm.name, AgentType: tm.def.Name, Worktree: in.Isolation == "worktree"})
	if err != nil {
		return fail(err)
	}
	p := tm.kind.process()
	p.mu.Lock()
	p.cmd = cmd
	p.onLine = tm.procLine
	p.mu.Unlock()
	cmd.Stdout, cmd.Stderr = p, p.stderr
	cmd.SysProcAttr = procAttr()
	// A worker's children may keep its output open after it ends: stop waiting for them.
	cmd.WaitDelay = 2 * time.Second
	t.wg.Add(1) // before it starts: a Close under way waits for it
	if err := t.startOnLockedThread(cmd); err != nil {
		t.wg.Done()
		return fail(err)
	}
	p.mu.Lock()
	p.pid = cmd.Process.Pid
	p.started = true
	p.mu.Unlock()
	go tm.supervise()
	t.notify()
	where := ""
	if tm.def.PermissionMode == "plan" {
		where = " It starts in plan mode: it cannot change anything until you approve its plan (it sends you a plan_approval_request)."
	}
	if in.Isolation == "worktree" {
		where += " It works in its own git worktree; its branch is reported to you when it stops."
	}
	return tool.Text(fmt.Sprintf("Spawned teammate %q (%s) as its own process (pid %d).%s It works in the background on its own conversation; it takes the lowest-numbered ready task of the shared task list whenever it is idle. Talk to it with SendMessage (to: %q); its messages to you arrive in your next request.",
		tm.name, tm.def.Name, p.pid, where, tm.name))
}

// forget removes a teammate that did not start.
func (t *Team) forget(tm *teammate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.members[tm.name] != tm {
		return
	}
	delete(t.members, tm.name)
	for i, n := range t.order {
		if n == tm.name {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// startOnLockedThread starts cmd from one OS thread kept for the team's life: Linux
// sends a child its parent-death signal when the thread that started it ends, not the
// process, and Go may end idle threads.
func (t *Team) startOnLockedThread(cmd *exec.Cmd) error {
	t.starterOnce.Do(func() {
		t.starts = make(chan startReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the team
			for {
				select {
				case r := <-t.starts:
					r.done <- r.cmd.Start()
				case <-t.ctx.Done():
					return
				}
			}
		}()
	})
	done := make(chan error, 1)
	select {
	case t.starts <- startReq{cmd: cmd, done: done}:
		return <-done
	case <-t.ctx.Done():
		return errors.New("the session is ending")
	}
}

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

// procLine takes one line of a worker's output: its state, or its conversation.
func (tm *teammate) procLine(b []byte) {
	var l Line
	if len(bytes.TrimSpace(b)) == 0 || b[0] != '{' || json.Unmarshal(b, &l) != nil {
		return // its final words ("w1 stopped: ..."), or noise
	}
	t := tm.team
	if l.Message != nil && t.cfg.Observer != nil {
		e := agent.Event{Type: agent.EventMessage, Message: l.Message}
		if r := l.Response; r != nil {
			e.Response = &llm.Response{ID: r.ID, Model: r.Model, StopReason: r.StopReason, Usage: r.Usage, Message: *l.Message}
		}
		t.cfg.Observer(tm.name, e)
	}
	if l.Member == nil {
		return
	}
	p := tm.kind.process()
	p.mu.Lock()
	p.last, p.reported = *l.Member, true
	p.mu.Unlock()
	t.notify()
	// What it sent the lead was sent in its process: the lead's OnMessage (the REPL
	// showing it, waking the lead) hears of it here, at the change it reports.
	t.announce(tm.name)
	if why := t.overBudget(); why != "" {
		p.mu.Lock()
		tell := !p.budgetStop && !p.exited && l.Member.Status != StatusStopped
		p.budgetStop = true
		p.mu.Unlock()
		if tell {
			// It stops before its next model call, as an in-process teammate does.
			if _, err := t.Send(context.Background(), mailbox.Message{From: Lead, To: tm.name, Kind: mailbox.ShutdownRequest,
				Text: "The team budget ran out (" + why + "): stop now."}); err != nil {
				t.cfg.Warn(tm.name + ": stopping it at the team budget: " + err.Error())
			}
		}
	}
}

// supervise waits for a teammate process to end, or ends it with the session: SIGTERM,
// then its process group is killed after the grace period. A death the lead did not ask
// for is reported to it.
func (tm *teammate) supervise() {
	t := tm.team
	defer t.wg.Done()
	p := tm.kind.process()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	var err error
	ending, killed := false, false
	grace := t.cfg.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	select {
	case err = <-exited:
	case <-t.ctx.Done():
		ending = true
		terminate(p.cmd.Process)
		timer := time.NewTimer(grace)
		select {
		case err = <-exited:
			timer.Stop()
		case <-timer.C:
			killGroup(p.pid)
			killed = true
			err = <-exited
		}
	}
	// What it started may still run (a command it ran in the background): its group goes.
	killGroup(p.pid)
	p.mu.Lock()
	p.exited = true
	switch {
	case killed:
		p.exit = fmt.Sprintf("%v: it was still running %s after the session ended", err, grace)
	case ending:
		if p.last.Status != StatusStopped {
			p.last.Status, p.last.Reason = StatusStopped, "the session ended"
		}
	case err != nil:
		p.exit = err.Error()
	}
	how := p.exit
	p.mu.Unlock()
	t.notify()
	if how == "" || ending {
		return
	}
	tm.reportDeath(how)
}

// reportDeath tells the lead a teammate process died: how, what it was doing, what it
// left behind.
func (tm *teammate) reportDeath(how string) {
	t := tm.team
	st := tm.procState()
	var b strings.Builder
	fmt.Fprintf(&b, "Teammate %s's process ended unexpectedly (%s).", tm.name, how)
	if st.Task != "" {
		fmt.Fprintf(&b, " It held task %s: the task goes back to the shared list when its claim's lease runs out (%s), for another teammate to take.", st.Task, t.lease)
	}
	if tail := st.Stderr; tail != "" {
		fmt.Fprintf(&b, " The end of its error output:\n%s\n", textcut.TailRunes(tail, 600, "…"))
	}
	if ms, err := t.mail.Pending(context.Background(), t.cfg.Name, tm.name); err == nil && len(ms) > 0 {
		fmt.Fprintf(&b, " %d message(s) to it were never read; they wait for a teammate of that name (spawn it again to take over).", len(ms))
	}
	text := strings.TrimSpace(b.String())
	// Sent from the lead's side, in its name: the worker cannot speak any more.
	m, err := t.mail.Send(context.Background(), t.cfg.Name, mailbox.Message{From: tm.name, To: Lead, Text: text, Summary: textcut.OneLine(tm.name+" died: "+how, 40, "…")})
	if err != nil {
		t.cfg.Warn(tm.name + ": reporting its death to the lead: " + err.Error())
		return
	}
	tm.setLast(m)
	t.mu.Lock()
	t.announced[m.ID] = true
	t.mu.Unlock()
	if t.cfg.OnMessage != nil {
		t.cfg.OnMessage(m)
	}
	t.notify()
}

// procSpend is what the team's process teammates have spent, as they last reported.
func (t *Team) procSpend() (tokens int, cost float64) {
	t.mu.Lock()
	var ps []*proc
	for _, tm := range t.members {
		if p := tm.kind.process(); p != nil {
			ps = append(ps, p)
		}
	}
	t.mu.Unlock()
	for _, p := range ps {
		p.mu.Lock()
		tokens += p.last.Tokens
		cost += p.last.CostUSD
		p.mu.Unlock()
	}
	return tokens, cost
}

// heldByProcess reports whether a process teammate holds an open task: alive, it works
// on it (its state line may lag behind its claim); dead, the task is released when its
// lease runs out (All does it) and another teammate can take it, so the lead waits.
func (t *Team) heldByProcess(ctx context.Context) bool {
	t.mu.Lock()
	procs := map[string]bool{}
	for name, tm := range t.members {
		if tm.kind.process() != nil {
			procs[name] = true
		}
	}
	t.mu.Unlock()
	if len(procs) == 0 {
		return false
	}
	all, err := t.board.All(ctx)
	if err != nil {
		return false
	}
	for _, x := range all {
		if x.Status == task.InProgress && procs[x.Owner] {
			return true
		}
	}
	return false
}

// leadDelivered sees the messages delivered to the lead: a process teammate's plan
// request becomes an open request the lead may answer (it was made in the worker's
// process), a shutdown acknowledgement closes the request.
func (t *Team) leadDelivered(ms []mailbox.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range ms {
		tm := t.members[m.From]
		if tm == nil || tm.kind.process() == nil || m.RequestID == "" {
			continue
		}
		switch m.Kind {
		case mailbox.PlanApprovalRequest:
			if _, ok := t.requests[m.RequestID]; !ok {
				t.requests[m.RequestID] = request{kind: m.Kind, from: m.From, to: Lead}
			}
		case mailbox.ShutdownResponse:
			delete(t.requests, m.RequestID)
		}
	}
}

// announce tells OnMessage of the messages teammate from sent the lead from its own
// process, each once.
func (t *Team) announce(from string) {
	if t.cfg.OnMessage == nil {
		return
	}
	ms, err := t.mail.Pending(context.Background(), t.cfg.Name, Lead)
	if err != nil {
		return
	}
	var fresh []mailbox.Message
	t.mu.Lock()
	for _, m := range ms {
		if m.From == from && !t.announced[m.ID] {
			t.announced[m.ID] = true
			fresh = append(fresh, m)
		}
	}
	t.mu.Unlock()
	for _, m := range fresh {
		t.cfg.OnMessage(m)
	}
}
