// Package background runs the work a model starts and does not wait for: shell commands
// (Bash with run_in_background), subagents (Task/Agent with run_in_background) and
// workflow runs (the Workflow tool). Each
// task writes what it prints to an output file of its own; when it ends, the session is
// told with one <task-notification>, in Claude Code's shape, through the Exec.Notify of
// the call that started it. TaskOutput reads a task and TaskStop ends one. The Manager
// bounds how many run at once: a shell command past the bound waits in a queue (first
// come, first started, as slots free; queue.go), an agent or workflow is refused. It
// kills whatever still runs, and drops whatever still waits, when the session closes.
package background

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/bgtask"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/tool"
)

// Defaults for Config's zero values.
const (
	DefaultMaxRunning = 8
	// HardMaxRunning caps what a settings file may ask for: a hostile project
	// configuration must not let a model fork without bound.
	HardMaxRunning = 64
	// MaxQueued bounds the shell commands waiting for a slot: past it a start is
	// refused (a waiting command holds no process, only its entry and output file).
	MaxQueued        = 1024
	DefaultMaxOutput = 8 << 20 // bytes per output file
	// keepFinished is how many ended tasks stay listed (their files stay on disk).
	keepFinished = 256
)

// Kind says what runs: a shell command or a subagent.
type Kind string

// Kinds, as Claude Code's TaskOutput names them.
const (
	KindBash     Kind = "local_bash"
	KindAgent    Kind = "local_agent"
	KindWorkflow Kind = "local_workflow"
)

// Status of a task.
type Status string

// Statuses, as Claude Code reports them.
const (
	StatusRunning Status = "running"
	// StatusQueued: a shell command waiting for one of the running tasks to end.
	StatusQueued    Status = "queued"
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusKilled    Status = "killed"
)

// Config configures a Manager. Zero values take the defaults noted per field.
type Config struct {
	// Dir holds the output files (<id>.output). Required.
	Dir string
	// MaxRunning bounds the tasks running at once (default 8, at most HardMaxRunning).
	MaxRunning int
	// MaxOutput caps each output file in bytes (default 8 MiB); past it a marker line is
	// written and the rest discarded, while the task keeps running.
	MaxOutput int64
	// PollWait is how long TaskOutput waits when a model keeps polling a running task
	// without blocking (default 5 s).
	PollWait time.Duration
	// OnEvent, when set, is told when a task starts and when the model stops one (the
	// session records both, so a resumed session knows what the last process left).
	OnEvent func(Event)
}

// Event is a task queued, starting or being stopped by the model.
type Event struct {
	Type string // "queued", "started" or "stopped"
	Info Info
}

// Proc is a running process a background shell command has started (its Wait blocks
// until it has ended and its output is flushed; its Stop ends it and everything it
// started). It is defined in bgtask so that the tools that spawn processes need not
// import this package.
type Proc = bgtask.Proc

// Exit is how a process ended.
type Exit = bgtask.Exit

// Info describes a task.
type Info struct {
	ID          string    `json:"id"`
	Kind        Kind      `json:"kind"`
	Description string    `json:"description"`
	Command     string    `json:"command,omitempty"`
	ToolUseID   string    `json:"tool_use_id,omitempty"`
	Output      string    `json:"output_file"`
	Queued      time.Time `json:"queued,omitempty"` // when it was queued, if it waited
	Started     time.Time `json:"started"`
	Status      Status    `json:"status"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Ended       time.Time `json:"ended,omitempty"`
}

// task is one background task.
type task struct {
	info   Info
	out    *cappedFile
	stop   func()        // ends it
	done   chan struct{} // closed once it has ended and its output is complete
	result string        // an agent's final text
	detail string        // why it failed, or the signal that killed it
	// stopped: the model (TaskStop) or the session (Close) ended it; no notification.
	stopped bool
	polls   int   // consecutive TaskOutput polls of it while running
	polled  int64 // output size at the last poll
	// A queued shell command: who started it and how to start its process.
	x     *tool.Exec
	spawn func(out io.Writer) (Proc, error)
}

// Manager runs a session's background tasks.
type Manager struct {
	cfg    Config
	ctx    context.Context // ends with Close: agents run under it
	cancel context.CancelFunc

	mu      sync.Mutex
	tasks   map[string]*task
	order   []string // ids, oldest first
	queue   []*task  // queued shell commands, first to start first
	running int
	closed  bool
	changed chan struct{} // closed and replaced whenever a task ends
}

// New returns a Manager.
func New(cfg Config) *Manager {
	if cfg.MaxRunning <= 0 {
		cfg.MaxRunning = DefaultMaxRunning
	}
	cfg.MaxRunning = min(cfg.MaxRunning, HardMaxRunning)
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.PollWait <= 0 {
		cfg.PollWait = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{cfg: cfg, ctx: ctx, cancel: cancel, tasks: map[string]*task{}, changed: make(chan struct{})}
}

// MaxRunning is the bound on tasks running at once.
func (m *Manager) MaxRunning() int { return m.cfg.MaxRunning }

// StartCommand starts a shell command in the background for call x: spawn starts the
// process writing to out (the task's output file, capped). When MaxRunning tasks already
// run, the command waits in the queue and spawn is called once a slot frees. The result
// tells the model the task's id and output file, and its place in the queue if it waits.
func (m *Manager) StartCommand(x *tool.Exec, description, command string, spawn func(out io.Writer) (Proc, error)) tool.Result {
	if description == "" {
		description = command
	}
	t, refused := m.begin(x, KindBash, "b", "", description, command, spawn)
	if t == nil {
		return refused
	}
	if t.info.Status == StatusQueued {
		return tool.Text(fmt.Sprintf("Command queued in background with ID: %s (%s). Output will be written to: %s. You will be notified when it completes; TaskStop removes it from the queue.",
			t.info.ID, m.queuedNote(t), t.info.Output))
	}
	if err := m.launch(t); err != nil {
		m.abandon(t)
		return tool.Errorf("The background command could not start: %v", err)
	}
	return tool.Text(fmt.Sprintf("Command running in background with ID: %s. Output is being written to: %s. You will be notified when it completes. To check interim output, use Read on that file path.",
		t.info.ID, t.info.Output))
}

// launch starts a shell command's process (t counts as running already) and the
// goroutine that ends the task with it.
func (m *Manager) launch(t *task) error {
	proc, err := t.spawn(t.out)
	if err != nil {
		return err
	}
	var once sync.Once
	m.mu.Lock()
	t.stop = func() { once.Do(proc.Stop) }
	t.spawn = nil
	stopped := t.stopped // stopped while it was starting
	m.mu.Unlock()
	if stopped {
		defer t.stop()
	}
	m.announce(t)
	go func() {
		e := proc.Wait()
		status, code, detail := StatusCompleted, e.Code, ""
		switch {
		case e.Err != nil:
			status, detail = StatusFailed, e.Err.Error()
		case e.Signal != "":
			status, detail = StatusKilled, e.Signal
		case e.Code != 0:
			status = StatusFailed
		}
		m.end(t.x, t, status, &code, "", detail)
	}()
	return nil
}

// StartAgent runs a subagent in the background for call x: run works under a context
// that ends when the task is stopped or the session closes, may write its progress to
// out, and returns the agent's final text (or why it failed).
func (m *Manager) StartAgent(x *tool.Exec, description string, run func(ctx context.Context, out io.Writer) (string, error)) tool.Result {
	t, refused := m.begin(x, KindAgent, "a", "", description, "", nil)
	if t == nil {
		return refused
	}
	m.work(x, t, run)
	return tool.Text(fmt.Sprintf("Async agent launched successfully.\nagentId: %s (use it with TaskOutput or TaskStop; do not mention it to the user)\noutput_file: %s\nThe agent works in the background; go on with other work. You will be notified when it finishes.",
		t.info.ID, t.info.Output))
}

// validWorkID reports whether id is fit for an output file's name: letters, digits, '_'
// and '-', at most 100, not starting with '-' or '_'.
func validWorkID(id string) bool {
	if id == "" || len(id) > 100 || id[0] == '-' || id[0] == '_' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// StartWork runs work of kind (KindWorkflow) that has its own id (a workflow's run id)
// for call x, as StartAgent runs an agent: TaskOutput and TaskStop reach it by that id,
// and its end is notified. run returns the result (a workflow's JSON value) or why it
// failed. The error says why it did not start, for the model.
func (m *Manager) StartWork(x *tool.Exec, kind Kind, id, description string, run func(ctx context.Context, out io.Writer) (string, error)) (Info, error) {
	if !validWorkID(id) {
		return Info{}, fmt.Errorf("background task id %q has characters an output file name cannot have", id)
	}
	t, refused := m.begin(x, kind, "", id, description, "", nil)
	if t == nil {
		return Info{}, errors.New(refused.Text())
	}
	m.work(x, t, run)
	return m.infoOf(t), nil
}

// work runs t's run in its own goroutine under a context its stop cancels.
func (m *Manager) work(x *tool.Exec, t *task, run func(ctx context.Context, out io.Writer) (string, error)) {
	ctx, cancel := context.WithCancel(Context(m.ctx))
	t.stop = cancel
	m.announce(t)
	go func() {
		defer cancel()
		text, err := run(ctx, t.out)
		status, detail := StatusCompleted, ""
		switch {
		case ctx.Err() != nil:
			status = StatusKilled
		case err != nil:
			status, detail = StatusFailed, err.Error()
		}
		if text != "" {
			_, _ = io.WriteString(t.out, "\n"+text+"\n")
		}
		m.end(x, t, status, nil, text, detail)
	}()
}

// InBackground reports whether ctx is that of a background agent: nobody waits on its
// calls, so an approver should refuse what it would ask a person about (the REPL's
// prompt is busy with other things) and say why.
func InBackground(ctx context.Context) bool { return bgtask.InBackground(ctx) }

// Context marks ctx as a background agent's (InBackground reports true under it).
func Context(ctx context.Context) context.Context { return bgtask.Context(ctx) }

// begin registers a task and opens its output file; it returns nil and the refusal
// when the limit is reached or the session is closing. A shell command (spawn set) past
// the limit is queued instead (its status says so; its output file is created and
// opened when it starts). The id is prefix and random characters, or fixed when given
// (an id already used is refused).
func (m *Manager) begin(x *tool.Exec, kind Kind, prefix, fixed, description, command string, spawn func(io.Writer) (Proc, error)) (*task, tool.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, tool.Errorf("The session is ending; no background task can start now.")
	}
	full := m.running >= m.cfg.MaxRunning || len(m.queue) > 0
	if full && (spawn == nil || len(m.queue) >= MaxQueued) {
		var ids []string
		for _, id := range m.order {
			if t := m.tasks[id]; t.info.Status == StatusRunning {
				ids = append(ids, id)
			}
		}
		if spawn != nil {
			return nil, tool.Errorf("%d background tasks are running (%s) and %d commands wait for them, the most this session queues. Wait for some to finish, or stop some with TaskStop, then try again.",
				m.running, strings.Join(ids, ", "), len(m.queue))
		}
		return nil, tool.Errorf("%d background tasks are already running (%s), the most this session allows (settings: background.maxRunning). Wait for one to finish, or stop one with TaskStop, then try again.",
			m.running, strings.Join(ids, ", "))
	}
	if err := os.MkdirAll(m.cfg.Dir, 0o700); err != nil {
		return nil, tool.Errorf("The background output folder %s could not be created: %v", m.cfg.Dir, err)
	}
	var id string
	var f *os.File
	for range 8 {
		id = prefix + randomID()
		if fixed != "" {
			id = fixed
		}
		var err error
		f, err = os.OpenFile(filepath.Join(m.cfg.Dir, id+".output"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if fixed != "" && errors.Is(err, os.ErrExist) {
			return nil, tool.Errorf("A background task %s already exists in this session.", fixed)
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, tool.Errorf("The background output file could not be created: %v", err)
		}
	}
	if f == nil {
		return nil, tool.Errorf("No free background task id was found; try again.")
	}
	now := time.Now()
	t := &task{
		info: Info{ID: id, Kind: kind, Description: description, Command: command, ToolUseID: x.ID,
			Output: f.Name(), Started: now, Status: StatusRunning},
		out:  &cappedFile{f: f, max: m.cfg.MaxOutput},
		done: make(chan struct{}),
		x:    x, spawn: spawn,
	}
	m.tasks[id] = t
	m.order = append(m.order, id)
	if full {
		// A waiting command holds no descriptor: its file is opened again when it starts.
		t.out.Close()
		t.out = &cappedFile{path: f.Name(), max: m.cfg.MaxOutput}
		t.info.Status, t.info.Queued, t.info.Started = StatusQueued, now, time.Time{}
		m.queue = append(m.queue, t)
		if m.cfg.OnEvent != nil {
			m.cfg.OnEvent(Event{Type: "queued", Info: t.info})
		}
		return t, tool.Result{}
	}
	m.running++
	return t, tool.Result{}
}

// abandon forgets a task whose process never started.
func (m *Manager) abandon(t *task) {
	t.out.Close()
	_ = os.Remove(t.info.Output)
	m.mu.Lock()
	delete(m.tasks, t.info.ID)
	m.order = slicesDelete(m.order, t.info.ID)
	m.running--
	close(t.done)
	next := m.dequeueLocked()
	m.mu.Unlock()
	m.startQueued(next)
}

func (m *Manager) announce(t *task) {
	if m.cfg.OnEvent != nil {
		m.cfg.OnEvent(Event{Type: "started", Info: m.infoOf(t)})
	}
}

// end records how t ended and, unless the model or the session stopped it, notifies.
// The task counts as running until its notification is queued, so whoever waits for it
// (WaitAny, TaskOutput) finds the notification there once it has ended.
func (m *Manager) end(x *tool.Exec, t *task, status Status, code *int, result, detail string) {
	t.out.Close()
	m.mu.Lock()
	if t.stopped {
		status = StatusKilled
	}
	t.info.Status, t.info.ExitCode, t.info.Ended = status, code, time.Now()
	t.result, t.detail = result, detail
	stopped, info := t.stopped, t.info
	m.mu.Unlock()
	if !stopped {
		x.Notify(Notification(info, result, detail, tailOf(info.Output)))
	}
	m.mu.Lock()
	m.running--
	next := m.dequeueLocked()
	m.prune()
	close(t.done)
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
	m.startQueued(next)
}

// prune forgets the oldest ended tasks beyond keepFinished. Called with mu held.
func (m *Manager) prune() {
	ended := len(m.order) - m.running - len(m.queue)
	for i := 0; ended > keepFinished && i < len(m.order); {
		id := m.order[i]
		if !m.tasks[id].live() {
			delete(m.tasks, id)
			m.order = append(m.order[:i], m.order[i+1:]...)
			ended--
			continue
		}
		i++
	}
}

func (m *Manager) infoOf(t *task) Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	return t.info
}

// List describes every task, oldest first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Info, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.tasks[id].info)
	}
	return out
}

// Running is how many tasks run now.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running
}

// WaitAny blocks until a running task ends, ctx ends or limit passes; it reports
// whether a task ended (false at once when none runs).
func (m *Manager) WaitAny(ctx context.Context, limit time.Duration) bool {
	m.mu.Lock()
	if m.running == 0 {
		m.mu.Unlock()
		return false
	}
	ch := m.changed
	m.mu.Unlock()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
	case <-timer.C:
	}
	return false
}

// Stop ends task id, by the model's wish: no notification follows. It reports what
// happened for the model.
func (m *Manager) Stop(id string) (string, error) {
	m.mu.Lock()
	t, ok := m.tasks[id]
	if !ok {
		known := m.idsLocked()
		m.mu.Unlock()
		return "", m.unknown(id, known)
	}
	if t.info.Status == StatusQueued {
		pos, n := m.positionLocked(t)
		info := m.dropLocked(t, "stopped by TaskStop before it started")
		m.mu.Unlock()
		m.closeQueued(t)
		if m.cfg.OnEvent != nil {
			m.cfg.OnEvent(Event{Type: "stopped", Info: info})
		}
		return fmt.Sprintf("Removed task %s (%s) from the queue (it was %d of %d) before it started: nothing of it ran.", id, info.Description, pos, n), nil
	}
	if t.info.Status != StatusRunning {
		info := t.info
		m.mu.Unlock()
		return fmt.Sprintf("Task %s already ended (%s); there is nothing to stop. Its output is in %s.", id, describeEnd(info, ""), info.Output), nil
	}
	m.mu.Unlock()
	m.stopTask(t)
	info := m.infoOf(t)
	if m.cfg.OnEvent != nil {
		m.cfg.OnEvent(Event{Type: "stopped", Info: info})
	}
	return fmt.Sprintf("Successfully stopped task %s (%s). Its output so far is in %s.", id, info.Description, info.Output), nil
}

func (m *Manager) unknown(id string, known []string) error {
	if len(known) == 0 {
		return fmt.Errorf("no background task %q in this session: none has been started", id)
	}
	return fmt.Errorf("no background task %q in this session; its tasks are %s", id, strings.Join(known, ", "))
}

func (m *Manager) idsLocked() []string {
	ids := append([]string(nil), m.order...)
	sort.Strings(ids)
	return ids
}

// Close stops every task still running, grandchildren included, and drops every queued
// command (it ends killed, never started; a resumed session is told so); it returns
// them all. No task may start afterwards.
func (m *Manager) Close() []Info {
	m.mu.Lock()
	m.closed = true
	dropped := m.dropAllQueuedLocked()
	var running []*task
	for _, id := range m.order {
		if t := m.tasks[id]; t.info.Status == StatusRunning {
			t.stopped = true // before m.cancel ends an agent: no notification
			running = append(running, t)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range running {
		wg.Add(1)
		go func() { defer wg.Done(); m.stopTask(t) }()
	}
	m.cancel()
	wg.Wait()
	out := make([]Info, 0, len(running)+len(dropped))
	for _, t := range running {
		out = append(out, m.infoOf(t))
	}
	return append(out, dropped...)
}

// Render lists the tasks for a person (the REPL's /tasks).
func (m *Manager) Render() string {
	list := m.List()
	if len(list) == 0 {
		return "No background tasks in this session."
	}
	var b strings.Builder
	for _, i := range list {
		state := string(i.Status)
		switch i.Status {
		case StatusRunning:
			state += " " + time.Since(i.Started).Round(time.Second).String()
		case StatusQueued:
			pos, n := m.Position(i.ID)
			state = fmt.Sprintf("queued %d of %d", pos, n)
		default:
			state = describeEnd(i, "")
		}
		fmt.Fprintf(&b, "%s  %-5s  %-28s  %s\n    %s\n", i.ID, kindWord(i.Kind), state, textcut.OneLine(i.Description, 60, "…"), i.Output)
	}
	return strings.TrimRight(b.String(), "\n")
}

func kindWord(k Kind) string {
	switch k {
	case KindAgent:
		return "agent"
	case KindWorkflow:
		return "workflow"
	}
	return "shell"
}

// randomID is 8 characters of [0-9a-z].
func randomID() string {
	const chars = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [8]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	return string(b[:])
}

func slicesDelete(s []string, v string) []string {
	for i, x := range s {
		if x == v {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// RunningList names the running tasks for the model, then the queued ones: id,
// description, output file.
func (m *Manager) RunningList() string {
	var parts []string
	var queued int
	for _, i := range m.List() {
		switch i.Status {
		case StatusRunning:
			parts = append(parts, fmt.Sprintf("%s (%s, output %s)", i.ID, i.Description, i.Output))
		case StatusQueued:
			queued++
		}
	}
	if queued > 0 {
		m.mu.Lock()
		for n, t := range m.queue {
			parts = append(parts, fmt.Sprintf("%s (%s, queued %d of %d, output %s)", t.info.ID, t.info.Description, n+1, len(m.queue), t.info.Output))
		}
		m.mu.Unlock()
	}
	return strings.Join(parts, "; ")
}
