package team_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// ready answers every request with a short text: a teammate that joins and goes idle.
type ready struct{}

func (ready) Name() string { return "scripted" }
func (ready) Complete(ctx context.Context, req *llm.Request, _ llm.StreamFunc) (*llm.Response, error) {
	msg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("ready")}}
	return &llm.Response{Message: msg, StopReason: llm.StopEndTurn, Usage: scripted.EstimateUsage(req, msg)}, nil
}

// BenchmarkTeammates64 spawns 64 teammates, has each answer its first prompt and a
// message from the lead, and shuts the team down: the cost of a team's members (compare
// 64 parallel subagents, about 0.24 s and 46 MB).
func BenchmarkTeammates64(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		mail, tasks := mailbox.NewMemStore(), task.NewMemStore()
		agents, _ := subagent.NewTool(subagent.Config{Provider: ready{}, Model: "scripted", Tools: tool.NewRegistry()})
		tm := team.New(team.Config{Name: "bench", Holder: "lead", Agents: agents, Poll: 50 * time.Millisecond,
			Open: func() (mailbox.Store, task.Store, time.Duration, error) { return mail, tasks, time.Minute, nil }})
		agents.SetSpawner(tm)
		ctx := context.Background()
		for i := range 64 {
			in, _ := json.Marshal(map[string]any{"description": "d", "prompt": "join", "subagent_type": "general-purpose", "run_in_background": true, "name": fmt.Sprintf("w%d", i)})
			if res, _ := agents.Run(ctx, tool.NewExec(tool.Call{ID: fmt.Sprint(i), Name: "Agent", Input: in}, nil, nil)); res.IsError {
				b.Fatal(res.Text())
			}
		}
		for i := range 64 {
			if _, err := tm.Send(ctx, mailbox.Message{From: team.Lead, To: fmt.Sprintf("w%d", i), Text: "hello"}); err != nil {
				b.Fatal(err)
			}
		}
		for {
			done := true
			for i := range 64 {
				if p, _ := mail.Pending(ctx, "bench", fmt.Sprintf("w%d", i)); len(p) > 0 {
					done = false
				}
			}
			idle := true
			for _, m := range tm.Snapshot().Members {
				if m.Status != team.StatusIdle {
					idle = false
				}
			}
			if done && idle {
				break
			}
			time.Sleep(time.Millisecond)
		}
		tm.Close()
	}
}
