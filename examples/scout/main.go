// scout: the seed's first project, the smallest readable read-only agent: three tools
// (Glob, Grep, Read), the s01 loop, and four invariants held by code, not by the prompt.
// (1) Every tool_use gets its tool_result: the loop guarantees it, and main checks it at
// the end. (2) Every path stays inside the workspace: the tools resolve paths through it.
// (3) Turns, wall time and output length are bounded: agent.Limits and MaxOutput.
// (4) Every citation names lines this run saw: Evidence records what Read and Grep
// showed, and a BeforeStop seam sends the model back once over what it never saw.
//
//	ANTHROPIC_API_KEY=... go run ./examples/scout "where is the entry point?"
//
// With a key it surveys the current directory. Without one a scripted model surveys a
// small sample project (written to a temporary folder, so it runs from any directory):
// it cites a file it never read, is sent back, reads it, and answers again. `ouro scout`
// is the full version (plan mode, transcripts, --json).
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/scout"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// citeCheck is invariant 4: at the first stop, name the citations nothing backs.
type citeCheck struct {
	evidence *scout.Evidence
	exists   func(string) bool
	sent     bool
}

func (c *citeCheck) BeforeStop(_ context.Context, s *agent.Stop) agent.StopDecision {
	bad := c.evidence.Verify(scout.ParseReport(s.Final.Text(), c.exists))
	if len(bad) == 0 || c.sent {
		return agent.StopDecision{}
	}
	c.sent = true
	msg := "These citations name lines this run never saw; read them or drop them, then answer again:"
	for _, b := range bad {
		msg += fmt.Sprintf("\n- %s: %s", b.Raw, b.Problem)
	}
	fmt.Printf("── sent back: %s\n", msg)
	return agent.StopDecision{Continue: true, Message: msg}
}

// The sample project the scripted model surveys.
var sample = map[string]string{
	"go.mod": "module example.com/sample\n\ngo 1.22\n",
	"main.go": `package main

import "example.com/sample/loop"

func main() {
	loop.Run()
}
`,
	"loop/loop.go": `package loop

import "fmt"

// Run is the core loop: it works until there is nothing left to do.
func Run() {
	for i := 0; i < 3; i++ {
		fmt.Println("turn", i)
	}
}
`,
}

func main() {
	var model llm.Provider
	dir := "."
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	} else {
		tmp, err := os.MkdirTemp("", "ouro-scout-")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(tmp)
		for name, text := range sample {
			p := filepath.Join(tmp, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				panic(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				panic(err)
			}
		}
		dir = tmp
		answer := "## Entry points\n- `main.go:5` — func main.\n## Core modules\n- `loop/loop.go:6` — loop.Run, the core loop."
		model = scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{ToolCalls: []scripted.ToolCall{{Name: "Read", Input: []byte(`{"file_path":"main.go"}`)}}},
			{Text: answer},
			{ExpectContains: "loop/loop.go:6", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: []byte(`{"file_path":"loop/loop.go"}`)}}},
			{Text: answer},
		}})
	}

	ws, err := workspace.New(dir)
	if err != nil {
		panic(err)
	}
	registry := tool.NewRegistry(tools.NewGlob(ws), tools.NewGrep(ws), tools.NewRead(ws, tools.NewFileState()))
	evidence := scout.NewEvidence(ws)
	exists := func(rel string) bool {
		p, err := ws.Resolve(rel)
		st, serr := os.Stat(p)
		return err == nil && serr == nil && !st.IsDir()
	}

	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel, Tools: registry, MaxOutput: 4000,
		System: "You are a read-only repository scout. Every conclusion ends with a backticked `path:line` citation of a line you read in this run.",
		Limits: agent.Limits{MaxTurns: 20, MaxDuration: 5 * time.Minute},
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				evidence.Record(*e.Call, *e.Result)
				fmt.Printf("── %s %s\n", e.Call.Name, e.Call.Input)
			}
		}},
		BeforeStop: []agent.BeforeStop{&citeCheck{evidence: evidence, exists: exists}},
	})
	if err != nil {
		panic(err)
	}
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Where is this program's entry point, and where is its core loop?"
	}
	conv := &agent.Conversation{}
	out := a.Run(context.Background(), conv, llm.TextBlock(prompt))
	if err := llm.ValidateConversation(conv.Messages); err != nil {
		panic(err) // invariant 1 broken: a bug in the loop
	}
	fmt.Printf("%s\n[%s after %d turns]\n", out.Result, out.Status, out.Turns)
	for _, b := range evidence.Verify(scout.ParseReport(out.Result, exists)) {
		fmt.Printf("unverified: %s (%s)\n", b.Raw, b.Problem)
	}
}
