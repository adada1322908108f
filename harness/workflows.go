package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/wfproc"
	"github.com/ouroagent/ouro/workspace"
)

// workflows is the Workflow tool. A workflow can spend a lot, so the tool is offered only
// when the user opted in: --workflows, "workflows": true in their own settings, naming it
// in --tools, or the word "workflow" in a prompt they typed (OfferWorkflows). Each
// agent() call is a subagent under the session's permissions; each run is a background
// task under its run id; the journal lives in state.db. Scripts run in the
// ouro-workflow helper (wfproc), so neither the JavaScript engine nor its reflection is
// linked into ouro.
type workflows struct {
	tool   *workflow.Tool
	runner workflow.Runner
	part   mechanism.Part

	mu   sync.Mutex
	held bool // built but not offered until a prompt asks for a workflow
	reg  *tool.Registry
	only []string
	hide func(string) bool
}

// parentOnly are the tools no subagent gets: a workflow's agents (subagents) must not
// start workflows of their own; a script nests one level with workflow().
var parentOnly = []string{workflow.ToolName}

// WorkflowRunner runs a workflow's agent() calls as subagents of this session (its
// permissions, tools and hooks); nil when the session cannot run workflows.
func (s *Session) WorkflowRunner() workflow.Runner {
	if s.workflows == nil {
		return nil
	}
	return s.workflows.runner
}

func openWorkflows(opts Options, d dirs, store string, ws *workspace.Workspace, tr *transcript, sub subagents, bg *backgroundWork, warn io.Writer) *workflows {
	// A resumed session whose user asked for a workflow keeps the tool: its history may
	// hold Workflow calls the model would otherwise see fail.
	optedIn := opts.Access.Workflows || slices.Contains(opts.Access.Tools, workflow.ToolName) || tr.workflowsOffered
	bin, err := wfproc.Locate()
	if err != nil {
		if optedIn {
			fmt.Fprintf(warn, "ouro: the Workflow tool is not offered: %v\n", err)
		}
		return nil
	}
	task := sub.task
	runner := workflow.RunnerFunc(func(ctx context.Context, prompt string, o workflow.AgentOptions) (string, llm.Usage, error) {
		return task.RunDirect(ctx, subagent.Direct{AgentType: o.AgentType, Model: o.Model, Description: o.Label, MaxTokens: o.MaxTokens, Isolation: o.Isolation, Effort: o.Effort}, prompt, nil)
	})
	t := workflow.NewTool(workflow.ToolConfig{
		CWD: d.cwd, Within: ws.Contains, SaveDir: filepath.Join(tr.w.Dir(), "workflows"),
		Runner: runner, Budget: opts.Limits.MaxTokens, Background: bg.mgr,
		Engine: wfproc.Client{Bin: bin, StatePath: JournalLocation(store, d.home), CWD: d.cwd},
	})
	w := &workflows{tool: t, runner: runner, held: !optedIn, only: opts.Access.Tools}
	if optedIn {
		w.part = mechanism.Part{Name: "workflows", Phase: mechanism.PhaseDelegation, Tools: []tool.Tool{t}}
	}
	return w
}

// OfferWorkflows offers the Workflow tool from now on when prompt, typed by the user
// (never a file's or a tool's text), asks for a workflow, and reports whether it has
// just been offered. The tools list and deny rules still apply.
func (s *Session) OfferWorkflows(prompt string) bool {
	w := s.workflows
	if w == nil || !workflow.AskedFor(prompt) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.held || w.reg == nil || (len(w.only) > 0 && !slices.Contains(w.only, workflow.ToolName)) || w.hide(workflow.ToolName) {
		return false
	}
	if err := w.reg.Add(w.tool); err != nil {
		return false
	}
	w.held = false
	if err := s.writer.AppendEntry(entryWorkflowsOffered, map[string]bool{"offered": true}); err != nil {
		fmt.Fprintf(s.warn, "ouro: recording that workflows were asked for: %v; a resumed session will not offer the Workflow tool until asked again\n", err)
	}
	return true
}

// entryWorkflowsOffered records that the user's prompt asked for a workflow, so that a
// resumed session offers the Workflow tool from its start.
const entryWorkflowsOffered = "workflows_offered"

// offeredLater lets OfferWorkflows add the tool to reg, under the tools list and deny
// rules of the session.
func (w *workflows) offeredLater(reg *tool.Registry, hide func(string) bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.reg, w.hide = reg, hide
	w.mu.Unlock()
}

// WorkflowProgress says how this session's workflow runs are going (the REPL's /workflows).
func (s *Session) WorkflowProgress() string {
	w := s.workflows
	if w == nil {
		return "Workflows are not available: the ouro-workflow helper is not installed next to ouro or on PATH."
	}
	w.mu.Lock()
	held := w.held
	w.mu.Unlock()
	if held {
		return "Workflows are not offered yet in this session: ask for a workflow in a prompt, or start ouro with --workflows (or set \"workflows\": true in your own settings)."
	}
	return w.tool.Render()
}
