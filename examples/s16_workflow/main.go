// s16: workflows. Control flow moves out of the model into a script: review.js (Claude
// Code's workflow format) fans a review out over several dimensions with pipeline(), then
// verifies every finding with parallel() agents whose answers must fit a JSON schema.
// Each agent() call is a subagent; each is journaled, so a second run that resumes the
// first answers every call from the journal without a single model call.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s16_workflow
//
// Without a key it plays a scripted model whose every agent answers the same verdict.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/engine"
	"github.com/ouroagent/ouro/workspace"
)

//go:embed review.js
var review string

func main() {
	ws, err := workspace.New(".")
	if err != nil {
		panic(err)
	}
	files := tools.NewFileState()
	registry := tool.NewRegistry(tools.NewGlob(ws), tools.NewGrep(ws), tools.NewRead(ws, files))

	turns := make([]scripted.Turn, 6)
	for i := range turns {
		turns[i] = scripted.Turn{Text: `{"valid": true, "reason": "(scripted) the finding holds"}`}
	}
	sp := scripted.New(&scripted.Script{Turns: turns})
	var provider llm.Provider = sp
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		provider = p
	}
	task, _ := subagent.NewTool(subagent.Config{Provider: provider, Model: llm.DefaultModel, Tools: registry,
		BaseSystem: "<env>\nWorking directory: " + ws.CWD() + "\nTools: Glob, Grep, Read\n</env>"})
	runner := workflow.RunnerFunc(func(ctx context.Context, prompt string, o workflow.AgentOptions) (string, llm.Usage, error) {
		return task.RunDirect(ctx, subagent.Direct{AgentType: o.AgentType, Model: o.Model, Description: o.Label, MaxTokens: o.MaxTokens}, prompt, nil)
	})
	var mu sync.Mutex
	observe := func(e workflow.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case "phase":
			fmt.Printf("== %s\n", e.Label)
		case "log":
			fmt.Printf("   log: %s\n", e.Label)
		}
	}
	store := workflow.NewMemStore() // a session uses state.db, in ouro's workflow engine process
	args := []byte(`{"dimensions": ["correctness", "security", "tests"]}`)
	res, err := engine.Run(context.Background(), workflow.Script{Name: "review", Source: review},
		workflow.Options{Runner: runner, Store: store, Args: args, Observe: observe})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("result: %s\n[%s: %d agents, %d replayed]\n", res.Value, res.Status, res.Agents, res.Replayed)

	before := len(sp.Requests())
	again, err := engine.Run(context.Background(), workflow.Script{Name: "review", Source: review},
		workflow.Options{Runner: runner, Store: store, Args: args, Resume: res.RunID})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("[resumed %s: %d agents, %d replayed, %d model calls, same result: %v]\n", again.Status, again.Agents, again.Replayed,
		len(sp.Requests())-before, string(again.Value) == string(res.Value))

	_, err = engine.Run(context.Background(), workflow.Script{Source: strings.Replace(review, "export const meta = {", "export const meta = { date: Date.now(),", 1)},
		workflow.Options{Runner: runner})
	fmt.Printf("a meta that calls something: %v\n", err)
}
