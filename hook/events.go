package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/tool"
)

// The runner answers for the permission gate: PreToolUse and PermissionRequest fold the
// decisions of every hook that ran into one permission.HookVerdict, deny > ask > allow >
// "" (no opinion); its Source names the hooks that made the winning decision (their
// commands, or "func:" + name).
var _ permission.Hooks = (*Runner)(nil)

var rank = map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}

// PreToolUse runs the PreToolUse hooks for c. Exit code 2 denies with stderr as the
// reason; JSON output decides with hookSpecificOutput.permissionDecision (or the legacy
// decision approve|block) and may rewrite the input with updatedInput. A hook's
// additionalContext reaches the model: in the denial reason, or appended to the call's
// result by PostToolUse when the call runs. While a continue:false is pending, every
// call is denied without running hooks: the run is stopping.
func (r *Runner) PreToolUse(ctx context.Context, c tool.Call) permission.HookVerdict {
	if h := r.Halted(); h != nil {
		return permission.HookVerdict{Decision: "deny", Reason: "Not run: " + h.Error() + ".", Source: h.Command}
	}
	in := r.input(ctx, PreToolUse)
	in.ToolName, in.ToolInput, in.ToolUseID = c.Name, c.Input, c.ID
	var v permission.HookVerdict
	var votes votes
	var extra []string
	var updated json.RawMessage
	for _, x := range r.fire(ctx, in) {
		var d, reason string
		switch {
		case x.halt:
			d, reason = "deny", orDefault(x.out.StopReason, "a PreToolUse hook stopped the run")
		case x.block:
			d, reason = "deny", orDefault(x.run.Message, fmt.Sprintf("blocked by the PreToolUse hook %s", x.run.Command))
		case x.isJSON:
			d, reason = x.out.preToolDecision()
			if d == "deny" && reason == "" {
				reason = fmt.Sprintf("denied by the PreToolUse hook %s", x.run.Command)
			}
			if h := x.out.HookSpecificOutput; h != nil {
				if s := strings.TrimSpace(h.AdditionalContext); s != "" {
					extra = append(extra, s)
				}
				if updated == nil && d != "deny" && len(h.UpdatedInput) > 0 {
					updated = h.UpdatedInput
				}
			}
		}
		votes.add(d, reason, x.run.Command)
	}
	v.Decision, v.Reason, v.Source = votes.result()
	if v.Decision == "deny" {
		if len(extra) > 0 {
			v.Reason += "\n" + strings.Join(extra, "\n")
		}
		return v
	}
	v.UpdatedInput = updated
	if len(extra) > 0 && c.ID != "" {
		r.mu.Lock()
		if len(r.preContext) >= maxPreContext {
			clear(r.preContext)
		}
		r.preContext[c.ID] = strings.Join(extra, "\n")
		r.mu.Unlock()
	}
	return v
}

func (o Output) preToolDecision() (decision, reason string) {
	if h := o.HookSpecificOutput; h != nil && h.PermissionDecision != "" {
		return h.PermissionDecision, h.PermissionDecisionReason
	}
	switch o.Decision {
	case "approve":
		return "allow", o.Reason
	case "block":
		return "deny", o.Reason
	}
	return "", ""
}

// PermissionRequest runs the PermissionRequest hooks for a call that would ask the
// user: hookSpecificOutput.decision.behavior allow|deny answers for the user (deny >
// allow); exit code 2 denies with stderr; interrupt with deny also stops the agent.
func (r *Runner) PermissionRequest(ctx context.Context, c tool.Call) permission.HookVerdict {
	in := r.input(ctx, PermissionRequest)
	in.ToolName, in.ToolInput, in.ToolUseID = c.Name, c.Input, c.ID
	var v permission.HookVerdict
	var votes votes
	var updated json.RawMessage
	for _, x := range r.fire(ctx, in) {
		var d, reason string
		switch {
		case x.halt:
			d, reason = "deny", orDefault(x.out.StopReason, "a PermissionRequest hook stopped the run")
		case x.block:
			d, reason = "deny", orDefault(x.run.Message, fmt.Sprintf("denied by the PermissionRequest hook %s", x.run.Command))
		case x.isJSON && x.out.HookSpecificOutput != nil && x.out.HookSpecificOutput.Decision != nil:
			pd := x.out.HookSpecificOutput.Decision
			d, reason = pd.Behavior, pd.Message
			if d == "deny" && reason == "" {
				reason = fmt.Sprintf("denied by the PermissionRequest hook %s", x.run.Command)
			}
			if d == "allow" && updated == nil && len(pd.UpdatedInput) > 0 {
				updated = pd.UpdatedInput
			}
			if d == "deny" && pd.Interrupt {
				r.setHalt(&HaltError{Event: PermissionRequest, Command: x.run.Command, Reason: reason})
			}
		}
		votes.add(d, reason, x.run.Command)
	}
	v.Decision, v.Reason, v.Source = votes.result()
	if v.Decision == "allow" {
		v.UpdatedInput = updated
	}
	return v
}

// AfterTool implements agent.AfterTool with PostToolUse.
func (r *Runner) AfterTool(ctx context.Context, c tool.Call, res *tool.Result) {
	r.PostToolUse(ctx, c, res)
}

// PostToolUse runs the PostToolUse hooks for a call that succeeded, or the
// PostToolUseFailure hooks for one whose result is an error. What the hooks have for the
// model (stderr of exit code 2, decision "block" with its reason, additionalContext, and
// the PreToolUse additionalContext kept for this call) is appended to the result.
func (r *Runner) PostToolUse(ctx context.Context, c tool.Call, res *tool.Result) {
	event := PostToolUse
	in := r.input(ctx, event)
	if res.IsError {
		event = PostToolUseFailure
		in = r.input(ctx, event)
		in.Error = res.Text()
	} else {
		in.ToolResponse = toolResponse(c, res, r.cfg.CWD)
	}
	in.ToolName, in.ToolInput, in.ToolUseID = c.Name, c.Input, c.ID

	var notes []string
	r.mu.Lock()
	if s, ok := r.preContext[c.ID]; ok {
		notes = append(notes, "PreToolUse hook context: "+s)
		delete(r.preContext, c.ID)
	}
	r.mu.Unlock()
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.block:
			notes = append(notes, fmt.Sprintf("%s hook feedback: %s", event, orDefault(x.run.Message, "(the hook blocked without saying why)")))
		case x.isJSON:
			if x.out.Decision == "block" {
				notes = append(notes, fmt.Sprintf("%s hook feedback: %s", event, orDefault(strings.TrimSpace(x.out.Reason), "(the hook blocked without saying why)")))
			}
			if h := x.out.HookSpecificOutput; h != nil && strings.TrimSpace(h.AdditionalContext) != "" {
				notes = append(notes, fmt.Sprintf("%s hook context: %s", event, strings.TrimSpace(h.AdditionalContext)))
			}
		}
	}
	if len(notes) > 0 {
		res.Content = append(res.Content, llm.TextBlock("\n\n"+strings.Join(notes, "\n\n")))
	}
}

// BeforeStop implements agent.BeforeStop with the Stop hooks: exit code 2 or decision
// "block" sends the model back with the reason. stop_hook_active tells the hooks the
// model is already continuing because of them. The loop's MaxStopContinues (8 by
// default) ends the run however often the hooks block; continue:false ends it at once;
// a prompt hook's "impossible" verdict ends it failed.
func (r *Runner) BeforeStop(ctx context.Context, s *agent.Stop) agent.StopDecision {
	return r.stopAs(ctx, Stop, Child{}, s)
}

// Child names a subagent run for the Subagent hooks: its type (what matchers select),
// its id and its transcript.
type Child struct {
	Type, ID, TranscriptPath string
}

// SubagentStop is BeforeStop for a subagent's loop, with the SubagentStop hooks, whose
// matcher selects the agent type.
func (r *Runner) SubagentStop(ctx context.Context, c Child, s *agent.Stop) agent.StopDecision {
	return r.stopAs(ctx, SubagentStop, c, s)
}

// Subagent returns the seam to put in a subagent's agent.Config.BeforeStop.
func (r *Runner) Subagent(c Child) agent.BeforeStop {
	return subagentStop{r, c}
}

type subagentStop struct {
	r *Runner
	c Child
}

func (s subagentStop) BeforeStop(ctx context.Context, st *agent.Stop) agent.StopDecision {
	return s.r.SubagentStop(ctx, s.c, st)
}

func (r *Runner) stopAs(ctx context.Context, event string, c Child, s *agent.Stop) agent.StopDecision {
	if r.takeHalt() != nil || s.Last {
		return agent.StopDecision{} // past the loop's cap the hooks are not run again
	}
	r.mu.Lock()
	active := s.Continued > 0 && r.stopBlocked[s.Conv]
	delete(r.stopBlocked, s.Conv)
	r.mu.Unlock()
	in := r.input(ctx, event)
	in.StopHookActive, in.AgentType, in.LastAssistantMessage = active, c.Type, s.Final.Text()
	if event == SubagentStop {
		in.AgentID, in.AgentTranscriptPath = c.ID, c.TranscriptPath
	}
	in.conv = s.Conv
	var reasons, impossible []string
	blocked := false
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.isJSON && x.out.impossible != "":
			impossible = append(impossible, x.out.impossible)
		case x.halt:
			r.takeHalt()
			return agent.StopDecision{}
		case x.block:
			blocked = true
			reasons = append(reasons, orDefault(x.run.Message, fmt.Sprintf("the %s hook %s blocked stopping without saying why", event, x.run.Command)))
		case x.isJSON && x.out.Decision == "block":
			blocked = true
			reasons = append(reasons, orDefault(strings.TrimSpace(x.out.Reason), fmt.Sprintf("the %s hook %s blocked stopping without saying why", event, x.run.Command)))
		}
	}
	if len(impossible) > 0 {
		return agent.StopDecision{End: agent.StatusFailed,
			Reason: fmt.Sprintf("a %s hook found its condition cannot be met: %s", event, strings.Join(impossible, "; "))}
	}
	var wakes []string
	if event == Stop {
		// The model is about to stop: an asyncRewake hook that exited 2 sends it back.
		// Headless, the run would end here, so the hooks still running are waited for.
		if r.cfg.WaitRewake {
			r.bg.waitRewake(ctx)
		}
		wakes = r.bg.takeRewakes()
	}
	if !blocked && len(wakes) == 0 {
		return agent.StopDecision{}
	}
	var msg []string
	if blocked {
		r.mu.Lock()
		r.stopBlocked[s.Conv] = true
		r.mu.Unlock()
		msg = append(msg, event+" hook feedback:\n"+strings.Join(reasons, "\n"))
	}
	msg = append(msg, wakes...)
	return agent.StopDecision{Continue: true, Message: strings.Join(msg, "\n\n")}
}

// UserPromptSubmit runs the UserPromptSubmit hooks before prompt is sent. Plain stdout
// and additionalContext are returned as extra context for the model. Exit code 2 or
// decision "block" drops the prompt (blocked, with the reason for the user);
// continue:false does too and returns the *HaltError. A halt left pending from an
// earlier run is forgotten: a new prompt starts anew.
func (r *Runner) UserPromptSubmit(ctx context.Context, prompt string) (extraContext string, blocked bool, reason string, err error) {
	r.ClearHalt()
	in := r.input(ctx, UserPromptSubmit)
	in.Prompt = prompt
	var extra, reasons []string
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.halt:
			h := r.takeHalt()
			if h == nil { // another caller consumed it meanwhile
				h = &HaltError{Event: UserPromptSubmit, Command: x.run.Command, Reason: x.out.StopReason}
			}
			return "", true, x.out.StopReason, h
		case x.block:
			blocked = true
			reasons = append(reasons, orDefault(x.run.Message, fmt.Sprintf("blocked by the UserPromptSubmit hook %s", x.run.Command)))
		case x.isJSON:
			if x.out.Decision == "block" {
				blocked = true
				reasons = append(reasons, orDefault(strings.TrimSpace(x.out.Reason), fmt.Sprintf("blocked by the UserPromptSubmit hook %s", x.run.Command)))
			}
			extra = appendContext(extra, x.out)
		case x.text != "":
			extra = append(extra, x.text)
		}
	}
	if blocked {
		return "", true, strings.Join(reasons, "\n"), nil
	}
	return strings.Join(extra, "\n"), false, "", nil
}

// SessionStart runs the SessionStart hooks (source: startup, resume, clear or compact)
// and returns what they add to the context: plain stdout and additionalContext.
func (r *Runner) SessionStart(ctx context.Context, source string) (extraContext string) {
	in := r.input(ctx, SessionStart)
	in.Source = source
	return r.context(ctx, in)
}

// context fires in's hooks and joins what they add to the context: plain stdout and
// additionalContext.
func (r *Runner) context(ctx context.Context, in Input) string {
	var extra []string
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.isJSON:
			extra = appendContext(extra, x.out)
		case x.text != "":
			extra = append(extra, x.text)
		}
	}
	return strings.Join(extra, "\n")
}

// SubagentStart runs the SubagentStart hooks for a subagent of agentType and returns the
// additionalContext they give the subagent.
func (r *Runner) SubagentStart(ctx context.Context, c Child) (extraContext string) {
	in := r.input(ctx, SubagentStart)
	in.AgentType, in.AgentID = c.Type, c.ID
	var extra []string
	for _, x := range r.fire(ctx, in) {
		if x.isJSON {
			extra = appendContext(extra, x.out)
		}
	}
	return strings.Join(extra, "\n")
}

// PreCompact runs the PreCompact hooks (trigger manual or auto) before compaction;
// exit code 2, decision "block" or continue:false block it, with the reason.
func (r *Runner) PreCompact(ctx context.Context, trigger, instructions string) (blocked bool, reason string) {
	in := r.input(ctx, PreCompact)
	in.Trigger, in.CustomInstructions = trigger, instructions
	var reasons []string
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.halt:
			blocked = true
			reasons = append(reasons, orDefault(x.out.StopReason, "a PreCompact hook stopped the run"))
		case x.block:
			blocked = true
			reasons = append(reasons, orDefault(x.run.Message, fmt.Sprintf("blocked by the PreCompact hook %s", x.run.Command)))
		case x.isJSON && x.out.Decision == "block":
			blocked = true
			reasons = append(reasons, orDefault(strings.TrimSpace(x.out.Reason), fmt.Sprintf("blocked by the PreCompact hook %s", x.run.Command)))
		}
	}
	return blocked, strings.Join(reasons, "\n")
}

// PostCompact runs the PostCompact hooks after a compaction.
func (r *Runner) PostCompact(ctx context.Context, trigger string) {
	in := r.input(ctx, PostCompact)
	in.Trigger = trigger
	r.fire(ctx, in)
}

// Notification runs the Notification hooks with a message the user should see.
func (r *Runner) Notification(ctx context.Context, message string) {
	in := r.input(ctx, Notification)
	in.Message = message
	r.fire(ctx, in)
}

// SessionEnd runs the SessionEnd hooks (reason: clear, logout, prompt_input_exit, other).
func (r *Runner) SessionEnd(ctx context.Context, reason string) {
	in := r.input(ctx, SessionEnd)
	in.Reason = reason
	r.fire(ctx, in)
}

func appendContext(extra []string, o Output) []string {
	if h := o.HookSpecificOutput; h != nil {
		if s := strings.TrimSpace(h.AdditionalContext); s != "" {
			extra = append(extra, s)
		}
	}
	return extra
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}

// votes combines the decisions of several hooks about one call: deny > ask > allow >
// none; the reasons and sources reported are those of the winning decision.
type votes struct {
	decision         string
	reasons, sources map[string][]string
}

func (v *votes) add(decision, reason, source string) {
	if v.reasons == nil {
		v.reasons, v.sources = map[string][]string{}, map[string][]string{}
	}
	if rank[decision] > rank[v.decision] {
		v.decision = decision
	}
	if reason = strings.TrimSpace(reason); reason != "" {
		v.reasons[decision] = append(v.reasons[decision], reason)
	}
	if decision != "" {
		v.sources[decision] = append(v.sources[decision], source)
	}
}

func (v *votes) result() (decision, reason, source string) {
	return v.decision, strings.Join(v.reasons[v.decision], "\n"), strings.Join(v.sources[v.decision], ", ")
}
