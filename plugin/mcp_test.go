package plugin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/plugin"
)

// The plugin's .mcp.json, in either shape, and the manifest's inline servers, which add
// to it; a path in the manifest replaces .mcp.json.
func TestPluginMCPServers(t *testing.T) {
	base := t.TempDir()
	wrapped := filepath.Join(base, "wrapped")
	write(t, filepath.Join(wrapped, ".mcp.json"), `{"mcpServers": {"chat": {"command": "bun", "args": ["run", "--cwd", "${CLAUDE_PLUGIN_ROOT}"]}}}`)
	write(t, filepath.Join(wrapped, ".claude-plugin", "plugin.json"), `{"name": "wrapped", "mcpServers": {"api": {"type": "http", "url": "https://x.example/${CLAUDE_PLUGIN_ROOT}"}}}`)
	bare := filepath.Join(base, "bare")
	write(t, filepath.Join(bare, ".mcp.json"), `{"example-server": {"type": "http", "url": "https://mcp.example.com/api"}}`)
	listed := filepath.Join(base, "listed")
	write(t, filepath.Join(listed, ".mcp.json"), `{"ignored": {"command": "x"}}`)
	write(t, filepath.Join(listed, "conf", "servers.json"), `{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db"}}}`)
	write(t, filepath.Join(listed, ".claude-plugin", "plugin.json"), `{"name": "listed", "mcpServers": "./conf/servers.json"}`)
	ps, warns := plugin.Load([]string{wrapped, bare, listed})
	if len(ps) != 3 || len(warns) != 0 {
		t.Fatalf("plugins %+v warnings %v", ps, warns)
	}
	w := ps[0].MCP
	if len(w.Servers) != 2 || w.Servers["chat"].Args[2] != "${CLAUDE_PLUGIN_ROOT}" || w.Servers["api"].Type != "http" {
		t.Errorf("wrapped: %+v", w)
	}
	if w.Sources["chat"] != filepath.Join(wrapped, ".mcp.json") || w.Sources["api"] != filepath.Join(wrapped, ".claude-plugin", "plugin.json") {
		t.Errorf("sources %v", w.Sources)
	}
	if b := ps[1].MCP; len(b.Servers) != 1 || b.Servers["example-server"].URL != "https://mcp.example.com/api" {
		t.Errorf("bare: %+v", b)
	}
	if l := ps[2].MCP; len(l.Servers) != 1 || l.Servers["db"].Command != "${CLAUDE_PLUGIN_ROOT}/db" {
		t.Errorf("listed (a path replaces .mcp.json): %+v", l)
	}
	got := plugin.MCPServers(ps, func(p plugin.Plugin) string { return "/data/" + p.Name })
	if len(got) != 3 || got[0].Plugin != "wrapped" || got[0].Root != wrapped || got[0].Data != "/data/wrapped" {
		t.Errorf("MCPServers %+v", got)
	}
}

// Attack: a plugin's MCP file outside its folder (.., absolute, a symlinked .mcp.json)
// is refused and the plugin skipped, never read.
func TestPluginMCPPathLeavingThePlugin(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, "outside.json"), `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch pwned"]}}}`)
	dotdot := filepath.Join(base, "dotdot")
	write(t, filepath.Join(dotdot, ".claude-plugin", "plugin.json"), `{"name": "dotdot", "mcpServers": "../outside.json"}`)
	abs := filepath.Join(base, "abs")
	write(t, filepath.Join(abs, ".claude-plugin", "plugin.json"), `{"name": "abs", "mcpServers": ["`+filepath.ToSlash(filepath.Join(base, "outside.json"))+`"]}`)
	link := filepath.Join(base, "link")
	write(t, filepath.Join(link, ".claude-plugin", "plugin.json"), `{"name": "link"}`)
	if err := os.Symlink(filepath.Join(base, "outside.json"), filepath.Join(link, ".mcp.json")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	ps, warns := plugin.Load([]string{dotdot, abs, link})
	if len(ps) != 0 {
		t.Fatalf("loaded %+v", ps)
	}
	all := strings.Join(warns, "\n")
	for _, want := range []string{"dotdot is skipped", "abs is skipped", "link is skipped", "leaves the plugin's folder", "must be relative"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

// An MCP bundle is not unpacked: said so, the rest of the plugin loads.
func TestPluginMCPBundleIsNamed(t *testing.T) {
	d := filepath.Join(t.TempDir(), "bundled")
	write(t, filepath.Join(d, ".claude-plugin", "plugin.json"), `{"name": "bundled", "mcpServers": "./server.mcpb"}`)
	ps, warns := plugin.Load([]string{d})
	if len(ps) != 1 || len(warns) != 1 || !strings.Contains(warns[0], ".mcpb") {
		t.Fatalf("plugins %+v warnings %v", ps, warns)
	}
}
