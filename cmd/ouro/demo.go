package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/ui"
)

// The demo task, after the trajectory in section 6 of the seed document: a duration
// parser that drops the hours, and a test that says so.
var demoFiles = map[string]string{
	"go.mod": "module example.com/duration\n\ngo 1.21\n",
	"duration.go": `package duration

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseDuration returns the number of minutes in a duration such as "1h30m", "2h" or "45m".
func ParseDuration(s string) (int, error) {
	hours, minutes := 0, 0
	if h, rest, ok := strings.Cut(s, "h"); ok {
		n, err := strconv.Atoi(h)
		if err != nil {
			return 0, fmt.Errorf("bad hours in %q: %w", s, err)
		}
		hours, s = n, rest
	}
	if m, ok := strings.CutSuffix(s, "m"); ok {
		n, err := strconv.Atoi(m)
		if err != nil {
			return 0, fmt.Errorf("bad minutes in %q: %w", s, err)
		}
		minutes = n
	}
	return minutes, nil
}
`,
	"duration_test.go": `package duration

import "testing"

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]int{"1h30m": 90, "2h": 120, "45m": 45} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
`,
}

const demoPrompt = `Fix ParseDuration so that "1h30m" gives 90. Do not change the test; run the tests before you finish.`

// demoScript is the scripted model of ` + "`ouro demo`" + `. Each turn after the first checks that
// the real output of the previous calls reached the model (expect_contains), so the demo
// fails loudly if the loop stops carrying tool results back.
func demoScript(dir string) *scripted.Script {
	call := func(name string, input map[string]any) scripted.ToolCall {
		in, _ := json.Marshal(input)
		return scripted.ToolCall{Name: name, Input: in}
	}
	file := func(name string) string { return filepath.Join(dir, name) }
	return &scripted.Script{Turns: []scripted.Turn{
		{Text: "I'll find the Go files first.",
			ToolCalls: []scripted.ToolCall{call("Glob", map[string]any{"pattern": "**/*.go"})}},
		{ExpectContains: "duration_test.go", Text: "Reading the code and its test together.",
			ToolCalls: []scripted.ToolCall{
				call("Read", map[string]any{"file_path": file("duration.go")}),
				call("Read", map[string]any{"file_path": file("duration_test.go")}),
			}},
		{ExpectContains: "return minutes, nil", Text: "ParseDuration parses the hours but returns only the minutes. Fixing the return.",
			ToolCalls: []scripted.ToolCall{call("Edit", map[string]any{
				"file_path": file("duration.go"), "old_string": "return minutes, nil", "new_string": "return hours*60 + minutes, nil"})}},
		{ExpectContains: "hours*60 + minutes", Text: "Now the tests.",
			ToolCalls: []scripted.ToolCall{call("Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})}},
		{ExpectContains: "ok  \texample.com/duration",
			Text: "Fixed: ParseDuration parsed the hours but returned only the minutes; it now returns hours*60 + minutes. `go test ./...` passes, and the test file is unchanged."},
	}}
}

func newDemoCmd() *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch the agent loop fix a bug with a scripted model (no API key, no network)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			if _, err := exec.LookPath("go"); err != nil {
				return fmt.Errorf("the demo runs go test on a small Go package, so it needs the go command on PATH")
			}
			dir, err := os.MkdirTemp("", "ouro-demo-")
			if err != nil {
				return err
			}
			if !keep {
				defer os.RemoveAll(dir) // nothing is left behind unless asked for
			}
			work := filepath.Join(dir, "duration")
			if err := os.MkdirAll(work, 0o755); err != nil {
				return err
			}
			for name, body := range demoFiles {
				if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(w, `ouro demo
=========
The model in this demo is SCRIPTED: its answers were written in advance, so no API key
and no network are needed. Everything else is real: the agent loop, the tools (Glob,
Read, Edit, Bash) acting on the files in %s,
the test run, and the transcript on disk.

Permissions: mode acceptEdits (edits inside the project need no approval) and the rule
Bash(go test *); any other write or command would be denied, since nobody is asked.

Task given to the model: %q
`, work, demoPrompt)
			traj := &ui.Trajectory{W: w, Width: 1500}
			var lastBash string
			sess, err := harness.Open(harness.Options{
				Model: harness.ModelOptions{Name: "scripted-demo", Provider: scripted.New(demoScript(work))},
				Dirs:  harness.Dirs{CWD: work, Home: filepath.Join(dir, "ouro-home")},
				// Headless, as a script is: edits inside the project are accepted, and the
				// one command the task needs is allowed by rule; anything else would be denied.
				Access: harness.Access{Mode: "acceptEdits", Allow: []string{"Bash(go test *)"}, SandboxLauncher: true},
				UI: harness.UI{Observers: []agent.Observer{traj.Observe, func(e agent.Event) {
					if e.Type == agent.EventToolEnd && e.Call.Name == "Bash" {
						lastBash = strings.TrimSpace(e.Result.ResultText())
					}
				}}, Warn: cmd.ErrOrStderr()},
				Version: version,
			})
			if err != nil {
				return err
			}
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			o := sess.Run(ctx, demoPrompt)
			if err := sess.Close(); err != nil {
				return err
			}
			fmt.Fprintf(w, "\nFinal answer: %s\n", o.Result)
			if o.Status != agent.StatusCompleted {
				return fmt.Errorf("the demo run ended %s: %s", o.Status, o.Reason)
			}
			fmt.Fprintf(w, `
What happened: the model never touched the files itself. Each turn it returned tool_use
blocks; ouro ran them (the two Reads at the same time, since both only read) and sent
each output back as a tool_result with the same tool_use_id; the model stopped when it
asked for no tool (stop_reason "end_turn").
The evidence that the fix works is the real test run, not the model's summary:
  $ go test ./...
  %s
%s
Next: ANTHROPIC_API_KEY=... ouro   (or ouro -p "your task")
`, strings.ReplaceAll(lastBash, "\n", "\n  "), demoFilesLine(keep, work, sess.TranscriptPath()))
			return nil
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the demo's project and transcript to look at afterwards (removed otherwise)")
	return cmd
}

// demoFilesLine says where the demo's files are, or that they were removed.
func demoFilesLine(keep bool, work, transcript string) string {
	if keep {
		return fmt.Sprintf("Files: %s   Transcript: %s\n", work, transcript)
	}
	return "The demo's files are removed when it ends; run ouro demo --keep to look at them and the transcript.\n"
}
