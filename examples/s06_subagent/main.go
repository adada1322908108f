// s06: delegation. The Task tool (alias Agent) starts a child agent with fresh messages,
// its own system prompt and a subset of the parent's tools, under the parent's permission
// gates; only the child's final text (and one usage line) comes back as the tool result,
// so the parent's context stays small. Explore children only read, so two Task calls in
// one turn run concurrently through the loop's dispatch. Each child's transcript is kept
// in a subagents/ folder, and its events are tagged with the Task call's tool_use_id.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s06_subagent "how do tools and the loop fit together?"
//
// Without a key it plays scripted models: a parent that delegates two Explore tasks in one
// turn, and two children that each search and then report.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

func main() {
	ws, err := workspace.New(".")
	if err != nil {
		panic(err)
	}
	files := tools.NewFileState()
	registry := tool.NewRegistry(
		tools.NewGlob(ws), tools.NewGrep(ws), tools.NewLS(ws), tools.NewRead(ws, files),
	)

	var parent, children llm.Provider = scripted.New(&scripted.Script{Turns: parentScript()}), childScripts()
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		parent, children = p, p
	}

	dir, err := os.MkdirTemp("", "ouro-s06-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	var mu sync.Mutex
	task, _ := subagent.NewTool(subagent.Config{
		Provider: children, Model: llm.DefaultModel, Tools: registry,
		BaseSystem:    "<env>\nWorking directory: " + ws.CWD() + "\nTools: Glob, Grep, LS, Read, Task\n</env>",
		TranscriptDir: filepath.Join(dir, "subagents"),
		Observer: func(parentID string, e agent.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Type {
			case agent.EventToolStart:
				fmt.Printf("   [%s] +%-6s child calls %s %s\n", parentID, ms(start), e.Call.Name, e.Call.Input)
			case agent.EventOutcome:
				fmt.Printf("   [%s] +%-6s child %s after %d turns\n", parentID, ms(start), e.Outcome.Status, e.Outcome.Turns)
			}
		},
	})
	if err := registry.Add(task); err != nil {
		panic(err)
	}

	a, err := agent.New(agent.Config{
		Provider: parent, Model: llm.DefaultModel, Tools: registry,
		System: "You are ouro. Delegate searches to Explore agents with the Task tool; several at once when they are independent.",
		Observers: []agent.Observer{func(e agent.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Type {
			case agent.EventToolStart:
				fmt.Printf("── +%-6s parent starts %s %s\n", ms(start), e.Call.Name, e.Call.ID)
			case agent.EventToolEnd:
				fmt.Printf("── +%-6s parent receives the result of %s:\n%s\n", ms(start), e.Call.ID, indent(e.Result.ResultText()))
			}
		}},
	})
	if err != nil {
		panic(err)
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Where are tools registered, and where does the loop dispatch calls?"
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	u, cost := task.Usage()
	fmt.Printf("%s\n[%s after %d turns; parent %d tokens, children %d tokens ($%.4f)]\n",
		out.Result, out.Status, out.Turns, out.Usage.Total(), u.Total(), cost)
	names, _ := filepath.Glob(filepath.Join(dir, "subagents", "*.jsonl"))
	for _, n := range names {
		fmt.Println("child transcript:", filepath.Base(n))
	}
}

func ms(since time.Time) string { return fmt.Sprintf("%dms", time.Since(since).Milliseconds()) }

func indent(s string) string { return "   " + strings.ReplaceAll(s, "\n", "\n   ") }

func explore(prompt string) scripted.ToolCall {
	b, _ := json.Marshal(map[string]string{"description": "find " + prompt, "prompt": "Find " + prompt + ". Answer with file:line.", "subagent_type": subagent.Explore})
	return scripted.ToolCall{Name: subagent.TaskName, Input: b}
}

func parentScript() []scripted.Turn {
	return []scripted.Turn{
		{Text: "Two independent searches; I'll delegate both at once.", ToolCalls: []scripted.ToolCall{
			explore("where tools are registered"), explore("where the loop dispatches tool calls"),
		}},
		{ExpectContains: "[subagent Explore:", Text: "(scripted) Tools are registered in tool.NewRegistry (tool/tool.go) and dispatched by agent/dispatch.go; both answers came from Explore agents running side by side."},
	}
}

// childScripts routes each child's requests to its own script by the child's prompt, so
// the two concurrent children each follow their own story.
func childScripts() llm.Provider {
	return &byPrompt{routes: map[string]*scripted.Provider{
		"registered": scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{ToolCalls: []scripted.ToolCall{{Name: "Grep", Input: json.RawMessage(`{"pattern":"func NewRegistry","output_mode":"content","-n":true}`)}}},
			{Text: "(scripted) Tools are registered with tool.NewRegistry / Registry.Add in tool/tool.go."},
		}}),
		"dispatches": scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{ToolCalls: []scripted.ToolCall{{Name: "Grep", Input: json.RawMessage(`{"pattern":"func \\(r \\*run\\) dispatch","output_mode":"files_with_matches"}`)}}},
			{Text: "(scripted) The loop dispatches calls in agent/dispatch.go (run.dispatch), read-only runs concurrently."},
		}}),
	}}
}

type byPrompt struct{ routes map[string]*scripted.Provider }

func (b *byPrompt) Name() string { return "scripted" }

func (b *byPrompt) Complete(ctx context.Context, req *llm.Request, on llm.StreamFunc) (*llm.Response, error) {
	first := ""
	if len(req.Messages) > 0 {
		first = req.Messages[0].Text()
	}
	for key, p := range b.routes {
		if strings.Contains(first, key) {
			return p.Complete(ctx, req, on)
		}
	}
	return nil, fmt.Errorf("no child script for %q", first)
}
