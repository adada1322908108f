package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/mcpconf"
)

// loadMCP reads the plugin's MCP servers, as Claude Code does: .mcp.json at its root,
// unless the manifest's "mcpServers" names files (a path or a list of paths, relative
// to the plugin), which replace it; an inline object in the manifest adds to .mcp.json
// (its entries win for a name in both). A file is {"mcpServers": {...}} or the servers
// map itself. A path leaving the plugin's folder, even through a symlink, is an error.
func (p *Plugin) loadMCP(raw json.RawMessage, mpath string) ([]string, error) {
	var warns []string
	raw = bytes.TrimSpace(raw)
	inline := bytes.HasPrefix(raw, []byte("{"))
	var files []string
	switch {
	case len(raw) == 0 || string(raw) == "null" || inline:
		if fileExists(filepath.Join(p.Root, ".mcp.json")) {
			files = []string{"./.mcp.json"}
		}
	default:
		paths, err := pathList(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: \"mcpServers\": %v", mpath, err)
		}
		files = paths
	}
	for _, rel := range files {
		if strings.HasSuffix(strings.ToLower(rel), ".mcpb") {
			warns = append(warns, fmt.Sprintf("plugin %s: %s is an MCP bundle (.mcpb), which ouro does not unpack: its server is not started", p.Name, rel))
			continue
		}
		abs, err := within(p.Root, rel)
		if err != nil {
			return nil, fmt.Errorf("%s: \"mcpServers\": %v", mpath, err)
		}
		data, err := regfile.Read(abs, regfile.MaxConfig)
		if err != nil {
			return nil, fmt.Errorf("plugin MCP servers: %v", err)
		}
		servers, err := serversOf(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", abs, err)
		}
		p.addMCP(servers, abs)
	}
	if inline {
		servers, err := serversOf(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: \"mcpServers\": %v", mpath, err)
		}
		p.addMCP(servers, mpath)
	}
	return warns, nil
}

// serversOf reads {"mcpServers": {...}} or the servers map itself.
func serversOf(data []byte) (map[string]mcpconf.Entry, error) {
	var top map[string]json.RawMessage
	if err := strictJSON(data, &top); err != nil {
		return nil, err
	}
	if inner, ok := top["mcpServers"]; ok && bytes.HasPrefix(bytes.TrimSpace(inner), []byte("{")) {
		top = nil
		if err := strictJSON(inner, &top); err != nil {
			return nil, err
		}
	}
	out := make(map[string]mcpconf.Entry, len(top))
	for name, e := range top {
		if name == "$schema" {
			continue
		}
		var entry mcpconf.Entry
		if err := json.Unmarshal(e, &entry); err != nil {
			return nil, fmt.Errorf("server %q: %v (expected {\"command\": ..., \"args\": [...]} or {\"type\": \"http\", \"url\": ...})", name, err)
		}
		out[name] = entry
	}
	return out, nil
}

func (p *Plugin) addMCP(servers map[string]mcpconf.Entry, source string) {
	if len(servers) == 0 {
		return
	}
	if p.MCP.Servers == nil {
		p.MCP.Servers = map[string]mcpconf.Entry{}
		p.MCP.Sources = map[string]string{}
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p.MCP.Servers[n] = servers[n]
		p.MCP.Sources[n] = source
	}
}

// MCPServers are the plugins' MCP servers as mcpconf starts them (plugin:<plugin>:<server>);
// dataDir gives each plugin's data folder (CLAUDE_PLUGIN_DATA).
func MCPServers(ps []Plugin, dataDir func(Plugin) string) []mcpconf.PluginServers {
	var out []mcpconf.PluginServers
	for _, p := range ps {
		if len(p.MCP.Servers) == 0 {
			continue
		}
		ms := p.MCP
		ms.Plugin, ms.Root = p.Name, p.Root
		if dataDir != nil {
			ms.Data = dataDir(p)
		}
		out = append(out, ms)
	}
	return out
}

// DataDir is a plugin's data folder under ouro's home (CLAUDE_PLUGIN_DATA), which
// outlives its updates as Claude Code's ~/.claude/plugins/data/<id> does; it is made
// (0700) when missing. "" when it cannot be.
func DataDir(home, name string) string {
	if home == "" || !nameRE.MatchString(name) {
		return ""
	}
	d := filepath.Join(home, "plugins", "data", name)
	if os.MkdirAll(d, 0o700) != nil {
		return ""
	}
	return d
}
