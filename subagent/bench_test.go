package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

// BenchmarkParallelSubagents64 is the brief's figure for cheap agents: one turn of the
// parent starts 64 Explore subagents at once; each makes a tool call and reports. It
// reports the time per round (the brief: 0.24 s today, Claude Code 3.6 s) and the peak Go
// heap in use during it (MB-peak; the process's RSS adds the runtime's baseline, ~46 MB
// in all today against Claude Code's 392 MB). Teammates, background and workflow agents
// are built from the same parts and should stay as cheap.
//
//	go test -run '^$' -bench ParallelSubagents64 -benchtime 5x ./subagent
func BenchmarkParallelSubagents64(b *testing.B) {
	const n = 64
	calls := make([]scripted.ToolCall, n)
	for i := range calls {
		in, _ := json.Marshal(map[string]string{"description": "look", "prompt": fmt.Sprintf("find part %d", i), "subagent_type": Explore})
		calls[i] = scripted.ToolCall{Name: TaskName, Input: in}
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parent := scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{Text: "Fanning out.", ToolCalls: calls},
			{Text: "All reported."},
		}})
		tools := tool.NewRegistry(&fakeTool{name: "Grep", readOnly: true})
		task, _ := NewTool(Config{
			Provider: parent, Model: "scripted", Tools: tools, TranscriptDir: filepath.Join(b.TempDir(), "subagents"),
			BaseSystem: "You are ouro.\n",
			ProviderFor: func(string, string) (llm.Provider, string) {
				return scripted.New(&scripted.Script{Turns: []scripted.Turn{
					{ToolCalls: []scripted.ToolCall{{Name: "Grep", Input: json.RawMessage(`{"pattern":"x"}`)}}},
					{Text: "FINAL: found it"},
				}}), "scripted"
			},
		})
		if err := tools.Add(task); err != nil {
			b.Fatal(err)
		}
		a, aerr := agent.New(agent.Config{Provider: parent, Model: "scripted", Tools: tools})
		if aerr != nil {
			b.Fatal(aerr)
		}
		conv := &agent.Conversation{}
		out := a.Run(context.Background(), conv, llm.TextBlock("go"))
		if !out.OK() || out.Result != "All reported." || len(conv.Messages[2].Content) != n {
			b.Fatalf("outcome %+v", out)
		}
		for _, r := range conv.Messages[2].Content {
			if r.IsError || !strings.HasPrefix(r.ResultText(), "FINAL: found it") {
				b.Fatalf("a subagent did not report: %q", r.ResultText())
			}
		}
	}
	b.StopTimer()
	close(stop)
	sampler.Wait()
	b.ReportMetric(float64(peak.Load())/(1<<20), "MB-peak")
}
