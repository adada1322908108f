package llm

import (
	"sort"
	"strings"
)

// ModelInfo describes what a run needs to know about a model: how much context it
// takes, how much it may write, and what it costs (USD per million tokens).
type ModelInfo struct {
	Name          string
	ContextWindow int
	MaxOutput     int
	InputPerMTok  float64
	OutputPerMTok float64
	CacheWrite    float64 // per MTok written to the prompt cache
	CacheRead     float64 // per MTok read from the prompt cache
	Known         bool    // false when the name matched no entry and defaults were used
}

// modelTable is matched by longest prefix. Prices are list prices per family; a model not
// listed gets the defaults with Known=false, and its cost is reported as 0.
var modelTable = []ModelInfo{
	{Name: "claude-opus-4-0", ContextWindow: 200_000, MaxOutput: 32_000, InputPerMTok: 15, OutputPerMTok: 75, CacheWrite: 18.75, CacheRead: 1.5},
	{Name: "claude-opus-4-1", ContextWindow: 200_000, MaxOutput: 32_000, InputPerMTok: 15, OutputPerMTok: 75, CacheWrite: 18.75, CacheRead: 1.5},
	{Name: "claude-opus-4-", ContextWindow: 200_000, MaxOutput: 64_000, InputPerMTok: 5, OutputPerMTok: 25, CacheWrite: 6.25, CacheRead: 0.5},
	{Name: "claude-opus-5", ContextWindow: 200_000, MaxOutput: 64_000, InputPerMTok: 5, OutputPerMTok: 25, CacheWrite: 6.25, CacheRead: 0.5},
	{Name: "claude-sonnet-4", ContextWindow: 200_000, MaxOutput: 64_000, InputPerMTok: 3, OutputPerMTok: 15, CacheWrite: 3.75, CacheRead: 0.3},
	{Name: "claude-sonnet-5", ContextWindow: 200_000, MaxOutput: 64_000, InputPerMTok: 3, OutputPerMTok: 15, CacheWrite: 3.75, CacheRead: 0.3},
	{Name: "claude-haiku-4", ContextWindow: 200_000, MaxOutput: 64_000, InputPerMTok: 1, OutputPerMTok: 5, CacheWrite: 1.25, CacheRead: 0.1},
	{Name: "claude-haiku-5", ContextWindow: 200_000, MaxOutput: 64_000, InputPerMTok: 1, OutputPerMTok: 5, CacheWrite: 1.25, CacheRead: 0.1},
	{Name: "claude-3-5-haiku", ContextWindow: 200_000, MaxOutput: 8_192, InputPerMTok: 0.8, OutputPerMTok: 4, CacheWrite: 1, CacheRead: 0.08},
	{Name: "claude-3-7-sonnet", ContextWindow: 200_000, MaxOutput: 64_000, InputPerMTok: 3, OutputPerMTok: 15, CacheWrite: 3.75, CacheRead: 0.3},
	{Name: "gpt-4o-mini", ContextWindow: 128_000, MaxOutput: 16_384, InputPerMTok: 0.15, OutputPerMTok: 0.6, CacheRead: 0.075},
	{Name: "gpt-4o", ContextWindow: 128_000, MaxOutput: 16_384, InputPerMTok: 2.5, OutputPerMTok: 10, CacheRead: 1.25},
	{Name: "gpt-4.1-mini", ContextWindow: 1_047_576, MaxOutput: 32_768, InputPerMTok: 0.4, OutputPerMTok: 1.6, CacheRead: 0.1},
	{Name: "gpt-4.1", ContextWindow: 1_047_576, MaxOutput: 32_768, InputPerMTok: 2, OutputPerMTok: 8, CacheRead: 0.5},
	{Name: "gpt-5-mini", ContextWindow: 400_000, MaxOutput: 128_000, InputPerMTok: 0.25, OutputPerMTok: 2, CacheRead: 0.025},
	{Name: "gpt-5", ContextWindow: 400_000, MaxOutput: 128_000, InputPerMTok: 1.25, OutputPerMTok: 10, CacheRead: 0.125},
	{Name: "o3", ContextWindow: 200_000, MaxOutput: 100_000, InputPerMTok: 2, OutputPerMTok: 8, CacheRead: 0.5},
	{Name: "o4-mini", ContextWindow: 200_000, MaxOutput: 100_000, InputPerMTok: 1.1, OutputPerMTok: 4.4, CacheRead: 0.275},
}

// listed are the models offered by name (the /model picker), newest first within each
// provider; each is in the table. The Claude ones go to the Anthropic API as they are
// named; the others are OpenAI's and are named openai:NAME.
var listed = []string{
	"claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5",
	"openai:gpt-5", "openai:gpt-5-mini", "openai:gpt-4.1", "openai:gpt-4.1-mini", "openai:gpt-4o", "openai:gpt-4o-mini",
	"openai:o3", "openai:o4-mini",
}

// ListedModels are the models ouro offers by name: Claude models as they are sent to the
// Anthropic API, then OpenAI's as openai:NAME.
func ListedModels() []string { return append([]string(nil), listed...) }

// Aliases are the model aliases ResolveAlias knows, sorted.
func Aliases() []string {
	out := make([]string, 0, len(aliases))
	for a := range aliases {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// IsClaude reports whether model (without a provider prefix) names a Claude model: what
// the Anthropic API itself serves.
func IsClaude(model string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ResolveAlias(model))), "claude-")
}

// DefaultModel is the model used when neither --model nor OURO_MODEL names one.
const DefaultModel = "claude-sonnet-5-5"

// aliases are Claude Code's model aliases (--model, the "model" setting, and agent
// definitions' model). "default" is the default model; "opusplan" (Opus while planning,
// Sonnet otherwise in Claude Code) is Sonnet, as ouro does not switch models by mode.
var aliases = map[string]string{"sonnet": DefaultModel, "opus": "claude-opus-5-5", "haiku": "claude-haiku-5-5",
	"default": DefaultModel, "opusplan": DefaultModel}

// ResolveAlias turns an alias (sonnet, opus, haiku, default, opusplan) into the model it
// stands for; any other name is returned as it is. Claude Code's "[1m]" suffix (sonnet[1m],
// the 1M-token context beta) is dropped: the model's own window applies.
func ResolveAlias(model string) string {
	t := strings.TrimSpace(model)
	if n := len(t) - len("[1m]"); n > 0 && strings.EqualFold(t[n:], "[1m]") {
		model, t = t[:n], t[:n]
	}
	if m, ok := aliases[strings.ToLower(t)]; ok {
		return m
	}
	return model
}

// LookupModel returns the entry whose name is the longest prefix of model (after an
// "openai:", "anthropic:" or "scripted:" prefix; other colons are part of the name). Unknown models get a 128k window, 8k output and no price.
func LookupModel(model string) ModelInfo {
	for _, prefix := range []string{"openai:", "anthropic:", "scripted:"} {
		model = strings.TrimPrefix(model, prefix)
	}
	best := -1
	for i, m := range modelTable {
		if strings.HasPrefix(model, m.Name) && (best < 0 || len(m.Name) > len(modelTable[best].Name)) {
			best = i
		}
	}
	if best < 0 {
		return ModelInfo{Name: model, ContextWindow: 128_000, MaxOutput: 8_192}
	}
	info := modelTable[best]
	info.Name = model
	info.Known = true
	return info
}

// Cost returns the USD cost of usage on this model.
func (m ModelInfo) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*m.InputPerMTok+
		float64(u.OutputTokens)*m.OutputPerMTok+
		float64(u.CacheCreationInputTokens)*m.CacheWrite+
		float64(u.CacheReadInputTokens)*m.CacheRead)/1e6 +
		float64(u.ServerToolUse.WebSearchRequests)*WebSearchPrice
}

// WebSearchPrice is what one server-side web search costs in dollars, whatever the
// model: Anthropic's $10 per 1,000 searches.
const WebSearchPrice = 0.01
