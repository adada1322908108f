package harness

import (
	"io"
	"os"
	"slices"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/doctor/checkup"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/workspace"
)

// Doctor loads every configuration source as Open would for opts, through the same
// functions, and reports each file: loaded, skipped and why, with every warning (ouro
// doctor). Nothing runs: no hook, no model call, no transcript. The sections are package
// checkup's; the harness gives it the steps of Open only it has.
func Doctor(opts Options) doctor.Report {
	d, err := locate(opts.Dirs)
	if err != nil {
		return doctor.Report{Sections: []doctor.Section{{Name: "session", Fatal: err.Error()}}}
	}
	return checkup.Run(checkup.Config{
		Dirs:  checkup.Dirs{CWD: d.cwd, Home: d.home, Project: d.project, Config: d.config},
		Model: opts.Model.choice(), Add: opts.Dirs.Add, Plugins: opts.Plugins,
		MCP: checkup.MCPFlags{Configs: opts.MCP.Configs, Strict: opts.MCP.Strict}, Version: opts.Version,
		Loads: doctorLoads{d: d, opts: opts},
	})
}

// doctorLoads are Open's own steps, as checkup.Loads.
type doctorLoads struct {
	d    dirs
	opts Options
}

func (l doctorLoads) Settings(warn io.Writer) (*settings.Settings, error) {
	return loadSettings(l.d, l.opts.Access, warn, nil)
}

func (doctorLoads) Env(set *settings.Settings, warn io.Writer) func(string) string {
	return settingsEnv(set, warn)
}

func (l doctorLoads) Policy(set *settings.Settings, ws *workspace.Workspace, warn io.Writer) (*permission.Policy, error) {
	userHome, _ := os.UserHomeDir()
	return newPolicy(set, l.d.cwd, ws, userHome, nil, warn, nil)
}

// Sandbox sets up the sandbox as Open does (setupSandbox): the availability probe, the
// filtering proxy when allowedDomains asks for one (started, then closed), the excluded
// commands.
func (l doctorLoads) Sandbox(set *settings.Settings, pol *permission.Policy, ws *workspace.Workspace, tmp string, warn io.Writer) (checkup.Sandboxed, error) {
	g := &guard{settings: set, policy: pol, tmpDir: tmp, gate: permission.NewGate(pol, nil, nil, nil)}
	userHome, _ := os.UserHomeDir()
	err := g.setupSandbox(guardEnv{settings: set, dirs: l.d, ws: ws, warn: warn}, l.opts.Access.SandboxLauncher, userHome)
	if g.proxy != nil {
		g.proxy.Close()
	}
	return checkup.Sandboxed{Policy: g.sandbox, Proxied: g.proxy != nil}, err
}

func (doctorLoads) ReportHooks(r *hook.Runner, warn io.Writer) { reportHooks(r, warn) }

// Plugins are those a session loads: --plugin-dir's, then the installed ones the
// settings enable.
func (l doctorLoads) Plugins(dirs []string, warn io.Writer) []plugin.Plugin {
	installed, _ := EnabledPlugins(l.d.cwd, l.d.config, l.d.home, warn)
	return loadPlugins(append(slices.Clip(dirs), installed...), warn)
}

func (doctorLoads) PluginSkills(ps []plugin.Plugin, warn io.Writer) []skill.Skill {
	return pluginSkills(ps, warn)
}

func (doctorLoads) PluginAgents(ps []plugin.Plugin, warn io.Writer) []subagent.Definition {
	return pluginAgents(ps, warn)
}

func (doctorLoads) ImportCheck(pol *permission.Policy) memory.ReadCheck {
	return (&guard{policy: pol}).importCheck
}

func (doctorLoads) RepoRoot(dir string) string { return repoRoot(dir) }

func (doctorLoads) Store(set *settings.Settings) (string, error) { return ResolveStore("", set) }

func (l doctorLoads) StatePath() string { return StatePath(l.d.home) }
