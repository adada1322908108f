// s05: a plan the model keeps. TodoWrite holds the session's todo list (Claude Code's
// schema: content, status, activeForm); each call replaces the whole list, and invalid
// lists are refused with a reason. The list is session state, not history: the harness
// saves it with the transcript and restores it on resume. A reminder on the BeforeModel
// seam counts tool rounds since the last update; after three with items open, one short
// <system-reminder> rides along with the next tool results, for that request only.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s05_todo "add a --verbose flag and test it"
//
// Without a key it plays a scripted model that plans three items, works through them,
// tries an invalid list (two items in progress), drifts for three rounds without updating
// (and gets reminded), then completes the list.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

func main() {
	ws, err := workspace.New(".")
	if err != nil {
		panic(err)
	}
	list := todo.NewList()
	registry := tool.NewRegistry(
		todo.NewTool(list, func(items []todo.Item) {
			fmt.Printf("── todo list changed\n%s\n", indent(todo.Render(items)))
		}),
		tools.NewGlob(ws), tools.NewGrep(ws), tools.NewLS(ws),
	)
	reminder := todo.NewReminder(list, todo.DefaultReminderEvery)

	var model llm.Provider = scripted.New(&scripted.Script{Turns: script()})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}

	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel, Tools: registry,
		BeforeModel: []agent.BeforeModel{announce{reminder}},
		Observers: []agent.Observer{reminder.Observe, func(e agent.Event) {
			if e.Type == agent.EventToolEnd && e.Call.Name != todo.ToolName {
				fmt.Printf("── %s %s\n", e.Call.Name, e.Call.Input)
			}
			if e.Type == agent.EventToolEnd && e.Call.Name == todo.ToolName && e.Result.IsError {
				fmt.Printf("── TodoWrite refused:\n%s\n", indent(e.Result.ResultText()))
			}
		}},
	})
	if err != nil {
		panic(err)
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Find where the examples start their agents, then summarise."
	}
	conv := &agent.Conversation{}
	out := a.Run(context.Background(), conv, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n", out.Result, out.Status, out.Turns)

	// What the harness keeps in the transcript, and what resume restores.
	saved, _ := json.Marshal(list)
	resumed := todo.NewList()
	if err := resumed.Restore(saved); err != nil {
		panic(err)
	}
	fmt.Printf("saved: %s\nrestored (%d open):\n%s\n", saved, resumed.Open(), indent(resumed.Render()))
}

// announce wraps the reminder to print when it attaches one (the history never shows it).
type announce struct{ r *todo.Reminder }

func (a announce) BeforeModel(ctx context.Context, t *agent.Turn) error {
	before := a.r.Sent()
	err := a.r.BeforeModel(ctx, t)
	if a.r.Sent() > before {
		last := t.Req.Messages[len(t.Req.Messages)-1].Content
		fmt.Printf("── reminder attached to request %d (this request only):\n%s\n", t.Number, indent(last[len(last)-1].Text))
	}
	return err
}

func indent(s string) string { return "   " + strings.ReplaceAll(s, "\n", "\n   ") }

func todos(items ...todo.Item) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"todos": items})
	return b
}

func script() []scripted.Turn {
	find := todo.Item{Content: "Find the examples", ActiveForm: "Finding the examples"}
	grep := todo.Item{Content: "Find where agents are started", ActiveForm: "Searching for agent.New"}
	sum := todo.Item{Content: "Summarise", ActiveForm: "Summarising"}
	s := func(it todo.Item, st todo.Status) todo.Item { it.Status = st; return it }
	write := func(text string, items ...todo.Item) scripted.Turn {
		return scripted.Turn{Text: text, ToolCalls: []scripted.ToolCall{{Name: todo.ToolName, Input: todos(items...)}}}
	}
	call := func(name, input string) scripted.Turn {
		return scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: name, Input: json.RawMessage(input)}}}
	}
	return []scripted.Turn{
		write("Planning first.", s(find, todo.InProgress), s(grep, todo.Pending), s(sum, todo.Pending)),
		call("Glob", `{"pattern":"examples/*/main.go"}`),
		write("", s(find, todo.Completed), s(grep, todo.InProgress), s(sum, todo.InProgress)),
		{ExpectContains: "2 items are in_progress", ToolCalls: []scripted.ToolCall{{Name: todo.ToolName, Input: todos(s(find, todo.Completed), s(grep, todo.InProgress), s(sum, todo.Pending))}}},
		call("Grep", `{"pattern":"agent.New\\(","output_mode":"files_with_matches"}`),
		call("LS", `{"path":"examples"}`),
		call("Grep", `{"pattern":"Observers","output_mode":"count"}`),
		{ExpectContains: "has not been updated for 3 tool rounds", Text: "Right, the list is stale.",
			ToolCalls: []scripted.ToolCall{{Name: todo.ToolName, Input: todos(s(find, todo.Completed), s(grep, todo.Completed), s(sum, todo.InProgress))}}},
		write("", s(find, todo.Completed), s(grep, todo.Completed), s(sum, todo.Completed)),
		{Text: "(scripted) Every example builds its agent with agent.New and a registry; the plan was kept up to date, and the one stale stretch drew a reminder."},
	}
}
