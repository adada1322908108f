package task

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/todo"
)

// EntryList is the transcript entry naming the task list a session used, recorded once
// it uses the list, so a resumed session works on the same one.
const EntryList = "task_list"

// ListEnv are the variables that name a shared task list, ouro's first.
var ListEnv = []string{"OURO_TASK_LIST", "CLAUDE_CODE_TASK_LIST_ID"}

// PickList picks the session's task list: the flag, then the environment, then the list
// a resumed session recorded, then the session's own (its ID). A name given that is no
// valid list name is an error.
func PickList(flag, recorded, sessionID string) (string, error) {
	if flag != "" {
		if err := ValidListName(flag); err != nil {
			return "", fmt.Errorf("--task-list: %w", err)
		}
		return flag, nil
	}
	for _, k := range ListEnv {
		if v := os.Getenv(k); v != "" {
			if err := ValidListName(v); err != nil {
				return "", fmt.Errorf("%s: %w", k, err)
			}
			return v, nil
		}
	}
	if recorded != "" && ValidListName(recorded) == nil {
		return recorded, nil
	}
	return sessionID, nil
}

// LeaseFromEnv is the claim lease: OURO_TASK_LEASE (a duration, at least a second) or
// the default.
func LeaseFromEnv() (time.Duration, error) {
	v := os.Getenv("OURO_TASK_LEASE")
	if v == "" {
		return DefaultLease, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("OURO_TASK_LEASE=%q: give a duration of at least 1s, e.g. 90s", v)
	}
	return d, nil
}

// JoinConfig is what a session gives its task list.
type JoinConfig struct {
	// Flag is --task-list ("" → the environment, the resumed session's, its own);
	// SessionID is the session's, the list's default name and the claims' holder.
	Flag, SessionID string
	// Open opens the store, at the list's first use (a session that never plans never
	// opens it).
	Open func(ctx context.Context) (Store, error)
	// Hooks, when set, gives the board the session's task hooks (TaskCreated and
	// TaskCompleted) for the list named list.
	Hooks func(list string, cfg *Config)
	// Todos is the session's plan: the list is mirrored into it, so the plan display,
	// the reminder and the snapshot after compaction serve it as they serve TodoWrite.
	Todos *todo.List
	// OnTodo and OnTasks are told of each change (the mirror, the whole list).
	OnTodo  func([]todo.Item)
	OnTasks func(list string, tasks []Task)
}

// Session is a session's task list: the four tools on a board opened at first use.
type Session struct {
	lazy  *Lazy
	name  string
	stop  context.CancelFunc
	store Store
}

// Name is the list's name.
func (s *Session) Name() string { return s.name }

// Lazy is the board, opened at first use.
func (s *Session) Lazy() *Lazy { return s.lazy }

// Store is the store once the board was opened (nil before).
func (s *Session) Store() Store { return s.store }

// Join makes the session's task list (PhasePlan); the Part's Handle is the *Session.
// Closing it stops renewing claims and closes the store. Claims stay until their lease
// runs out: a session resumed in time finds them still its own.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	none := mechanism.Part{Name: "tasks", Phase: mechanism.PhasePlan}
	var recorded string
	for _, e := range env.Entries(EntryList) {
		var l struct{ List string }
		if json.Unmarshal(e.Data, &l) == nil {
			recorded = l.List
		}
	}
	name, err := PickList(jc.Flag, recorded, jc.SessionID)
	if err != nil {
		return none, err
	}
	lease, err := LeaseFromEnv()
	if err != nil {
		return none, err
	}
	ts := &Session{name: name}
	ctx, stop := context.WithCancel(context.Background())
	ts.stop = stop
	// show mirrors the list; own changes always count as an update (the reminder starts
	// counting again), others' only when the mirror differs.
	show := func(list []Task, own bool) {
		items := mirror(list)
		if !own && jc.Todos.Holds(items, UpdateName) {
			return
		}
		jc.Todos.SetBy(items, UpdateName)
		if jc.OnTodo != nil {
			jc.OnTodo(items)
		}
		if jc.OnTasks != nil {
			jc.OnTasks(name, list)
		}
	}
	ts.lazy = NewLazy(func() (*Board, error) {
		s, err := jc.Open(ctx)
		if err != nil {
			return nil, err
		}
		ts.store = s
		cfg := Config{Store: s, List: name, Holder: jc.SessionID, Lease: lease,
			OnChange: func(list []Task) { show(list, true) }}
		if jc.Hooks != nil {
			jc.Hooks(name, &cfg)
		}
		board := NewBoard(cfg)
		if recorded != name {
			if err := env.Journal.AppendEntry(EntryList, map[string]string{"list": name}); err != nil {
				env.Warn.Warnf("recording the task list: %v", err)
			}
			recorded = name
		}
		go board.KeepAlive(ctx, func(err error) { env.Warn.Warnf("renewing task claims: %v", err) })
		return board, nil
	})
	// refresh shows changes other sessions made; it runs only once the list is in use
	// (or was, before a resume).
	refresh := func() {
		if ts.lazy.Opened() == nil && recorded == "" {
			return
		}
		b, err := ts.lazy.Board()
		if err != nil {
			return
		}
		if list, err := b.All(ctx); err == nil {
			show(list, false)
		}
	}
	none.Tools = NewTools(ts.lazy)
	none.BeforeModel = []agent.BeforeModel{beforeModel(refresh)}
	none.Restore = func() []llm.Block { refresh(); return nil }
	none.Handle = ts
	none.Close = func() error {
		ts.stop()
		if ts.store != nil {
			return ts.store.Close()
		}
		return nil
	}
	return none, nil
}

// maxMirror bounds the items mirrored: a shared list may hold hundreds of tasks, and the
// reminder and the snapshot after compaction must stay short.
const maxMirror = 50

// mirror turns tasks into todo items ("#3 subject") for the plan display and reminder;
// past maxMirror it keeps the open tasks first and says how many it left out.
func mirror(list []Task) []todo.Item {
	var more int
	if len(list) > maxMirror {
		kept := make([]Task, 0, maxMirror)
		for _, open := range []bool{true, false} {
			for _, t := range list {
				if t.Open() == open && len(kept) < maxMirror-1 {
					kept = append(kept, t)
				}
			}
		}
		SortByID(kept)
		more, list = len(list)-len(kept), kept
	}
	items := make([]todo.Item, 0, len(list)+1)
	for _, t := range list {
		st := todo.Status(t.Status)
		if !st.Valid() {
			st = todo.Pending
		}
		content := "#" + t.ID + " " + t.Subject
		if t.Owner != "" {
			content += " (" + t.Owner + ")"
		}
		items = append(items, todo.Item{Content: content, Status: st, ActiveForm: t.ActiveForm})
	}
	if more > 0 {
		note := fmt.Sprintf("… %d more tasks (TaskList shows them all)", more)
		items = append(items, todo.Item{Content: note, Status: todo.Pending, ActiveForm: note})
	}
	return items
}

// beforeModel adapts a func to agent.BeforeModel.
type beforeModel func()

func (f beforeModel) BeforeModel(context.Context, *agent.Turn) error { f(); return nil }
