package workflow

import (
	"slices"
	"sync"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// EntryOffered records that the user's prompt asked for a workflow, so that a resumed
// session offers the Workflow tool from its start.
const EntryOffered = "workflows_offered"

// JoinConfig is what a session gives its workflows.
type JoinConfig struct {
	// OptedIn offers the tool from the start (--workflows, the user's settings, --tools
	// naming it); Only is the --tools list.
	OptedIn bool
	Only    []string
	// Engine finds the engine that runs the scripts (ouro in its workflow engine mode); an error
	// says why workflows are not available.
	Engine func() (Engine, error)
	// CWD is where scripts run; SaveDir keeps the scripts the model wrote.
	CWD, SaveDir string
	// Runner runs each agent() call as a subagent of the session; Budget bounds a run's
	// tokens (0: none); each run is a background task of Background.
	Runner     Runner
	Budget     int
	Background *background.Manager
}

// Join is the Workflow tool. A workflow can spend a lot, so the tool is offered only
// when the user opted in, or asked for one in a prompt they typed (Offer). Each
// agent() call is a subagent under the session's permissions; each run is a background
// task under its run id. The Part (PhaseDelegation: subagents are not given it) has the
// *Offer as its Handle, or nothing when the engine cannot be found.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	p := mechanism.Part{Name: "workflows", Phase: mechanism.PhaseDelegation}
	// A resumed session whose user asked for a workflow keeps the tool: its history may
	// hold Workflow calls the model would otherwise see fail.
	optedIn := jc.OptedIn || slices.Contains(jc.Only, ToolName) || len(env.Entries(EntryOffered)) > 0
	eng, err := jc.Engine()
	if err != nil {
		if optedIn {
			env.Warn.Warnf("the Workflow tool is not offered: %v", err)
		}
		return p, nil
	}
	t := NewTool(ToolConfig{CWD: jc.CWD, Within: env.Workspace.Contains, SaveDir: jc.SaveDir,
		Runner: jc.Runner, Budget: jc.Budget, Background: jc.Background, Engine: eng})
	o := &Offer{tool: t, runner: jc.Runner, held: !optedIn, only: jc.Only, env: env}
	if optedIn {
		p.Tools = []tool.Tool{t}
	}
	p.Handle = o
	return p, nil
}

// Offer is a session's Workflow tool, offered from the start or once asked for.
type Offer struct {
	tool   *Tool
	runner Runner
	env    mechanism.Env

	mu   sync.Mutex
	held bool // built but not offered until a prompt asks for a workflow
	reg  *tool.Registry
	only []string
	hide func(string) bool
}

// Runner runs a workflow's agent() calls as subagents of the session.
func (o *Offer) Runner() Runner { return o.runner }

// OfferedLater lets Offer add the tool to reg, under the tools list and the deny rules
// (hide) of the session.
func (o *Offer) OfferedLater(reg *tool.Registry, hide func(string) bool) {
	o.mu.Lock()
	o.reg, o.hide = reg, hide
	o.mu.Unlock()
}

// Offer offers the Workflow tool from now on when prompt, typed by the user (never a
// file's or a tool's text), asks for a workflow, and reports whether it has just been
// offered. The tools list and deny rules still apply.
func (o *Offer) Offer(prompt string) bool {
	if !AskedFor(prompt) {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.held || o.reg == nil || (len(o.only) > 0 && !slices.Contains(o.only, ToolName)) || o.hide(ToolName) {
		return false
	}
	if err := o.reg.Add(o.tool); err != nil {
		return false
	}
	o.held = false
	if err := o.env.Journal.AppendEntry(EntryOffered, map[string]bool{"offered": true}); err != nil {
		o.env.Warn.Warnf("recording that workflows were asked for: %v; a resumed session will not offer the Workflow tool until asked again", err)
	}
	return true
}

// Progress says how the session's workflow runs are going (the REPL's /workflows).
func (o *Offer) Progress() string {
	o.mu.Lock()
	held := o.held
	o.mu.Unlock()
	if held {
		return "Workflows are not offered yet in this session: ask for a workflow in a prompt, or start ouro with --workflows (or set \"workflows\": true in your own settings)."
	}
	return o.tool.Render()
}
