package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/wfproc"
	"github.com/ouroagent/ouro/workspace"
)

// workflows is the Workflow tool, offered only when the user opted in (--workflows or
// "workflows": true in their own settings), because a workflow can spend a lot. Each
// agent() call is a subagent under the session's permissions; the journal lives in
// state.db. Scripts run in the ouro-workflow helper (wfproc), so neither the JavaScript
// engine nor SQLite is linked into ouro.
type workflows struct {
	tool   *workflow.Tool
	runner workflow.Runner
	part   mechanism.Part
}

// WorkflowRunner runs a workflow's agent() calls as subagents of this session (its
// permissions, tools and hooks); nil when the session was opened without
// Access.Workflows.
func (s *Session) WorkflowRunner() workflow.Runner {
	if s.workflows == nil {
		return nil
	}
	return s.workflows.runner
}

func openWorkflows(opts Options, d dirs, store string, ws *workspace.Workspace, tr *transcript, sub subagents, warn io.Writer) *workflows {
	if !opts.Access.Workflows {
		return nil
	}
	bin, err := wfproc.Locate()
	if err != nil {
		fmt.Fprintf(warn, "ouro: the Workflow tool is not offered: %v\n", err)
		return nil
	}
	task := sub.task
	runner := workflow.RunnerFunc(func(ctx context.Context, prompt string, o workflow.AgentOptions) (string, llm.Usage, error) {
		return task.RunDirect(ctx, subagent.Direct{AgentType: o.AgentType, Model: o.Model, Description: o.Label, MaxTokens: o.MaxTokens, Isolation: o.Isolation}, prompt, nil)
	})
	headless := opts.UI.Wake == nil
	t := workflow.NewTool(workflow.ToolConfig{
		CWD: d.cwd, Within: ws.Contains, SaveDir: filepath.Join(tr.w.Dir(), "workflows"),
		Runner: runner, Budget: opts.Limits.MaxTokens, HoldForStop: headless,
		Engine: wfproc.Client{Bin: bin, StatePath: JournalLocation(store, d.home), CWD: d.cwd},
		Warn:   func(s string) { fmt.Fprintf(warn, "ouro: %s\n", s) },
	})
	part := mechanism.Part{Name: "workflows", Tools: []tool.Tool{t}}
	if headless {
		// A headless run does not end while its workflows run: the stop waits and hands
		// the model their notifications.
		part.BeforeStop = []agent.BeforeStop{t}
	}
	return &workflows{tool: t, runner: runner, part: part}
}

// WorkflowProgress says how this session's workflow runs are going (the REPL's /workflows).
func (s *Session) WorkflowProgress() string {
	if s.workflows == nil {
		return "Workflows are not offered in this session: start ouro with --workflows (or set \"workflows\": true in your own settings)."
	}
	return s.workflows.tool.Render()
}

func (w *workflows) close() {
	if w != nil {
		w.tool.Close()
	}
}
