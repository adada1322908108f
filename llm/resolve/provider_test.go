package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Another provider's model named without its prefix is refused before any request when
// it would go to the Anthropic API itself, with the name it was meant as; a server of
// the user's (ANTHROPIC_BASE_URL) may serve any name, and Claude names pass.
func TestNonClaudeNameOnTheAnthropicAPI(t *testing.T) {
	key := map[string]string{"ANTHROPIC_API_KEY": "sk-test"}
	for _, name := range []string{"gpt-4o", "o3", "llama3"} {
		_, _, err := newProvider(name, "", envOf(key), nil)
		if err == nil || !strings.Contains(err.Error(), "did you mean openai:"+name+"?") || !strings.Contains(err.Error(), "PROVIDER:NAME") {
			t.Errorf("%s: %v", name, err)
		}
	}
	official := map[string]string{"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": "https://api.anthropic.com/"}
	if _, _, err := newProvider("gpt-4o", "", envOf(official), nil); err == nil {
		t.Error("gpt-4o to api.anthropic.com named explicitly was accepted")
	}
	gateway := map[string]string{"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": "http://127.0.0.1:4000"}
	if _, name, err := newProvider("gpt-4o", "", envOf(gateway), nil); err != nil || name != "gpt-4o" {
		t.Errorf("gpt-4o to the user's own server: %q, %v", name, err)
	}
	for _, name := range []string{"claude-haiku-4-5", "claude-sonnet-5-5"} {
		if _, _, err := newProvider(name, "", envOf(key), nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Describe says where requests go and where the key comes from, never the key: the
// default Anthropic API, a base URL of the environment's or a settings file's, a local
// OpenAI-compatible server that needs no key, and what to set when there is none.
func TestConnection(t *testing.T) {
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		if v, ok := os.LookupEnv(k); ok { // what the developer's shell holds is not the test's
			os.Unsetenv(k)
			t.Cleanup(func() { os.Setenv(k, v) })
		}
	}
	set := &settings.Settings{EnvSource: map[string]string{"OPENAI_BASE_URL": "/home/u/.claude/settings.json"}}
	c := Describe("claude-haiku-4-5", set, envOf(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-0123456789abcdef"}))
	if c.BaseURL != AnthropicAPI || c.BaseFrom != "the default" || c.Key != "ANTHROPIC_API_KEY, …cdef" || c.NoKey != "" {
		t.Errorf("anthropic: %+v", c)
	}
	c = Describe("openai:llama3", set, envOf(map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}))
	if c.BaseURL != "http://localhost:11434/v1" || c.BaseFrom != "OPENAI_BASE_URL (env in /home/u/.claude/settings.json)" || c.Key != "" || c.NoKey != "" || !strings.Contains(c.Note, "needs none") {
		t.Errorf("local server: %+v", c)
	}
	c = Describe("openai:gpt-5", set, envOf(map[string]string{"OPENAI_API_KEY": "short"}))
	if c.BaseURL != "https://api.openai.com/v1" || c.Key != "OPENAI_API_KEY, value hidden" {
		t.Errorf("openai: %+v", c)
	}
	c = Describe("sonnet", &settings.Settings{APIKeyHelper: settings.Sourced[string]{Value: "get-key", Source: "/s.json"}}, envOf(nil))
	if c.NoKey != "" || !strings.Contains(c.Key, "apiKeyHelper (/s.json)") || !strings.Contains(c.Key, "X-Api-Key and as a bearer token") {
		t.Errorf("apiKeyHelper: %+v", c)
	}
	if c := Describe("sonnet", &settings.Settings{}, envOf(nil)); !strings.Contains(c.NoKey, "ANTHROPIC_API_KEY") || !strings.Contains(c.NoKey, "ouro demo") {
		t.Errorf("no key: %+v", c)
	}
	for _, l := range c.Lines() {
		if strings.Contains(l, "get-key") {
			t.Errorf("the helper command is shown: %s", l)
		}
	}
}

func TestNewProvider(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	for _, m := range []string{"claude-sonnet-5-5", "openai:gpt-5"} {
		_, _, err := NewProvider(m, "")
		if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "ouro demo") {
			t.Errorf("%s: err = %v", m, err)
		}
	}
	if _, _, err := NewProvider("openai:", ""); err == nil || !strings.Contains(err.Error(), "openai:NAME") {
		t.Errorf("empty openai model: %v", err)
	}
	script := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(script, []byte(`{"turns":[{"text":"hi"}]}`), 0o644)
	p, name, err := NewProvider("scripted:"+script, "")
	if err != nil || p.Name() != "scripted" || name != "scripted" {
		t.Fatalf("scripted: %v %v %q", p, err, name)
	}
	if _, _, err := NewProvider("scripted:/nope.json", ""); err == nil {
		t.Error("a missing script was accepted")
	}
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	// openai:NAME runs in this process: nothing else needs to be installed or on PATH.
	t.Setenv("PATH", t.TempDir())
	if p, name, err := NewProvider("openai:llama3", ""); err != nil || name != "llama3" || p.Name() != "openai" {
		t.Errorf("local server without key: %v %q", err, name)
	}
}

func TestResolveModel(t *testing.T) {
	t.Setenv("OURO_MODEL", "")
	if got := Name("", "", os.Getenv); got != llm.DefaultModel {
		t.Errorf("default = %s", got)
	}
	t.Setenv("OURO_MODEL", "openai:gpt-5")
	if got := Name("", "", os.Getenv); got != "openai:gpt-5" {
		t.Errorf("env = %s", got)
	}
	if got := Name("claude-opus-5", "", os.Getenv); got != "claude-opus-5" {
		t.Errorf("flag = %s", got)
	}
}
