package harness

import (
	"context"
	"path/filepath"
	"time"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/sqlitestore"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
)

// EntryTaskList is the transcript entry type naming the task list a session used.
const EntryTaskList = task.EntryList

// StatePath is ouro's state database under home (the task lists).
func StatePath(home string) string { return filepath.Join(home, sqlitestore.FileName) }

// TaskListName picks the session's task list (task.PickList).
func TaskListName(flag, recorded, sessionID string) (string, error) {
	return task.PickList(flag, recorded, sessionID)
}

// TaskLease is the claim lease: OURO_TASK_LEASE or the default.
func TaskLease() (time.Duration, error) { return task.LeaseFromEnv() }

// taskConfig is what the task list is given: the store opened at first use, the
// session's task hooks, the plan it is mirrored into.
func taskConfig(d dirs, tr *transcript, opts Options, todos *todo.List, hooks *hook.Runner) task.JoinConfig {
	return task.JoinConfig{Flag: opts.TaskList, SessionID: tr.w.ID(), Todos: todos, OnTodo: opts.UI.OnTodo, OnTasks: opts.UI.OnTasks,
		Open:  func(ctx context.Context) (task.Store, error) { return OpenTaskStore(ctx, opts.Store, d.home) },
		Hooks: func(list string, cfg *task.Config) { (&team.SessionHooks{R: hooks, Team: list}).BoardHooks(cfg) }}
}

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
