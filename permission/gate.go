package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/tool"
)

// HookVerdict is what the hooks decided about a call: the PreToolUse hooks before the
// policy, or the PermissionRequest hooks in place of a person. The hook package returns
// it, combined over every hook that ran (deny > ask > allow > no opinion).
type HookVerdict struct {
	// Decision is "allow", "deny", "ask" (PreToolUse only), or "" when no hook decided.
	Decision string
	// Reason is the hook's reason (shown to the model on deny, to the user on ask);
	// several are joined by newlines.
	Reason string
	// UpdatedInput, when set, replaces the call's input; the policy checks the new one.
	UpdatedInput json.RawMessage
	// Source names the hooks that decided (their commands, or "func:" + name), for the
	// audit and reasons.
	Source string
}

// Hooks are the hooks the gate runs (the hook package's *Runner is one).
type Hooks interface {
	// PreToolUse runs before the policy: its deny is final, its allow is weighed
	// against the rules, its ask asks.
	PreToolUse(ctx context.Context, c tool.Call) HookVerdict
	// PermissionRequest runs only when the call would be put to a person (or refused
	// because nobody can be asked, as in a headless run): its allow or deny answers
	// instead of the approver; no decision leaves the question to the approver.
	PermissionRequest(ctx context.Context, c tool.Call) HookVerdict
}

// DeniedHooks, when the gate's Hooks have it, are told of each call the gate refused on
// its own: by a deny rule, the mode (plan, dontAsk) or because nobody can be asked (a
// headless run) — not what a person or a hook refused. retry true says the model may
// try the call again (Claude Code's PermissionDenied hook); the denial stands.
type DeniedHooks interface {
	PermissionDenied(ctx context.Context, c tool.Call, reason string) (retry bool)
}

// RetryNote is added to a denial's reason when a PermissionDenied hook says the model
// may retry.
const RetryNote = "A PermissionDenied hook says you may retry this call."

// Gate is the agent.Gate that puts hooks, the policy and the approver in front of every
// call, and records each decision in the audit.
type Gate struct {
	policy   *Policy
	approver Approver
	hooks    Hooks
	audit    *Audit

	// OnAllowedOutside, when set, is told about a file tool's call (Read, Edit, Write,
	// NotebookEdit, Glob, Grep, LS, ...) the gate allows whose path lies outside the
	// workspace's roots — a person approved it, or a rule, a hook or the mode allowed it:
	// the tool's name and the real path (symlinks followed), so the caller can make that
	// path reachable for the tool. Set it before the first call; it may run while the
	// gate holds its prompt lock.
	OnAllowedOutside func(toolName, path string)

	// Sandboxed, when set, reports whether a Bash call will run inside the OS sandbox;
	// such a call is allowed without asking (sandbox.autoAllowBashIfSandboxed) once deny
	// rules, ask rules, hooks and plan mode have had their say (see Gate). Set it only
	// when the sandbox really confines commands; set it before the first call.
	Sandboxed func(tool.Call) bool

	// LeavesSandbox, when set, reports a Bash call that asks to run outside the sandbox
	// (dangerouslyDisableSandbox): it is put to a person as if an ask rule matched (so
	// bypassPermissions asks, and dontAsk and headless runs refuse); neither an allow rule
	// nor a PreToolUse hook's allow approves it (a PermissionRequest hook, which answers
	// for the person, may).
	LeavesSandbox func(tool.Call) bool

	// mu lets one prompt at a time reach the approver.
	mu sync.Mutex
}

var _ agent.Gate = (*Gate)(nil)

// NewGate returns a gate. A nil approver refuses what would ask, as Headless does; nil
// hooks means no hooks; a nil audit records nothing.
func NewGate(policy *Policy, approver Approver, hooks Hooks, audit *Audit) *Gate {
	if approver == nil {
		approver = Headless{}
	}
	return &Gate{policy: policy, approver: approver, hooks: hooks, audit: audit}
}

// Policy is the policy the gate applies.
func (g *Gate) Policy() *Policy { return g.policy }

// Gate decides on one call, in this order: a PreToolUse hook's deny denies; its
// updatedInput replaces the input, and the policy judges the new one; a policy deny
// denies; an ask rule asks even when a hook allowed (a hook's allow cannot override a
// deny or ask rule); a hook's allow allows; a hook's ask asks; a policy allow allows;
// anything else asks. A Bash call that asks to leave the OS sandbox (LeavesSandbox) asks
// after the deny and ask rules, whatever allows it; one that runs inside the sandbox is
// allowed after the hooks and plan mode when Sandboxed says so. To ask, the
// PermissionRequest hooks run first and their allow or deny answers; only without one is
// the approver asked.
func (g *Gate) Gate(ctx context.Context, c tool.Call) agent.Decision {
	var hv HookVerdict
	if g.hooks != nil {
		hv = g.hooks.PreToolUse(ctx, c)
	}
	hookSource := "PreToolUse hook"
	if hv.Source != "" {
		hookSource += " " + hv.Source
	}
	if hv.Decision == "deny" {
		reason := hv.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return g.deny(c, hookSource, fmt.Sprintf("a PreToolUse hook blocked %s %s: %s", c.Name, SummarizeInput(c), reason))
	}
	call := c
	var d agent.Decision
	if len(hv.UpdatedInput) > 0 {
		call.Input = hv.UpdatedInput
		d.UpdatedInput = hv.UpdatedInput
	}
	v := g.policy.Check(ctx, call)
	// Claude Code's order of evaluation, one row per step; the first that applies decides
	// (step 1, a hook's deny, is above). The policy's verdict folds steps 2, 3, 5 and 6;
	// FromMode tells a refusal of the mode (step 5) from one of a rule (step 2).
	modeDenied := v.Behavior == Deny && v.FromMode
	switch {
	// 2. Deny rules, and the commands refused in every mode: final, even after a hook's allow.
	case v.Behavior == Deny && !modeDenied:
		return g.denied(ctx, call, v.Source, v.Reason)
	// 3. Ask rules ask, even in bypassPermissions (in dontAsk the policy made them a deny).
	case v.Behavior == Ask && v.FromAskRule:
		return g.ask(ctx, call, v, d, "")
	// 3. A Bash call that asks to leave the sandbox (dangerouslyDisableSandbox) is put
	// to a person, as an ask rule would be.
	case v.Runs && g.LeavesSandbox != nil && g.LeavesSandbox(call) && !(modeDenied && g.policy.Mode() == ModePlan):
		v.Suggest = nil // no rule can approve leaving the sandbox
		return g.ask(ctx, call, v, d, "the command asks to run outside the sandbox (dangerouslyDisableSandbox)")
	// 3. A hook's ask is an ask too (a deny in dontAsk mode; see ask).
	case hv.Decision == "ask":
		why := "a PreToolUse hook asks for approval"
		if hv.Reason != "" {
			why += ": " + hv.Reason
		}
		return g.ask(ctx, call, v, d, why)
	// 4. A hook's allow that got this far is final: before the mode, so it holds in
	// dontAsk and plan mode too.
	case hv.Decision == "allow":
		return g.allow(call, d, hookSource, "a PreToolUse hook allowed it: "+hv.Reason)
	// 5. Plan mode refuses what may change something; the sandbox does not change that.
	case modeDenied && g.policy.Mode() != ModeDontAsk:
		return g.denied(ctx, call, v.Source, v.Reason)
	// 5½. sandbox.autoAllowBashIfSandboxed allows a Bash call that runs inside the
	// sandbox as an allow rule would (so dontAsk lets it through), unless it writes a
	// protected path; a command sandbox.excludedCommands takes out of the sandbox is
	// never auto-allowed.
	case g.autoAllowed(call, v):
		return g.allow(call, d, "sandbox", "sandbox.autoAllowBashIfSandboxed: it runs inside the sandbox")
	// 5. dontAsk refuses whatever no rule allows.
	case modeDenied:
		return g.denied(ctx, call, v.Source, v.Reason)
	// 5, 6. The mode or an allow rule approves.
	case v.Behavior == Allow:
		return g.allow(call, d, v.Source, v.Reason)
	}
	// 7. Otherwise ask (PermissionRequest hooks answer first, in ask).
	return g.ask(ctx, call, v, d, "")
}

// autoAllowed reports a Bash call that sandbox.autoAllowBashIfSandboxed allows: one that
// would otherwise be asked about (or refused by dontAsk), not by an ask rule, writing no
// protected path, and that runs inside the sandbox.
func (g *Gate) autoAllowed(call tool.Call, v Verdict) bool {
	if !v.Runs || g.Sandboxed == nil || v.Protected || v.FromAskRule {
		return false
	}
	if v.Behavior != Ask && !(v.Behavior == Deny && v.FromMode) {
		return false
	}
	return g.Sandboxed(call)
}

// ask puts the call to the approver. hookWhy is set when a hook, not the policy, asks.
func (g *Gate) ask(ctx context.Context, call tool.Call, v Verdict, d agent.Decision, hookWhy string) agent.Decision {
	g.mu.Lock()
	defer g.mu.Unlock()
	if hookWhy == "" {
		// While this call waited for the prompt before it, that answer may have added
		// a rule that covers this one too.
		if again := g.policy.Check(ctx, call); again.Behavior != Ask {
			if again.Behavior == Deny {
				return g.denied(ctx, call, again.Source, again.Reason)
			}
			return g.allow(call, d, again.Source, again.Reason)
		}
	} else if g.policy.Mode() == ModeDontAsk {
		return g.denied(ctx, call, "mode dontAsk", "dontAsk mode refuses what would need approval: "+hookWhy)
	}
	reach := v.Reason
	if v.Behavior == Allow || reach == "" {
		reach = hookWhy
	} else if hookWhy != "" {
		reach = hookWhy + "; " + reach
	}
	if v.Source != "" && !strings.Contains(reach, v.Source) && v.Behavior == Ask {
		reach += " [" + v.Source + "]"
	}
	if dec, answered := g.permissionRequest(ctx, call, d); answered {
		return dec
	}
	rules := v.Suggest
	if hookWhy != "" && v.Behavior == Allow || g.policy.ManagedRulesOnly() != "" {
		rules = nil // no rule can be added: only "yes once" and "no" are offered
	}
	summary := v.Summary
	if summary == "" {
		summary = call.Name + " " + SummarizeInput(call)
	}
	p := Prompt{Call: call, Summary: summary, Reach: reach, SuggestedRule: strings.Join(rules, ", "), Rules: rules}
	ans, err := g.approver.Approve(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return g.deny(call, "interrupted", "interrupted while waiting for approval of "+summary)
		}
		return g.deny(call, "approver error", fmt.Sprintf("%s needed approval, and asking for it failed: %v", summary, err))
	}
	switch ans.Choice {
	case Once:
		if len(ans.UpdatedInput) > 0 {
			call.Input = ans.UpdatedInput
			if v := g.policy.Check(ctx, call); v.Behavior == Deny {
				return g.deny(call, v.Source, v.Reason)
			}
			d.UpdatedInput = ans.UpdatedInput
		}
		return g.allow(call, d, "user: once", "approved once")
	case Session, Always:
		if len(p.Rules) == 0 {
			return g.allow(call, d, "user: once", "approved (no rule can cover it, so only this call)")
		}
		var failed []string
		for _, r := range p.Rules {
			var err error
			if ans.Choice == Always {
				err = g.policy.AddLocalRule(r)
			} else {
				err = g.policy.AddSessionRule(r)
			}
			if err != nil {
				failed = append(failed, err.Error())
			}
		}
		src := "user: " + ans.Choice.String() + " " + p.SuggestedRule
		if len(failed) > 0 {
			src += " (not saved: " + strings.Join(failed, "; ") + ")"
		}
		return g.allow(call, d, src, "approved with "+p.SuggestedRule)
	}
	switch g.approver.(type) {
	case Headless, *Headless:
		return g.denied(ctx, call, "headless", ans.Reason)
	}
	reason := "the user refused " + summary
	if r := strings.TrimSpace(ans.Reason); r != "" {
		reason += ", saying: " + r
	} else {
		reason += "; do not try it again another way without asking"
	}
	return g.deny(call, "user: no", reason)
}

// permissionRequest lets the PermissionRequest hooks answer for the person about to be
// asked. A deny refuses the call. An allow lets it through, with the hook's updatedInput
// if it gave one; that new input is judged by the policy again, so a hook cannot reach
// through it what a deny rule or the hard-deny set refuses. answered is false when no
// hook decided.
func (g *Gate) permissionRequest(ctx context.Context, call tool.Call, d agent.Decision) (dec agent.Decision, answered bool) {
	if g.hooks == nil {
		return agent.Decision{}, false
	}
	hv := g.hooks.PermissionRequest(ctx, call)
	source := "PermissionRequest hook"
	if hv.Source != "" {
		source += " " + hv.Source
	}
	switch hv.Decision {
	case "deny":
		reason := hv.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return g.deny(call, source, fmt.Sprintf("a PermissionRequest hook refused %s %s: %s", call.Name, SummarizeInput(call), reason)), true
	case "allow":
		if len(hv.UpdatedInput) > 0 {
			call.Input = hv.UpdatedInput
			if v := g.policy.Check(ctx, call); v.Behavior == Deny {
				return g.deny(call, v.Source, v.Reason), true
			}
			d.UpdatedInput = hv.UpdatedInput
		}
		reason := "a PermissionRequest hook allowed it"
		if hv.Reason != "" {
			reason += ": " + hv.Reason
		}
		return g.allow(call, d, source, reason), true
	}
	return agent.Decision{}, false
}

// allowedOutside tells OnAllowedOutside about each real path an allowed call's file
// actions (tool.ActRead, tool.ActWrite) reach outside the workspace's roots.
func (g *Gate) allowedOutside(call tool.Call) {
	if g.OnAllowedOutside == nil {
		return
	}
	st := g.policy.snapshot(context.Background())
	acts, err := st.describe(call)
	if err != nil {
		return
	}
	for _, a := range acts {
		if a.Kind != tool.ActRead && a.Kind != tool.ActWrite {
			continue
		}
		for _, p := range a.Paths {
			if p == "" {
				continue // the working directory, or no path at all
			}
			tg, err := st.resolve(p, st.cwd)
			if err != nil || st.ws.Contains(tg.real) {
				continue
			}
			g.OnAllowedOutside(call.Name, tg.real)
		}
	}
}

func (g *Gate) allow(call tool.Call, d agent.Decision, source, reason string) agent.Decision {
	g.record(call, "allow", source, reason)
	g.allowedOutside(call)
	return d
}

// denied is deny for a refusal of the gate's own (see DeniedHooks): the
// PermissionDenied hooks are told, and their retry is added to the reason.
func (g *Gate) denied(ctx context.Context, call tool.Call, source, reason string) agent.Decision {
	d := g.deny(call, source, reason)
	if h, ok := g.hooks.(DeniedHooks); ok && h != nil && h.PermissionDenied(ctx, call, reason) {
		d.Reason += "\n\n" + RetryNote
	}
	return d
}

func (g *Gate) deny(call tool.Call, source, reason string) agent.Decision {
	g.record(call, "deny", source, reason)
	return agent.Decision{Deny: true, Reason: reason}
}

// record writes the decision to the audit; a failed write does not change the decision
// (the audit reports it, see Audit.OnFailure).
func (g *Gate) record(call tool.Call, decision, source, reason string) {
	g.audit.RecordDecision(call, decision, source, reason)
}
