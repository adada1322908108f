package mcpconf

import (
	"path/filepath"
	"strings"
	"testing"
)

func pluginOpts(home, cwd, root string, servers map[string]Entry) Options {
	return Options{CWD: cwd, UserHome: home, Getenv: env(map[string]string{"TOKEN": "tok"}),
		Plugins: []PluginServers{{Plugin: "fakechat", Root: root, Data: filepath.Join(home, "data"), Servers: servers,
			Sources: map[string]string{"fakechat": filepath.Join(root, ".mcp.json")}}}}
}

// A plugin's server is plugin:<plugin>:<server> (tools mcp__plugin_<plugin>_<server>__…),
// with ${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA}, ${CLAUDE_PROJECT_DIR} and ${VAR}
// expanded in command, args, env, url and headers, and CLAUDE_PLUGIN_ROOT in its env.
func TestPluginServerNamedAndExpanded(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	root := filepath.Join(t.TempDir(), "fakechat")
	c := load(t, pluginOpts(home, cwd, root, map[string]Entry{
		"fakechat": {Command: "bun", Args: []string{"run", "--cwd", "${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PROJECT_DIR}", "${MISSING:-dflt}"},
			Env: map[string]string{"DB": "${CLAUDE_PLUGIN_DATA}/db", "T": "${TOKEN}"}},
		"api": {Type: "http", URL: "https://x.example/${TOKEN}", Headers: map[string]string{"X-Root": "${CLAUDE_PLUGIN_ROOT}"}},
	}))
	s, ok := c.Find("plugin:fakechat:fakechat")
	if !ok || s.Scope != ScopePlugin || SafeName(s.Name) != "plugin_fakechat_fakechat" {
		t.Fatalf("servers %+v", c.Servers)
	}
	if strings.Join(s.Args, "|") != "run|--cwd|"+root+"|"+cwd+"|dflt" || s.Env["DB"] != filepath.Join(home, "data")+"/db" ||
		s.Env["T"] != "tok" || s.Env["CLAUDE_PLUGIN_ROOT"] != root || s.Env["CLAUDE_PLUGIN_DATA"] != filepath.Join(home, "data") {
		t.Errorf("expanded %+v", s)
	}
	h, _ := c.Find("plugin:fakechat:api")
	if h.URL != "https://x.example/tok" || h.Headers["X-Root"] != root {
		t.Errorf("http %+v", h)
	}
	if s.State != StateNeedsApproval || !strings.Contains(s.Reason, "plugin fakechat") || !strings.Contains(s.Reason, "ouro mcp approve plugin:fakechat:fakechat") {
		t.Errorf("a plugin server starts unapproved: %+v", s)
	}
	// --strict-mcp-config: only --mcp-config's servers.
	o := pluginOpts(home, cwd, root, map[string]Entry{"fakechat": {Command: "bun"}})
	o.Strict = true
	if c := load(t, o); len(c.Servers) != 0 {
		t.Errorf("strict: %+v", c.Servers)
	}
}

// Attack: a plugin folder whose path holds shell syntax stays a path: it is put into the
// argument as text, the command is what the plugin names, and no variable in the path is
// expanded again.
func TestPluginRootWithShellSyntaxStaysData(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	root := filepath.Join(t.TempDir(), "x; touch pwned $(id) `id` ${HOME} \"q' |&")
	c := load(t, pluginOpts(home, cwd, root, map[string]Entry{"fakechat": {Command: "${CLAUDE_PLUGIN_ROOT}/bin/srv", Args: []string{"--root=${CLAUDE_PLUGIN_ROOT}"}}}))
	s, _ := c.Find("plugin:fakechat:fakechat")
	if s.Command != root+"/bin/srv" || len(s.Args) != 1 || s.Args[0] != "--root="+root {
		t.Errorf("command %q args %q", s.Command, s.Args)
	}
	if strings.Contains(s.Args[0], home) {
		t.Errorf("${HOME} in the plugin's path was expanded: %q", s.Args[0])
	}
}

// The approval of a plugin's server is bound to its definition and to the plugin's
// folder: a changed command or the same plugin name in another folder needs approving
// again; enableAllProjectMcpServers (about the project's own servers) does not approve it.
func TestPluginServerApproval(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	root := filepath.Join(t.TempDir(), "fakechat")
	def := map[string]Entry{"fakechat": {Command: "bun", Args: []string{"run", "${CLAUDE_PLUGIN_ROOT}"}}}
	write(t, filepath.Join(home, ".ouro", "settings.json"), `{"enableAllProjectMcpServers": true}`)
	c := load(t, pluginOpts(home, cwd, root, def))
	s, _ := c.Find("plugin:fakechat:fakechat")
	if s.State != StateNeedsApproval {
		t.Fatalf("enableAllProjectMcpServers approved a plugin's server: %+v", s)
	}
	if err := Approve(home, cwd, c.Servers, true); err != nil {
		t.Fatal(err)
	}
	if s, _ := load(t, pluginOpts(home, cwd, root, def)).Find("plugin:fakechat:fakechat"); !s.Runnable() {
		t.Fatalf("approved: %+v", s)
	}
	changed := map[string]Entry{"fakechat": {Command: "sh", Args: []string{"run", "${CLAUDE_PLUGIN_ROOT}"}}}
	if s, _ := load(t, pluginOpts(home, cwd, root, changed)).Find("plugin:fakechat:fakechat"); s.State != StateNeedsApproval || !strings.Contains(s.Changed, "command changed from bun to sh") {
		t.Errorf("changed command: %+v", s)
	}
	moved := filepath.Join(t.TempDir(), "fakechat")
	if s, _ := load(t, pluginOpts(home, cwd, moved, def)).Find("plugin:fakechat:fakechat"); s.State != StateNeedsApproval || !strings.Contains(s.Changed, "plugin folder changed") {
		t.Errorf("another folder: %+v", s)
	}
	// Another project: not approved there.
	if s, _ := load(t, pluginOpts(home, t.TempDir(), root, def)).Find("plugin:fakechat:fakechat"); s.State != StateNeedsApproval {
		t.Errorf("another project: %+v", s)
	}
	// A bad server name inside a plugin fails that server only.
	if s, _ := load(t, pluginOpts(home, cwd, root, map[string]Entry{"bad/name": {Command: "x"}})).Find("plugin:fakechat:bad/name"); s.State != StateInvalid {
		t.Errorf("bad name: %+v", s)
	}
}
