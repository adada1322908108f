package harness

import (
	"context"
	"encoding/json"
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
	fmt.Fprintf(&user, "Condition:\n%s\n\nHook input (%s):\n%s\n\nConversation, most recent last:\n%s", req.Prompt, req.Event, req.Input, renderConversation(req.Messages, 24_000))
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
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return ans, fmt.Errorf("no JSON in the answer %q", clipString(text, 200))
	}
	if err := json.Unmarshal([]byte(text[i:j+1]), &ans); err != nil {
		return ans, fmt.Errorf("the answer %q: %w", clipString(text, 200), err)
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

// renderConversation is the tail of a conversation as text, at most max characters:
// what was said, which tools were called and what they returned.
func renderConversation(msgs []llm.Message, max int) string {
	var parts []string
	total := 0
	for i := len(msgs) - 1; i >= 0 && total < max; i-- {
		var b strings.Builder
		for _, blk := range msgs[i].Content {
			switch blk.Type {
			case llm.BlockText:
				b.WriteString(blk.Text + "\n")
			case llm.BlockToolUse:
				in, _ := json.Marshal(blk.Input)
				fmt.Fprintf(&b, "[called %s %s]\n", blk.Name, clipString(string(in), 400))
			case llm.BlockToolResult:
				fmt.Fprintf(&b, "[result%s] %s\n", map[bool]string{true: " (error)"}[blk.IsError], clipString(blk.ResultText(), 2000))
			}
		}
		if t := strings.TrimSpace(b.String()); t != "" {
			part := string(msgs[i].Role) + ": " + t
			total += len(part)
			parts = append(parts, part)
		}
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return strings.Join(parts, "\n\n")
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
