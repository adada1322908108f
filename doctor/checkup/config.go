// Package checkup is ouro doctor's list of sections: what a session in a directory would
// load from each configuration source (settings, model, permission rules, sandbox,
// hooks, agents, skills, plugins, MCP servers, instruction files, memory, trust, store,
// and the settings it reads without honouring), loaded
// through the functions a run calls, so that a warning reads in doctor as a run prints it.
//
// It sits between the doctor package (the report, below every mechanism) and the
// harness, which hands it the loaders only a session's assembly has (Loads) and keeps
// harness.Doctor as the one call. Adding a mechanism's section is one doctor.Func in
// Run's list, its loading done through the mechanism's own package.
package checkup

import (
	"io"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/workspace"
)

// Dirs are a session's places, resolved as the harness resolves them.
type Dirs struct {
	CWD     string // absolute, symlinks resolved
	Home    string // ouro's state
	Project string // this directory's state under Home
	Config  string // the user's own configuration
}

// Config is what a session would start from: its places, the model asked for, the
// flags that add to the configuration files, and the harness's loaders.
type Config struct {
	Dirs    Dirs
	Model   resolve.Choice
	Add     []string // --add-dir
	Plugins []string // --plugin-dir
	MCP     MCPFlags
	Version string // ouro's, as MCP servers are told
	Loads   Loads
}

// MCPFlags are --mcp-config and --strict-mcp-config.
type MCPFlags struct {
	Configs []string
	Strict  bool
}

// Loads are the steps of a session's start that only the harness has; doctor calls them
// as a run does, with the warning writer a run gives them.
type Loads interface {
	// Settings reads every settings file and the permission flags.
	Settings(warn io.Writer) (*settings.Settings, error)
	// Env makes the settings' env act as if exported; it returns the lookup the
	// provider is built with.
	Env(set *settings.Settings, warn io.Writer) func(string) string
	// Policy builds the permission policy, adding additionalDirectories to ws.
	Policy(set *settings.Settings, ws *workspace.Workspace, warn io.Writer) (*permission.Policy, error)
	// Sandbox sets up the OS sandbox (with tmp as the session's temp dir) and closes
	// whatever it started.
	Sandbox(set *settings.Settings, pol *permission.Policy, ws *workspace.Workspace, tmp string, warn io.Writer) (Sandboxed, error)
	// ReportHooks writes the warnings of loading the hooks.
	ReportHooks(r *hook.Runner, warn io.Writer)
	// Plugins reads the plugins of --plugin-dir, and PluginSkills and PluginAgents what
	// they add.
	Plugins(dirs []string, warn io.Writer) []plugin.Plugin
	PluginSkills(ps []plugin.Plugin, warn io.Writer) []skill.Skill
	PluginAgents(ps []plugin.Plugin, warn io.Writer) []subagent.Definition
	// ImportCheck decides on an instruction file's @import as the session's policy does.
	ImportCheck(pol *permission.Policy) memory.ReadCheck
	// RepoRoot is the repository a directory is in, "" for none.
	RepoRoot(dir string) string
	// Store is where task lists, mailboxes and journals are kept ("" for state.db), and
	// StatePath where state.db is.
	Store(set *settings.Settings) (string, error)
	StatePath() string
}

// Sandboxed is the OS sandbox a run would have.
type Sandboxed struct {
	Policy  *sandbox.Policy // nil when Bash runs under the permission rules only
	Proxied bool            // allowedDomains go through ouro's filtering proxy
}
