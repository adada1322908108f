// s08: compaction keeps a long session inside the context window. The Compactor sits on
// the BeforeModel seam: it estimates the context in use from the previous call's usage,
// and past 80% of the window it first clears old tool results (each becomes a one-line
// pointer to the transcript), then, if that is not enough, has the model summarize the
// session and restarts the history from the summary, the todo list and the latest
// exchange. /compact [focus] does the summary on demand.
//
//	go run ./examples/s08_compact
//
// It plays a scripted model that reads 40 large files in a 30k-token window, then
// compacts by hand with a focus.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/compact"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
)

// readTool pretends every file is 12,000 characters long.
type readTool struct{}

func (readTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Read", Description: "Read a file.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)}
}
func (readTool) ReadOnly() bool { return true }
func (readTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	var v struct {
		FilePath string `json:"file_path"`
	}
	if err := json.Unmarshal(x.Input, &v); err != nil {
		return tool.Result{}, err
	}
	return tool.Text("// " + v.FilePath + "\n" + strings.Repeat("func f() {}\n", 1000)), nil
}

func main() {
	const files = 40
	var turns []scripted.Turn
	for i := range files {
		turns = append(turns, scripted.Turn{Text: fmt.Sprintf("Reading file %d.", i+1),
			ToolCalls: []scripted.ToolCall{{Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"pkg/part%02d.go"}`, i+1))}}})
	}
	turns = append(turns, scripted.Turn{Text: "I read all 40 files; each defines f."})
	model := scripted.New(&scripted.Script{Turns: turns})

	var sums []scripted.Turn
	for range 20 {
		sums = append(sums, scripted.Turn{Text: "Goal: read every file under pkg/. Files: pkg/part01.go onwards, all read, unchanged. Errors: none. Open items: read the rest, then report."})
	}
	summarizer := scripted.New(&scripted.Script{Turns: sums})

	list := todo.NewList()
	comp := compact.New(compact.Config{
		Provider: summarizer, Model: "scripted", Window: 30_000,
		TranscriptPath: "~/.ouro/projects/demo/session.jsonl",
		Restore: func() []llm.Block {
			if s := list.Snapshot(); s != "" {
				return []llm.Block{llm.TextBlock(s)}
			}
			return nil
		},
		OnCompact: func(e compact.Event) {
			fmt.Printf("── compaction (%s, %s): ~%d → ~%d tokens", e.Trigger, e.Layer, e.Before, e.After)
			if e.Cleared > 0 {
				fmt.Printf(", %d results cleared", e.Cleared)
			}
			fmt.Printf(", %d messages\n", len(e.Messages))
		},
	})
	reg := tool.NewRegistry(readTool{})
	reg.SetOptions(tool.Options{OutputBudget: -1})
	a, err := agent.New(agent.Config{Provider: model, Model: "scripted", Tools: reg, BeforeModel: []agent.BeforeModel{comp}})
	if err != nil {
		panic(err)
	}
	conv := &agent.Conversation{}
	out := a.Run(context.Background(), conv, llm.TextBlock("Read every file under pkg/ and tell me what they define."))
	fmt.Printf("%s\n[%s after %d turns; peak ~%d tokens of a %d-token window]\n", out.Result, out.Status, out.Turns, comp.Peak(), comp.Config().Window)

	fmt.Println("── /compact what each file defines")
	if err := comp.Compact(context.Background(), conv, "what each file defines"); err != nil {
		panic(err)
	}
	fmt.Printf("history now %d messages; the first begins:\n%.200s…\n", len(conv.Messages), conv.Messages[0].Text())
}
