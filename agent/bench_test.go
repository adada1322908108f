package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// instant is a zero-latency model: it calls Echo until n calls were made, then stops.
type instant struct{ n, i int }

func (p *instant) Name() string { return "instant" }
func (p *instant) Complete(_ context.Context, req *llm.Request, _ llm.StreamFunc) (*llm.Response, error) {
	p.i++
	msg := llm.Message{Role: llm.RoleAssistant}
	stop := llm.StopEndTurn
	if p.i < p.n {
		msg.Content = []llm.Block{llm.ToolUseBlock("toolu_"+itoa(p.i), "Echo", json.RawMessage(`{"x":1}`))}
		stop = llm.StopToolUse
	} else {
		msg.Content = []llm.Block{llm.TextBlock("done")}
	}
	return &llm.Response{Message: msg, StopReason: stop, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

func itoa(i int) string {
	b := []byte{}
	for i > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// BenchmarkLoopTurn measures the loop's own overhead per turn (one model call plus one
// tool call and its result) with a model and a tool that cost nothing. Target: < 100 µs.
func BenchmarkLoopTurn(b *testing.B) {
	reg := tool.NewRegistry(&fakeTool{name: "Echo", readOnly: true, run: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("ok"), nil
	}})
	p := &instant{n: b.N}
	a, err := agent.New(agent.Config{Provider: p, Model: "claude-sonnet-5-5", Tools: reg, Observers: []agent.Observer{func(agent.Event) {}}})
	if err != nil {
		b.Fatal(err)
	}
	conv := &agent.Conversation{}
	b.ReportAllocs()
	b.ResetTimer()
	out := a.Run(context.Background(), conv, llm.TextBlock("go"))
	b.StopTimer()
	if !out.OK() || out.Turns != b.N {
		b.Fatalf("outcome = %+v", out)
	}
}
