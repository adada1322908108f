package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
)

// BeforeModel implements agent.BeforeModel. Once a hook answered continue:false, the next
// model call is not made and the run ends with the HaltError. Then, when the tool calls
// of the last response have all resolved, the PostToolBatch hooks run once for the batch:
// exit code 2, decision "block" or continue:false stop the loop before the model is
// called, additionalContext joins the request. Last, what async hooks left for the model
// is added to the request.
func (r *Runner) BeforeModel(ctx context.Context, t *agent.Turn) error {
	if h := r.takeHalt(); h != nil {
		return h
	}
	if err := r.postToolBatch(ctx, t); err != nil {
		return err
	}
	r.deliver(t)
	return nil
}

// Child returns the BeforeModel seam for a subagent's loop: BeforeModel without the
// delivery of what async hooks left, which is for the main conversation.
func (r *Runner) Child() agent.BeforeModel { return childModel{r} }

type childModel struct{ r *Runner }

func (c childModel) BeforeModel(ctx context.Context, t *agent.Turn) error {
	if h := c.r.takeHalt(); h != nil {
		return h
	}
	return c.r.postToolBatch(ctx, t)
}

// batchCall is one call of a PostToolBatch's tool_calls.
type batchCall struct {
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolUseID    string          `json:"tool_use_id"`
	ToolResponse string          `json:"tool_response"`
	IsError      bool            `json:"is_error"`
}

// maxBatchConvs bounds the conversations whose last batch is remembered (each subagent
// run has its own).
const maxBatchConvs = 256

func (r *Runner) postToolBatch(ctx context.Context, t *agent.Turn) error {
	if !r.Has(PostToolBatch) || t.Conv == nil {
		return nil
	}
	msgs := t.Conv.Messages
	n := len(msgs)
	if n < 2 || msgs[n-1].Role != llm.RoleUser || msgs[n-2].Role != llm.RoleAssistant {
		return nil
	}
	uses := msgs[n-2].ToolUses()
	if len(uses) == 0 {
		return nil
	}
	results := map[string]llm.Block{}
	for _, b := range msgs[n-1].Content {
		if b.Type == "tool_result" {
			results[b.ToolUseID] = b
		}
	}
	key := uses[0].ID
	r.mu.Lock()
	seen := r.batches[t.Conv] == key
	if !seen {
		if len(r.batches) >= maxBatchConvs {
			clear(r.batches)
		}
		r.batches[t.Conv] = key
	}
	r.mu.Unlock()
	if seen { // the same request again (a retry after the context was shrunk)
		return nil
	}
	calls := make([]batchCall, 0, len(uses))
	for _, u := range uses {
		res := results[u.ID]
		input := u.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		calls = append(calls, batchCall{ToolName: u.Name, ToolInput: input, ToolUseID: u.ID,
			ToolResponse: r.fit(llm.Message{Content: res.Content}.Text(), PostToolBatch), IsError: res.IsError})
	}
	in := r.input(ctx, PostToolBatch)
	in.ToolCalls, _ = json.Marshal(calls)
	var reasons, extra []string
	for _, x := range r.fire(ctx, in) {
		switch {
		case x.halt:
			return r.takeHaltOr(&HaltError{Event: PostToolBatch, Command: x.run.Command, Reason: x.out.StopReason})
		case x.block:
			reasons = append(reasons, orDefault(x.run.Message, fmt.Sprintf("the PostToolBatch hook %s blocked without saying why", x.run.Command)))
		case x.isJSON:
			if x.out.Decision == "block" {
				reasons = append(reasons, orDefault(x.out.Reason, fmt.Sprintf("the PostToolBatch hook %s blocked without saying why", x.run.Command)))
			}
			extra = appendContext(extra, x.out)
		}
	}
	if len(reasons) > 0 {
		err := &HaltError{Event: PostToolBatch, Command: "PostToolBatch", Reason: strings.Join(reasons, "\n")}
		r.show("Stopped by a PostToolBatch hook: " + err.Reason)
		return err
	}
	if len(extra) > 0 {
		t.AppendUser(llm.TextBlock("PostToolBatch hook context: " + strings.Join(extra, "\n")))
	}
	return nil
}

// takeHaltOr returns the pending halt (clearing it), or h when another caller took it.
func (r *Runner) takeHaltOr(h *HaltError) *HaltError {
	if p := r.takeHalt(); p != nil {
		return p
	}
	return h
}

// StopFailure runs the StopFailure hooks for a turn that ended because the model call
// failed: errorType is Claude Code's class (rate_limit, authentication_failed,
// billing_error, invalid_request, model_not_found, server_error, max_output_tokens,
// unknown), which matchers select; code the short error (an HTTP status); message the
// error's text. Their output and exit codes are ignored, as in Claude Code.
func (r *Runner) StopFailure(ctx context.Context, errorType, code, message, lastAssistant string) {
	in := r.input(ctx, StopFailure)
	in.ErrorType, in.Error, in.ErrorMessage, in.LastAssistantMessage = errorType, code, message, lastAssistant
	r.fire(ctx, in)
}

// Setup runs the Setup hooks (trigger init or maintenance: ouro --init, --init-only,
// --maintenance) and returns what they add to the context: plain stdout and
// additionalContext.
func (r *Runner) Setup(ctx context.Context, trigger string) (extraContext string) {
	in := r.input(ctx, Setup)
	in.Trigger = trigger
	return r.context(ctx, in)
}

// Scoped returns a runner with r's hooks plus hooks, those of an agent definition's
// frontmatter, which run only while that agent runs: its Stop hooks become SubagentStop
// hooks, as in Claude Code. The scoped runner shares r's async hooks. warnings are what
// ouro skipped; an error is a hook that is wrong, and then none of them runs.
func (r *Runner) Scoped(hooks map[string][]settings.HookMatcher) (*Runner, []string, error) {
	hooks, refused := r.managedOnly(hooks)
	own := map[string][]settings.HookMatcher{}
	for ev, ms := range hooks {
		if ev == Stop {
			ev = SubagentStop
		}
		own[ev] = append(own[ev], ms...)
	}
	compiled, warnings, errs := r.compile(own)
	if len(errs) > 0 {
		return nil, warnings, errors.Join(errs...)
	}
	s := &Runner{cfg: r.cfg, shell: r.shell, env: r.env, bg: r.bg, cwd: r.cwd, hooks: map[string][]entry{},
		preContext: map[string]string{}, stopBlocked: map[*agent.Conversation]bool{}, batches: map[*agent.Conversation]string{}}
	r.hmu.RLock()
	for ev, es := range r.hooks {
		s.hooks[ev] = append([]entry(nil), es...)
	}
	r.hmu.RUnlock()
	for ev, es := range compiled {
		s.hooks[ev] = append(s.hooks[ev], es...)
	}
	return s, append(refused, warnings...), nil
}

// managedOnly drops hooks under allowManagedHooksOnly (none of those added later are
// managed), with one warning.
func (r *Runner) managedOnly(hooks map[string][]settings.HookMatcher) (map[string][]settings.HookMatcher, []string) {
	if r.cfg.ManagedOnly == "" || len(hooks) == 0 {
		return hooks, nil
	}
	return nil, []string{fmt.Sprintf("ignored: managed settings (%s) set allowManagedHooksOnly, so only their hooks run", r.cfg.ManagedOnly)}
}

// Add registers more hooks for the rest of the session (a skill's frontmatter hooks,
// once the skill is invoked). warnings and errors are as for Scoped; on an error none is
// added.
func (r *Runner) Add(hooks map[string][]settings.HookMatcher) ([]string, error) {
	hooks, refused := r.managedOnly(hooks)
	if refused != nil {
		return refused, nil
	}
	compiled, warnings, errs := r.compile(hooks)
	if len(errs) > 0 {
		return warnings, errors.Join(errs...)
	}
	r.hmu.Lock()
	defer r.hmu.Unlock()
	for ev, es := range compiled {
		r.hooks[ev] = append(r.hooks[ev], es...)
	}
	return warnings, nil
}
