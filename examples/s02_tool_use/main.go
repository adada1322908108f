// s02: tools as a dispatch table. The loop is unchanged from s01; what grows is the
// registry: each tool declares a name, a description and a JSON schema; the registry
// validates every input against it, dispatches by name, and keeps every path inside the
// workspace. Calls that only read run at the same time.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s02_tool_use "which files mention TODO?"
//
// Without a key it plays a scripted model that globs, then reads two files at once, then
// makes one invalid call to show the error the model gets back.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
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
		tools.NewBash(tools.BashConfig{Dir: ws.CWD()}),
		tools.NewGlob(ws), tools.NewGrep(ws), tools.NewLS(ws),
		tools.NewRead(ws, files), tools.NewEdit(ws, files), tools.NewWrite(ws, files),
	)

	var model llm.Provider = scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Glob", Input: []byte(`{"pattern":"examples/*/main.go"}`)}}},
		{ToolCalls: []scripted.ToolCall{
			{Name: "Read", Input: []byte(`{"file_path":"go.mod","limit":5}`)},
			{Name: "Grep", Input: []byte(`{"pattern":"registry","output_mode":"count"}`)},
		}},
		{ToolCalls: []scripted.ToolCall{{Name: "Read", Input: []byte(`{"file_path":"/etc/passwd","limit":"ten"}`)}}},
		{Text: "(scripted) Two reads ran together; the last call was refused with a reason."},
	}})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}

	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel, Tools: registry,
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("── %s %s (error=%v)\n%s\n", e.Call.Name, e.Call.Input, e.Result.IsError, e.Result.ResultText())
			}
		}},
	})
	if err != nil {
		panic(err)
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "What is in this directory?"
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n", out.Result, out.Status, out.Turns)
}
