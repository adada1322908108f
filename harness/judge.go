package harness

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

const judgeSystem = `You judge whether a condition about an AI coding agent's work holds, using only the evidence in the conversation you are given (what its tools actually returned, not what it claims). Answer with only a JSON object:
{"ok": true} when the condition holds;
{"ok": false, "reason": "..."} when it does not, the reason addressed to the agent: what is still missing and how to check it;
{"ok": false, "impossible": true, "reason": "..."} when it can never be met; the run then ends failed.
` + goal.Impossible

// judge answers Claude Code's prompt and agent hooks with the session's own provider: the hook's
// model if it names one, else $ANTHROPIC_SMALL_FAST_MODEL, else a small Claude model for a
// Claude session, else the session's model. Its usage counts towards the run.
type judge struct {
	model model
	ws    *workspace.Workspace
	// policy filters what Grep reads; hidden and offered say which of the judge's tools
	// the session has (a deny rule or --tools may have taken them away).
	policy  *permission.Policy
	offered func(...string) []string
	gate    agent.Gate // the session's permission gate, set once it exists
	spent   *spending
}

func (j *judge) answer(ctx context.Context, req hook.JudgeRequest) (hook.JudgeAnswer, error) {
	var ans hook.JudgeAnswer
	if j.gate == nil {
		return ans, fmt.Errorf("the session is not ready")
	}
	prov := j.model.provider
	model := llm.ResolveAlias(req.Model)
	if model == "" {
		model = os.Getenv("ANTHROPIC_SMALL_FAST_MODEL")
	}
	if model == "" {
		model = j.model.name
		if strings.HasPrefix(j.model.name, "claude-") {
			model = llm.ResolveAlias("haiku")
		}
	}
	var user strings.Builder
	fmt.Fprintf(&user, "Condition:\n%s\n\nHook input (%s):\n%s\n\nConversation, most recent last:\n%s", req.Prompt, req.Event, req.Input, llm.RenderMessages(req.Messages, 24_000))
	var text string
	if req.Agent {
		t, err := j.withTools(ctx, prov, model, user.String())
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
		j.spent.add(resp.Usage, model)
		text = resp.Message.Text()
	}
	if err := llm.DecodeJSONIn(text, '{', '}', &ans); err != nil {
		return ans, err
	}
	return ans, nil
}

// withTools is an agent hook's judge: a small loop of its own that may Read, Grep and
// Glob (those of them the session offers, under its permission gate) before it answers;
// its final text is the verdict.
func (j *judge) withTools(ctx context.Context, prov llm.Provider, model, question string) (string, error) {
	grep := tools.NewGrep(j.ws)
	grep.SetReadFilter(j.policy.ReadDenied)
	reg := tool.NewRegistry()
	for _, t := range []tool.Tool{tools.NewRead(j.ws, tools.NewFileState()), grep, tools.NewGlob(j.ws)} {
		name := t.Spec().Name
		if len(j.offered(name)) == 0 || j.policy.Hidden(name) {
			continue
		}
		if err := reg.Add(t); err != nil {
			return "", err
		}
	}
	a, err := agent.New(agent.Config{Provider: prov, Model: model, Tools: reg, MaxOutput: 2048,
		System: judgeSystem + "\nYou may check the work with Read, Grep and Glob first; end with the JSON answer alone.",
		Limits: agent.Limits{MaxTurns: 50}, Gates: []agent.Gate{j.gate}})
	if err != nil {
		return "", err
	}
	out := a.Run(ctx, &agent.Conversation{}, llm.TextBlock(question))
	j.spent.add(out.Usage, model)
	if out.Status != agent.StatusCompleted {
		return "", fmt.Errorf("the judging agent ended %s: %s", out.Status, out.Reason)
	}
	return out.Result, nil
}
