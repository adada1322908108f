package mcpconf

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
)

// ScopePlugin is a server a plugin defines (its .mcp.json or "mcpServers" in its
// plugin.json), named plugin:<plugin>:<server> as in Claude Code.
const ScopePlugin = "plugin"

// PluginServers are one plugin's MCP servers, as the plugin writes them.
type PluginServers struct {
	// Plugin is its name; Root its folder (CLAUDE_PLUGIN_ROOT); Data its data folder
	// (CLAUDE_PLUGIN_DATA, "" when it has none).
	Plugin, Root, Data string
	// Servers by the plugin's own name for them; Sources names the file each comes from.
	Servers map[string]Entry
	Sources map[string]string
}

// PluginServerName is the session's name for a plugin's server: plugin:<plugin>:<server>.
// Its tools are mcp__plugin_<plugin>_<server>__<tool> (SafeName turns ':' into '_').
func PluginServerName(plugin, server string) string { return "plugin:" + plugin + ":" + server }

var pluginNameRE = regexp.MustCompile(`^plugin:[a-z0-9]+(-[a-z0-9]+)*:(.+)$`)

// validPluginName accepts plugin:<kebab-case plugin>:<valid server name>.
func validPluginName(name string) bool {
	m := pluginNameRE.FindStringSubmatch(name)
	return m != nil && validName(m[2]) && len(name) <= 64+len("plugin:")+64
}

// pluginEnv expands ${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA} and ${CLAUDE_PROJECT_DIR}
// for a plugin's server, then the environment. The values are text put into the
// command, arguments, env, url and headers: nothing is run through a shell, so a plugin
// folder named "$(rm -rf ~)" is a path like any other.
func pluginEnv(ps PluginServers, cwd string, getenv func(string) string) func(string) string {
	return func(k string) string {
		switch k {
		case "CLAUDE_PLUGIN_ROOT":
			return ps.Root
		case "CLAUDE_PLUGIN_DATA":
			if ps.Data != "" {
				return ps.Data
			}
		case "CLAUDE_PROJECT_DIR":
			return cwd
		}
		return getenv(k)
	}
}

// addPlugins adds the plugins' servers not defined elsewhere: each needs the user's
// approval, bound to its definition and the plugin's folder, as a project's .mcp.json
// server does (enableAllProjectMcpServers, which is about the project's own servers,
// does not approve them).
func addPlugins(o Options, ap *approval, byName map[string]Server) {
	for _, ps := range o.Plugins {
		names := make([]string, 0, len(ps.Servers))
		for n := range ps.Servers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			name := PluginServerName(ps.Plugin, n)
			if _, have := byName[name]; have {
				continue
			}
			e, source := ps.Servers[n], ps.Sources[n]
			if source == "" {
				source = ps.Root
			}
			s := resolve(name, ScopePlugin, source, e, pluginEnv(ps, o.CWD, o.Getenv))
			if s.Type == TypeSDK && s.State == "" {
				s.State, s.Reason = StateInvalid, fmt.Sprintf("a server of type \"sdk\" lives in the program driving ouro; a plugin may not name one (%s)", source)
			}
			if s.State == "" && s.Type == TypeStdio {
				// As Claude Code does, the server learns where its plugin is.
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				if _, set := s.Env["CLAUDE_PLUGIN_ROOT"]; !set {
					s.Env["CLAUDE_PLUGIN_ROOT"] = ps.Root
				}
				if _, set := s.Env["CLAUDE_PLUGIN_DATA"]; !set && ps.Data != "" {
					s.Env["CLAUDE_PLUGIN_DATA"] = ps.Data
				}
			}
			fp := fingerprintOf(s.Type, e)
			fp.Root = ps.Root
			s.fingerprint = &fp
			if s.State == "" {
				s.State, s.Reason, s.Changed = ap.decidePlugin(name, ps.Plugin, fp)
			}
			byName[name] = s
		}
	}
}

// decidePlugin is decide for a plugin's server: only an approval of this definition, in
// this plugin folder, lets it start.
func (a *approval) decidePlugin(name, plugin string, fp Fingerprint) (state, reason, changed string) {
	again := "approve it with `ouro mcp approve " + name + "` (or in an interactive session)"
	switch {
	case slices.Contains(a.disabled, name):
		return StateDisabled, "disabled (disabledMcpjsonServers)", ""
	case slices.Contains(a.enabled, name):
		was, ok := a.approved[name]
		if !ok {
			return StateNeedsApproval, "approved by name only, without a record of the configuration approved: " + again, ""
		}
		if changed = fp.changes(was); changed != "" {
			return StateNeedsApproval, "changed in plugin " + plugin + " since you approved it (" + changed + "), so it is a new server: " + again, changed
		}
		return "", "", ""
	}
	return StateNeedsApproval, "defined by plugin " + plugin + " and not approved yet for this project: " + again, ""
}
