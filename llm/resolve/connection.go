package resolve

import (
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/llm/anthropic/cloud"
	"github.com/ouroagent/ouro/llm/keyhelper"
	"github.com/ouroagent/ouro/settings"
)

// Connection says where a session's model requests go and where its key comes from, for
// ouro doctor and /status. It never holds the key: at most its last four characters.
type Connection struct {
	Provider string // "Anthropic", "OpenAI-compatible", "scripted", or "given by the caller"
	BaseURL  string // where requests go ("" when nothing is sent anywhere)
	BaseFrom string // what set BaseURL: a variable and where it was set, or "the default"
	Key      string // the variable holding the key, where it was set, and its masked tail; "" for none
	// NoKey, when set, says that no key is configured and what to set: a run cannot start.
	NoKey string
	// Note adds what else matters (when an apiKeyHelper runs; a server that needs no
	// key).
	Note string
}

// Describe says how model (the name a run resolves, prefix and all) would be reached
// with the settings' env and the process environment.
func Describe(model string, set *settings.Settings, env func(string) string) Connection {
	from := func(k string) string {
		if _, ok := os.LookupEnv(k); ok {
			return k + " (environment)"
		}
		if src := set.EnvSource[k]; src != "" {
			return k + " (env in " + src + ")"
		}
		return k
	}
	keyFrom := func(k string) string { return from(k) + ", " + maskKey(env(k)) }
	switch {
	case strings.HasPrefix(model, "scripted:") || model == "scripted":
		return Connection{Provider: "scripted", BaseFrom: "a script file: nothing is sent anywhere"}
	case strings.HasPrefix(model, "openai:"):
		c := Connection{Provider: "OpenAI-compatible", BaseURL: "https://api.openai.com/v1", BaseFrom: "the default"}
		if b := env("OPENAI_BASE_URL"); b != "" {
			c.BaseURL, c.BaseFrom = b, from("OPENAI_BASE_URL")
		}
		switch {
		case env("OPENAI_API_KEY") != "":
			c.Key = keyFrom("OPENAI_API_KEY")
		case env("OPENAI_BASE_URL") != "":
			c.Note = "no key is sent (OPENAI_API_KEY is not set): a local server needs none"
		default:
			c.NoKey = "set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp)"
		}
		return c
	}
	if name, host, where := cloud.Where(env); name != "" {
		return Connection{Provider: name, BaseURL: "https://" + host, BaseFrom: where,
			Key: "the platform's own credentials (" + name + "), model " + model}
	}
	c := Connection{Provider: "Anthropic", BaseURL: AnthropicAPI, BaseFrom: "the default"}
	if b := env("ANTHROPIC_BASE_URL"); b != "" {
		c.BaseURL, c.BaseFrom = b, from("ANTHROPIC_BASE_URL")
	}
	switch {
	case env("ANTHROPIC_API_KEY") != "":
		c.Key = keyFrom("ANTHROPIC_API_KEY")
	case env("ANTHROPIC_AUTH_TOKEN") != "":
		c.Key = keyFrom("ANTHROPIC_AUTH_TOKEN") + ", sent as a bearer token"
	case set.APIKeyHelper.Value != "":
		c.Key = "apiKeyHelper (" + set.APIKeyHelper.Source + "): what it prints, sent as X-Api-Key and as a bearer token"
		c.Note = "the helper runs at the first request and again after a 401 or " + keyhelper.TTLVar + " (default 5 min)"
	default:
		c.NoKey = "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in your shell or in the env of ~/.claude/settings.json, or apiKeyHelper there; for another provider use --model openai:NAME with OPENAI_API_KEY (or OPENAI_BASE_URL for a local server); `ouro demo` needs no key"
	}
	return c
}

// maskKey shows no more of a key than its last four characters, and those only of a long
// one.
func maskKey(k string) string {
	if len(k) < 16 {
		return "value hidden"
	}
	return "…" + k[len(k)-4:]
}

// Lines are the connection as doctor and /status show it, one fact a line.
func (c Connection) Lines() []string {
	out := []string{"provider  " + c.Provider}
	if c.BaseURL != "" {
		out = append(out, fmt.Sprintf("base URL  %s (%s)", c.BaseURL, c.BaseFrom))
	} else if c.BaseFrom != "" {
		out = append(out, "base URL  "+c.BaseFrom)
	}
	switch {
	case c.Key != "":
		out = append(out, "key       "+c.Key)
	case c.NoKey != "":
		out = append(out, "key       none: "+c.NoKey)
	}
	if c.Note != "" {
		out = append(out, "          "+c.Note)
	}
	return out
}
