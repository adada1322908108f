// s10: a task list that outlives the turn. TaskCreate, TaskGet, TaskList and TaskUpdate
// keep a graph of tasks in one SQLite file (ouro's state.db): ids are sequential,
// blocks/blockedBy stay symmetric, a cycle is refused and named. Claiming (setting owner)
// is one compare-and-set, so two agents (or processes) never both win a task, and a claim
// carries a lease: an owner that stops renewing it (it died) loses the task, which goes
// back to pending with a note.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s10_tasks "plan a schema migration"
//
// Without a key a scripted lead plans three tasks (and tries a cycle), a scripted worker
// sharing the list claims what is ready and completes it, and a second worker that claims
// and then goes silent loses its claim once its lease runs out (on an injected clock).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/sqlitestore"
	"github.com/ouroagent/ouro/tool"
)

func main() {
	dir, err := os.MkdirTemp("", "ouro-s10-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store, err := sqlitestore.Open(filepath.Join(dir, "state.db"), sqlitestore.Options{})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	board := func(holder string) *task.Board {
		return task.NewBoard(task.Config{Store: store, List: "migration", Holder: holder, Lease: time.Minute, Now: clock})
	}

	var lead llm.Provider = scripted.New(&scripted.Script{Turns: leadScript()})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		lead = p
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Plan the schema migration as tasks."
	}
	run("lead", lead, board("lead"), prompt)
	run("worker-1", scripted.New(&scripted.Script{Turns: workerScript()}), board("worker-1"), "Take the next ready task and do it.")

	// worker-2 claims #2 and then goes silent: nobody renews its lease.
	w2 := board("worker-2")
	owner := "worker-2"
	if _, err := w2.Update(ctx, "2", task.Update{Owner: &owner}); err != nil {
		panic(err)
	}
	fmt.Printf("── worker-2 claimed #2, then stopped renewing its lease\n")
	now = now.Add(2 * time.Minute)
	all, err := board("lead").All(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Printf("── two minutes later, the list:\n%s\n", indent(task.Lines(all)))
	t2, _ := board("lead").Get(ctx, "2")
	fmt.Printf("── #2's note: %s\n", t2.Note)
}

// run plays one agent on the shared list with the four task tools.
func run(name string, model llm.Provider, b *task.Board, prompt string) {
	reg := tool.NewRegistry(task.NewTools(task.NewLazy(func() (*task.Board, error) { return b, nil }))...)
	a, err := agent.New(agent.Config{Provider: model, Model: llm.DefaultModel, Tools: reg,
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("── %s: %s %s (error=%v)\n%s\n", name, e.Call.Name, e.Call.Input, e.Result.IsError, indent(e.Result.ResultText()))
			}
		}}})
	if err != nil {
		panic(err)
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s: %s\n[%s after %d turns]\n", name, out.Result, out.Status, out.Turns)
}

func indent(s string) string { return "   " + strings.ReplaceAll(s, "\n", "\n   ") }

func call(name string, in any) scripted.ToolCall {
	b, _ := json.Marshal(in)
	return scripted.ToolCall{Name: name, Input: b}
}

func leadScript() []scripted.Turn {
	create := func(s, form string) scripted.ToolCall {
		return call("TaskCreate", map[string]string{"subject": s, "description": s + ", and check it", "activeForm": form})
	}
	return []scripted.Turn{
		{Text: "Three steps, in order.", ToolCalls: []scripted.ToolCall{
			create("Design the schema", "Designing the schema"),
			create("Write the migration", "Writing the migration"),
			create("Update the docs", "Updating the docs")}},
		{ToolCalls: []scripted.ToolCall{
			call("TaskUpdate", map[string]any{"taskId": "2", "addBlockedBy": []string{"1"}}),
			call("TaskUpdate", map[string]any{"taskId": "3", "addBlockedBy": []string{"2"}})}},
		{Text: "Docs first would be nice too…", ToolCalls: []scripted.ToolCall{call("TaskUpdate", map[string]any{"taskId": "1", "addBlockedBy": []string{"3"}})}},
		{ExpectContains: "would make a cycle", ToolCalls: []scripted.ToolCall{call("TaskList", map[string]any{})}},
		{Text: "(scripted) Planned: #1, then #2, then #3."},
	}
}

func workerScript() []scripted.Turn {
	return []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("TaskUpdate", map[string]string{"taskId": "2", "owner": "worker-1"})}},
		{ExpectContains: "blocked by #1", ToolCalls: []scripted.ToolCall{call("TaskUpdate", map[string]string{"taskId": "1", "owner": "worker-1", "status": "in_progress"})}},
		{ToolCalls: []scripted.ToolCall{call("TaskUpdate", map[string]string{"taskId": "1", "status": "completed"})}},
		{ExpectContains: "Unblocked: #2", Text: "(scripted) #1 is done; #2 is ready for whoever is free."},
	}
}
