// Package background runs the work a model starts and does not wait for: shell commands
// (Bash with run_in_background), subagents (Task/Agent with run_in_background) and
// workflow runs (the Workflow tool). Each
// task writes what it prints to an output file of its own; when it ends, the session is
// told with one <task-notification>, in Claude Code's shape, through the Exec.Notify of
// the call that started it. TaskOutput reads a task and TaskStop ends one. The Manager
// bounds how many run at once and kills whatever still runs when the session closes.
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
	HardMaxRunning   = 64
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
	StatusRunning   Status = "running"
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

// Event is a task starting or being stopped by the model.
type Event struct {
	Type string // "started" or "stopped"
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
}

// Manager runs a session's background tasks.
type Manager struct {
	cfg    Config
	ctx    context.Context // ends with Close: agents run under it
	cancel context.CancelFunc

	mu      sync.Mutex
	tasks   map[string]*task
	order   []string // ids, oldest first
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
// process writing to out (the task's output file, capped). The result tells the model the
// task's id and output file.
func (m *Manager) StartCommand(x *tool.Exec, description, command string, spawn func(out io.Writer) (Proc, error)) tool.Result {
	if description == "" {
		description = command
	}
	t, refused := m.begin(x, KindBash, "b", "", description, command)
	if t == nil {
		return refused
	}
	proc, err := spawn(t.out)
	if err != nil {
		m.abandon(t)
		return tool.Errorf("The background command could not start: %v", err)
	}
	var once sync.Once
	t.stop = func() { once.Do(proc.Stop) }
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
		m.end(x, t, status, &code, "", detail)
	}()
	return tool.Text(fmt.Sprintf("Command running in background with ID: %s. Output is being written to: %s. You will be notified when it completes. To check interim output, use Read on that file path.",
		t.info.ID, t.info.Output))
}

// StartAgent runs a subagent in the background for call x: run works under a context
// that ends when the task is stopped or the session closes, may write its progress to
// out, and returns the agent's final text (or why it failed).
func (m *Manager) StartAgent(x *tool.Exec, description string, run func(ctx context.Context, out io.Writer) (string, error)) tool.Result {
	t, refused := m.begin(x, KindAgent, "a", "", description, "")
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
	t, refused := m.begin(x, kind, "", id, description, "")
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
// when the limit is reached or the session is closing. The id is prefix and random
// characters, or fixed when given (an id already used is refused).
func (m *Manager) begin(x *tool.Exec, kind Kind, prefix, fixed, description, command string) (*task, tool.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, tool.Errorf("The session is ending; no background task can start now.")
	}
	if m.running >= m.cfg.MaxRunning {
		var ids []string
		for _, id := range m.order {
			if t := m.tasks[id]; t.info.Status == StatusRunning {
				ids = append(ids, id)
			}
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
	t := &task{
		info: Info{ID: id, Kind: kind, Description: description, Command: command, ToolUseID: x.ID,
			Output: f.Name(), Started: time.Now(), Status: StatusRunning},
		out:  &cappedFile{f: f, max: m.cfg.MaxOutput},
		done: make(chan struct{}),
	}
	m.tasks[id] = t
	m.order = append(m.order, id)
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
	m.mu.Unlock()
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
	m.prune()
	close(t.done)
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// prune forgets the oldest ended tasks beyond keepFinished. Called with mu held.
func (m *Manager) prune() {
	ended := len(m.order) - m.running
	for i := 0; ended > keepFinished && i < len(m.order); {
		id := m.order[i]
		if m.tasks[id].info.Status != StatusRunning {
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
	if t.info.Status != StatusRunning {
		info := t.info
		m.mu.Unlock()
		return fmt.Sprintf("Task %s already ended (%s); there is nothing to stop. Its output is in %s.", id, describeEnd(info, ""), info.Output), nil
	}
	t.stopped = true
	stop := t.stop
	m.mu.Unlock()
	stop()
	<-t.done
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

// Close stops every task still running, grandchildren included, and returns them; no
// task may start afterwards.
func (m *Manager) Close() []Info {
	m.mu.Lock()
	m.closed = true
	var running []*task
	for _, id := range m.order {
		if t := m.tasks[id]; t.info.Status == StatusRunning && t.stop != nil {
			t.stopped = true
			running = append(running, t)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range running {
		wg.Add(1)
		go func() { defer wg.Done(); t.stop(); <-t.done }()
	}
	m.cancel()
	wg.Wait()
	out := make([]Info, 0, len(running))
	for _, t := range running {
		out = append(out, m.infoOf(t))
	}
	return out
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
		if i.Status == StatusRunning {
			state += " " + time.Since(i.Started).Round(time.Second).String()
		} else {
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

// cappedFile writes a task's output up to max bytes, then one marker line; what comes
// after is discarded but accepted, so the process never blocks on a full pipe.
type cappedFile struct {
	mu     sync.Mutex
	f      *os.File
	max    int64
	n      int64
	capped bool
	closed bool
}

func (c *cappedFile) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.capped {
		return len(p), nil
	}
	w := p
	if room := c.max - c.n; int64(len(w)) > room {
		w = w[:room]
	}
	n, err := c.f.Write(w)
	c.n += int64(n)
	if err != nil {
		return len(p), nil // a full disk must not stop the task; the file says what it has
	}
	if len(w) < len(p) {
		c.capped = true
		fmt.Fprintf(c.f, "\n[ouro: output capped at %d bytes; the rest of this task's output is discarded]\n", c.max)
	}
	return len(p), nil
}

func (c *cappedFile) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *cappedFile) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		_ = c.f.Close()
	}
}

// RunningList names the running tasks for the model: id, description, output file.
func (m *Manager) RunningList() string {
	var parts []string
	for _, i := range m.List() {
		if i.Status == StatusRunning {
			parts = append(parts, fmt.Sprintf("%s (%s, output %s)", i.ID, i.Description, i.Output))
		}
	}
	return strings.Join(parts, "; ")
}
