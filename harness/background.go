package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
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

// stopWait bounds one wait of a headless run for its background tasks: past it the model
// is told what still runs and decides (wait again, stop them, or finish).
const stopWait = 10 * time.Minute

// backgroundWork is the session's background tasks, and how their notifications reach
// the model: before its next request (notify.Queue); as a turn of their own when the
// REPL is idle (UI.Wake); or, in a headless run whose model stops while tasks still run,
// as the message the run continues with once one ends.
type backgroundWork struct {
	mgr   *background.Manager
	notes *notify.Queue
	w     *session.Writer
	wake  func(Wake)
	warn  io.Writer

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
	part        mechanism.Part
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

func openBackground(tr *transcript, ws *workspace.Workspace, set *settings.Settings, notes *notify.Queue, wake func(Wake), warn io.Writer) (*backgroundWork, error) {
	dir := filepath.Join(tr.w.Dir(), "tasks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("background tasks folder: %w", err)
	}
	if err := ws.AddRoot(dir); err != nil { // the model reads output files with Read
		return nil, err
	}
	limit := set.Background.MaxRunning
	if limit > background.HardMaxRunning || limit < 0 {
		fmt.Fprintf(warn, "ouro: WARNING: background.maxRunning %d in %s is out of range (1–%d); using %d\n",
			limit, set.Background.Source, background.HardMaxRunning, min(max(limit, 0), background.HardMaxRunning))
	}
	b := &backgroundWork{notes: notes, w: tr.w, wake: wake, warn: warn, seen: map[string]bool{}, waking: map[string][]string{}}
	b.mgr = background.New(background.Config{Dir: dir, MaxRunning: max(limit, 0), OnEvent: b.event})
	notes.OnNotify = b.notified
	notes.OnDeliver = b.delivered
	out, stop, legacyOut, legacyStop := b.mgr.Tools()
	b.part = mechanism.Part{Name: "background",
		Deferred: []tool.Tool{out, stop, legacyOut, legacyStop},
		Restore:  b.restoreRunning,
	}
	if wake == nil {
		// Headless: a run whose model stops while its tasks run waits for them.
		b.part.BeforeStop = []agent.BeforeStop{mechanism.Waiter{Manager: b.mgr, Limit: stopWait,
			Take: func() string { return joinNotes(notes.Take()) }}}
	}
	b.resume(tr.background)
	return b, nil
}

// keyOf identifies a notification by its text.
func keyOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:12])
}

func (b *backgroundWork) record(typ string, data any) {
	if err := b.w.AppendEntry(typ, data); err != nil {
		fmt.Fprintf(b.warn, "ouro: recording background work in the transcript: %v\n", err)
	}
}

func (b *backgroundWork) event(e background.Event) {
	b.record(entryBackground, backgroundEntry{Event: e.Type, Task: e.Info})
}

// notified records a notification as it is queued; a background task's starts a turn
// when the REPL is idle (what async hooks leave waits for the next turn, as in Claude
// Code: their asyncRewake asks for one itself).
func (b *backgroundWork) notified(n tool.Notification) {
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

func (b *backgroundWork) delivered(ns []tool.Notification) {
	b.mu.Lock()
	for _, n := range ns {
		if isTaskNote(n) && b.tasksQueued > 0 {
			b.tasksQueued--
		}
	}
	b.mu.Unlock()
	b.deliveredKeys(keysOf(ns))
}

func (b *backgroundWork) deliveredKeys(keys []string) {
	b.record(entryDelivered, deliveredEntry{Keys: keys})
	_ = b.w.Sync()
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
func (b *backgroundWork) wakeIfIdle() {
	if b.wake == nil {
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
		b.wake(Wake{Source: "background", Prompt: prompt})
	}
}

// running marks a run under way, starting with prompt (a wake prompt's notifications
// are delivered now); the returned func ends it, and wakes the REPL for what arrived
// after the run's last model request.
func (b *backgroundWork) running(prompt string) func() {
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

// isBusy reports whether a run is under way.
func (b *backgroundWork) isBusy() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.busy
}

// duringRuns passes a child's events on only while a run is under way: a background
// agent outliving its run must not write after the run's final result (stream-json).
func (b *backgroundWork) duringRuns(obs func(string, agent.Event)) func(string, agent.Event) {
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
func (b *backgroundWork) restoreRunning() []llm.Block {
	if list := b.mgr.RunningList(); list != "" {
		return []llm.Block{llm.TextBlock("Background tasks still running (you will be notified when each ends): " + list)}
	}
	return nil
}

var taskIDTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<task-id>([^<]*)</task-id>`) })

// resume queues again what the last process of this session notified and never
// delivered, and a notification for each task it left running (they ended with it).
func (b *backgroundWork) resume(entries []session.Entry) {
	var pending []notifiedEntry
	delivered := map[string]bool{}
	ended := map[string]bool{}
	var started []background.Info
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
				if be.Event == "started" {
					started = append(started, be.Task)
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
		i.Status = background.StatusKilled
		b.record(entryBackground, backgroundEntry{Event: "lost", Task: i})
		why := "the ouro process running it ended first"
		if i.Kind == background.KindWorkflow {
			why += fmt.Sprintf("; call Workflow with resumeFromRunId %q to finish it without redoing the agents that finished", i.ID)
		}
		b.notes.Notify(tool.Notification{Text: background.Notification(i, "", why, "")})
	}
}

// close stops what still runs and says so: the session is ending.
func (b *backgroundWork) close() {
	for _, i := range b.mgr.Close() {
		fmt.Fprintf(b.warn, "ouro: background task %s (%s) was still running and has been stopped as the session ended; its output is in %s\n",
			i.ID, i.Description, i.Output)
	}
}
