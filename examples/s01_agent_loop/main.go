// s01: the agent loop with one tool, Bash. The model proposes commands; the loop runs
// them and sends each output back as a tool_result until the model stops asking.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s01_agent_loop "what is in this directory?"
//
// Without a key it plays a two-turn scripted model, so it runs anywhere.
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
)

func main() {
	var model llm.Provider = scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: []byte(`{"command":"ls"}`)}}},
		{Text: "(scripted) Those are the files here."},
	}})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	a, err := agent.New(agent.Config{
		Provider: model,
		Model:    llm.DefaultModel,
		Tools:    tool.NewRegistry(tools.NewBash(tools.BashConfig{Dir: "."})),
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("$ %s\n%s\n", e.Call.Input, e.Result.ResultText())
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
