package harness

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

const judgeSystem = `You judge whether a condition about an AI coding agent's work holds, using only the evidence in the conversation you are given (what its tools actually returned, not what it claims). Answer with only a JSON object:
{"ok": true} when the condition holds;
{"ok": false, "reason": "..."} when it does not, the reason addressed to the agent: what is still missing and how to check it;
{"ok": true, "impossible": true, "reason": "..."} when it cannot be met at all.`

// judge answers Claude Code's prompt and agent hooks with the session's own provider: the hook's
// model if it names one, else $ANTHROPIC_SMALL_FAST_MODEL, else a small Claude model for a
// Claude session, else the session's model. Its usage counts towards the run.
func (s *Session) judge(ctx context.Context, req hook.JudgeRequest) (hook.JudgeAnswer, error) {
	var ans hook.JudgeAnswer
	if s.Agent == nil {
		return ans, fmt.Errorf("the session is not ready")
	}
	prov := s.Agent.Config().Provider
	model := llm.ResolveAlias(req.Model)
	if model == "" {
		model = os.Getenv("ANTHROPIC_SMALL_FAST_MODEL")
	}
	if model == "" {
		model = s.Model
		if strings.HasPrefix(s.Model, "claude-") {
			model = llm.ResolveAlias("haiku")
		}
	}
	var user strings.Builder
	fmt.Fprintf(&user, "Condition:\n%s\n\nHook input (%s):\n%s\n\nConversation, most recent last:\n%s", req.Prompt, req.Event, req.Input, llm.RenderMessages(req.Messages, 24_000))
	var text string
	if req.Agent {
		t, err := s.judgeWithTools(ctx, prov, model, user.String())
		if err != nil {
			return ans, err
		}
		text = t
	} else {
		resp, err := prov.Complete(ctx, &llm.Request{Model: model, System: judgeSystem, MaxTokens: 512,
			Messages: []llm.Message{llm.UserText(user.String())}}, nil)
		if err != nil {
			return ans, err
		}
		s.ctx.addUsage(resp.Usage, model)
		text = resp.Message.Text()
	}
	if err := llm.DecodeJSONIn(text, '{', '}', &ans); err != nil {
		return ans, err
	}
	return ans, nil
}

// judgeWithTools is an agent hook's judge: a small loop of its own that may Read, Grep
// and Glob (under the session's permission gate) before it answers; its final text is
// the verdict.
func (s *Session) judgeWithTools(ctx context.Context, prov llm.Provider, model, question string) (string, error) {
	reg := tool.NewRegistry()
	for _, name := range []string{"Read", "Grep", "Glob"} {
		if t, ok := s.Tools.Get(name); ok {
			if err := reg.Add(t); err != nil {
				return "", err
			}
		}
	}
	a, err := agent.New(agent.Config{Provider: prov, Model: model, Tools: reg, MaxOutput: 2048,
		System: judgeSystem + "\nYou may check the work with Read, Grep and Glob first; end with the JSON answer alone.",
		Limits: agent.Limits{MaxTurns: 50}, Gates: []agent.Gate{s.guard.gate}})
	if err != nil {
		return "", err
	}
	out := a.Run(ctx, &agent.Conversation{}, llm.TextBlock(question))
	s.ctx.addUsage(out.Usage, model)
	if out.Status != agent.StatusCompleted {
		return "", fmt.Errorf("the judging agent ended %s: %s", out.Status, out.Reason)
	}
	return out.Result, nil
}
