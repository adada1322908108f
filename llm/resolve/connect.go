package resolve

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/keyhelper"
	"github.com/ouroagent/ouro/llm/openai/endpoint"
)

// Choice is what a caller says about the model: a name (--model; "" → the variables, the
// settings, the default), the Claude model to fall back to when the main one stays
// overloaded, a provider of its own, and a context window override.
type Choice struct {
	Name     string
	Fallback string
	// Provider bypasses resolution (demo, tests, examples); Name is then the name sent
	// to it.
	Provider llm.Provider
	// ContextWindow overrides the model table's context window (tokens); 0 keeps it.
	ContextWindow int
	// KeyHelper, when set, runs the person's apiKeyHelper for a Claude model's key when
	// neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set (KeyHelper builds it).
	KeyHelper *keyhelper.Helper
}

// Model is the provider that serves a session and the model name sent to it.
type Model struct {
	Provider llm.Provider
	Name     string
	Window   int  // the context window override, 0 for the table's
	Explicit bool // the provider was given, not resolved from the name
	// Env reads the connection variables (the environment, then the settings' env), for
	// the providers subagents may need.
	Env func(string) string
	// KeyHelper is the session's apiKeyHelper, shared by the providers subagents may need.
	KeyHelper *keyhelper.Helper
}

// Connect resolves c into the provider a run uses: the name (Name, with the settings'
// "model" as setting), its provider built with the variables env reads, and for a model
// ouro's table does not know, the context window a local server reports, with a warning
// on warn that its cost is not counted.
func Connect(c Choice, setting string, env func(string) string, warn io.Writer) (Model, error) {
	name := Name(c.Name, setting, env)
	if c.Provider != nil {
		return Model{Provider: c.Provider, Name: name, Window: c.ContextWindow, Explicit: true}, nil
	}
	p, name, err := newProvider(name, c.Fallback, env, c.KeyHelper)
	if err != nil {
		return Model{}, err
	}
	size := c.ContextWindow
	if p.Name() != "scripted" && !llm.LookupModel(name).Known {
		window := "taken as 128k tokens (--context-window sets it)"
		if size > 0 {
			window = fmt.Sprintf("%d tokens (--context-window)", size)
		} else if n, from, why := serverWindow(p.Name(), name, env); n > 0 {
			size, window = n, fmt.Sprintf("%d tokens (read from %s; --context-window sets it)", n, from)
		} else if why != nil {
			window += fmt.Sprintf("; %v", why)
		}
		fmt.Fprintf(warn, "ouro: model %q is not in ouro's model table: its cost is not counted and its context window is %s\n", name, window)
	}
	return Model{Provider: p, Name: name, Window: size, Env: env, KeyHelper: c.KeyHelper}, nil
}

// serverWindowWait bounds asking a server for its context window: a local server answers
// at once, and a run is not held up long by one that does not.
const serverWindowWait = 3 * time.Second

// serverWindow asks an OpenAI-compatible server other than OpenAI's (llama.cpp, vLLM) for
// the context window it serves model with; 0 when the provider is another, or the server
// says nothing usable (why, unless there was nothing to ask).
func serverWindow(provider, name string, env func(string) string) (int, string, error) {
	if provider != "openai" {
		return 0, "", nil
	}
	e, err := endpoint.Resolve(env("OPENAI_API_KEY"), env("OPENAI_BASE_URL"))
	if err != nil || e.Official {
		return 0, "", nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), serverWindowWait)
	defer cancel()
	return endpoint.ServerWindow(ctx, e, name, nil)
}
