package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// Transcript entries of background work: a task started or was stopped by the model; a
// notification was queued for the model; notifications reached the conversation. With
// them a resumed session delivers what the last process queued and never delivered, and
// tells the model of tasks that process left running when it ended.
const (
	entryBackground = "background"
	entryNotified   = "notification"
	entryDelivered  = "notification_delivered"
)

// StopWait bounds one wait of a headless run for its background tasks: past it the model
// is told what still runs and decides (wait again, stop them, or finish).
const StopWait = 10 * time.Minute

// Work is the session's background tasks, and how their notifications reach the model:
// before its next request (the Queue); as a turn of their own when the REPL is idle
// (mechanism.Env.Waker); or, in a headless run whose model stops while tasks still run,
// as the message the run continues with once one ends.
type Work struct {
	mgr   *background.Manager
	notes *Queue
	env   mechanism.Env

	mu   sync.Mutex
	busy bool            // a run is under way
	seen map[string]bool // notifications recorded in the transcript, by key
	// waking holds the keys of the notifications each wake prompt carries: they count as
	// delivered once a run starts with that prompt, not when the REPL is handed them (it
	// may end before it runs them; a resume then delivers them).
	waking map[string][]string
	// tasksQueued counts the background tasks' notifications in the queue: only those
	// wake the REPL (async hooks' wait for the next turn).
	tasksQueued int
}

type notifiedEntry struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

type deliveredEntry struct {
	Keys []string `json:"keys"`
}

type backgroundEntry struct {
	Event string          `json:"event"`
	Task  background.Info `json:"task"`
}

// JoinConfig is what a session gives its background work.
type JoinConfig struct {
	// Queue is the session's notification queue (the registry's Options.Notify).
	Queue *Queue
	// MaxRunning bounds the tasks running at once (settings background.maxRunning, from
	// Source; 0: the default).
	MaxRunning int
	Source     string
}

// Join makes the session's background work (PhaseState; the Part's Handle is the
// *Work): its tasks' output folder, which the workspace reaches so the model reads it
// with Read, TaskOutput and TaskStop, and the delivery of what they notify. What the
// last process of a resumed session queued and never delivered is queued again.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	p := mechanism.Part{Name: "background", Phase: mechanism.PhaseState}
	dir := filepath.Join(env.SessionDir, "tasks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, fmt.Errorf("background tasks folder: %w", err)
	}
	if err := env.Workspace.AddRoot(dir); err != nil { // the model reads output files with Read
		return p, err
	}
	limit := jc.MaxRunning
	if limit > background.HardMaxRunning || limit < 0 {
		env.Warn.Warnf("WARNING: background.maxRunning %d in %s is out of range (1–%d); using %d",
			limit, jc.Source, background.HardMaxRunning, min(max(limit, 0), background.HardMaxRunning))
	}
	notes := jc.Queue
	b := &Work{notes: notes, env: env, seen: map[string]bool{}, waking: map[string][]string{}}
	b.mgr = background.New(background.Config{Dir: dir, MaxRunning: max(limit, 0), OnEvent: b.event})
	notes.OnNotify = b.notified
	notes.OnDeliver = b.delivered
	out, stop, legacyOut, legacyStop := b.mgr.Tools()
	p.Deferred = []tool.Tool{out, stop, legacyOut, legacyStop}
	p.Restore, p.Handle = b.restoreRunning, b
	if env.Waker == nil {
		// Headless: a run whose model stops while its tasks run waits for them.
		p.BeforeStop = []agent.BeforeStop{mechanism.Waiter{Manager: b.mgr, Limit: StopWait,
			Take: func() string { return joinNotes(notes.Take()) }}}
	}
	b.resume(env.Entries(entryBackground, entryNotified, entryDelivered))
	return p, nil
}

// Manager runs the tasks.
func (b *Work) Manager() *background.Manager { return b.mgr }

// keyOf identifies a notification by its text.
func keyOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:12])
}

func (b *Work) record(typ string, data any) {
	if err := b.env.Journal.AppendEntry(typ, data); err != nil {
		b.env.Warn.Warnf("recording background work in the transcript: %v", err)
	}
}

func (b *Work) event(e background.Event) {
	b.record(entryBackground, backgroundEntry{Event: e.Type, Task: e.Info})
}

// notified records a notification as it is queued; a background task's starts a turn
// when the REPL is idle (what async hooks leave waits for the next turn, as in Claude
// Code: their asyncRewake asks for one itself).
func (b *Work) notified(n tool.Notification) {
	key := keyOf(n.Text)
	b.mu.Lock()
	fresh := !b.seen[key]
	b.seen[key] = true
	b.mu.Unlock()
	if fresh {
		b.record(entryNotified, notifiedEntry{Key: key, Text: n.Text})
	}
	if isTaskNote(n) {
		b.mu.Lock()
		b.tasksQueued++
		b.mu.Unlock()
		b.wakeIfIdle()
	}
}

func isTaskNote(n tool.Notification) bool { return strings.HasPrefix(n.Text, "<task-notification>") }

func (b *Work) delivered(ns []tool.Notification) {
	b.mu.Lock()
	for _, n := range ns {
		if isTaskNote(n) && b.tasksQueued > 0 {
			b.tasksQueued--
		}
	}
	b.mu.Unlock()
	b.deliveredKeys(keysOf(ns))
}

func (b *Work) deliveredKeys(keys []string) {
	b.record(entryDelivered, deliveredEntry{Keys: keys})
	_ = b.env.Journal.Sync()
}

func keysOf(ns []tool.Notification) []string {
	keys := make([]string, len(ns))
	for i, n := range ns {
		keys[i] = keyOf(n.Text)
	}
	return keys
}

// wakeIfIdle hands what is queued to the REPL as a turn of its own when no run is under
// way; during a run the queue delivers it before the next model request.
func (b *Work) wakeIfIdle() {
	if b.env.Waker == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.busy || b.tasksQueued == 0 {
		return
	}
	b.tasksQueued = 0
	if ns := b.notes.Drain(); len(ns) > 0 {
		prompt := joinNotes(ns)
		k := strings.TrimSpace(prompt) // as the REPL will run it
		b.waking[k] = append(b.waking[k], keysOf(ns)...)
		b.env.Waker.Wake("background", prompt)
	}
}

// Running marks a run under way, starting with prompt (a wake prompt's notifications
// are delivered now); the returned func ends it, and wakes the REPL for what arrived
// after the run's last model request.
func (b *Work) Running(prompt string) func() {
	b.mu.Lock()
	b.busy = true
	keys := b.waking[strings.TrimSpace(prompt)]
	delete(b.waking, strings.TrimSpace(prompt))
	b.mu.Unlock()
	if len(keys) > 0 {
		b.deliveredKeys(keys)
	}
	return func() {
		b.mu.Lock()
		b.busy = false
		b.mu.Unlock()
		b.wakeIfIdle()
	}
}

// Busy reports whether a run is under way.
func (b *Work) Busy() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.busy
}

// DuringRuns passes a child's events on only while a run is under way: a background
// agent outliving its run must not write after the run's final result (stream-json).
func (b *Work) DuringRuns(obs func(string, agent.Event)) func(string, agent.Event) {
	if obs == nil {
		return nil
	}
	return func(id string, e agent.Event) {
		b.mu.Lock()
		busy := b.busy
		b.mu.Unlock()
		if busy {
			obs(id, e)
		}
	}
}

func joinNotes(ns []tool.Notification) string {
	texts := make([]string, len(ns))
	for i, n := range ns {
		texts[i] = n.Text
	}
	return strings.Join(texts, "\n\n")
}

// restoreRunning reminds the model, after a summary, of the tasks still running.
func (b *Work) restoreRunning() []llm.Block {
	if list := b.mgr.RunningList(); list != "" {
		return []llm.Block{llm.TextBlock("Background tasks still running (you will be notified when each ends): " + list)}
	}
	return nil
}

var taskIDTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<task-id>([^<]*)</task-id>`) })

// resume queues again what the last process of this session notified and never
// delivered, and a notification for each task it left running (they ended with it).
func (b *Work) resume(entries []mechanism.Entry) {
	var pending []notifiedEntry
	delivered := map[string]bool{}
	ended := map[string]bool{}
	var started []background.Info // queued or started, in that order, each id once
	last := map[string]background.Info{}
	for _, e := range entries {
		switch e.Type {
		case entryNotified:
			var n notifiedEntry
			if json.Unmarshal(e.Data, &n) == nil && n.Text != "" && !b.seen[n.Key] {
				b.seen[n.Key] = true
				pending = append(pending, n)
				if m := taskIDTag().FindStringSubmatch(n.Text); m != nil {
					ended[m[1]] = true
				}
			}
		case entryDelivered:
			var d deliveredEntry
			if json.Unmarshal(e.Data, &d) == nil {
				for _, k := range d.Keys {
					delivered[k] = true
				}
			}
		case entryBackground:
			var be backgroundEntry
			if json.Unmarshal(e.Data, &be) == nil && be.Task.ID != "" {
				if be.Event == "started" || be.Event == "queued" {
					if _, seen := last[be.Task.ID]; !seen {
						started = append(started, be.Task)
					}
					last[be.Task.ID] = be.Task
				} else {
					ended[be.Task.ID] = true
				}
			}
		}
	}
	for _, n := range pending {
		if !delivered[n.Key] {
			b.notes.Notify(tool.Notification{Text: n.Text})
		}
	}
	for _, i := range started {
		if ended[i.ID] {
			continue
		}
		i = last[i.ID]
		why := "the ouro process running it ended first"
		if i.Status == background.StatusQueued {
			why = "it was still queued, waiting for a free slot, when the ouro process ended; it never started"
		}
		i.Status = background.StatusKilled
		b.record(entryBackground, backgroundEntry{Event: "lost", Task: i})
		if i.Kind == background.KindWorkflow {
			why += fmt.Sprintf("; call Workflow with resumeFromRunId %q to finish it without redoing the agents that finished", i.ID)
		}
		b.notes.Notify(tool.Notification{Text: background.Notification(i, "", why, "")})
	}
}

// Close stops what still runs and says so: the session is ending.
func (b *Work) Close() {
	for _, i := range b.mgr.Close() {
		if i.Started.IsZero() {
			b.env.Warn.Warnf("background task %s (%s) was still queued and never started; it has been dropped as the session ended",
				i.ID, i.Description)
			continue
		}
		b.env.Warn.Warnf("background task %s (%s) was still running and has been stopped as the session ended; its output is in %s",
			i.ID, i.Description, i.Output)
	}
}
