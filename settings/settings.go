// Package settings reads the configuration a Claude Code user already has, in the same
// files and the same shape: ~/.ouro/settings.json (and ~/.claude/settings.json),
// .ouro/settings.json, .ouro/settings.local.json and their .claude/ twins, plus
// --settings and the permission flags. Lists merge across files; scalar values come from
// the most specific file that sets them.
package settings

import (
	"encoding/json"
	"time"
)

// Settings is the merged configuration.
type Settings struct {
	Permissions Permissions `json:"permissions"`
	// Hooks maps an event name (PreToolUse, Stop, ...) to its matcher groups, from every
	// file in precedence order (most specific first).
	Hooks map[string][]HookMatcher `json:"hooks,omitempty"`
	// ManagedHooksOnly names the managed settings file that sets allowManagedHooksOnly
	// ("" when none does): only managed hooks run; the other files' hooks are left out
	// of Hooks, and the caller leaves out skill, agent and plugin hooks too.
	ManagedHooksOnly string            `json:"-"`
	Env              map[string]string `json:"env,omitempty"`
	// EnvProject names, for each Env value a project's own file set (not the user's files
	// or --settings), that file: a repository must not redirect where ouro sends the
	// user's key.
	EnvProject map[string]string `json:"-"`
	// EnvTrusted holds, for each variable, the most specific value the user's own files
	// or --settings give: what stands when a project's value may not.
	EnvTrusted map[string]string `json:"-"`
	// EnvSource and EnvTrustedSource name the file each Env and EnvTrusted value came
	// from (where a key comes from, for ouro doctor and /status).
	EnvSource        map[string]string `json:"-"`
	EnvTrustedSource map[string]string `json:"-"`
	// APIKeyHelper is Claude Code's apiKeyHelper (a command printing the key), with the
	// file that set it: only the user's own files, --settings and managed settings may
	// (a project's value is left out with a warning).
	APIKeyHelper Sourced[string] `json:"-"`
	// AWSAuthRefresh (a command that logs in, such as aws sso login) and
	// AWSCredentialExport (a command printing AWS credentials as JSON) serve Bedrock; the
	// same files as APIKeyHelper may set them.
	AWSAuthRefresh      Sourced[string] `json:"-"`
	AWSCredentialExport Sourced[string] `json:"-"`
	Sandbox             Sandbox         `json:"sandbox"`
	// Model is the model the most specific file names, with that file.
	Model  Sourced[string] `json:"model,omitempty"`
	Memory Memory          `json:"memory"`
	// OutputStyle is the outputStyle setting, with the file that set it: the output
	// style the system prompt gets ("" or "default": none).
	OutputStyle Sourced[string] `json:"outputStyle,omitempty"`
	// AlwaysThinking is alwaysThinkingEnabled, with the file that set it (nil: unset):
	// extended thinking on or off for every request.
	AlwaysThinking *Sourced[bool] `json:"alwaysThinkingEnabled,omitempty"`
	// EffortLevel is effortLevel, with the file that set it: the effort of each request
	// (one of llm.Efforts; "" for the model's default).
	EffortLevel Sourced[string] `json:"effortLevel,omitempty"`
	// Attribution is what commits and pull requests the agent writes carry.
	Attribution Attribution `json:"attribution"`
	Goal        Goal        `json:"goal"`
	// StatusLine is the status line command, with the file that set it.
	StatusLine StatusLine `json:"-"`
	// Files are the files merged, in the order read (managed first, then the most
	// specific); "--settings" stands for inline JSON. ouro doctor lists them.
	Files []string `json:"-"`
	// Skipped are the user files left out (see Warnings).
	Skipped    []string   `json:"-"`
	Background Background `json:"background"`
	// Workflows offers the Workflow tool (Claude Code's opt-in); only the user's own
	// settings files and --settings may set it.
	Workflows *bool `json:"workflows,omitempty"`
	// Store is where task lists and workflow journals are kept (store.url); only the
	// user's own settings files, --settings and managed settings may set it.
	Store Store `json:"store"`
	// CleanupPeriodDays is how many days a session nobody writes to is kept
	// ("cleanupPeriodDays"; 0 means the default, 30). Only the user's own files,
	// --settings and managed settings may set it; its Source names the one that did.
	CleanupPeriodDays Sourced[int] `json:"cleanupPeriodDays,omitempty"`
	// Warnings name the user settings files that were left out (unreadable, too large,
	// not JSON) and why; the caller shows them.
	Warnings []string `json:"-"`
}

// Store chooses the store of task lists and workflow journals.
type Store struct {
	// URL is a NATS JetStream URL (nats://HOST:PORT?...), with the file that set it; ""
	// keeps ouro's state.db.
	URL Sourced[string] `json:"url,omitempty"`
}

// defaultCleanupDays is Claude Code's default cleanupPeriodDays.
const defaultCleanupDays = 30

// maxCleanupDays is the longest retention (about 100 years); time.Duration holds at most
// about 106,000 days.
const maxCleanupDays = 36500

// CleanupPeriod is how long sessions are kept.
func (s Settings) CleanupPeriod() time.Duration {
	days := s.CleanupPeriodDays.Value
	if days < 1 {
		days = defaultCleanupDays
	}
	// A huge value ("keep forever", 999999) must not overflow into a negative period,
	// which would put the cutoff in the future and delete every session.
	days = min(days, maxCleanupDays)
	return time.Duration(days) * 24 * time.Hour
}

// Memory configures cross-session memory.
type Memory struct {
	// ExtractOnExit says whether durable facts are extracted into memory when a session
	// ends (one model call). Nil means the default: on for interactive sessions, off for
	// headless -p runs, which should not pay an extra call per invocation.
	ExtractOnExit *bool `json:"extractOnExit,omitempty"`
}

// Goal configures the goal loop (--goal, /goal), an ouro key Claude Code does not have.
type Goal struct {
	// MaxRounds bounds the stops judged in one run; 0 means the default (--goal-max-rounds
	// wins over it).
	MaxRounds int `json:"maxRounds,omitempty"`
	// Model is the evaluator's model; "" means the session's (--goal-model wins).
	Model string `json:"model,omitempty"`
}

// Background bounds background tasks (Bash and agents run with run_in_background).
type Background struct {
	// MaxRunning is how many may run at once ("background.maxRunning"); 0 means the
	// default (8). The most specific file that sets it wins; Source names it.
	MaxRunning Sourced[int] `json:"maxRunning,omitempty"`
}

// Permissions are the rules and mode.
type Permissions struct {
	Allow []Rule `json:"allow,omitempty"`
	Ask   []Rule `json:"ask,omitempty"`
	Deny  []Rule `json:"deny,omitempty"`
	// DefaultMode is the mode, with what set it: a file, or "--permission-mode".
	DefaultMode           Sourced[string] `json:"defaultMode,omitempty"`
	AdditionalDirectories []string        `json:"additionalDirectories,omitempty"`
	// DisableBypass names the file whose permissions.disableBypassPermissionsMode is
	// "disable": bypassPermissions cannot be entered ("" when none says so).
	DisableBypass string `json:"-"`
	// ManagedRulesOnly names the managed settings file that sets
	// allowManagedPermissionRulesOnly ("" when none does): only its rules apply; the
	// other files' and the flags' are left out, and no rule may be added while the
	// session runs (no "for this session" or "always" answers).
	ManagedRulesOnly string `json:"-"`
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
	// PluginRoot is the folder of the plugin the hooks came from ("" for settings files):
	// its commands run with CLAUDE_PLUGIN_ROOT set to it, which the shell expands (never
	// pasted into the command line as text); the exec form's args get it as plain text.
	PluginRoot string `json:"-"`
}

// HookCommand is one hook to run.
type HookCommand struct {
	Type    string `json:"type"` // "command" (Claude Code's "prompt" and "agent" are read, not run)
	Command string `json:"command"`
	// Args is Claude Code's exec form: when present (even empty), Command is one program
	// started with these arguments, no shell in between; ${CLAUDE_PROJECT_DIR} and
	// ${CLAUDE_PLUGIN_ROOT} are replaced inside each element as plain text.
	Args []string `json:"args,omitempty"`
	// Shell is the shell of the shell form: "bash" (the default) or "powershell".
	Shell   string  `json:"shell,omitempty"`
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
	// Async runs a command hook in the background: it never blocks what fired it, and
	// what it answers (additionalContext, systemMessage) reaches the model at its next
	// request. AsyncRewake is Async whose exit code 2 wakes the model with its stderr.
	Async       bool `json:"async,omitempty"`
	AsyncRewake bool `json:"asyncRewake,omitempty"`
}

// Sandbox configures the OS sandbox around Bash, with Claude Code's keys (enabled,
// autoAllowBashIfSandboxed, excludedCommands, filesystem, network.allowedDomains) and
// ouro's own network.allow and network.allowPorts.
type Sandbox struct {
	// Enabled, with the file that set it, is nil when no file says; the default is on
	// where the kernel supports it.
	Enabled *Sourced[bool] `json:"enabled,omitempty"`
	// AutoAllowBashIfSandboxed is Claude Code's autoAllowBashIfSandboxed: Bash calls
	// that run inside the sandbox are allowed without asking (deny and ask rules still
	// apply). nil when no file says: then it follows Claude Code, where it defaults to
	// true once a file turns the sandbox on with enabled: true.
	AutoAllowBashIfSandboxed *bool `json:"autoAllowBashIfSandboxed,omitempty"`
	// ExcludedCommands are commands (Bash rule patterns: "docker", "docker *") that run
	// outside the sandbox; such calls go through the permission rules and are never
	// auto-allowed. Merged from every file.
	ExcludedCommands []string `json:"excludedCommands,omitempty"`
	// AllowUnsandboxedCommands is Claude Code's allowUnsandboxedCommands: whether the
	// model may ask to run a command outside the sandbox (Bash's dangerouslyDisableSandbox).
	// nil means yes; such a call is always put to a person.
	AllowUnsandboxedCommands *bool `json:"allowUnsandboxedCommands,omitempty"`
	// FailIfUnavailable is Claude Code's failIfUnavailable: whether Bash commands that
	// would run in the sandbox are refused when no sandbox can be had (true), or run
	// without it (false). nil: the platform's default (sandbox.RefuseWithoutSandbox:
	// refused on Linux). Only the person's own settings, --settings and managed
	// settings may set it to false. Its Source is the file that set it.
	FailIfUnavailable *Sourced[bool] `json:"failIfUnavailable,omitempty"`
	// ExcludedByProject names, for each excluded command a project's own file (not the
	// user's, --settings or managed) added, that file: the user is told at start.
	ExcludedByProject map[string]string `json:"-"`
	Filesystem        SandboxFilesystem `json:"filesystem"`
	Network           SandboxNetwork    `json:"network"`
}

// AutoAllow reports whether sandboxed Bash calls are auto-allowed: as in Claude Code,
// autoAllowBashIfSandboxed (default true) takes effect once a file sets enabled: true;
// an explicit autoAllowBashIfSandboxed: true also turns it on alone.
func (s Sandbox) AutoAllow() bool {
	if s.Enabled != nil && !s.Enabled.Value {
		return false
	}
	if s.AutoAllowBashIfSandboxed != nil {
		return *s.AutoAllowBashIfSandboxed
	}
	return s.Enabled != nil && s.Enabled.Value
}

// SandboxFilesystem widens or narrows where sandboxed commands may write, and names
// what they may not read.
type SandboxFilesystem struct {
	AllowWrite []string `json:"allowWrite,omitempty"`
	DenyWrite  []string `json:"denyWrite,omitempty"`
	// DenyRead is Claude Code's denyRead: paths and patterns ("~/.ssh", "~/**.kdbx")
	// sandboxed commands cannot read. Enforced where the sandbox can refuse reads
	// (Seatbelt on macOS); Landlock cannot, and ouro says so at start.
	DenyRead []string `json:"denyRead,omitempty"`
}

// SandboxNetwork says which connections sandboxed commands may open. With none of its
// keys set the network is open (writes are what the sandbox confines by default).
type SandboxNetwork struct {
	// Allow, when a file sets it, says whether every outgoing connection is allowed
	// (true) or none but AllowPorts (false). Landlock filters by port, not by domain.
	// AllowedDomains, when set, restricts the network whatever Allow says.
	Allow *bool `json:"allow,omitempty"`
	// AllowPorts permits connections to, and listening on, these TCP ports; set alone
	// (without allow), it restricts the network to them.
	AllowPorts []int `json:"allowPorts,omitempty"`
	// AllowedDomains is Claude Code's sandbox.network.allowedDomains: when any file sets
	// it (even to []), commands reach the network only through ouro's filtering proxy,
	// and only these hosts ("github.com", "*.npmjs.org", "host:port"). Merged from every
	// file, as in Claude Code.
	AllowedDomains []string `json:"allowedDomains,omitempty"`
	// DeniedDomains (Claude Code's deniedDomains) are refused by the proxy even when
	// AllowedDomains matches; IP addresses here also refuse names that resolve to them.
	DeniedDomains []string `json:"deniedDomains,omitempty"`
	// DomainsSet says some file set allowedDomains.
	DomainsSet bool `json:"domainsSet,omitempty"`
	// DomainSources name the files that set allowedDomains, for messages.
	DomainSources []string `json:"-"`
}

// Proxied reports whether commands reach the network only through the filtering proxy.
func (n SandboxNetwork) Proxied() bool { return n.DomainsSet }

// Restricted reports whether direct TCP connections are limited (to the proxy and
// AllowPorts): allowedDomains or allow: false say so, and so does allowPorts alone
// ("these ports only", as it meant before the network was open by default).
func (n SandboxNetwork) Restricted() bool {
	if n.Proxied() {
		return true
	}
	if n.Allow != nil {
		return !*n.Allow
	}
	return len(n.AllowPorts) > 0
}

// Attribution is Claude Code's attribution setting (and its deprecated
// includeCoAuthoredBy): the trailer a commit message and the footer a pull request body
// the agent writes end with. A nil field is not set; "" is none.
type Attribution struct {
	Commit *string `json:"commit,omitempty"`
	PR     *string `json:"pr,omitempty"`
	// CoAuthoredBy is includeCoAuthoredBy, used only where Commit or PR is not set.
	CoAuthoredBy *bool `json:"includeCoAuthoredBy,omitempty"`
}
