package harness

import (
	"context"
	"io"
	"os"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/goal"
	guardmech "github.com/ouroagent/ouro/guard"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// guard is the session's guard (package guard: settings, policy, gate, hooks,
// audit) with the OS sandbox the harness puts on its gate. Its fields name the guard's
// parts for the harness's own files.
type guard struct {
	*guardmech.Guard
	settings *settings.Settings
	policy   *permission.Policy
	gate     *permission.Gate
	hooks    *hook.Runner
	audit    *permission.Audit
	sandbox  *sandbox.Policy
	proxy    *sandbox.Proxy            // the filtering proxy for sandbox.network.allowedDomains
	excluded func(command string) bool // sandbox.excludedCommands
	// unsandboxedOK: the model may ask to leave the sandbox (dangerouslyDisableSandbox).
	unsandboxedOK bool
	tmpDir        string // per-session temp dir, writable inside the sandbox
	env           []string
	part          mechanism.Part
	// own is told of the settings files the policy writes, so that the ConfigChange
	// hooks are not told of ouro's own writes (see hookEvents).
	own ownWrites
}

// guardEnv is what the guard is built from.
type guardEnv struct {
	settings *settings.Settings
	dirs     dirs
	ws       *workspace.Workspace
	w        *session.Writer
	model    model
	access   Access
	ui       UI
	offered  func(...string) []string
	spent    *spending
	warn     io.Writer
	spill    string // the session's tool-results folder, where long hook output goes too
	// saved is told of each settings file the policy changes on the person's word.
	saved func(path string, before, after []byte)
}

// loadSettings reads every settings file and the permission flags (guardmech.LoadSettings).
func loadSettings(d dirs, o Access, warn io.Writer, approve func(path, what, why string) bool) (*settings.Settings, error) {
	return guardmech.LoadSettings(settings.LoadOptions{UserHome: d.config, OuroHome: d.home, ProjectDir: d.cwd, Settings: o.Settings,
		AllowedTools: o.Allow, DisallowedTools: o.Deny, PermissionMode: o.Mode}, d.project, warn, approve)
}

func settingsEnv(set *settings.Settings, warn io.Writer) func(string) string {
	return guardmech.SettingsEnv(set, warn)
}

func newPolicy(set *settings.Settings, cwd string, ws *workspace.Workspace, userHome string, writable []string, warn io.Writer, saved func(path string, before, after []byte)) (*permission.Policy, error) {
	return guardmech.NewPolicy(set, cwd, ws, userHome, writable, warn, saved)
}

func reportHooks(r *hook.Runner, warn io.Writer) { guardmech.ReportHooks(r, warn) }

// setupGuard joins the guard and puts the sandbox on its gate. On an error the guard
// returned holds what was built so far, for close.
func setupGuard(env mechanism.Env, e guardEnv) (*guard, error) {
	userHome, _ := os.UserHomeDir()
	g := &guard{settings: e.settings}
	parts, err := joinAll(env, mechanism.With(guardmech.Join, guardmech.Config{Settings: e.settings, Home: userHome,
		SessionID: e.w.ID(), TranscriptPath: e.w.Path(), SpillDir: e.spill, Warn: e.warn, Saved: g.own.saving(e.saved),
		Judge:    guardmech.JudgeConfig{Provider: e.model.provider, Model: e.model.name, Impossible: goal.Impossible, Offered: e.offered, Spend: e.spent.add},
		Approver: e.ui.Approver, PromptApprover: e.ui.PromptApprover, HookFuncs: e.ui.HookFuncs, ShowUser: e.ui.ShowUser,
		TurnOwner: subagent.AgentID, CWDOf: subagent.WorkDir, Teammate: team.Teammate,
		SandboxWritable: func(p string) bool { return g.sandbox != nil && g.sandbox.Writable(p) }}))
	if err != nil {
		return g, err
	}
	g.part = parts[0]
	gd := g.part.Handle.(*guardmech.Guard)
	g.Guard, g.policy, g.gate, g.hooks, g.audit, g.tmpDir, g.env = gd, gd.Policy, gd.Gate, gd.Hooks, gd.Audit, gd.TmpDir, gd.Env
	return g, g.setupSandbox(e, e.access.SandboxLauncher, userHome)
}

// gatesFor is the gate for a subagent whose definition sets permissionMode: the same
// rules, approver, hooks and audit under that mode (guardmech.ChildGates).
func (g *guard) gatesFor(warn func(string), allow func(path, what string) bool) func(subagent.Definition) []agent.Gate {
	return func(d subagent.Definition) []agent.Gate { return g.childGates(d, g.hooks, warn, allow) }
}

// childGates is the gate of a child of definition d whose hooks are hooks.
func (g *guard) childGates(d subagent.Definition, hooks *hook.Runner, warn func(string), allow func(path, what string) bool) []agent.Gate {
	return g.childGatesOn(g.policy, g.gate.OnAllowedOutside, d, hooks, warn, allow)
}

// childGatesOn is childGates under pol (a view of the session's policy for a worktree's
// workspace), with onOutside making what a person approved reachable.
func (g *guard) childGatesOn(pol *permission.Policy, onOutside func(toolName, path string), d subagent.Definition, hooks *hook.Runner, warn func(string), allow func(path, what string) bool) []agent.Gate {
	return g.ChildGates(pol, onOutside, guardmech.Child{Mode: d.PermissionMode, Path: d.Path}, hooks, warn, allow)
}

func (g *guard) hideDenied(r *tool.Registry) { g.HideDenied(r) }

func (g *guard) audited(name string, gates []agent.Gate) []agent.Gate {
	return g.Audited(name, gates)
}

// envDir is the folder of what SessionStart hooks wrote to CLAUDE_ENV_FILE.
func (g *guard) envDir() string { return g.EnvDir() }

// close runs the SessionEnd hooks and releases what the guard holds, the sandbox's proxy
// too; a second call does nothing.
func (g *guard) close(ctx context.Context) error {
	if g == nil {
		return nil
	}
	err := g.Guard.Close(ctx)
	g.proxy.Close()
	return err
}
