package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tool/toolnames"
	"github.com/ouroagent/ouro/workspace"
)

// guard is everything that stands between the model's proposals and their effects: the
// settings, the permission policy and its gate, the hooks, the OS sandbox and the audit.
type guard struct {
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
	approver      permission.Approver
	tmpDir        string // per-session temp dir, writable inside the sandbox
	env           []string
	closed        bool
	// notes is the session's notification queue (set once assembled): in the REPL what
	// async hooks leave for the model goes there.
	notes atomic.Pointer[notify.Queue]
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

// loadSettings reads every settings file and the permission flags (the first step after
// the directories: the settings' env and model decide how the model is reached).
//
// A settings file an ouro session wrote (package grant's ledger) widens nothing until a
// person reviews it: approve, when given (an interactive session), asks; otherwise only
// what restricts in it applies, with a warning (see settings.LoadOptions.Unreviewed).
func loadSettings(d dirs, o Access, warn io.Writer, approve func(path, what, why string) bool) (*settings.Settings, error) {
	ledger := grant.Open(d.project)
	set, err := settings.Load(settings.LoadOptions{
		UserHome: d.config, OuroHome: d.home, ProjectDir: d.cwd, Settings: o.Settings,
		AllowedTools: o.Allow, DisallowedTools: o.Deny, PermissionMode: o.Mode,
		Managed: settings.ManagedPaths(),
		Unreviewed: func(path string, data []byte) string {
			ok, why, _ := ledger.Trusted(path, data)
			if ok {
				return ""
			}
			if approve != nil && approve(path, "its permission rules, mode, hooks, env and other settings", why) {
				if err := ledger.Approve(path, data); err != nil {
					fmt.Fprintf(warn, "ouro: recording the approval of %s: %v\n", path, err)
				}
				return ""
			}
			return why
		},
	})
	if err != nil {
		return nil, err
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(warn, "ouro: WARNING: %s\n", w)
	}
	return set, nil
}

// providerEnv are the variables that decide where ouro sends the user's key and what it
// asks for: a project's own settings file may not set them (a repository could otherwise
// send the key to a server of its choosing), the user's files and --settings may.
var providerEnv = map[string]bool{
	"ANTHROPIC_API_KEY": true, "ANTHROPIC_AUTH_TOKEN": true, "ANTHROPIC_BASE_URL": true, "ANTHROPIC_CUSTOM_HEADERS": true,
	"ANTHROPIC_MODEL": true, "ANTHROPIC_SMALL_FAST_MODEL": true, "ANTHROPIC_DEFAULT_SONNET_MODEL": true,
	"ANTHROPIC_DEFAULT_OPUS_MODEL": true, "ANTHROPIC_DEFAULT_HAIKU_MODEL": true,
	"OPENAI_API_KEY": true, "OPENAI_BASE_URL": true, "OURO_MODEL": true, "OURO_HOME": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "http_proxy": true, "https_proxy": true, "NO_PROXY": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// settingsEnv makes settings.env act as if exported, as in Claude Code, for how ouro
// reaches the model and for the commands it runs: what the environment already holds
// wins (what the user typed), and a project file's provider variables are dropped with a
// warning. It returns the lookup the provider is built with.
func settingsEnv(set *settings.Settings, warn io.Writer) func(string) string {
	keys := make([]string, 0, len(set.Env))
	for k := range set.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if src, project := set.EnvProject[k]; project && providerEnv[k] {
			fmt.Fprintf(warn, "ouro: settings: %s sets env %s, which decides where ouro sends your API key; a project's file may not, so it is ignored (set it in ~/.claude/settings.json or your shell)\n", src, k)
			if v, ok := set.EnvTrusted[k]; ok {
				set.Env[k] = v // the user's own value stands
				set.EnvSource[k] = set.EnvTrustedSource[k]
			} else {
				delete(set.Env, k)
				delete(set.EnvSource, k)
			}
		}
	}
	return func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		return set.Env[k]
	}
}

// setupGuard builds the policy, hooks, audit and sandbox from the settings. On an error
// the guard returned holds what was built so far, for close.
func setupGuard(e guardEnv) (*guard, error) {
	o := e.access
	userHome, _ := os.UserHomeDir()
	set := e.settings
	var err error
	g := &guard{settings: set}
	for k, v := range set.Env {
		g.env = append(g.env, k+"="+v)
	}
	if g.tmpDir, err = os.MkdirTemp("", "ouro-session-"); err != nil {
		return g, fmt.Errorf("session temp dir: %w", err)
	}
	if g.policy, err = newPolicy(set, e.dirs.cwd, e.ws, userHome, []string{g.tmpDir}, e.warn, e.saved); err != nil {
		return g, err
	}
	// A skill's allowed-tools serve the agent that invoked it (a subagent, a teammate,
	// or the session's own), not the others.
	g.policy.SetTurnOwner(subagent.AgentID)
	if g.audit, err = permission.OpenAudit(filepath.Join(e.dirs.project, "audit.jsonl")); err != nil {
		return g, err
	}
	g.audit.SetSession(e.w.ID())
	// A record that cannot be written (a full disk, say) stops nothing, but the user is
	// told, once, that the log is incomplete.
	g.audit.OnFailure(func(err error) {
		fmt.Fprintf(e.warn, "ouro: WARNING: the audit log could not be written (%v); records of this session are missing from it\n", err)
	})
	j := &judge{model: e.model, ws: e.ws, policy: g.policy, offered: e.offered, spent: e.spent}
	g.hooks, err = hook.New(hook.Config{
		Hooks: set.Hooks, ManagedOnly: set.ManagedHooksOnly, ProjectDir: e.dirs.cwd, SessionID: e.w.ID(), TranscriptPath: e.w.Path(), CWD: e.dirs.cwd,
		CWDOf:          subagent.WorkDir, // a teammate's or subagent's own worktree
		PermissionMode: func() string { return string(g.policy.Mode()) },
		Env:            g.env, ShowUser: e.ui.ShowUser, Judge: j.answer, SpillDir: e.spill, Funcs: e.ui.HookFuncs,
		SandboxWritable: func(p string) bool { return g.sandbox != nil && g.sandbox.Writable(p) },
		// Headless, the run ends at the stop: asyncRewake hooks still running are waited
		// for there. In the REPL what async hooks say joins the session's notifications,
		// which reach the model at its next request.
		WaitRewake: e.ui.Approver == nil,
		Deliver:    g.deliver(e.ui.Approver != nil),
		OnRewake:   rewake(e.ui.Wake),
		Observer: func(r hook.Run) {
			src := r.Command
			if r.Source != "" {
				src += " (" + r.Source + ")"
			}
			g.audit.Record(permission.AuditRecord{Kind: "hook", Tool: r.Event, Source: src, Status: r.Outcome,
				Decision: r.Decision, Reason: r.Message, DurationMS: r.Duration.Milliseconds()})
		},
	})
	if err != nil {
		return g, err
	}
	reportHooks(g.hooks, e.warn)
	var approver permission.Approver = permission.Headless{}
	if e.ui.Approver != nil {
		approver = notifying{e.ui.Approver, g.hooks}
	} else if e.ui.PromptApprover != nil {
		approver = e.ui.PromptApprover
	}
	g.approver = approver
	g.gate = permission.NewGate(g.policy, approver, g.hooks, g.audit)
	j.gate = g.gate
	// What a person approved outside the workspace becomes reachable for the tools: the
	// folder a search was approved on, else exactly the file.
	g.gate.OnAllowedOutside = func(_, path string) {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() { // a folder searched
			if e.ws.AddDir(path) == nil {
				return
			}
		}
		_ = e.ws.AddFile(path)
	}

	if err := g.setupSandbox(e, o.SandboxLauncher, userHome); err != nil {
		return g, err
	}
	return g, nil
}

// newPolicy adds the settings' additionalDirectories to the workspace and builds the
// permission policy, warning about each rule that cannot do what it says (ouro doctor
// calls it too).
func newPolicy(set *settings.Settings, cwd string, ws *workspace.Workspace, userHome string, writable []string, warn io.Writer, saved func(path string, before, after []byte)) (*permission.Policy, error) {
	for _, d := range set.Permissions.AdditionalDirectories {
		dir := d
		if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "~") {
			dir = filepath.Join(cwd, dir)
		}
		if err := ws.AddRoot(dir); err != nil {
			fmt.Fprintf(warn, "ouro: additionalDirectories: %v\n", err)
		}
	}
	pol, err := permission.NewPolicy(permission.PolicyConfig{
		Settings: set, Workspace: ws, WritableRoots: writable, Home: userHome, ProjectDir: cwd, Saved: saved,
	})
	if err != nil {
		return nil, err
	}
	for _, p := range pol.Problems() {
		fmt.Fprintf(warn, "ouro: settings: %v\n", p)
	}
	warnUnknownRuleTools(set.Permissions, warn)
	return pol, nil
}

// reportHooks shows the warnings of loading the hooks (ouro doctor calls it too).
func reportHooks(r *hook.Runner, warn io.Writer) {
	for _, w := range r.Warnings() {
		fmt.Fprintf(warn, "ouro: hooks: %s\n", w)
	}
}

// looser reports whether mode m lets through what parent would ask about.
func looser(m, parent permission.Mode) bool {
	rank := func(x permission.Mode) int {
		switch x {
		case permission.ModeBypass:
			return 3
		case permission.ModeAcceptEdits:
			return 2
		case permission.ModeDefault:
			return 1
		}
		return 0 // plan, dontAsk: stricter than default
	}
	return rank(m) > rank(parent)
}

// gatesFor is the gate for a subagent whose definition sets permissionMode: the same
// rules, approver, hooks and audit under that mode. A mode looser than the session's may
// only be acceptEdits (as in Claude Code); bypassPermissions needs a bypassing session; and
// a looser mode is a grant, honoured only when the definition's file may grant (allow:
// not written by an ouro session without review).
func (g *guard) gatesFor(warn func(string), allow func(path, what string) bool) func(subagent.Definition) []agent.Gate {
	return func(d subagent.Definition) []agent.Gate { return g.childGates(d, g.hooks, warn, allow) }
}

// childGates is the gate of a child of definition d whose hooks are hooks: the session's
// gate when both its mode and its hooks are the session's.
func (g *guard) childGates(d subagent.Definition, hooks *hook.Runner, warn func(string), allow func(path, what string) bool) []agent.Gate {
	return g.childGatesOn(g.policy, g.gate.OnAllowedOutside, d, hooks, warn, allow)
}

// childGatesOn is childGates under pol (a view of the session's policy for a worktree's
// workspace), with onOutside making what a person approved reachable.
func (g *guard) childGatesOn(pol *permission.Policy, onOutside func(toolName, path string), d subagent.Definition, hooks *hook.Runner, warn func(string), allow func(path, what string) bool) []agent.Gate {
	base := func() []agent.Gate {
		if hooks == g.hooks && pol == g.policy {
			return []agent.Gate{g.gate}
		}
		sub := permission.NewGate(pol, g.approver, hooks, g.audit)
		sub.OnAllowedOutside = onOutside
		sub.Sandboxed, sub.LeavesSandbox = g.gate.Sandboxed, g.gate.LeavesSandbox
		return []agent.Gate{sub}
	}
	mode := d.PermissionMode
	if mode == "" {
		return base()
	}
	m, err := permission.ParseMode(mode)
	parent := pol.Mode()
	switch {
	case err != nil:
		warn(fmt.Sprintf("agent permissionMode: %v; the session's mode applies", err))
		return base()
	case m == permission.ModeBypass && parent != permission.ModeBypass:
		warn(fmt.Sprintf("agent permissionMode bypassPermissions is refused in a %s session; the session's mode applies", parent))
		return base()
	case m == parent:
		return base()
	case looser(m, parent) && d.Path != "" && !allow(d.Path, "permissionMode "+mode):
		return base()
	}
	view, err := pol.WithMode(m)
	if err != nil {
		warn(fmt.Sprintf("agent permissionMode: %v; the session's mode applies", err))
		return base()
	}
	sub := permission.NewGate(view, g.approver, hooks, g.audit)
	sub.OnAllowedOutside = onOutside
	return []agent.Gate{sub}
}

// hideDenied removes the tools a bare-name deny rule names from what the model is offered.
func (g *guard) hideDenied(r *tool.Registry) {
	for _, name := range r.Names() {
		if g.policy.Hidden(name) {
			r.Remove(name)
		}
	}
}

// observe writes each executed call into the audit: status and duration.
func (g *guard) observe(e agent.Event) {
	if e.Type != agent.EventToolEnd || e.Start.IsZero() {
		return
	}
	status := "ok"
	if e.Result.IsError {
		status = "error"
	}
	g.audit.RecordRun(*e.Call, status, e.End.Sub(e.Start))
}

// AfterTool records every file a call changed, with its hash before and after.
func (g *guard) AfterTool(_ context.Context, _ tool.Call, r *tool.Result) {
	for _, f := range r.Files {
		g.audit.RecordFileChange(f.Path, f.Before, f.After)
	}
}

// close runs the SessionEnd hooks and releases what the guard holds; a second call does
// nothing.
func (g *guard) close(ctx context.Context) error {
	if g == nil || g.closed {
		return nil
	}
	g.closed = true
	if g.hooks != nil {
		g.hooks.SessionEnd(ctx, "exit")
		g.hooks.Close() // async hooks still running are killed, as Claude Code does
	}
	var err error
	if g.audit != nil {
		err = g.audit.Close()
	}
	if g.tmpDir != "" {
		os.RemoveAll(g.tmpDir)
	}
	g.proxy.Close()
	return err
}

// notifying fires the Notification hooks before a person is asked for permission, as
// Claude Code does, so a hook can ping the user who stepped away.
type notifying struct {
	permission.Approver
	hooks *hook.Runner
}

func (n notifying) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	if who := team.Teammate(ctx); who != "" {
		// A teammate's ask goes to the lead's person, saying whose it is.
		p.Summary = "(teammate " + who + ") " + p.Summary
		n.hooks.Notification(ctx, "ouro needs your permission: teammate "+who+" wants to use "+p.Call.Name)
		return n.Approver.Approve(ctx, p)
	}
	if background.InBackground(ctx) {
		// A background agent's call: nobody waits on it, and the REPL's prompt must not
		// be taken over by it. Refused as headless, with how to allow it.
		a, err := permission.Headless{}.Approve(ctx, p)
		a.Reason = "background agent: " + strings.TrimPrefix(a.Reason, "headless run: ")
		return a, err
	}
	n.hooks.Notification(ctx, "ouro needs your permission to use "+p.Call.Name)
	return n.Approver.Approve(ctx, p)
}

// warnUnknownRuleTools warns about each permission rule naming a tool neither ouro nor
// Claude Code has (a typo such as --disallowedTools Bassh would otherwise deny nothing,
// silently), with the name it most likely meant.
func warnUnknownRuleTools(p settings.Permissions, warn io.Writer) {
	for _, list := range [][]settings.Rule{p.Allow, p.Ask, p.Deny} {
		for _, r := range list {
			name, _, _ := strings.Cut(strings.TrimSpace(r.Text), "(")
			name = strings.TrimSpace(name)
			if pr, err := permission.ParseRule(r); err == nil {
				name = pr.Tool // SlashCommand:/commit is Skill(commit)
			} else if strings.Contains(name, ":") {
				continue // the rule loader has said what is wrong with "Edit:*"
			}
			if _, known := toolnames.Map(name); known || name == "" {
				continue
			}
			msg := fmt.Sprintf("ouro: settings: rule %q (%s) names no tool, so it matches nothing", r.Text, r.Source)
			if c := toolnames.Closest(name); c != "" {
				msg += fmt.Sprintf("; did you mean %q?", c)
			}
			fmt.Fprintln(warn, msg)
		}
	}
}

// audited wraps an extension's gates so what they refuse is in the audit as a denial with
// its reason, after the permission gate's own record: a call the rules allowed but the
// scout's fix guard refused reads as refused, not as allowed.
func (g *guard) audited(name string, gates []agent.Gate) []agent.Gate {
	out := make([]agent.Gate, len(gates))
	for i, gt := range gates {
		out[i] = auditedGate{inner: gt, audit: g.audit, source: name + " guard"}
	}
	return out
}

type auditedGate struct {
	inner  agent.Gate
	audit  *permission.Audit
	source string
}

func (a auditedGate) Gate(ctx context.Context, c tool.Call) agent.Decision {
	d := a.inner.Gate(ctx, c)
	if d.Deny && a.audit != nil {
		a.audit.RecordDecision(c, "deny", a.source, d.Reason)
	}
	return d
}

// part is the guard on the loop's seams: hooks before each model call, the permission
// gate before each tool call, hooks and the audit after it, Stop hooks at the end, and
// the audit's record of every executed call.
func (g *guard) part() mechanism.Part {
	return mechanism.Part{Name: "guard", Phase: mechanism.PhaseGate,
		BeforeModel: []agent.BeforeModel{g.hooks},
		Gates:       []agent.Gate{g.gate},
		AfterTool:   []agent.AfterTool{g.hooks, g},
		BeforeStop:  []agent.BeforeStop{g.hooks},
		Observers:   []agent.Observer{g.observe},
	}
}

// deliver is where async hooks leave what they say for the model: the notification queue
// in the REPL (interactive), the hook runner itself headless (nil).
func (g *guard) deliver(interactive bool) func(string) {
	if !interactive {
		return nil
	}
	return func(text string) {
		if q := g.notes.Load(); q != nil {
			q.Notify(tool.Notification{Text: text})
		}
	}
}

// rewake turns an asyncRewake hook's wake-up into a turn of its own once the REPL is idle
// (nil headless: the stop takes it).
func rewake(wake func(Wake)) func(string) {
	if wake == nil {
		return nil
	}
	return func(text string) { wake(Wake{Source: "hook", Prompt: text}) }
}

// envDir is the folder of what SessionStart hooks wrote to CLAUDE_ENV_FILE, sourced
// before each Bash command; "" without hooks.
func (g *guard) envDir() string {
	if g.hooks == nil {
		return ""
	}
	return g.hooks.EnvDir()
}
