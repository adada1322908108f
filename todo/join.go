package todo

import (
	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// EntryList is the transcript entry holding the todo list after each change.
const EntryList = "todo"

// JoinConfig is what a session gives its plan.
type JoinConfig struct {
	// List is the session's plan (the task list mirrors itself into it too).
	List *List
	// OnChange receives the list each time the model changes it (the REPL draws it).
	OnChange func([]Item)
}

// Join is the session's plan: the TodoWrite tool and the reminder when the list goes
// stale (PhaseState). The list the transcript saved is restored; each change is
// recorded (so --resume restores it) and shown; a summary keeps its snapshot.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	list := jc.List
	if saved := env.Entries(EntryList); len(saved) > 0 {
		if err := list.Restore(saved[len(saved)-1].Data); err != nil {
			env.Warn.Warnf("the saved todo list could not be restored: %v", err)
		}
	}
	changed := func(items []Item) {
		if err := env.Journal.AppendEntry(EntryList, map[string]any{"todos": items}); err != nil {
			env.Warn.Warnf("saving the todo list: %v", err)
		}
		if jc.OnChange != nil {
			jc.OnChange(items)
		}
	}
	reminder := NewReminder(list, 0)
	return mechanism.Part{Name: "todo", Phase: mechanism.PhaseState,
		Tools:       []tool.Tool{NewTool(list, changed)},
		BeforeModel: []agent.BeforeModel{reminder}, Observers: []agent.Observer{reminder.Observe},
		Restore: func() []llm.Block {
			if snap := list.Snapshot(); snap != "" {
				return []llm.Block{llm.TextBlock(snap)}
			}
			return nil
		}, Handle: list}, nil
}
