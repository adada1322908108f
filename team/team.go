// Package team turns one agent into a team (s13): the lead spawns named teammates with
// Agent (run_in_background and a name), each running its own loop on its own
// conversation, in the lead's process. Agents talk only through SendMessage, whose
// messages go through a mailbox.Store and reach the recipient's next request exactly
// once; plain text output reaches nobody. Teammates share the lead's task list: an idle
// teammate claims the lowest-numbered ready task and tells the lead, on completing it,
// what that unblocked. Requests carry ids and replies name them: plan approval (a
// teammate in plan mode cannot write until the lead approves) and shutdown (the teammate
// finishes its current tool call, acknowledges and stops).
package team

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/tool"
)

// Lead is the lead's name in messages (Claude Code's "main").
const Lead = "main"

// MaxMembers bounds the in-process teammates of one team: an idle one costs a goroutine
// and its conversation (BenchmarkTeammates1000 measures them), so a thousand fit in one
// process.
const MaxMembers = 1024

// MaxProcessMembers bounds the teammates of a team that runs each as its own process
// (--team-process): each is an `ouro team worker` process with its own memory.
const MaxProcessMembers = 64

// Config is what a team needs from the session that leads it.
type Config struct {
	// Name identifies the team in the stores (the lead's task list name).
	Name string
	// Holder prefixes the task claims of teammates (the lead's session id).
	Holder string
	// Agents builds teammates from agent definitions.
	Agents *subagent.Tool
	// Open opens the shared stores at the first use of the team (state.db): the
	// mailboxes and the task list, with the claim lease.
	Open func() (mailbox.Store, task.Store, time.Duration, error)
	// Persist makes the lead's transcript durable (messages to the lead are acknowledged
	// after it succeeds).
	Persist func() error
	// Budget bounds the whole team (every member's runs together, the lead's
	// excluded: its own limits count its teammates already).
	Budget agent.Limits
	// OnMessage, when set, is told of every message sent to the lead as it is sent (the
	// REPL shows it and wakes the lead when idle).
	OnMessage func(mailbox.Message)
	// OnChange, when set, receives the team's state after each change (ouro team).
	OnChange func(Snapshot)
	// Observer receives every event of every teammate, tagged with its name.
	Observer func(name string, e agent.Event)
	// Hooks, when set, run the team's hook events (TaskCreated, TaskCompleted,
	// TeammateIdle) for its teammates.
	Hooks Hooks
	// Roster, when set, names the teammates running in other processes that share the
	// team's stores (ouro team worker): messages to them go through the store.
	Roster func(context.Context) []string
	// Warn receives problems nobody asked about (a store error in the background).
	Warn func(string)
	// Poll is how often an idle teammate looks for work another process added (the task
	// list is shared; 0: 250 ms). Messages sent in this process wake it at once.
	Poll time.Duration
	// Launch, when set, runs each teammate as its own process (--team-process): it
	// returns the `ouro team worker` command for spec, not yet started (process.go).
	Launch func(spec WorkerSpec) (*exec.Cmd, error)
	// Grace is how long a teammate process has to stop at the session's end before its
	// process group is killed (0: DefaultGrace).
	Grace time.Duration
}

// Team is one lead's team.
type Team struct {
	cfg Config

	openOnce sync.Once
	openErr  error
	used     atomic.Bool // a teammate was spawned or a message sent
	leadSeen []string
	mail     mailbox.Store
	tasks    task.Store
	lease    time.Duration
	leadIn   *mailbox.Inbox
	board    *task.Board // the lead's view of the list (it releases lapsed claims)

	starterOnce sync.Once
	starts      chan startReq

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	start  time.Time

	mu        sync.Mutex
	members   map[string]*teammate
	order     []string
	requests  map[string]request // open protocol requests, by id
	seq       map[string]int     // requests made, by kind and teammate
	reminded  map[string]bool    // plan requests the lead was reminded of
	announced map[string]bool    // messages of process teammates OnMessage was told of
	changed   chan struct{}      // closed and replaced on every change
	watched   atomic.Bool        // watch wakes idle teammates when the stores change
	closed    bool
	spent     llm.Usage
	cost      float64
	turns     int
}

// request is an open protocol request: who asked whom, about what.
type request struct {
	kind     mailbox.Kind
	from, to string
}

// New returns a team; nothing is opened until it is used.
func New(cfg Config) *Team {
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Warn == nil {
		cfg.Warn = func(string) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Team{cfg: cfg, ctx: ctx, cancel: cancel, members: map[string]*teammate{}, requests: map[string]request{}, seq: map[string]int{}, reminded: map[string]bool{},
		announced: map[string]bool{}, changed: make(chan struct{})}
}

// Name is the team's name.
func (t *Team) Name() string { return t.cfg.Name }

// open opens the stores once.
// memberLimit is how many teammates the team may have: MaxProcessMembers when each is
// a process of its own, MaxMembers when they run in this one.
func (t *Team) memberLimit() int {
	if t.cfg.Launch != nil {
		return MaxProcessMembers
	}
	return MaxMembers
}

func (t *Team) open() error {
	t.openOnce.Do(func() {
		t.mail, t.tasks, t.lease, t.openErr = t.cfg.Open()
		if t.openErr == nil {
			t.leadIn = &mailbox.Inbox{Store: t.mail, Team: t.cfg.Name, Name: Lead, Persist: t.cfg.Persist,
				OnDeliver: t.leadDelivered,
				OnError:   func(err error) { t.cfg.Warn("delivering team messages: " + err.Error()) }}
			t.board = task.NewBoard(task.Config{Store: t.tasks, List: t.cfg.Name, Holder: t.cfg.Holder, Lease: t.lease})
			t.mu.Lock()
			t.leadIn.Seen(t.leadSeen...)
			t.mu.Unlock()
			t.start = time.Now()
			mv, ok1 := t.mail.(versioned)
			tv, ok2 := t.tasks.(versioned)
			if ok1 && ok2 {
				t.watched.Store(true)
				t.wg.Add(1)
				go t.watch(mv, tv)
			}
		}
	})
	return t.openErr
}

// versioned is a store that says cheaply whether it changed, in this process or another
// (the SQLite stores: data_version; the in-memory ones: a count of writes).
type versioned interface {
	Version(ctx context.Context) (uint64, error)
}

// idleRecheck is how many Polls an idle teammate of a watched team waits, when nothing
// woke it, before it looks again by itself: for what changes with time alone (a claim
// whose lease lapsed). 5 s at the default Poll.
const idleRecheck = 20

// watch wakes the idle teammates when the mailbox or the task list changed, reading
// each store's version every Poll: one cheap reading per store for the whole team,
// where every idle teammate used to read its messages and the task list four times a
// second (a third of a core for 1,000 idle teammates on SQLite). A version that cannot
// be read counts as a change.
func (t *Team) watch(stores ...versioned) {
	defer t.wg.Done()
	last := make([]uint64, len(stores))
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-tick.C:
		}
		changed := false
		for i, s := range stores {
			v, err := s.Version(t.ctx)
			if err != nil || v != last[i] {
				changed = true
			}
			if err == nil {
				last[i] = v
			}
		}
		if changed {
			t.mu.Lock()
			for _, tm := range t.members {
				tm.poke()
			}
			t.mu.Unlock()
		}
	}
}

// idleEvery is how often an idle teammate looks for work when nothing wakes it.
func (t *Team) idleEvery() time.Duration {
	if t.watched.Load() {
		return idleRecheck * t.cfg.Poll
	}
	return t.cfg.Poll
}

// notify marks a change: waiters wake, OnChange sees the new state.
func (t *Team) notify() {
	t.mu.Lock()
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	if t.cfg.OnChange != nil {
		t.cfg.OnChange(t.Snapshot())
	}
}

func (t *Team) changes() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Spawn implements subagent.Spawner: it starts a teammate for an Agent call.
// CheckName says whether name may name a teammate: letters, digits, '.', '_' and '-', at
// most 64, and not "main" in any case (a teammate called "Main" would sign its messages
// with a name the others read as the lead's).
func CheckName(name string) error {
	if !nameRE().MatchString(name) || strings.EqualFold(name, Lead) {
		return fmt.Errorf("%q cannot name a teammate: use letters, digits, '.', '_' and '-' (at most 64, not %q in any case)", name, Lead)
	}
	return nil
}

func (t *Team) Spawn(ctx context.Context, x *tool.Exec, in subagent.SpawnInput) tool.Result {
	name := strings.TrimSpace(in.Name)
	if err := CheckName(name); err != nil {
		return tool.Errorf("%v.", err)
	}
	t.used.Store(true)
	if err := t.open(); err != nil {
		return tool.Errorf("The team could not start: %v", err)
	}
	def, err := t.cfg.Agents.Definition(in.AgentType)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return tool.Errorf("The session is ending; no teammate can start now.")
	}
	if old, ok := t.members[name]; ok && old.kind.process().ended() && t.cfg.Launch != nil {
		// A teammate process that ended is replaced: its unread messages go to the new one.
		delete(t.members, name)
		t.order = slices.DeleteFunc(t.order, func(n string) bool { return n == name })
	} else if ok {
		t.mu.Unlock()
		return tool.Errorf("A teammate named %q already exists (%s, %s). Send it a message with SendMessage, or pick another name.", name, old.def.Name, old.state().Status)
	}
	if limit := t.memberLimit(); len(t.members) >= limit {
		t.mu.Unlock()
		return tool.Errorf("The team has %d teammates, the most allowed; shut one down (SendMessage with a shutdown_request) first.", limit)
	}
	switch in.Isolation {
	case "", "worktree":
	default:
		t.mu.Unlock()
		return tool.Errorf("isolation %q is not available: the only isolation here is \"worktree\".", in.Isolation)
	}
	tm := &teammate{team: t, name: name, def: def, status: StatusStarting, wake: make(chan struct{}, 1), kind: inProcess{}}
	if t.cfg.Launch != nil {
		tm.kind = ownProcess{p: &proc{stderr: &tailBuffer{}}}
	}
	t.members[name] = tm
	t.order = append(t.order, name)
	t.mu.Unlock()
	if tm.kind.process() != nil {
		return t.spawnProcess(ctx, tm, in)
	}
	if in.Isolation == "worktree" {
		iso, err := t.cfg.Agents.Isolate(ctx, "teammate-"+name, def)
		if err != nil {
			t.mu.Lock()
			delete(t.members, name)
			t.order = t.order[:len(t.order)-1]
			t.mu.Unlock()
			return tool.Errorf("Teammate %q was not started: %v", name, err)
		}
		tm.iso = iso
	}
	if err := tm.build(in.Description); err != nil {
		tm.finishWorktree()
		t.mu.Lock()
		delete(t.members, name)
		t.order = t.order[:len(t.order)-1]
		t.mu.Unlock()
		return tool.Errorf("%v", err)
	}
	mode := ""
	if tm.plan {
		mode = " It starts in plan mode: it cannot change anything until you approve its plan (it sends you a plan_approval_request)."
	}
	if tm.iso != nil {
		mode += fmt.Sprintf(" It works in its own git worktree, %s; its branch is reported to you when it stops.", tm.iso.Dir)
	}
	text := fmt.Sprintf("Spawned teammate %q (%s, model %s).%s It works in the background on its own conversation; it takes the lowest-numbered ready task of the shared task list whenever it is idle. Talk to it with SendMessage (to: %q); its messages to you arrive in your next request.",
		name, def.Name, tm.m.Model(), mode, name)
	t.wg.Add(1)
	go tm.loop(in.Prompt)
	t.notify()
	return tool.Text(text)
}

// Send sends a message from one agent of the team to another (or to the lead), checking
// the protocol: replies must name an open request addressed to their sender.
func (t *Team) Send(ctx context.Context, m mailbox.Message) (mailbox.Message, error) {
	t.used.Store(true)
	if err := t.open(); err != nil {
		return mailbox.Message{}, err
	}
	m.To = strings.TrimSpace(m.To)
	rcpt, err := t.recipient(ctx, m.To)
	if err != nil {
		return mailbox.Message{}, err
	}
	if m.To == m.From {
		return mailbox.Message{}, errors.New("a message to yourself reaches nobody; name another teammate or \"main\"")
	}
	if err := t.admit(&m); err != nil {
		return mailbox.Message{}, err
	}
	sent, err := t.mail.Send(ctx, t.cfg.Name, m)
	if err != nil {
		return mailbox.Message{}, err
	}
	if rcpt != nil {
		rcpt.kind.mailed(sent.ID)
		if sent.Kind == mailbox.ShutdownRequest {
			rcpt.requestStop(sent)
		}
		rcpt.poke()
	} else if m.To == Lead && t.cfg.OnMessage != nil {
		t.cfg.OnMessage(sent)
	}
	if m.From != Lead {
		if tm := t.member(m.From); tm != nil {
			tm.setLast(sent)
		}
	}
	t.notify()
	return sent, nil
}

// recipient is the member of this process a message to "to" reaches: nil for the lead
// or a teammate in another process (ouro team worker), which reads the same store. It is
// an error when nobody of the team has that name.
func (t *Team) recipient(ctx context.Context, to string) (*teammate, error) {
	t.mu.Lock()
	rcpt, known := t.members[to]
	t.mu.Unlock()
	if known || to == Lead {
		return rcpt, nil
	}
	others := t.elsewhere(ctx)
	if !slices.Contains(others, to) {
		return nil, t.unknownRecipient(to, others)
	}
	return nil, nil
}

// admit checks m against the protocol its kind follows (only the lead sends a shutdown
// request or answers a plan, and only to a teammate with that plan open) and records the
// request it opens or closes; m is refused as a whole or admitted as a whole.
func (t *Team) admit(m *mailbox.Message) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch m.Kind {
	case mailbox.Text:
	case mailbox.ShutdownRequest, mailbox.PlanApprovalResponse:
		if m.From != Lead {
			return fmt.Errorf("only the lead may send a %s", m.Kind)
		}
		if m.To == Lead {
			return fmt.Errorf("a %s goes to a teammate, not to %q", m.Kind, Lead)
		}
		if m.Kind == mailbox.ShutdownRequest {
			m.RequestID = t.requestID("shutdown", m.To)
			t.requests[m.RequestID] = request{kind: m.Kind, from: m.From, to: m.To}
			break
		}
		r, ok := t.requests[m.RequestID]
		if !ok || r.kind != mailbox.PlanApprovalRequest || r.from != m.To {
			open := t.openRequests(mailbox.PlanApprovalRequest, m.To)
			if len(open) == 0 {
				return fmt.Errorf("%s has no plan waiting for approval (request_id %q is not one)", m.To, m.RequestID)
			}
			return fmt.Errorf("request_id %q is not a plan %s sent; its open plan request is %s", m.RequestID, m.To, strings.Join(open, ", "))
		}
		if m.Approve == nil {
			return errors.New("a plan_approval_response needs approve: true or false (with the reason in feedback when false)")
		}
		if !*m.Approve && strings.TrimSpace(m.Text) == "" {
			return errors.New("a rejected plan needs the reason in feedback, so the teammate can revise it")
		}
		delete(t.requests, m.RequestID)
	default:
		return fmt.Errorf("message type %q is not one you can send", m.Kind)
	}
	return nil
}

// unknownRecipient is the error for a message to nobody: it names the members.
func (t *Team) unknownRecipient(to string, others []string) error {
	t.mu.Lock()
	names := mergeNames(append([]string(nil), t.order...), others)
	t.mu.Unlock()
	bg := ""
	if ids := t.cfg.Agents.BackgroundAgents(); len(ids) > 0 {
		bg = "; background agents you can continue: " + strings.Join(ids, ", ")
	}
	if len(names) == 0 {
		return fmt.Errorf("there is no teammate %q: this team has none yet (start one with Agent, run_in_background and a name)%s", to, bg)
	}
	sort.Strings(names)
	return fmt.Errorf("there is no teammate %q; the team is %s, and %q for the lead%s", to, strings.Join(names, ", "), Lead, bg)
}

// openRequests lists the open requests of kind from. Called with mu held.
func (t *Team) openRequests(kind mailbox.Kind, from string) []string {
	var out []string
	for id, r := range t.requests {
		if r.kind == kind && r.from == from {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// ask records an open request a teammate makes of the lead and sends it.
func (t *Team) ask(ctx context.Context, from string, kind mailbox.Kind, text, summary string) (string, error) {
	t.mu.Lock()
	id := t.requestID(strings.TrimSuffix(string(kind), "_approval_request"), from)
	t.requests[id] = request{kind: kind, from: from, to: Lead}
	t.mu.Unlock()
	m, err := t.mail.Send(ctx, t.cfg.Name, mailbox.Message{From: from, To: Lead, Kind: kind, RequestID: id, Text: text, Summary: summary})
	if err != nil {
		t.mu.Lock()
		delete(t.requests, id)
		t.mu.Unlock()
		return "", err
	}
	if t.cfg.OnMessage != nil {
		t.cfg.OnMessage(m)
	}
	if tm := t.member(from); tm != nil {
		tm.setLast(m)
	}
	t.notify()
	return id, nil
}

func (t *Team) member(name string) *teammate {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.members[name]
}

// Close asks every teammate to stop, waits for them (each finishes its current tool
// call) and closes their transcripts; claims they held lapse with their leases.
func (t *Team) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	t.wg.Wait()
	if t.mail != nil {
		t.mail.Close()
	}
}

// requestID names a protocol request: its kind, the teammate it concerns and how many
// such requests there were ("plan-w1-2"), so that a reply can name it and a person can
// read it. Called with mu held.
func (t *Team) requestID(kind, who string) string {
	t.seq[kind+"/"+who]++
	return fmt.Sprintf("%s-%s-%d", kind, who, t.seq[kind+"/"+who])
}
