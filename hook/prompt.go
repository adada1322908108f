package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
)

// Prompt hooks are Claude Code's model-judged hooks ("type": "prompt", and "type":
// "agent", whose judge may first look around with read-only tools): instead of a
// command, a model is asked whether a condition holds. ouro runs them at Stop and
// SubagentStop (judged from the conversation: a "no" sends the agent back with the
// model's reason, as a blocking Stop hook does), at PreToolUse (a "no" denies the call),
// at PostToolUse (a "no" is feedback for the model, appended to the call's result, as
// decision "block" is; the turn goes on) and at UserPromptSubmit (a "no" drops the
// prompt). A "yes" expresses no opinion: rules
// and other hooks still decide. Like Claude Code's, they fail open: a timeout, an error
// or an unreadable answer blocks nothing. At Stop and SubagentStop an "impossible"
// verdict (the condition can never hold) ends the run failed with the judge's reason, as
// the goal loop's evaluator does: stopping then is no success, and going on is no use.

// JudgeRequest is what a prompt hook asks the model.
type JudgeRequest struct {
	Event  string // Stop, SubagentStop, PreToolUse, PostToolUse or UserPromptSubmit
	Model  string // the hook's model field; "" leaves the choice to the judge
	Prompt string // the hook's prompt, $ARGUMENTS replaced by the hook input
	Input  json.RawMessage
	// Messages are the conversation that wants to stop (the subagent's for SubagentStop).
	Messages []llm.Message
	// Agent asks for an agent hook: the judge may use read-only tools (Read, Grep, Glob)
	// to check the condition before it answers.
	Agent bool
}

// JudgeAnswer is the model's verdict.
type JudgeAnswer struct {
	OK         bool   `json:"ok"`
	Reason     string `json:"reason"`
	Impossible bool   `json:"impossible,omitempty"` // the condition cannot be met: at Stop, the run fails
}

// Judge asks a model; the harness provides it (see Config.Judge).
type Judge func(ctx context.Context, req JudgeRequest) (JudgeAnswer, error)

// promptEvents are the events prompt hooks run on.
var promptEvents = map[string]bool{Stop: true, SubagentStop: true, PreToolUse: true, PostToolUse: true, UserPromptSubmit: true}

// DefaultPromptTimeout and DefaultAgentTimeout bound a prompt or agent hook that sets no
// timeout, as in Claude Code.
const (
	DefaultPromptTimeout = 30 * time.Second
	DefaultAgentTimeout  = 60 * time.Second
)

// promptFunc turns a prompt hook into an in-process hook that asks the judge.
func (r *Runner) promptFunc(h settings.HookCommand) *Func {
	timeout := time.Duration(h.Timeout * float64(time.Second))
	agentHook := h.Type == "agent"
	switch {
	case timeout > 0:
	case agentHook:
		timeout = DefaultAgentTimeout
	default:
		timeout = DefaultPromptTimeout
	}
	name := h.Type + ": " + textcut.Bytes(strings.Join(strings.Fields(h.Prompt), " "), 60, "…")
	return &Func{Name: name, Run: func(ctx context.Context, in Input) (Output, error) {
		payload, err := json.Marshal(in)
		if err != nil {
			return Output{}, err
		}
		prompt := h.Prompt
		if strings.Contains(prompt, "$ARGUMENTS") {
			prompt = strings.ReplaceAll(prompt, "$ARGUMENTS", string(payload))
		}
		var msgs []llm.Message
		if in.conv != nil {
			msgs = in.conv.Messages
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ans, err := r.cfg.Judge(ctx, JudgeRequest{Event: in.Event, Model: h.Model, Prompt: prompt, Input: payload, Messages: msgs, Agent: agentHook})
		if err != nil {
			return Output{}, fmt.Errorf("the model could not judge (%w); nothing is blocked", err)
		}
		reason := strings.TrimSpace(ans.Reason)
		if ans.Impossible && (in.Event == Stop || in.Event == SubagentStop) {
			// The same verdict as the goal loop's: the condition can never hold, so going
			// on is pointless and stopping is no success; the run ends failed.
			return Output{impossible: orDefault(reason, "the judge found the condition cannot be met")}, nil
		}
		if ans.OK || ans.Impossible {
			return Output{}, nil
		}
		if reason == "" {
			return Output{}, errors.New("the model said no without a reason; nothing is blocked")
		}
		if in.Event == PreToolUse {
			return Output{HookSpecificOutput: &SpecificOutput{HookEventName: PreToolUse,
				PermissionDecision: "deny", PermissionDecisionReason: reason}}, nil
		}
		return Output{Decision: "block", Reason: reason}, nil
	}}
}
