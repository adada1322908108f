package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/internal/flock"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team/registry"
	"github.com/ouroagent/ouro/tool"
)

// TeamsDir is where each team's state is written for `ouro team`.
func TeamsDir(home string) string { return filepath.Join(home, "teams") }

// WorkerStatusPath is where worker process name of team writes its state (ouro team).
func WorkerStatusPath(teamsDir, team, name string) string {
	return filepath.Join(teamsDir, team+".worker-"+name+".json")
}

// JoinConfig is what a session gives its team.
type JoinConfig struct {
	// Name is the team's (its task list's); Holder the lead session's ID; Agents the
	// session's Task tool, which starts teammates.
	Name, Holder string
	Agents       *subagent.Tool
	// Home is ouro's state (the status files are under TeamsDir(Home)); Store the
	// shared store's URL ("": this machine's state.db).
	Home, Store string
	// Open opens the mailboxes and the task store at the team's first use.
	Open func() (mailbox.Store, task.Store, time.Duration, error)
	// OpenRegistry opens the worker registry (a shared store's workers on any machine).
	OpenRegistry func(ctx context.Context) (registry.Store, error)
	Budget       agent.Limits
	// OnMessage is told of each message a teammate sends the lead; Observer sees every
	// event of every teammate (nil: none).
	OnMessage func(mailbox.Message)
	Observer  func(name string, e agent.Event)
	// Hooks runs the session's TaskCreated, TaskCompleted and TeammateIdle hooks.
	Hooks *hook.Runner
	// Launch starts each teammate as its own process (nil: in this one).
	Launch func(spec WorkerSpec) (*exec.Cmd, error)
	// Seen are the lead's messages so far (a resumed lead's mail is not delivered twice).
	Seen []llm.Message
	// Busy reports a run under way: the lead's messages then join its next request
	// instead of waking it. StopWait bounds a headless lead's wait for its team.
	Busy     func() bool
	StopWait time.Duration
}

// SessionTeam is the session's team (s13): Agent with run_in_background and a name starts a
// teammate; SendMessage is offered to the lead; the lead's messages join its next
// request and a headless lead waits for its team before it ends. Nothing is opened until
// a teammate is spawned or a message sent.
type SessionTeam struct {
	t    *Team
	env  mechanism.Env
	busy func() bool
	// statusPath is the team's status file (a worker process writes its own, beside
	// the lead's, so neither overwrites the other).
	statusPath string
	roster     *roster
}

// Join makes the session's team (PhaseDelegation; the Part's Handle is the *SessionTeam). The
// Agent tool starts teammates through it (jc.Agents.SetSpawner).
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	var statusMu sync.Mutex
	dir := TeamsDir(jc.Home)
	l := &SessionTeam{env: env, busy: jc.Busy, statusPath: filepath.Join(dir, jc.Name+".json"),
		roster: &roster{dir: dir, team: jc.Name, store: jc.Store, open: jc.OpenRegistry}}
	t := New(Config{
		Name: jc.Name, Holder: jc.Holder, Agents: jc.Agents, Open: jc.Open,
		Persist: env.Journal.Sync,
		Budget:  jc.Budget,
		OnMessage: func(m mailbox.Message) {
			if jc.OnMessage != nil {
				jc.OnMessage(m)
			}
			l.WakeIfIdle()
		},
		OnChange: func(s Snapshot) {
			statusMu.Lock()
			defer statusMu.Unlock()
			l.writeStatus(s)
		},
		Observer: jc.Observer,
		Hooks:    &SessionHooks{R: jc.Hooks, Team: jc.Name},
		Roster:   l.roster.names,
		Warn:     func(s string) { env.Warn.Warnf("team: %s", s) },
		Launch:   jc.Launch,
	})
	t.Resume(jc.Seen)
	jc.Agents.SetSpawner(t)
	l.t = t
	// SendMessage is loaded on demand: a lead needs it only once it has a team.
	p := mechanism.Part{Name: "team", Phase: mechanism.PhaseDelegation, Deferred: []tool.Tool{t.NewSendTool()},
		BeforeModel: []agent.BeforeModel{t.LeadInbox()}, Handle: l}
	if env.Waker == nil {
		p.BeforeStop = []agent.BeforeStop{t.LeadWaiter(jc.StopWait)}
	}
	return p, nil
}

// WakeIfIdle hands the lead's messages to the REPL as a turn of their own when no run is
// under way; during a run they join its next request. They count as delivered once that
// turn's first request has them (a REPL that quits first leaves them pending).
func (l *SessionTeam) WakeIfIdle() {
	if l == nil || l.env.Waker == nil || l.t == nil || l.busy() {
		return
	}
	if text := l.t.Take(context.Background()); text != "" {
		l.env.Waker.Wake("team", text)
	}
}

// writeStatus replaces the team's status file (written whole, then renamed, so a
// reader never sees half of it).
func (l *SessionTeam) writeStatus(s Snapshot) {
	path := l.statusPath
	data, err := json.MarshalIndent(s, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, data, 0o600); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		l.env.Warn.Warnf("team status %s: %v", path, err)
	}
}

// Close stops the teammates: they finish their current tool call and stop.
func (l *SessionTeam) Close() {
	if l != nil {
		l.t.Close()
		l.roster.close()
	}
}

// Snapshot is the state of the team: its members, their status, task, tokens and cost
// (the terminal's side panel, `ouro team`); false when no teammate was started.
func (l *SessionTeam) Snapshot() (Snapshot, bool) {
	if l == nil || l.t == nil {
		return Snapshot{}, false
	}
	snap := l.t.Snapshot()
	return snap, len(snap.Members) > 0
}

// Work runs this session as a teammate of its task list's team, in its own process
// (ouro team worker), until it stops; it returns why.
func (l *SessionTeam) Work(ctx context.Context, spec WorkerSpec) (string, error) {
	if l == nil || l.t == nil {
		return "", fmt.Errorf("this session has no team")
	}
	l.statusPath = WorkerStatusPath(filepath.Dir(l.statusPath), l.t.Name(), spec.Name)
	unlock, err := lockWorker(l.statusPath, l.t.Name(), spec.Name)
	if err != nil {
		return "", err
	}
	defer unlock()
	// A worker restarted under the same name first reads what its last run delivered.
	ids, err := deliveredBefore(l.statusPath, spec.Name, filepath.Dir(filepath.Dir(l.statusPath)))
	if err != nil {
		l.env.Warn.Warnf("team: the last run of %s: %v (messages it received but did not acknowledge are delivered again)", spec.Name, err)
	}
	spec.Delivered = append(spec.Delivered, ids...)
	return l.t.Work(ctx, spec)
}

// deliveredBefore returns the ids of the messages the last run of worker name had in its
// transcript, which its status file names: a worker killed after persisting a message
// but before acknowledging it must not be handed it again. Only a transcript under home
// (ouro's own) is read.
func deliveredBefore(statusPath, name, home string) ([]string, error) {
	data, err := os.ReadFile(statusPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v)", statusPath, err)
	}
	var ids []string
	for _, m := range s.Members {
		if m.Name != name || m.Transcript == "" {
			continue
		}
		rel, err := filepath.Rel(home, m.Transcript)
		if err != nil || !filepath.IsAbs(m.Transcript) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s names a transcript outside %s (%s); it is not read", statusPath, home, m.Transcript)
		}
		t, err := session.Load(m.Transcript)
		if errors.Is(err, fs.ErrNotExist) {
			continue // it never wrote one
		}
		if err != nil {
			return nil, err
		}
		msgs, _ := t.Messages()
		ids = append(ids, mailbox.IDsIn(msgs)...)
	}
	return ids, nil
}

// teamRoster names the members of team that the status files under dir show: the lead's
// in-process teammates and every worker process (ouro team worker). A damaged file is
// skipped; it is rewritten at its team's next change.
func teamRoster(dir, name string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, name+".worker-*.json"))
	paths = append(paths, filepath.Join(dir, name+".json"))
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var s Snapshot
		if json.Unmarshal(data, &s) != nil || s.Team != name {
			continue
		}
		for _, m := range s.Members {
			out = append(out, m.Name)
		}
	}
	return out
}

// lockWorker holds worker name of team on this machine while it runs: two processes
// answering to one name would take each other's messages (each could stage the same one
// before the other acknowledged it). The kernel drops the lock when the process dies,
// kill -9 included, so a restart is never refused because of a crash.
func lockWorker(statusPath, team, name string) (unlock func(), err error) {
	path := strings.TrimSuffix(statusPath, ".json") + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	busy, err := flock.TryLock(f)
	if err == nil && busy {
		err = fmt.Errorf("a worker named %q of team %s is already running on this machine; give this one another --name", name, team)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// roster names the team's members in other processes: those the status files on this
// machine show and, with a shared store, the workers the registry holds as alive on any
// machine, so that SendMessage reaches a teammate by name wherever it runs. The
// registry is opened at the first lookup and kept.
type roster struct {
	dir, team, store string
	open             func(context.Context) (registry.Store, error)

	once sync.Once
	reg  registry.Store
}

func (r *roster) names(ctx context.Context) []string {
	names := teamRoster(r.dir, r.team)
	if r.store == "" {
		return names // this machine's workers all write status files
	}
	r.once.Do(func() {
		octx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		r.reg, _ = r.open(octx)
	})
	if r.reg == nil {
		return names
	}
	ws, err := r.reg.List(ctx, r.team)
	if err != nil {
		return names
	}
	now := time.Now()
	for _, w := range ws {
		if w.StateAt(now) == registry.Alive {
			names = append(names, w.Name)
		}
	}
	return names
}

func (r *roster) close() {
	if r.reg != nil {
		r.reg.Close()
	}
}

// SessionHooks runs the session's TaskCreated, TaskCompleted and TeammateIdle hooks for
// the lead's task list and its teammates (team.Hooks); what they say reaches the model
// that acted, as a tool error or the teammate's next message.
type SessionHooks struct {
	R    *hook.Runner
	Team string
}

func (h SessionHooks) event(teammate string, t task.Task) hook.TaskEvent {
	return hook.TaskEvent{ID: t.ID, Subject: t.Subject, Description: t.Description, Teammate: teammate, Team: h.Team}
}

func (h SessionHooks) TaskCreated(ctx context.Context, teammate string, t task.Task) error {
	v := h.R.TaskCreated(ctx, h.event(teammate, t))
	if !v.Block {
		return nil
	}
	return fmt.Errorf("TaskCreated hook feedback:\n%s\nThe task was not created.", v.Reason)
}

func (h SessionHooks) TaskCompleted(ctx context.Context, teammate string, t task.Task) error {
	v := h.R.TaskCompleted(ctx, h.event(teammate, t))
	if !v.Block {
		return nil
	}
	return fmt.Errorf("TaskCompleted hook feedback:\n%s\nTask #%s is not completed (it stays %s): do what the feedback asks, then mark it completed again.", v.Reason, t.ID, t.Status)
}

func (h SessionHooks) TeammateIdle(ctx context.Context, teammate string) (string, bool, string) {
	v := h.R.TeammateIdle(ctx, teammate, h.Team)
	if v.Stop {
		return "", false, v.StopReason
	}
	return v.Reason, v.Block, ""
}

// BoardHooks gives the lead's view of the task list the task hooks.
func (h *SessionHooks) BoardHooks(cfg *task.Config) {
	if h == nil || h.R == nil {
		return
	}
	cfg.Created = func(ctx context.Context, t task.Task) error { return h.TaskCreated(ctx, "", t) }
	cfg.Completing = func(ctx context.Context, t task.Task) error { return h.TaskCompleted(ctx, "", t) }
}
