package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/sqlitestore"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
)

// entryTaskList records, once a session uses its task list, which list that is, so a
// resumed session works on the same one.
const entryTaskList = EntryTaskList

// EntryTaskList is the transcript entry type naming the task list a session used.
const EntryTaskList = "task_list"

// TaskListEnv are the variables that name a shared task list, ouro's first.
var TaskListEnv = []string{"OURO_TASK_LIST", "CLAUDE_CODE_TASK_LIST_ID"}

// StatePath is ouro's state database under home (the task lists).
func StatePath(home string) string { return filepath.Join(home, sqlitestore.FileName) }

// TaskListName picks the session's task list: the flag, then the environment, then the
// list a resumed session recorded, then the session's own (its ID). A name given that is
// no valid list name is an error.
func TaskListName(flag, recorded, sessionID string) (string, error) {
	if flag != "" {
		if err := task.ValidListName(flag); err != nil {
			return "", fmt.Errorf("--task-list: %w", err)
		}
		return flag, nil
	}
	for _, k := range TaskListEnv {
		if v := os.Getenv(k); v != "" {
			if err := task.ValidListName(v); err != nil {
				return "", fmt.Errorf("%s: %w", k, err)
			}
			return v, nil
		}
	}
	if recorded != "" && task.ValidListName(recorded) == nil {
		return recorded, nil
	}
	return sessionID, nil
}

// TaskLease is the claim lease: OURO_TASK_LEASE (a duration, at least a second) or the
// default.
func TaskLease() (time.Duration, error) {
	v := os.Getenv("OURO_TASK_LEASE")
	if v == "" {
		return task.DefaultLease, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("OURO_TASK_LEASE=%q: give a duration of at least 1s, e.g. 90s", v)
	}
	return d, nil
}

// tasks is the session's task list: the four tools on a board opened at first use (a
// session that never plans never opens state.db), mirrored into the todo list so the plan
// display, the reminder and the snapshot after compaction serve it as they serve TodoWrite.
type tasks struct {
	lazy  *task.Lazy
	name  string
	part  mechanism.Part
	stop  context.CancelFunc
	store task.Store
	// hooks run TaskCreated and TaskCompleted (set before the list is first used).
	hooks *teamHooks
}

func openTasks(d dirs, tr *transcript, listFlag, store string, todos *todo.List, ui UI, warn io.Writer) (*tasks, error) {
	name, err := TaskListName(listFlag, tr.taskList, tr.w.ID())
	if err != nil {
		return nil, err
	}
	lease, err := TaskLease()
	if err != nil {
		return nil, err
	}
	ts := &tasks{name: name}
	ctx, stop := context.WithCancel(context.Background())
	ts.stop = stop
	var board *task.Board
	// show mirrors the list; own changes always count as an update (the reminder starts
	// counting again), others' only when the mirror differs.
	show := func(list []task.Task, own bool) {
		items := mirror(list)
		if !own && todos.Holds(items, task.UpdateName) {
			return
		}
		todos.SetBy(items, task.UpdateName)
		if ui.OnTodo != nil {
			ui.OnTodo(items)
		}
		if ui.OnTasks != nil {
			ui.OnTasks(name, list)
		}
	}
	ts.lazy = task.NewLazy(func() (*task.Board, error) {
		s, err := OpenTaskStore(ctx, store, d.home)
		if err != nil {
			return nil, err
		}
		ts.store = s
		cfg := task.Config{Store: s, List: name, Holder: tr.w.ID(), Lease: lease,
			OnChange: func(list []task.Task) { show(list, true) }}
		ts.hooks.boardHooks(&cfg)
		board = task.NewBoard(cfg)
		if tr.taskList != name {
			if err := tr.w.AppendEntry(entryTaskList, map[string]string{"list": name}); err != nil {
				fmt.Fprintf(warn, "ouro: recording the task list: %v\n", err)
			}
			tr.taskList = name
		}
		go board.KeepAlive(ctx, func(err error) { fmt.Fprintf(warn, "ouro: renewing task claims: %v\n", err) })
		return board, nil
	})
	// refresh shows changes other sessions made; it runs only once the list is in use
	// (or was, before a resume).
	refresh := func() {
		if ts.lazy.Opened() == nil && tr.taskList == "" {
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
	ts.part = mechanism.Part{Name: "tasks", Phase: mechanism.PhaseState, Tools: task.NewTools(ts.lazy),
		BeforeModel: []agent.BeforeModel{beforeModel(func() { refresh() })},
		Restore:     func() []llm.Block { refresh(); return nil }}
	return ts, nil
}

// close stops renewing claims and closes the store. Claims stay until their lease runs
// out: a session resumed in time finds them still its own.
func (ts *tasks) close() error {
	ts.stop()
	if ts.store != nil {
		return ts.store.Close()
	}
	return nil
}

// maxMirror bounds the items mirrored: a shared list may hold hundreds of tasks, and the
// reminder and the snapshot after compaction must stay short.
const maxMirror = 50

// mirror turns tasks into todo items ("#3 subject") for the plan display and reminder;
// past maxMirror it keeps the open tasks first and says how many it left out.
func mirror(list []task.Task) []todo.Item {
	var more int
	if len(list) > maxMirror {
		kept := make([]task.Task, 0, maxMirror)
		for _, open := range []bool{true, false} {
			for _, t := range list {
				if t.Open() == open && len(kept) < maxMirror-1 {
					kept = append(kept, t)
				}
			}
		}
		task.SortByID(kept)
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

// defaultHidden are tools registered (so --tools and agents' tools: may name them) but
// not offered by default: the task list replaced TodoWrite, as in Claude Code 2.1.
var defaultHidden = []string{todo.ToolName}

// hideByDefault takes the default-hidden tools out of reg unless the tools list names
// tools, and returns them for agents that name them.
func hideByDefault(reg *tool.Registry, only []string) map[string]tool.Tool {
	named := map[string]tool.Tool{}
	if len(only) > 0 {
		return named
	}
	for _, n := range defaultHidden {
		if t, ok := reg.Get(n); ok {
			named[n] = t
			reg.Remove(n)
		}
	}
	return named
}
