// Package envtune reads the tuning variables Claude Code documents for itself, which ouro
// honours the same way: from the process environment, then the settings' env (the lookup
// the caller gives), each checked, an invalid value warned about and the default kept.
//
//	BASH_DEFAULT_TIMEOUT_MS        Bash timeout when a call gives none (120000)
//	BASH_MAX_TIMEOUT_MS            the longest timeout a Bash call may ask for (600000)
//	BASH_MAX_OUTPUT_LENGTH         characters of Bash output the model sees (30000)
//	CLAUDE_CODE_MAX_OUTPUT_TOKENS  max_tokens of each model request (the model's default)
//	MAX_MCP_OUTPUT_TOKENS          how much of an MCP tool's result the model sees (tokens)
//	MCP_TIMEOUT                    an MCP server's start and handshake (30000 ms)
//	MAX_THINKING_TOKENS            the thinking budget (0 turns thinking off)
//	DISABLE_PROMPT_CACHING         no cache_control on Anthropic requests (1/true)
package envtune

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The variables' names.
const (
	BashDefaultTimeout   = "BASH_DEFAULT_TIMEOUT_MS"
	BashMaxTimeout       = "BASH_MAX_TIMEOUT_MS"
	BashMaxOutputLength  = "BASH_MAX_OUTPUT_LENGTH"
	MaxOutputTokens      = "CLAUDE_CODE_MAX_OUTPUT_TOKENS"
	MaxMCPOutputTokens   = "MAX_MCP_OUTPUT_TOKENS"
	MCPTimeout           = "MCP_TIMEOUT"
	MaxThinkingTokens    = "MAX_THINKING_TOKENS"
	DisablePromptCaching = "DISABLE_PROMPT_CACHING"
)

// Tuning is what the variables say; a zero field means the variable is unset (or was
// invalid): the consumer's own default stands.
type Tuning struct {
	BashDefaultTimeout time.Duration
	BashMaxTimeout     time.Duration
	BashMaxOutput      int // characters
	MaxOutputTokens    int
	MaxMCPOutputTokens int
	MCPTimeout         time.Duration
	// MaxThinkingTokens is MAX_THINKING_TOKENS: nil when unset, 0 for "thinking off", else
	// the budget_tokens to ask for (the thinking code decides how to use it).
	MaxThinkingTokens *int
	// NoPromptCache is DISABLE_PROMPT_CACHING set to a true value.
	NoPromptCache bool
	// Warnings say, for each invalid value, what was wrong and what is used instead.
	Warnings []string
}

// Bounds: a value past them is a mistake (hours of Bash, gigabytes of output), not a
// wish.
const (
	maxMillis = int64(24 * time.Hour / time.Millisecond)
	maxCount  = 10_000_000
)

// Read reads the variables through env.
func Read(env func(string) string) Tuning {
	var t Tuning
	t.BashDefaultTimeout = t.millis(env, BashDefaultTimeout, "120000 (2 minutes)")
	t.BashMaxTimeout = t.millis(env, BashMaxTimeout, "600000 (10 minutes)")
	t.BashMaxOutput = t.count(env, BashMaxOutputLength, 1, "30000 characters")
	t.MaxOutputTokens = t.count(env, MaxOutputTokens, 1, "the model's own")
	t.MaxMCPOutputTokens = t.count(env, MaxMCPOutputTokens, 1, "ouro's own bound on a tool result")
	t.MCPTimeout = t.millis(env, MCPTimeout, "30000 (30 seconds)")
	if v := strings.TrimSpace(env(MaxThinkingTokens)); v != "" {
		if n, ok := t.parse(MaxThinkingTokens, v, 0, maxCount, "thinking as configured elsewhere"); ok {
			t.MaxThinkingTokens = &n
		}
	}
	if v := strings.TrimSpace(env(DisablePromptCaching)); v != "" {
		switch strings.ToLower(v) {
		case "1", "true", "yes", "on":
			t.NoPromptCache = true
		case "0", "false", "no", "off":
		default:
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s=%q is neither 1/true nor 0/false; prompt caching stays on", DisablePromptCaching, v))
		}
	}
	return t
}

func (t *Tuning) millis(env func(string) string, name, def string) time.Duration {
	v := strings.TrimSpace(env(name))
	if v == "" {
		return 0
	}
	n, _ := t.parse(name, v, 1, maxMillis, def+" ms")
	return time.Duration(n) * time.Millisecond
}

func (t *Tuning) count(env func(string) string, name string, least int64, def string) int {
	v := strings.TrimSpace(env(name))
	if v == "" {
		return 0
	}
	n, _ := t.parse(name, v, least, maxCount, def)
	return n
}

// parse reads a whole number from least to most, warning with def (what is used
// instead) when v is none.
func (t *Tuning) parse(name, v string, least, most int64, def string) (int, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least || n > most {
		what := "a positive whole number"
		if least == 0 {
			what = "a whole number of 0 or more"
		}
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s=%q is not %s up to %d; the default (%s) is used", name, v, what, most, def))
		return 0, false
	}
	return int(n), true
}
