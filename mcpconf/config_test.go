package mcpconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func load(t *testing.T, o Options) *Config {
	t.Helper()
	c, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestExpand(t *testing.T) {
	get := env(map[string]string{"A": "x"})
	for in, want := range map[string]string{
		"${A}/y": "x/y", "${B:-def}": "def", "${A:-def}": "x", "$A": "$A", "${B:-}": "",
	} {
		if got, miss := Expand(in, get); got != want || len(miss) != 0 {
			t.Errorf("%q → %q %v, want %q", in, got, miss, want)
		}
	}
	if _, miss := Expand("${NOPE}", get); len(miss) != 1 || miss[0] != "NOPE" {
		t.Fatal(miss)
	}
}

func TestScopesAndApproval(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, ProjectFile(cwd), `{"mcpServers":{
		"proj":{"command":"p","args":["${ARG:-d}"]},
		"shared":{"command":"from-project"},
		"off":{"command":"x"},
		"http":{"type":"streamable-http","url":"${BASE}/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}},
		"weird":{"type":"websocket","url":"ws://x"}}}`)
	write(t, UserFile(home), `{"mcpServers":{"usr":{"command":"u"},"shared":{"command":"from-user"}},
		"projects":{"`+cwd+`":{"mcpServers":{"loc":{"command":"l","env":{"K":"${K}"}}},"disabledMcpjsonServers":["off"]}}}`)
	// A repository approving its own servers is ignored.
	write(t, filepath.Join(cwd, ".claude", "settings.json"), `{"enableAllProjectMcpServers":true,"enabledMcpjsonServers":["proj"]}`)
	c := load(t, Options{CWD: cwd, UserHome: home, Getenv: env(map[string]string{"K": "v", "BASE": "https://h"})})
	got := map[string]Server{}
	for _, s := range c.Servers {
		got[s.Name] = s
	}
	if s := got["proj"]; s.State != StateNeedsApproval || s.Args[0] != "d" {
		t.Errorf("proj: %+v", s)
	}
	if s := got["shared"]; s.Command != "from-user" || s.Scope != ScopeUser {
		t.Errorf("shared: the user's server must not be replaced by a project's of the same name: %+v", s)
	}
	if s := got["off"]; s.State != StateDisabled {
		t.Errorf("off: %+v", s)
	}
	if s := got["loc"]; s.Scope != ScopeLocal || s.Env["K"] != "v" || !s.Runnable() {
		t.Errorf("loc: %+v", s)
	}
	if s := got["http"]; s.Type != TypeHTTP || s.URL != "https://h/mcp" || s.State != StateInvalid || !strings.Contains(s.Reason, "TOKEN") {
		t.Errorf("http: %+v", s)
	}
	if s := got["weird"]; s.State != StateInvalid || !strings.Contains(s.Reason, "websocket") {
		t.Errorf("weird: %+v", s)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "may not approve its own servers") {
		t.Errorf("warnings %v", c.Warnings)
	}

	// The user approves once: the server runs from now on.
	if err := Approve(home, cwd, []Server{got["proj"]}, true); err != nil {
		t.Fatal(err)
	}
	c = load(t, Options{CWD: cwd, UserHome: home, Getenv: env(nil)})
	if s, _ := c.Find("proj"); !s.Runnable() {
		t.Fatalf("approved server: %+v", s)
	}
	// The user's settings may approve them all.
	home2 := t.TempDir()
	write(t, filepath.Join(home2, ".claude", "settings.json"), `{"enableAllProjectMcpServers":true}`)
	c = load(t, Options{CWD: cwd, UserHome: home2, Getenv: env(nil)})
	if s, _ := c.Find("proj"); !s.Runnable() {
		t.Fatalf("enableAllProjectMcpServers in user settings: %+v", s)
	}
	if s, _ := c.Find("off"); !s.Runnable() {
		t.Fatalf("off is only disabled in the other home: %+v", s)
	}
}

func TestFlagsAndStrict(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, UserFile(home), `{"mcpServers":{"usr":{"command":"u"}}}`)
	write(t, filepath.Join(cwd, "extra.json"), `{"mcpServers":{"f":{"command":"f"}}}`)
	c := load(t, Options{CWD: cwd, UserHome: home, Flags: []string{"extra.json", `{"mcpServers":{"usr":{"command":"inline"}}}`}})
	if s, _ := c.Find("usr"); s.Command != "inline" || s.Scope != ScopeDynamic {
		t.Fatalf("--mcp-config must win: %+v", s)
	}
	c = load(t, Options{CWD: cwd, UserHome: home, Flags: []string{"extra.json"}, Strict: true})
	if len(c.Servers) != 1 || c.Servers[0].Name != "f" {
		t.Fatalf("strict: %+v", c.Servers)
	}
	if _, err := Load(Options{CWD: cwd, UserHome: home, Flags: []string{`{"mcpServers":`}}); err == nil || !strings.Contains(err.Error(), "--mcp-config") {
		t.Fatalf("bad inline config: %v", err)
	}
	if _, err := Load(Options{CWD: cwd, UserHome: home, Flags: []string{"nope.json"}}); err == nil {
		t.Fatal("missing file accepted")
	}
	write(t, ProjectFile(cwd), `[1,2]`)
	if _, err := Load(Options{CWD: cwd, UserHome: home}); err == nil || !strings.Contains(err.Error(), ".mcp.json") {
		t.Fatalf("broken .mcp.json: %v", err)
	}
	write(t, UserFile(home), `not json`)
	os.Remove(ProjectFile(cwd))
	if c := load(t, Options{CWD: cwd, UserHome: home}); len(c.Warnings) == 0 {
		t.Fatal("a broken user file is not reported")
	}
}

func TestClash(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, UserFile(home), `{"mcpServers":{"a.b":{"command":"x"},"a_b":{"command":"y"}}}`)
	c := load(t, Options{CWD: cwd, UserHome: home})
	if s, _ := c.Find("a_b"); s.State != StateInvalid || !strings.Contains(s.Reason, "a.b") {
		t.Fatalf("%+v", c.Servers)
	}
}

// Claude Code accepts server names with spaces ("Sequential Thinking"); their tools are
// named with '_' for the space, and a name that meets another there is refused.
func TestNamesWithSpaces(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	write(t, ProjectFile(cwd), `{"mcpServers":{"Sequential Thinking":{"command":"x"}," lead":{"command":"x"},"trail ":{"command":"x"},"a\tb":{"command":"x"}}}`)
	write(t, UserFile(home), `{"mcpServers":{"my server":{"command":"x"},"my_server":{"command":"y"}}}`)
	c := load(t, Options{CWD: cwd, UserHome: home})
	if s, _ := c.Find("Sequential Thinking"); s.State == StateInvalid {
		t.Fatalf("a name with a space is refused: %+v", s)
	}
	for _, bad := range []string{" lead", "trail ", "a\tb"} {
		if s, _ := c.Find(bad); s.State != StateInvalid || !strings.Contains(s.Reason, "spaces") {
			t.Errorf("%q: %+v", bad, s)
		}
	}
	mine, _ := c.Find("my server")
	other, _ := c.Find("my_server")
	if (mine.State == StateInvalid) == (other.State == StateInvalid) {
		t.Fatalf("exactly one of two names meeting in mcp__my_server__ must be refused: %+v %+v", mine, other)
	}
	if err := Add(home, cwd, ScopeLocal, "Brave Search", Entry{Command: "x"}); err != nil {
		t.Fatalf("ouro mcp add with a space: %v", err)
	}
	if _, err := Remove(home, cwd, "", "Brave Search"); err != nil {
		t.Fatal(err)
	}
}

func TestAddRemove(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := Add(home, cwd, ScopeLocal, "l", Entry{Command: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := Add(home, cwd, ScopeLocal, "l", Entry{Command: "x"}); err == nil {
		t.Fatal("duplicate accepted")
	}
	if err := Add(home, cwd, ScopeProject, "p", Entry{Type: "http", URL: "https://x"}); err != nil {
		t.Fatal(err)
	}
	if err := Add(home, cwd, ScopeUser, "l", Entry{Command: "y"}); err != nil {
		t.Fatal(err)
	}
	if err := Add(home, cwd, ScopeUser, "bad/name", Entry{Command: "y"}); err == nil {
		t.Fatal("bad name accepted")
	}
	if err := Add(home, cwd, ScopeUser, "nocmd", Entry{}); err == nil {
		t.Fatal("stdio without command accepted")
	}
	if _, err := Remove(home, cwd, "", "l"); err == nil || !strings.Contains(err.Error(), "several scopes") {
		t.Fatalf("ambiguous remove: %v", err)
	}
	if _, err := Remove(home, cwd, ScopeUser, "l"); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(home, cwd, "", "l"); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(home, cwd, "", "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(home, cwd, "", "p"); err == nil {
		t.Fatal("removed twice")
	}
	c := load(t, Options{CWD: cwd, UserHome: home})
	if len(c.Servers) != 0 {
		t.Fatalf("%+v", c.Servers)
	}
}

func TestOAuthEntry(t *testing.T) {
	get := env(map[string]string{"SECRET": "s3"})
	s := resolve("r", ScopeUser, "f", Entry{Type: "http", URL: "https://x/mcp",
		OAuth: &OAuth{ClientID: "id", ClientSecret: "${SECRET}", CallbackPort: 8123}}, get)
	if !s.Runnable() || s.OAuth == nil || s.OAuth.ClientSecret != "s3" || s.OAuth.CallbackPort != 8123 {
		t.Fatalf("%+v", s)
	}
	for name, e := range map[string]Entry{
		"stdio": {Command: "x", OAuth: &OAuth{ClientID: "id"}},
		"sse":   {Type: "sse", URL: "https://x/sse", OAuth: &OAuth{ClientID: "id"}},
		"port":  {Type: "http", URL: "https://x/mcp", OAuth: &OAuth{CallbackPort: 70000}},
	} {
		if s := resolve("r", ScopeUser, "f", e, get); s.Runnable() || !strings.Contains(s.Reason, "oauth") {
			t.Errorf("%s: %+v", name, s)
		}
	}
}
