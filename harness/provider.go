package harness

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/openai"
	"github.com/ouroagent/ouro/llm/scripted"
)

// ErrNoKey is wrapped by provider errors caused by a missing API key.
var ErrNoKey = errors.New("no API key")

// ResolveModel picks the model name: the flag, else OURO_MODEL, else the default.
func ResolveModel(flag string) string {
	if flag != "" {
		return llm.ResolveAlias(flag)
	}
	if env := os.Getenv("OURO_MODEL"); env != "" {
		return llm.ResolveAlias(env)
	}
	return llm.DefaultModel
}

// NewProvider returns the provider for a model name and the name to send to it:
//   - "openai:NAME" uses the OpenAI Chat Completions provider (OPENAI_API_KEY,
//     OPENAI_BASE_URL: OpenAI itself, Ollama, vLLM, llama.cpp, any compatible server);
//   - "scripted:PATH" plays a script file (see llm/scripted), no network at all;
//   - anything else is a Claude model on the Anthropic API (ANTHROPIC_API_KEY,
//     ANTHROPIC_BASE_URL).
func NewProvider(model, fallback string) (llm.Provider, string, error) {
	switch {
	case strings.HasPrefix(model, "openai:"):
		name := strings.TrimPrefix(model, "openai:")
		if name == "" {
			return nil, "", fmt.Errorf("model %q names no OpenAI model: use openai:NAME, e.g. openai:gpt-5", model)
		}
		p, err := openai.New(openai.Config{})
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
		p, err := anthropic.New(anthropic.Config{FallbackModel: fallback})
		if err != nil {
			return nil, "", keyHint(err)
		}
		return p, model, nil
	}
}

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
