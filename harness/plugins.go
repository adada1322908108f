package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/plugin/market"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
)

// loadPlugins reads the plugins of --plugin-dir; a malformed one is skipped with a
// warning.
func loadPlugins(dirs []string, warn io.Writer) []plugin.Plugin {
	ps, warns := plugin.Load(dirs)
	for _, w := range warns {
		fmt.Fprintf(warn, "ouro: %s\n", w)
	}
	return ps
}

// EnabledPlugins are the folders of the installed plugins (`ouro plugin install`, kept
// under ouro's home) that the settings' enabledPlugins turns on for a session in cwd,
// after every --plugin-dir one (which wins a name both have). A settings file an ouro
// session wrote enables none until a person reviews it; one enabled only by Claude
// Code's user settings and not installed in ouro is Claude Code's own and left out quietly; managed strictKnownMarketplaces
// keeps out plugins of other marketplaces. managed holds the folders (symlinks resolved)
// of those a managed settings file enables: under allowManagedHooksOnly their hooks
// still run, as in Claude Code.
func EnabledPlugins(cwd, userHome, ouroHome string, warn io.Writer) (dirs []string, managed map[string]bool) {
	ledger := grant.Open(session.ProjectDir(ouroHome, cwd))
	set := market.Read(market.Files{UserHome: userHome, OuroHome: ouroHome, Project: cwd, Managed: settings.ManagedPaths(),
		Unreviewed: func(path string, data []byte) string {
			if ok, why, _ := ledger.Trusted(path, data); !ok {
				return why
			}
			return ""
		}})
	// A plugin Claude Code installed (enabled in ~/.claude/settings.json) is Claude
	// Code's: not installed in ouro, it is left out without a warning each session.
	claudeUser := filepath.Join(userHome, ".claude", "settings.json")
	st := market.Store{Home: ouroHome}
	// The record of installed plugins says which folders load: one an ouro session wrote
	// loads none until a person reviews it, as a settings file it wrote grants nothing.
	if data, err := regfile.Read(st.InstalledFile(), regfile.MaxConfig); err == nil {
		if ok, why, _ := ledger.Trusted(st.InstalledFile(), data); !ok {
			fmt.Fprintf(warn, "ouro: WARNING: no installed plugin is loaded: %s\n", why)
			return nil, nil
		}
	}
	loaded, warns := st.Enabled(set.Enabled, set.EnabledFrom, set.Policy,
		func(file string) bool { return file == claudeUser })
	for _, w := range append(set.Warnings, warns...) {
		fmt.Fprintf(warn, "ouro: WARNING: %s\n", w)
	}
	managed = map[string]bool{}
	for _, l := range loaded {
		dirs = append(dirs, l.Dir)
		if slices.Contains(settings.ManagedPaths(), set.EnabledFrom[l.ID]) {
			if real, err := filepath.EvalSymlinks(l.Dir); err == nil {
				managed[real] = true
			}
		}
	}
	return dirs, managed
}

// pluginRoots are the plugins' folders, watched for what the agent writes like the
// skill and agent folders: a plugin file an ouro session changed grants nothing until
// reviewed.
func pluginRoots(ps []plugin.Plugin) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Root
	}
	return out
}

// addPluginHooks adds each plugin's hooks to the settings' hooks when every file they
// come from may grant (allow): hooks run commands, so a hooks file an ouro session wrote
// and nobody reviewed adds none. Under managed settings' allowManagedHooksOnly only the
// hooks of plugins a managed file's enabledPlugins enables (managed: their folders) are
// added, as in Claude Code.
func addPluginHooks(set *settings.Settings, ps []plugin.Plugin, managed map[string]bool, allow func(path, what string) bool, warn io.Writer) {
	for _, p := range ps {
		if set.ManagedHooksOnly != "" && len(p.Hooks) > 0 && !managed[p.Root] {
			fmt.Fprintf(warn, "ouro: WARNING: plugin %s: its hooks are ignored: managed settings (%s) set allowManagedHooksOnly, so only their hooks run\n", p.Name, set.ManagedHooksOnly)
			continue
		}
		ok := true
		for _, f := range p.HookFiles {
			if !allow(f, "the hooks of plugin "+p.Name) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for ev, groups := range p.Hooks {
			if set.Hooks == nil {
				set.Hooks = map[string][]settings.HookMatcher{}
			}
			set.Hooks[ev] = append(set.Hooks[ev], groups...)
		}
	}
}

// pluginSkills are the plugins' skills, and their commands as skills, named
// "<plugin>:<name>" as in Claude Code.
func pluginSkills(ps []plugin.Plugin, warn io.Writer) []skill.Skill {
	var out []skill.Skill
	for _, p := range ps {
		for _, d := range p.SkillDirs {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				dir := filepath.Join(d, e.Name())
				if _, err := os.Stat(filepath.Join(dir, skill.FileName)); err != nil {
					continue
				}
				s, ws, ok := skill.Load(dir)
				for _, w := range ws {
					fmt.Fprintf(warn, "ouro: plugin %s: skill %s\n", p.Name, w)
				}
				if ok {
					s.Name, s.Scope = p.Name+":"+s.Name, skill.ScopeUser
					out = append(out, s)
				}
			}
		}
		for _, d := range p.CommandDirs {
			cmds, ws := skill.LoadCommands(d, skill.ScopeUser)
			for _, w := range ws {
				fmt.Fprintf(warn, "ouro: plugin %s: command %s\n", p.Name, w)
			}
			for _, s := range cmds {
				s.Name = p.Name + ":" + s.Name
				out = append(out, s)
			}
		}
	}
	return out
}

// pluginAgents are the plugins' agent definitions, named "<plugin>:<name>".
func pluginAgents(ps []plugin.Plugin, warn io.Writer) []subagent.Definition {
	var out []subagent.Definition
	for _, p := range ps {
		defs, warns := subagent.LoadFrom(p.AgentDirs, "plugin")
		for _, w := range warns {
			fmt.Fprintf(warn, "ouro: plugin %s: agent %s\n", p.Name, w)
		}
		for _, d := range defs {
			d.Name = p.Name + ":" + d.Name
			out = append(out, d)
		}
	}
	return out
}
