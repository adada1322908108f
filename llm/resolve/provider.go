// Package resolve is how a session's model is reached (chapter s01, the model half of
// "Agent = Model + Harness"): a model name from --model, OURO_MODEL or ANTHROPIC_MODEL,
// the settings' "model" or the default becomes an llm.Provider and the name sent to it —
// Claude models on the Anthropic API (its default endpoint unless ANTHROPIC_BASE_URL
// names another), openai:NAME on an OpenAI-compatible server, in this process (with the
// context window a local server reports), scripted:FILE from a script.
// It also says where requests go and where the key comes from (Connection, for ouro
// doctor and /status), and which models a session could switch to (the /model picker).
//
// The harness, ouro doctor and the evaluation call it; it knows nothing of sessions.
package resolve

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/envtune"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/anthropic/cloud"
	"github.com/ouroagent/ouro/llm/keyhelper"
	"github.com/ouroagent/ouro/llm/openai"
	"github.com/ouroagent/ouro/llm/openai/endpoint"
	"github.com/ouroagent/ouro/llm/scripted"
)

// ErrNoKey is wrapped by provider errors caused by a missing API key.
var ErrNoKey = errors.New("no API key")

// resolveModel picks the model name: the flag, else OURO_MODEL (or ANTHROPIC_MODEL), else
// the default, reading the variables through env.
func resolveModel(flag string, env func(string) string) string {
	if flag != "" {
		return llm.ResolveAlias(flag)
	}
	for _, v := range []string{"OURO_MODEL", "ANTHROPIC_MODEL"} {
		if e := env(v); e != "" {
			return llm.ResolveAlias(e)
		}
	}
	return llm.DefaultModel
}

// Name is the model a session uses: the flag, else OURO_MODEL or ANTHROPIC_MODEL, else
// the settings' "model" (as in Claude Code; "" for none), else the default; aliases
// resolved. env reads the variables (os.Getenv, or the environment then the settings'
// env).
func Name(flag, setting string, env func(string) string) string {
	name := resolveModel(flag, env)
	if flag == "" && env("OURO_MODEL") == "" && env("ANTHROPIC_MODEL") == "" && setting != "" {
		name = llm.ResolveAlias(setting)
	}
	return name
}

// NewProvider returns the provider for a model name and the name to send to it:
//   - "openai:NAME" uses the OpenAI Chat Completions provider (OPENAI_API_KEY,
//     OPENAI_BASE_URL: OpenAI itself, Ollama, vLLM, llama.cpp, any compatible server),
//     in this process;
//   - "scripted:PATH" plays a script file (see llm/scripted), no network at all;
//   - anything else is a Claude model on the Anthropic API (ANTHROPIC_API_KEY,
//     ANTHROPIC_BASE_URL).
func NewProvider(model, fallback string) (llm.Provider, string, error) {
	return newProvider(model, fallback, os.Getenv, nil)
}

// newProvider is NewProvider reading the connection variables through env (the process
// environment, then the settings' env), with the apiKeyHelper keys, if any, for a Claude
// model without a key variable.
func newProvider(model, fallback string, env func(string) string, keys *keyhelper.Helper) (llm.Provider, string, error) {
	if err := checkModelName(model); err != nil {
		return nil, "", err
	}
	switch {
	case strings.HasPrefix(model, "openai:"):
		name := strings.TrimPrefix(model, "openai:")
		if name == "" {
			return nil, "", fmt.Errorf("model %q names no OpenAI model: use openai:NAME, e.g. openai:gpt-5", model)
		}
		e, err := endpoint.Resolve(env("OPENAI_API_KEY"), env("OPENAI_BASE_URL"))
		if err != nil {
			return nil, "", keyHint(err)
		}
		// In this process: the SDK is linked into ouro, so a process per call (as the
		// ouro-openai helper was) would only add its start and its memory.
		first, idle, err := llm.StreamIdleBounds()
		if err != nil {
			return nil, "", err
		}
		p, err := openai.New(openai.Config{APIKey: e.APIKey, BaseURL: e.BaseURL, StreamFirst: first, StreamIdle: idle})
		if err != nil {
			return nil, "", keyHint(err)
		}
		return p, name, nil
	case strings.HasPrefix(model, "scripted:"):
		path := strings.TrimPrefix(model, "scripted:")
		s, err := scripted.Load(path)
		if err != nil {
			return nil, "", err
		}
		return scripted.New(s), "scripted", nil
	default:
		if cloud.Chosen(env) != "" {
			return platformProvider(model, fallback, env, keys)
		}
		if err := checkClaudeName(model, env("ANTHROPIC_BASE_URL")); err != nil {
			return nil, "", err
		}
		first, idle, err := llm.StreamIdleBounds()
		if err != nil {
			return nil, "", err
		}
		cfg := anthropic.Config{FallbackModel: fallback, APIKey: env("ANTHROPIC_API_KEY"),
			AuthToken: env("ANTHROPIC_AUTH_TOKEN"), BaseURL: env("ANTHROPIC_BASE_URL"), StreamFirst: first, StreamIdle: idle,
			NoPromptCache: envtune.Read(env).NoPromptCache}
		if keys != nil && keys.Command() != "" && cfg.APIKey == "" && cfg.AuthToken == "" {
			cfg.Keys = keys // an interface holding a nil *Helper would not be nil
		}
		p, err := anthropic.New(cfg)
		if err != nil {
			return nil, "", keyHint(err)
		}
		return p, model, nil
	}
}

// checkModelName refuses names that would reach the Anthropic API as a model that cannot
// exist: only openai:NAME and scripted:FILE carry a prefix, and "scripted" alone is no
// model (ouro eval's --model scripted plays each task's own trajectory; elsewhere a script
// is named scripted:FILE).
func checkModelName(model string) error {
	const forms = "a Claude model is named plainly (claude-sonnet-5-5, or an alias: sonnet, opus, haiku); the only prefixed forms are openai:NAME and scripted:FILE"
	if strings.EqualFold(strings.TrimSpace(model), "scripted") {
		return fmt.Errorf("model %q: to play a script, name its file as scripted:FILE (%s)", model, forms)
	}
	if prefix, _, ok := strings.Cut(model, ":"); ok && prefix != "openai" && prefix != "scripted" && modelPrefix.MatchString(prefix) {
		return fmt.Errorf("model %q: %q is not a model prefix; %s", model, prefix+":", forms)
	}
	return nil
}

// AnthropicAPI is where Claude models are served when ANTHROPIC_BASE_URL names no other
// server.
const AnthropicAPI = "https://api.anthropic.com"

// checkClaudeName refuses, before any request, a model without a prefix that is no Claude
// model (gpt-4o, o3, llama3) when it would go to the Anthropic API itself, which serves
// only Claude models and would answer 404: the user meant another provider's. An
// Anthropic-compatible server of the user's (ANTHROPIC_BASE_URL) may serve any name.
func checkClaudeName(model, baseURL string) error {
	if llm.IsClaude(model) || !officialAnthropic(baseURL) {
		return nil
	}
	return fmt.Errorf("model %q is not a Claude model, and a name without a prefix goes to the Anthropic API (%s), which serves only Claude models: did you mean openai:%s? models of other providers are named PROVIDER:NAME (openai:NAME for OpenAI and compatible servers such as Ollama)",
		model, AnthropicAPI, model)
}

// officialAnthropic reports whether requests to the Anthropic provider go to the
// Anthropic API itself: no ANTHROPIC_BASE_URL, or one on api.anthropic.com.
func officialAnthropic(baseURL string) bool {
	if baseURL == "" {
		return true
	}
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.anthropic.com")
}

var modelPrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// keyHint marks a provider error caused by a missing key (errors.Is(err, ErrNoKey)) and
// makes sure it says how to try ouro without one.
func keyHint(err error) error {
	if !strings.Contains(err.Error(), "API_KEY") {
		return err
	}
	return &noKeyError{err}
}

type noKeyError struct{ err error }

func (e *noKeyError) Error() string {
	msg := e.err.Error()
	if !strings.Contains(msg, "ouro demo") {
		msg += "\nTo try ouro without a key, run: ouro demo"
	}
	return msg
}

func (e *noKeyError) Unwrap() []error { return []error{ErrNoKey, e.err} }

// ProviderFor serves a subagent whose definition names a model (an alias such as haiku,
// or a full name), or a skill's turn, with that model; who names the one asking ("agent
// NAME", "skill NAME"). A session on an explicit provider (a script, a test) keeps its
// children on it (nil, ""); a model that cannot be reached (no key for it) is reported
// once and the child inherits the session's model.
func ProviderFor(parent Model, warn io.Writer) func(who, model string) (llm.Provider, string) {
	parentModel := parent.Name
	var mu sync.Mutex
	type served struct {
		p    llm.Provider
		name string
	}
	cache := map[string]served{}
	warned := map[string]bool{}
	return func(who, model string) (llm.Provider, string) {
		if model == "" || parent.Explicit || parentModel == "scripted" {
			return nil, ""
		}
		name := llm.ResolveAlias(model)
		if name == parentModel {
			return nil, ""
		}
		mu.Lock()
		defer mu.Unlock()
		if c, ok := cache[name]; ok {
			return c.p, c.name
		}
		env := parent.Env
		if env == nil {
			env = os.Getenv
		}
		p, m, err := newProvider(name, "", env, parent.KeyHelper)
		if err != nil {
			if !warned[name] {
				warned[name] = true
				fmt.Fprintf(warn, "ouro: %s asks for model %s, which is not available (%v); it uses %s\n", who, model, err, parentModel)
			}
			return nil, ""
		}
		cache[name] = served{p, m}
		return p, m
	}
}
