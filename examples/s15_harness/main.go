// s15: the integrated harness. Every mechanism of s01–s14 joins one session through
// harness.Open: the loop, the tools, the permission gate and the OS sandbox, hooks, the
// plan, subagents, skills, compaction, memory, the task list, background work, schedules,
// the team and MCP, each as a mechanism.Part that declares the phase its seams run in.
// What a caller writes is what it wants from the session, not how the parts fit.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s15_harness
//
// Without a key a scripted model keeps its work on the shared task list, writes a file
// (acceptEdits allows it), runs a command the rules allow and one they deny, and closes
// its task.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

func main() {
	sandbox.MaybeRunLauncher() // Bash runs in the OS sandbox, which re-executes this program
	dir, err := os.MkdirTemp("", "ouro-s15-")
	check(err)
	defer os.RemoveAll(dir)
	work := filepath.Join(dir, "project")
	check(os.MkdirAll(work, 0o755))

	model := harness.ModelOptions{Name: "scripted", Provider: scripted.New(&scripted.Script{Turns: script()})}
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = harness.ModelOptions{Name: llm.DefaultModel, Provider: p}
	}
	sess, err := harness.Open(harness.Options{
		Model: model,
		Dirs:  harness.Dirs{CWD: work, Home: filepath.Join(dir, "home")},
		// Headless: edits inside the project are accepted, `ls` is allowed by rule, and
		// what would ask is refused, since nobody is there to answer.
		Access: harness.Access{Mode: "acceptEdits", Allow: []string{"Bash(ls *)"}, Deny: []string{"Bash(rm *)"}, SandboxLauncher: true},
		UI: harness.UI{Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("── %s %s (error=%v)\n", e.Call.Name, e.Call.Input, e.Result.IsError)
				if e.Result.IsError {
					fmt.Printf("   %s\n", e.Result.ResultText())
				}
			}
		}}, Warn: os.Stderr},
	})
	check(err)
	o := sess.Run(context.Background(), "Start a NOTES.md for this project and plan the work.")
	check(sess.Close())

	fmt.Printf("\n%s\n[%s after %d turns]\n", o.Result, o.Status, o.Turns)
	data, _ := os.ReadFile(filepath.Join(work, "NOTES.md"))
	fmt.Printf("NOTES.md: %q\n", data)
	fmt.Printf("transcript: %s\naudit: %s\n", filepath.Base(sess.TranscriptPath()), filepath.Base(sess.AuditPath()))
}

func script() []scripted.Turn {
	call := func(name string, in any) scripted.Turn {
		b, _ := json.Marshal(in)
		return scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: name, Input: b}}}
	}
	return []scripted.Turn{
		call("TaskCreate", map[string]string{"subject": "Write NOTES.md", "description": "Start the project's notes."}),
		call("Write", map[string]string{"file_path": "NOTES.md", "content": "# Notes\n"}),
		call("Bash", map[string]string{"command": "ls -a"}),
		call("Bash", map[string]string{"command": "rm -rf ."}),
		call("TaskUpdate", map[string]string{"taskId": "1", "status": "completed"}),
		{Text: "(scripted) NOTES.md is written and its task completed."},
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
