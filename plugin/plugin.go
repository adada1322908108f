// Package plugin loads Claude Code plugins from local folders (--plugin-dir): a folder
// with an optional .claude-plugin/plugin.json manifest, hooks/hooks.json, and skills/,
// agents/ and commands/ folders, in Claude Code's layout. A plugin's hooks run with
// CLAUDE_PLUGIN_ROOT set to its folder; its MCP servers (.mcp.json, or "mcpServers" in
// the manifest) start as plugin:<plugin>:<server>, approved like a project's .mcp.json
// servers (see mcpconf). A plugin that is malformed (an unreadable or
// invalid manifest or hooks file, a path leaving its folder) is skipped with a warning:
// the session still starts.
package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/settings"
)

// Plugin is one loaded plugin.
type Plugin struct {
	Name        string
	Version     string
	Description string
	// Root is the plugin's folder: absolute, symlinks resolved.
	Root string
	// Hooks are its hooks by event, each group's Source naming the file and PluginRoot
	// set to Root.
	Hooks map[string][]settings.HookMatcher
	// HookFiles are the files the hooks came from (the manifest for inline hooks).
	HookFiles []string
	// SkillDirs hold one folder per skill (<dir>/<name>/SKILL.md); AgentDirs and
	// CommandDirs hold .md files.
	SkillDirs, AgentDirs, CommandDirs []string
	// MCP are its MCP servers (.mcp.json, or the manifest's "mcpServers"), as written:
	// mcpconf expands ${CLAUDE_PLUGIN_ROOT} and the other variables in them.
	MCP mcpconf.PluginServers
}

// ManifestPath is where a plugin's manifest is, relative to its folder.
const ManifestPath = ".claude-plugin/plugin.json"

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// manifest is plugin.json: the fields ouro uses; the others Claude Code defines (author,
// homepage, repository, license, keywords) are accepted and ignored.
type manifest struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Commands    json.RawMessage `json:"commands"`
	Agents      json.RawMessage `json:"agents"`
	Skills      json.RawMessage `json:"skills"`
	Hooks       json.RawMessage `json:"hooks"`
	MCPServers  json.RawMessage `json:"mcpServers"`
	LSPServers  json.RawMessage `json:"lspServers"`
}

// hooksFile is hooks/hooks.json: {"description": ..., "hooks": {event: [groups]}}.
type hooksFile struct {
	Hooks map[string][]settings.HookMatcher `json:"hooks"`
}

// Load reads the plugins in dirs, in order. Two plugins with one name: the first wins.
// warnings say what was skipped and why.
func Load(dirs []string) (plugins []Plugin, warnings []string) {
	seen := map[string]string{}
	for _, d := range dirs {
		p, warns, err := loadOne(d)
		warnings = append(warnings, warns...)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("plugin %s is skipped: %v", d, err))
			continue
		}
		if prev, dup := seen[p.Name]; dup {
			warnings = append(warnings, fmt.Sprintf("plugin %s is skipped: the plugin %s already has the name %q", d, prev, p.Name))
			continue
		}
		seen[p.Name] = p.Root
		plugins = append(plugins, p)
	}
	return plugins, warnings
}

func loadOne(dir string) (Plugin, []string, error) {
	var warns []string
	root, err := filepath.Abs(dir)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return Plugin{}, nil, err
	}
	if st, err := os.Stat(root); err != nil {
		return Plugin{}, nil, err
	} else if !st.IsDir() {
		return Plugin{}, nil, fmt.Errorf("it is not a folder")
	}
	p := Plugin{Root: root, Name: filepath.Base(root), Hooks: map[string][]settings.HookMatcher{}}
	var m manifest
	mpath := filepath.Join(root, ManifestPath)
	data, err := regfile.Read(mpath, regfile.MaxConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The manifest is optional: the folder's name names the plugin.
	case err != nil:
		return p, nil, err
	default:
		if err := strictJSON(data, &m); err != nil {
			return p, nil, fmt.Errorf("%s: %v", mpath, err)
		}
		if m.Name != "" {
			p.Name = m.Name
		}
		p.Version, p.Description = m.Version, m.Description
	}
	if !nameRE.MatchString(p.Name) {
		return p, nil, fmt.Errorf("its name %q is not kebab-case (lowercase letters, digits and hyphens)", p.Name)
	}
	mw, err := p.loadMCP(m.MCPServers, mpath)
	if err != nil {
		return p, nil, err
	}
	warns = append(warns, mw...)
	if len(m.LSPServers) > 0 {
		warns = append(warns, fmt.Sprintf("plugin %s: its LSP servers are not started: ouro does not run LSP servers", p.Name))
	}
	// Default folders, then the manifest's paths, which add to them.
	for _, c := range []struct {
		def  string
		raw  json.RawMessage
		key  string
		into *[]string
	}{{"skills", m.Skills, "skills", &p.SkillDirs}, {"agents", m.Agents, "agents", &p.AgentDirs}, {"commands", m.Commands, "commands", &p.CommandDirs}} {
		if d := filepath.Join(root, c.def); isDir(d) {
			*c.into = append(*c.into, d)
		}
		paths, err := pathList(c.raw)
		if err != nil {
			return p, nil, fmt.Errorf("%s: %q: %v", mpath, c.key, err)
		}
		for _, rel := range paths {
			abs, err := within(root, rel)
			if err != nil {
				return p, nil, fmt.Errorf("%s: %q: %v", mpath, c.key, err)
			}
			if !slices.Contains(*c.into, abs) {
				*c.into = append(*c.into, abs)
			}
		}
	}
	// Hooks: hooks/hooks.json, then the manifest's (a path, a list of paths, or inline).
	if hp := filepath.Join(root, "hooks", "hooks.json"); fileExists(hp) {
		if err := p.addHooksFile(hp); err != nil {
			return p, nil, err
		}
	}
	if len(m.Hooks) > 0 {
		if bytes.HasPrefix(bytes.TrimSpace(m.Hooks), []byte("{")) {
			var f hooksFile
			if err := strictJSON(m.Hooks, &f); err != nil || f.Hooks == nil {
				// The inline form may also be the event map itself.
				f = hooksFile{}
				if err2 := strictJSON(m.Hooks, &f.Hooks); err2 != nil {
					return p, nil, fmt.Errorf("%s: \"hooks\": %v", mpath, err)
				}
			}
			p.add(f.Hooks, mpath)
		} else {
			paths, err := pathList(m.Hooks)
			if err != nil {
				return p, nil, fmt.Errorf("%s: \"hooks\": %v", mpath, err)
			}
			for _, rel := range paths {
				abs, err := within(root, rel)
				if err != nil {
					return p, nil, fmt.Errorf("%s: \"hooks\": %v", mpath, err)
				}
				if slices.Contains(p.HookFiles, abs) {
					continue
				}
				if err := p.addHooksFile(abs); err != nil {
					return p, nil, err
				}
			}
		}
	}
	return p, warns, nil
}

func (p *Plugin) addHooksFile(path string) error {
	data, err := regfile.Read(path, regfile.MaxConfig)
	if err != nil {
		return err
	}
	var f hooksFile
	if err := strictJSON(data, &f); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	p.add(f.Hooks, path)
	return nil
}

func (p *Plugin) add(hooks map[string][]settings.HookMatcher, source string) {
	events := make([]string, 0, len(hooks))
	for ev := range hooks {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		for _, g := range hooks[ev] {
			g.Source = fmt.Sprintf("plugin %s (%s)", p.Name, source)
			g.PluginRoot = p.Root
			p.Hooks[ev] = append(p.Hooks[ev], g)
		}
	}
	if !slices.Contains(p.HookFiles, source) {
		p.HookFiles = append(p.HookFiles, source)
	}
}

// strictJSON decodes one JSON value, nothing after it.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("invalid JSON: more than one value")
	}
	return nil
}

// pathList reads a manifest path field: a string or a list of strings.
func pathList(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("expected a path or a list of paths")
	}
	return many, nil
}

// within resolves rel (Claude Code's "./path") inside root; a path leaving the plugin's
// folder (.., an absolute path, a symlink out) is refused.
func within(root, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("path %q must be relative to the plugin's folder (./...)", rel)
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if r, err := filepath.Rel(root, abs); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("path %q leaves the plugin's folder", rel)
	}
	return abs, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
