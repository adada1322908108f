package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/ui"
)

// demoScript is the scripted model of `ouro demo`. Each turn after the first checks that
// the real output of the previous command reached the model (expect_contains), so the
// demo fails loudly if the loop stops carrying tool results back.
func demoScript() *scripted.Script {
	bash := func(cmd, desc string) []scripted.ToolCall {
		in, _ := json.Marshal(map[string]string{"command": cmd, "description": desc})
		return []scripted.ToolCall{{Name: "Bash", Input: in}}
	}
	return &scripted.Script{Turns: []scripted.Turn{
		{Text: "I'll start by looking at what is in the directory.", ToolCalls: bash("ls", "List the files")},
		{ExpectContains: "notes.md", Text: "Now I'll search the files for TODO markers.", ToolCalls: bash("grep -rn TODO . | sort", "Find TODO markers")},
		{ExpectContains: "main.go:", Text: "Four matches. I'll record the count in a file and read it back.", ToolCalls: bash("grep -rn TODO . | wc -l | tr -d ' ' > todo-count.txt && cat todo-count.txt", "Write the count")},
		{ExpectContains: "4", Text: "There are 4 TODOs: 3 in notes.md and 1 in main.go. The count is in todo-count.txt."},
	}}
}

func newDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Watch the agent loop work with a scripted model (no API key, no network)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			dir, err := os.MkdirTemp("", "ouro-demo-")
			if err != nil {
				return err
			}
			work := filepath.Join(dir, "project")
			files := map[string]string{
				"notes.md": "# Notes\n- TODO: write the README\n- TODO: add tests\n- TODO: tag a release\n",
				"main.go":  "package main\n\n// TODO: handle errors\nfunc main() {}\n",
			}
			if err := os.MkdirAll(work, 0o755); err != nil {
				return err
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(w, `ouro demo
=========
The model in this demo is SCRIPTED: its answers were written in advance, so no API key
and no network are needed. Everything else is real: the agent loop, the Bash tool that
runs each command in %s, and the transcript on disk.

Task given to the model: "How many TODOs are in this project? Write the count to a file."
`, work)
			traj := &ui.Trajectory{W: w}
			sess, err := harness.Open(harness.Options{
				Provider: scripted.New(demoScript()), Model: "scripted-demo",
				CWD: work, Home: filepath.Join(dir, "ouro-home"), Version: version,
				Observers: []agent.Observer{traj.Observe}, Warn: cmd.ErrOrStderr(),
			})
			if err != nil {
				return err
			}
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			o := sess.Run(ctx, "How many TODOs are in this project? Write the count to a file.")
			if err := sess.Close(); err != nil {
				return err
			}
			fmt.Fprintf(w, "\nFinal answer: %s\n", o.Result)
			if o.Status != agent.StatusCompleted {
				return fmt.Errorf("the demo run ended %s: %s", o.Status, o.Reason)
			}
			count, err := os.ReadFile(filepath.Join(work, "todo-count.txt"))
			if err != nil {
				return fmt.Errorf("the demo's command should have written todo-count.txt: %w", err)
			}
			fmt.Fprintf(w, `
What happened: the model never ran anything itself. Each turn it returned tool_use
blocks; ouro ran them and sent the output back as tool_result blocks with the same
tool_use_id; the model stopped when it asked for no tool (stop_reason "end_turn").
The command's side effect is real: %s contains %q.
Transcript (one JSON line per message): %s

Next: ANTHROPIC_API_KEY=... ouro   (or ouro -p "your task")
`, filepath.Join(work, "todo-count.txt"), strings.TrimSpace(string(count)), sess.TranscriptPath())
			return nil
		},
	}
}
