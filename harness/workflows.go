package harness

import (
	"context"
	"path/filepath"

	"github.com/ouroagent/ouro/internal/profile"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/structured"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/wfproc"
)

// parentOnly are the tools no subagent gets: a workflow's agents (subagents) must not
// start workflows of their own (a script nests one level with workflow()), and the
// session's structured output is the lead's final answer, never a child's.
var parentOnly = []string{workflow.ToolName, structured.ToolName}

// workflowConfig is what the workflows are given: each agent() call is a subagent of the
// session (its permissions, tools and hooks); the journal lives in the store; scripts
// run in this program started again as the workflow engine (wfproc.Self), a process
// with the script's memory limit.
func workflowConfig(opts Options, d dirs, tr *transcript, task *subagent.Tool, bg *notify.Work) workflow.JoinConfig {
	return workflow.JoinConfig{OptedIn: opts.Access.Workflows, Only: opts.Access.Tools,
		CWD: d.cwd, SaveDir: filepath.Join(tr.w.Dir(), "workflows"), Budget: opts.Limits.MaxTokens, Background: bg.Manager(),
		Engine: func() (workflow.Engine, error) {
			c, err := wfproc.Self(JournalLocation(opts.Store, d.home), d.cwd)
			c.Env = profile.ChildEnv("workflow")
			return c, err
		},
		Runner: workflow.RunnerFunc(func(ctx context.Context, prompt string, o workflow.AgentOptions) (string, llm.Usage, error) {
			return task.RunDirect(ctx, subagent.Direct{AgentType: o.AgentType, Model: o.Model, Description: o.Label, MaxTokens: o.MaxTokens, Isolation: o.Isolation, Effort: o.Effort}, prompt, nil)
		})}
}

func (s *Session) workflows() *workflow.Offer {
	o, _ := mechanism.Handle[*workflow.Offer](s.parts)
	return o
}

// WorkflowRunner runs a workflow's agent() calls as subagents of this session (its
// permissions, tools and hooks); nil when the session cannot run workflows.
func (s *Session) WorkflowRunner() workflow.Runner {
	if o := s.workflows(); o != nil {
		return o.Runner()
	}
	return nil
}

// OfferWorkflows offers the Workflow tool from now on when prompt, typed by the user,
// asks for a workflow, and reports whether it has just been offered.
func (s *Session) OfferWorkflows(prompt string) bool {
	o := s.workflows()
	return o != nil && o.Offer(prompt)
}

// WorkflowProgress says how this session's workflow runs are going (the REPL's /workflows).
func (s *Session) WorkflowProgress() string {
	if o := s.workflows(); o != nil {
		return o.Progress()
	}
	return "Workflows are not available in this program: it does not serve ouro's workflow engine mode."
}
