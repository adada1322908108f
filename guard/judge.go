package guard

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/agent"
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
`

// JudgeConfig is the model that answers prompt and agent hooks: the hook's model if it
// names one, else $ANTHROPIC_SMALL_FAST_MODEL, else a small Claude model for a Claude
// session, else the session's model.
type JudgeConfig struct {
	Provider llm.Provider
	Model    string // the session's
	// Impossible says what "impossible" means (the goal mechanism's words), appended to
	// the judge's instructions.
	Impossible string
	// Offered says which of the judge's tools the session offers (--tools may leave
	// them out).
	Offered func(...string) []string
	// Spend counts the judge's usage towards the run.
	Spend func(u llm.Usage, model string)
}

// judge answers Claude Code's prompt and agent hooks with the session's own provider.
type judge struct {
	JudgeConfig
	ws *workspace.Workspace
	// policy filters what Grep reads and says, with Offered, which of the judge's tools
	// the session has (a deny rule may have taken them away).
	policy *permission.Policy
	gate   agent.Gate // the session's permission gate, set once it exists
}

func (j *judge) system() string { return judgeSystem + j.Impossible }

func (j *judge) answer(ctx context.Context, req hook.JudgeRequest) (hook.JudgeAnswer, error) {
	var ans hook.JudgeAnswer
	if j.gate == nil {
		return ans, fmt.Errorf("the session is not ready")
	}
	prov := j.Provider
	model := llm.ResolveAlias(req.Model)
	if model == "" {
		model = os.Getenv("ANTHROPIC_SMALL_FAST_MODEL")
	}
	if model == "" {
		model = j.Model
		if strings.HasPrefix(j.Model, "claude-") {
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
		resp, err := prov.Complete(ctx, &llm.Request{Model: model, System: j.system(), MaxTokens: 512,
			Messages: []llm.Message{llm.UserText(user.String())}}, nil)
		if err != nil {
			return ans, err
		}
		j.spend(resp.Usage, model)
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
		if (j.Offered != nil && len(j.Offered(name)) == 0) || j.policy.Hidden(name) {
			continue
		}
		if err := reg.Add(t); err != nil {
			return "", err
		}
	}
	a, err := agent.New(agent.Config{Provider: prov, Model: model, Tools: reg, MaxOutput: 2048,
		System: j.system() + "\nYou may check the work with Read, Grep and Glob first; end with the JSON answer alone.",
		Limits: agent.Limits{MaxTurns: 50}, Gates: []agent.Gate{j.gate}})
	if err != nil {
		return "", err
	}
	out := a.Run(ctx, &agent.Conversation{}, llm.TextBlock(question))
	j.spend(out.Usage, model)
	if out.Status != agent.StatusCompleted {
		return "", fmt.Errorf("the judging agent ended %s: %s", out.Status, out.Reason)
	}
	return out.Result, nil
}
