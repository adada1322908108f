package subagent

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Direct is one child run outside a model's Task call (a workflow's agent() call): the
// agent type (general-purpose when empty, resolved like the Task tool's subagent_type),
// the model instead of the definition's ("" keeps it), a token ceiling (0: the session's
// limits only) and the id its transcript is named by. Isolation "worktree" runs it in a
// fresh git worktree (as the Task tool's isolation): the text returned then ends with
// what the worktree holds.
type Direct struct {
	AgentType, Model, Description, ID string
	MaxTokens                         int
	Isolation                         string
}

// RunDirect runs one child under the session's permissions, tools and hooks, as the Task
// tool would, and returns its final text and the tokens it (and any children of its own)
// spent. An error means the child did not complete; its text then says why.
func (t *Tool) RunDirect(ctx context.Context, d Direct, prompt string, x *tool.Exec) (string, llm.Usage, error) {
	typ := d.AgentType
	if typ == "" {
		typ = GeneralPurpose
	}
	def, ok := t.sh.byName[typ]
	if !ok {
		names := make([]string, 0, len(t.sh.types))
		for _, d := range t.sh.types {
			names = append(names, d.Name)
		}
		sort.Strings(names)
		return "", llm.Usage{}, fmt.Errorf("unknown agentType %q; the agent types that exist are: %s", typ, strings.Join(names, ", "))
	}
	if x == nil {
		x = tool.NewExec(tool.Call{ID: d.ID, Name: AgentName}, nil, nil)
	}
	in := taskInput{Description: d.Description, Prompt: prompt, SubagentType: typ}
	ov := override{model: d.Model, maxTokens: d.MaxTokens}
	var out agent.Outcome
	var nested *Tool
	extra := ""
	switch d.Isolation {
	case "":
		out, nested = t.sh.runOutcome(ctx, def, in, x, ov)
	case "worktree":
		var err error
		if out, nested, extra, err = t.sh.isolatedOutcome(ctx, def, in, x, ov); err != nil {
			return "", llm.Usage{}, err
		}
	default:
		return "", llm.Usage{}, fmt.Errorf("isolation %q is unknown; the only value is \"worktree\"", d.Isolation)
	}
	u := out.Usage
	if nested != nil {
		nu, _ := nested.Usage()
		u = u.Add(nu)
	}
	if out.Status != agent.StatusCompleted || strings.TrimSpace(out.Result) == "" {
		msg := report(def.Name, out, nil).Text()
		if extra != "" {
			msg += "\n" + extra
		}
		return "", u, fmt.Errorf("%s", msg)
	}
	if extra != "" {
		return strings.TrimSpace(out.Result) + "\n\n" + extra, u, nil
	}
	return strings.TrimSpace(out.Result), u, nil
}
