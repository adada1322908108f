// Package settings reads the configuration a Claude Code user already has, in the same
// files and the same shape: ~/.ouro/settings.json (and ~/.claude/settings.json),
// .ouro/settings.json, .ouro/settings.local.json and their .claude/ twins, plus
// --settings and the permission flags. Lists merge across files; scalar values come from
// the most specific file that sets them.
package settings

import "encoding/json"

// Settings is the merged configuration.
type Settings struct {
	Permissions Permissions `json:"permissions"`
	// Hooks maps an event name (PreToolUse, Stop, ...) to its matcher groups, from every
	// file in precedence order (most specific first).
	Hooks map[string][]HookMatcher `json:"hooks,omitempty"`
	Env   map[string]string        `json:"env,omitempty"`
	// EnvProject names, for each Env value a project's own file set (not the user's files
	// or --settings), that file: a repository must not redirect where ouro sends the
	// user's key.
	EnvProject map[string]string `json:"-"`
	// EnvTrusted holds, for each variable, the most specific value the user's own files
	// or --settings give: what stands when a project's value may not.
	EnvTrusted map[string]string `json:"-"`
	Sandbox    Sandbox           `json:"sandbox"`
	Model      string            `json:"model,omitempty"`
	// ModelSource is the file that set Model.
	ModelSource string `json:"-"`
	Memory      Memory `json:"memory"`
	// Warnings name the user settings files that were left out (unreadable, too large,
	// not JSON) and why; the caller shows them.
	Warnings []string `json:"-"`
}

// Memory configures cross-session memory.
type Memory struct {
	// ExtractOnExit says whether durable facts are extracted into memory when a session
	// ends (one model call). Nil means the default: on for interactive sessions, off for
	// headless -p runs, which should not pay an extra call per invocation.
	ExtractOnExit *bool `json:"extractOnExit,omitempty"`
}

// Permissions are the rules and mode.
type Permissions struct {
	Allow                 []Rule   `json:"allow,omitempty"`
	Ask                   []Rule   `json:"ask,omitempty"`
	Deny                  []Rule   `json:"deny,omitempty"`
	DefaultMode           string   `json:"defaultMode,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// ModeSource is what set DefaultMode: a file, or "--permission-mode".
	ModeSource string `json:"-"`
	// DisableBypass names the file whose permissions.disableBypassPermissionsMode is
	// "disable": bypassPermissions cannot be entered ("" when none says so).
	DisableBypass string `json:"-"`
}

// Rule is one permission rule as written (`Bash(npm run *)`) and where it came from.
type Rule struct {
	Text   string `json:"-"`
	Source string `json:"-"` // the settings file path, or "--allowedTools" etc.
	// Root is the directory a `/path` specifier is relative to: the settings file's
	// project root (the folder holding .ouro/ or .claude/), or the home for user files.
	Root string `json:"-"`
}

// UnmarshalJSON reads a rule from its string form.
func (r *Rule) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &r.Text) }

// MarshalJSON writes the rule as its string form.
func (r Rule) MarshalJSON() ([]byte, error) { return json.Marshal(r.Text) }

// HookMatcher is one entry of an event's list: which tools (or sources) it matches and
// the hooks to run.
type HookMatcher struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
	Source  string        `json:"-"` // the settings file it came from
}

// HookCommand is one hook to run.
type HookCommand struct {
	Type    string  `json:"type"` // "command" (Claude Code's "prompt" and "agent" are read, not run)
	Command string  `json:"command"`
	Prompt  string  `json:"prompt,omitempty"`  // for type "prompt"/"agent"
	Model   string  `json:"model,omitempty"`   // for type "prompt": the judging model
	Timeout float64 `json:"timeout,omitempty"` // seconds; 0 means the default (600)
	// URL, Headers and AllowedEnvVars are an http hook's: where the event's JSON is
	// POSTed, the headers sent ($VAR and ${VAR} expanded only for the variables listed in
	// AllowedEnvVars).
	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
	// If is a permission rule (`Bash(gh api *)`, `Edit(src/**)`): on tool events the hook
	// runs only for calls the rule matches.
	If string `json:"if,omitempty"`
}

// Sandbox configures the OS sandbox around Bash.
type Sandbox struct {
	// Enabled is nil when no file says; the default is on where the kernel supports it.
	Enabled    *bool             `json:"enabled,omitempty"`
	Filesystem SandboxFilesystem `json:"filesystem"`
	Network    SandboxNetwork    `json:"network"`
}

// SandboxFilesystem widens or narrows where sandboxed commands may write.
type SandboxFilesystem struct {
	AllowWrite []string `json:"allowWrite,omitempty"`
	DenyWrite  []string `json:"denyWrite,omitempty"`
}

// SandboxNetwork says whether sandboxed commands may open network connections.
type SandboxNetwork struct {
	// Allow permits all outgoing connections (Landlock filters by port, not by domain).
	Allow bool `json:"allow,omitempty"`
	// AllowPorts permits connections to these TCP ports only.
	AllowPorts []int `json:"allowPorts,omitempty"`
}
