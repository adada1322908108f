package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/ouroagent/ouro/llm"
)

// caps is what a Claude model takes of thinking and effort, as the API documents it
// (platform.claude.com: build-with-claude/extended-thinking, adaptive-thinking, effort).
type caps struct {
	adaptive bool // takes thinking {type: "adaptive"}; ouro then sends no budget
	effort   bool // takes output_config.effort
	xhigh    bool // the effort "xhigh"
	max      bool // the effort "max"
}

// capsTable is matched by longest prefix of the model name from "claude-" on (so Bedrock
// and Vertex names, "us.anthropic.claude-opus-4-6-v1", match too).
var capsTable = []struct {
	prefix string
	c      caps
}{
	// Before adaptive thinking and effort: thinking with budget_tokens only (3.5 and
	// older have no thinking at all; the API says so).
	{"claude-3", caps{}},
	{"claude-3-7-sonnet", caps{}},
	{"claude-sonnet-4", caps{}}, // 4.0 and 4.5
	{"claude-opus-4", caps{}},   // 4.0 and 4.1
	{"claude-haiku-4", caps{}},  // 4.5
	{"claude-opus-4-5", caps{effort: true}},
	// Adaptive thinking (budget_tokens deprecated on the 4.6 models, refused from 4.7 on).
	{"claude-opus-4-6", caps{adaptive: true, effort: true, max: true}},
	{"claude-sonnet-4-6", caps{adaptive: true, effort: true, max: true}},
	{"claude-opus-4-7", caps{adaptive: true, effort: true, xhigh: true, max: true}},
	{"claude-opus-4-8", caps{adaptive: true, effort: true, xhigh: true, max: true}},
	{"claude-opus-5", caps{adaptive: true, effort: true, xhigh: true, max: true}},
	{"claude-sonnet-5", caps{adaptive: true, effort: true, xhigh: true, max: true}},
	{"claude-haiku-5", caps{adaptive: true, effort: true}},
	{"claude-mythos", caps{adaptive: true, effort: true, xhigh: true, max: true}},
	{"claude-fable", caps{adaptive: true, effort: true, xhigh: true, max: true}},
}

// capsOf returns the model's capabilities. A name the table does not know (a gateway's
// own name, a model newer than ouro) gets everything passed as asked: the API decides.
func capsOf(model string) caps {
	name := strings.ToLower(model)
	if i := strings.Index(name, "claude-"); i >= 0 {
		name = name[i:]
	} else {
		return caps{effort: true, xhigh: true, max: true}
	}
	best, found := -1, caps{}
	for _, e := range capsTable {
		if strings.HasPrefix(name, e.prefix) && len(e.prefix) > best {
			best, found = len(e.prefix), e.c
		}
	}
	if best < 0 {
		return caps{effort: true, xhigh: true, max: true}
	}
	return found
}

// effortFor is the effort sent to model for the one asked: none to a model that takes
// none, "high" for xhigh or max where the model lacks them (as Claude Code does).
func effortFor(model, effort string) string {
	if effort == "" {
		return ""
	}
	c := capsOf(model)
	switch {
	case !c.effort:
		return ""
	case effort == "xhigh" && !c.xhigh, effort == "max" && !c.max:
		return "high"
	}
	return effort
}

// applyThinking sets the thinking and effort of one attempt on model, whose max_tokens
// is already set: adaptive thinking where the model has it, else thinking with a budget
// below max_tokens (at least the API's 1,024; when max_tokens leaves no room for that,
// thinking stays off rather than the request failing).
func applyThinking(params *sdk.MessageNewParams, req *llm.Request, model string) {
	params.Thinking = sdk.ThinkingConfigParamUnion{}
	params.OutputConfig.Effort = ""
	if e := effortFor(model, req.Effort); e != "" {
		params.OutputConfig.Effort = sdk.OutputConfigEffort(e)
	}
	th := req.Thinking
	if !th.On() {
		return
	}
	if capsOf(model).adaptive {
		a := &sdk.ThinkingConfigAdaptiveParam{}
		if th.Display != "" {
			a.Display = sdk.ThinkingConfigAdaptiveDisplay(th.Display)
		}
		params.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: a}
		return
	}
	budget := min(int64(th.Budget), params.MaxTokens-1)
	if budget < llm.MinThinkingBudget {
		return
	}
	e := &sdk.ThinkingConfigEnabledParam{BudgetTokens: budget}
	if th.Display != "" {
		e.Display = sdk.ThinkingConfigEnabledDisplay(th.Display)
	}
	params.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: e}
}
