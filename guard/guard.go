// Package guard is the session's guard (chapters s03 and s04 joined): everything that
// stands between the model's proposals and their effects, the settings' permission
// policy and its gate, the hooks (with the judge of prompt and agent hooks), the
// approver and the audit. It joins a session as one mechanism.Part in PhaseGate, so it
// decides before any other seam; the OS sandbox's steps on its gate are the harness's.
//
// It builds on the chapters below it only: what it needs of subagents and teammates
// (whose turn a call is, where a child works, whose ask a prompt is) comes in its
// Config as functions.
package guard

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/internal/bgtask"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// Config is what a session gives its guard.
type Config struct {
	Settings *settings.Settings
	// Home is the user's home (`~/` in rules); SessionID and TranscriptPath are the
	// session's, for the hooks; SpillDir is where long hook output goes.
	Home, SessionID, TranscriptPath, SpillDir string
	// Warn receives the guard's warnings (the audit that cannot be written, rules that
	// match nothing, hooks that did not load).
	Warn io.Writer
	// Saved is told of each settings file the policy changes on the person's word.
	Saved func(path string, before, after []byte)
	// Judge answers prompt and agent hooks with the session's model.
	Judge JudgeConfig
	// Approver decides what the policy asks about in an interactive session (the
	// Notification hooks fire first); PromptApprover, without one, in a run nobody
	// watches at a terminal; neither: headless.
	Approver, PromptApprover permission.Approver
	// HookFuncs are in-process hooks by event; ShowUser receives what hooks want the
	// user to see.
	HookFuncs map[string][]hook.Func
	ShowUser  func(string)
	// TurnOwner names the agent a context belongs to (a skill's allowed-tools serve the
	// agent that invoked it); CWDOf its own working directory (a worktree); Teammate the
	// teammate whose call it is ("" for none).
	TurnOwner, CWDOf, Teammate func(context.Context) string
	// SandboxWritable reports what the OS sandbox lets commands write (for the hooks'
	// environment); nil: nothing is sandboxed.
	SandboxWritable func(string) bool
}

// Guard is the session's guard, the Handle of its Part.
type Guard struct {
	Settings *settings.Settings
	Policy   *permission.Policy
	Gate     *permission.Gate
	Hooks    *hook.Runner
	Audit    *permission.Audit
	// Approver is the gate's approver, for the gates of children.
	Approver permission.Approver
	// TmpDir is the session's temp folder, writable inside the sandbox; Env the
	// settings' env as KEY=value, for the commands the session runs.
	TmpDir string
	Env    []string
	closed bool
}

// Join builds the policy, the audit, the hooks and the gate from the settings. On an
// error what was built so far is released.
func Join(env mechanism.Env, c Config) (mechanism.Part, error) {
	g := &Guard{Settings: c.Settings}
	p, err := g.build(env, c)
	if err != nil {
		_ = g.Close(context.Background())
		return mechanism.Part{Name: "guard"}, err
	}
	return p, nil
}

func (g *Guard) build(env mechanism.Env, c Config) (mechanism.Part, error) {
	set := c.Settings
	var err error
	for k, v := range set.Env {
		g.Env = append(g.Env, k+"="+v)
	}
	if g.TmpDir, err = os.MkdirTemp("", "ouro-session-"); err != nil {
		return mechanism.Part{}, fmt.Errorf("session temp dir: %w", err)
	}
	if g.Policy, err = NewPolicy(set, env.CWD, env.Workspace, c.Home, []string{g.TmpDir}, c.Warn, c.Saved); err != nil {
		return mechanism.Part{}, err
	}
	// A skill's allowed-tools serve the agent that invoked it (a subagent, a teammate,
	// or the session's own), not the others.
	g.Policy.SetTurnOwner(c.TurnOwner)
	if g.Audit, err = permission.OpenAudit(filepath.Join(env.Project, "audit.jsonl")); err != nil {
		return mechanism.Part{}, err
	}
	g.Audit.SetSession(c.SessionID)
	// A record that cannot be written (a full disk, say) stops nothing, but the user is
	// told, once, that the log is incomplete.
	g.Audit.OnFailure(func(err error) {
		fmt.Fprintf(c.Warn, "ouro: WARNING: the audit log could not be written (%v); records of this session are missing from it\n", err)
	})
	j := &judge{JudgeConfig: c.Judge, ws: env.Workspace, policy: g.Policy}
	interactive := c.Approver != nil
	g.Hooks, err = hook.New(hook.Config{
		Hooks: set.Hooks, ManagedOnly: set.ManagedHooksOnly, ProjectDir: env.CWD, SessionID: c.SessionID, TranscriptPath: c.TranscriptPath, CWD: env.CWD,
		CWDOf:          c.CWDOf, // a teammate's or subagent's own worktree
		PermissionMode: func() string { return string(g.Policy.Mode()) },
		Env:            g.Env, ShowUser: c.ShowUser, Judge: j.answer, SpillDir: c.SpillDir, Funcs: c.HookFuncs,
		SandboxWritable: func(p string) bool { return c.SandboxWritable != nil && c.SandboxWritable(p) },
		// Headless, the run ends at the stop: asyncRewake hooks still running are waited
		// for there. In the REPL what async hooks say joins the session's notifications,
		// which reach the model at its next request.
		WaitRewake: !interactive,
		Deliver:    deliver(interactive, env.Notes),
		OnRewake:   rewake(env.Waker),
		Observer: func(r hook.Run) {
			src := r.Command
			if r.Source != "" {
				src += " (" + r.Source + ")"
			}
			g.Audit.Record(permission.AuditRecord{Kind: "hook", Tool: r.Event, Source: src, Status: r.Outcome,
				Decision: r.Decision, Reason: r.Message, DurationMS: r.Duration.Milliseconds()})
		},
	})
	if err != nil {
		return mechanism.Part{}, err
	}
	ReportHooks(g.Hooks, c.Warn)
	var approver permission.Approver = permission.Headless{}
	if c.Approver != nil {
		approver = notifying{c.Approver, g.Hooks, c.Teammate}
	} else if c.PromptApprover != nil {
		approver = c.PromptApprover
	}
	g.Approver = approver
	g.Gate = permission.NewGate(g.Policy, approver, g.Hooks, g.Audit)
	j.gate = g.Gate
	// What a person approved outside the workspace becomes reachable for the tools: the
	// folder a search was approved on, else exactly the file.
	ws := env.Workspace
	g.Gate.OnAllowedOutside = func(_, path string) {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() { // a folder searched
			if ws.AddDir(path) == nil {
				return
			}
		}
		_ = ws.AddFile(path)
	}
	return g.part(), nil
}

// part is the guard on the loop's seams: hooks before each model call, the permission
// gate before each tool call, hooks and the audit after it, Stop hooks at the end, and
// the audit's record of every executed call.
func (g *Guard) part() mechanism.Part {
	return mechanism.Part{Name: "guard", Phase: mechanism.PhaseGate,
		BeforeModel: []agent.BeforeModel{g.Hooks},
		Gates:       []agent.Gate{g.Gate},
		AfterTool:   []agent.AfterTool{g.Hooks, g},
		BeforeStop:  []agent.BeforeStop{g.Hooks},
		Observers:   []agent.Observer{g.observe},
		Handle:      g,
	}
}

// observe writes each executed call into the audit: status and duration.
func (g *Guard) observe(e agent.Event) {
	if e.Type != agent.EventToolEnd || e.Start.IsZero() {
		return
	}
	status := "ok"
	if e.Result.IsError {
		status = "error"
	}
	g.Audit.RecordRun(*e.Call, status, e.End.Sub(e.Start))
}

// AfterTool records every file a call changed, with its hash before and after.
func (g *Guard) AfterTool(_ context.Context, _ tool.Call, r *tool.Result) {
	for _, f := range r.Files {
		g.Audit.RecordFileChange(f.Path, f.Before, f.After)
	}
}

// HideDenied removes the tools a bare-name deny rule names from what the model is
// offered.
func (g *Guard) HideDenied(r *tool.Registry) {
	for _, name := range r.Names() {
		if g.Policy.Hidden(name) {
			r.Remove(name)
		}
	}
}

// EnvDir is the folder of what SessionStart hooks wrote to CLAUDE_ENV_FILE, sourced
// before each Bash command; "" without hooks.
func (g *Guard) EnvDir() string {
	if g == nil || g.Hooks == nil {
		return ""
	}
	return g.Hooks.EnvDir()
}

// Close runs the SessionEnd hooks and releases what the guard holds; a second call does
// nothing.
func (g *Guard) Close(ctx context.Context) error {
	if g == nil || g.closed {
		return nil
	}
	g.closed = true
	if g.Hooks != nil {
		g.Hooks.SessionEnd(ctx, "exit")
		g.Hooks.Close() // async hooks still running are killed, as Claude Code does
	}
	var err error
	if g.Audit != nil {
		err = g.Audit.Close()
	}
	if g.TmpDir != "" {
		os.RemoveAll(g.TmpDir)
	}
	return err
}

// notifying fires the Notification hooks before a person is asked for permission, as
// Claude Code does, so a hook can ping the user who stepped away.
type notifying struct {
	permission.Approver
	hooks    *hook.Runner
	teammate func(context.Context) string
}

func (n notifying) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	if n.teammate != nil {
		if who := n.teammate(ctx); who != "" {
			// A teammate's ask goes to the lead's person, saying whose it is.
			p.Summary = "(teammate " + who + ") " + p.Summary
			n.hooks.Notification(ctx, "ouro needs your permission: teammate "+who+" wants to use "+p.Call.Name)
			return n.Approver.Approve(ctx, p)
		}
	}
	if bgtask.InBackground(ctx) {
		// A background agent's call: nobody waits on it, and the REPL's prompt must not
		// be taken over by it. Refused as headless, with how to allow it.
		a, err := permission.Headless{}.Approve(ctx, p)
		a.Reason = "background agent: " + strings.TrimPrefix(a.Reason, "headless run: ")
		return a, err
	}
	n.hooks.Notification(ctx, "ouro needs your permission to use "+p.Call.Name)
	return n.Approver.Approve(ctx, p)
}

// Audited wraps an extension's gates so what they refuse is in the audit as a denial
// with its reason, after the permission gate's own record: a call the rules allowed but
// the scout's fix guard refused reads as refused, not as allowed.
func (g *Guard) Audited(name string, gates []agent.Gate) []agent.Gate {
	out := make([]agent.Gate, len(gates))
	for i, gt := range gates {
		out[i] = auditedGate{inner: gt, audit: g.Audit, source: name + " guard"}
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

// deliver is where async hooks leave what they say for the model: the notification
// queue in the REPL (interactive), the hook runner itself headless (nil).
func deliver(interactive bool, notes tool.Notifier) func(string) {
	if !interactive || notes == nil {
		return nil
	}
	return func(text string) { notes.Notify(tool.Notification{Text: text}) }
}

// rewake turns an asyncRewake hook's wake-up into a turn of its own once the REPL is
// idle (nil headless: the stop takes it).
func rewake(w mechanism.Waker) func(string) {
	if w == nil {
		return nil
	}
	return func(text string) { w.Wake("hook", text) }
}

// spend counts usage towards the run, when the session counts it.
func (j JudgeConfig) spend(u llm.Usage, model string) {
	if j.Spend != nil {
		j.Spend(u, model)
	}
}
