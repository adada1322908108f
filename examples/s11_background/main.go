// s11: work that outlives a call. Bash with run_in_background starts the command as a
// task of the session's background.Manager and returns at once with the task's id and
// output file, so the model goes on working. When the command ends, the task hands one
// <task-notification> (Claude Code's shape) to Exec.Notify; the notify.Queue delivers it
// before the next model request. A model that stops while its tasks still run is held
// by mechanism.Waiter (a BeforeStop seam): it waits for a task to end and continues
// the run with the notification. Closing the manager kills whatever still runs, with
// every process it started.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s11_background "build in the background and read meanwhile"
//
// Without a key it plays a scripted model that starts a slow build in the background,
// reads something meanwhile, says it will wait, and reads the notification.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
)

func main() {
	dir, err := os.MkdirTemp("", "ouro-s11-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	outputs, err := os.MkdirTemp("", "ouro-s11-tasks-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(outputs)
	tasks := background.New(background.Config{Dir: outputs})
	defer func() {
		for _, i := range tasks.Close() {
			fmt.Printf("── stopped %s as the session ended\n", i.ID)
		}
	}()
	queue := &notify.Queue{}
	output, stop, _, _ := tasks.Tools()
	registry := tool.NewRegistry(tools.NewBash(tools.BashConfig{Dir: dir, Background: tasks}), output, stop)
	registry.SetOptions(tool.Options{Notify: queue})

	var model llm.Provider = scripted.New(&scripted.Script{Turns: script()})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	take := func() string {
		var texts []string
		for _, n := range queue.Take() {
			texts = append(texts, n.Text)
		}
		return strings.Join(texts, "\n\n")
	}
	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel, Tools: registry,
		BeforeModel: []agent.BeforeModel{queue},
		BeforeStop:  []agent.BeforeStop{announce{mechanism.Waiter{Manager: tasks, Take: take}}},
		Observers: []agent.Observer{func(e agent.Event) {
			switch {
			case e.Type == agent.EventToolEnd:
				fmt.Printf("── %s %s\n%s\n", e.Call.Name, e.Call.Input, indent(e.Result.ResultText()))
			case e.Type == agent.EventMessage && e.Message.Role == llm.RoleUser && strings.Contains(e.Message.Text(), "<task-notification>"):
				fmt.Printf("── notification, in the conversation before the next request:\n%s\n", indent(e.Message.Text()))
			}
		}},
	})
	if err != nil {
		panic(err)
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Run the slow build in the background and look at the files meanwhile."
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n", out.Result, out.Status, out.Turns)
	fmt.Println("── /tasks:\n" + indent(tasks.Render()))
}

// announce shows when the stop seam holds the run for a task.
type announce struct{ w mechanism.Waiter }

func (a announce) BeforeStop(ctx context.Context, s *agent.Stop) agent.StopDecision {
	if n := a.w.Manager.Running(); n > 0 {
		fmt.Printf("── the model stopped while %d task(s) run: waiting for them\n", n)
	}
	return a.w.BeforeStop(ctx, s)
}

func indent(s string) string { return "   " + strings.ReplaceAll(s, "\n", "\n   ") }

func bash(input map[string]any) scripted.Turn {
	in, _ := json.Marshal(input)
	return scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: in}}}
}

func script() []scripted.Turn {
	return []scripted.Turn{
		bash(map[string]any{"command": "sleep 1; echo compiled > build.log; echo build finished", "description": "Slow build", "run_in_background": true}),
		bash(map[string]any{"command": "echo meanwhile: nothing to read yet"}),
		{ExpectContains: "meanwhile", Text: "The build is still running; I will wait for it."},
		{ExpectContains: "<task-notification>", Text: "(scripted) The build finished while I looked around; its output says: build finished."},
	}
}
