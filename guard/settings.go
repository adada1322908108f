package guard

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool/toolnames"
	"github.com/ouroagent/ouro/workspace"
)

// LoadSettings reads every settings file and the permission flags that o names (the
// first step of a session: the settings' env and model decide how the model is
// reached); project is this directory's state folder, where the grants' ledger lives.
//
// A settings file an ouro session wrote (package grant's ledger) widens nothing until a
// person reviews it: approve, when given (an interactive session), asks; otherwise only
// what restricts in it applies, with a warning (see settings.LoadOptions.Unreviewed).
func LoadSettings(o settings.LoadOptions, project string, warn io.Writer, approve func(path, what, why string) bool) (*settings.Settings, error) {
	ledger := grant.Open(project)
	o.Managed = settings.ManagedPaths()
	o.Unreviewed = func(path string, data []byte) string {
		ok, why, _ := ledger.Trusted(path, data)
		if ok {
			return ""
		}
		if approve != nil && approve(path, "its permission rules, mode, hooks, env and other settings", why) {
			if err := ledger.Approve(path, data); err != nil {
				fmt.Fprintf(warn, "ouro: recording the approval of %s: %v\n", path, err)
			}
			return ""
		}
		return why
	}
	set, err := settings.Load(o)
	if err != nil {
		return nil, err
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(warn, "ouro: WARNING: %s\n", w)
	}
	return set, nil
}

// providerEnv are the variables that decide where ouro sends the user's key and what it
// asks for: a project's own settings file may not set them (a repository could otherwise
// send the key to a server of its choosing), the user's files and --settings may.
var providerEnv = map[string]bool{
	"ANTHROPIC_API_KEY": true, "ANTHROPIC_AUTH_TOKEN": true, "ANTHROPIC_BASE_URL": true, "ANTHROPIC_CUSTOM_HEADERS": true,
	"ANTHROPIC_MODEL": true, "ANTHROPIC_SMALL_FAST_MODEL": true, "ANTHROPIC_DEFAULT_SONNET_MODEL": true,
	"ANTHROPIC_DEFAULT_OPUS_MODEL": true, "ANTHROPIC_DEFAULT_HAIKU_MODEL": true,
	"OPENAI_API_KEY": true, "OPENAI_BASE_URL": true, "OURO_MODEL": true, "OURO_HOME": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "http_proxy": true, "https_proxy": true, "NO_PROXY": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
	// Amazon Bedrock and Google Vertex AI: which account and project the conversation is
	// sent to (a repository's own credentials would have it logged where they can read it).
	"CLAUDE_CODE_USE_BEDROCK": true, "CLAUDE_CODE_USE_VERTEX": true, "AWS_REGION": true, "AWS_DEFAULT_REGION": true,
	"AWS_PROFILE": true, "AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true,
	"AWS_BEARER_TOKEN_BEDROCK": true, "ANTHROPIC_VERTEX_PROJECT_ID": true, "CLOUD_ML_REGION": true,
	"GOOGLE_APPLICATION_CREDENTIALS": true,
}

// SettingsEnv makes settings.env act as if exported, as in Claude Code, for how ouro
// reaches the model and for the commands it runs: what the environment already holds
// wins (what the user typed), and a project file's provider variables are dropped with a
// warning. It returns the lookup the provider is built with.
func SettingsEnv(set *settings.Settings, warn io.Writer) func(string) string {
	keys := make([]string, 0, len(set.Env))
	for k := range set.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if src, project := set.EnvProject[k]; project && providerEnv[k] {
			fmt.Fprintf(warn, "ouro: settings: %s sets env %s, which decides where ouro sends your API key; a project's file may not, so it is ignored (set it in ~/.claude/settings.json or your shell)\n", src, k)
			if v, ok := set.EnvTrusted[k]; ok {
				set.Env[k] = v // the user's own value stands
				set.EnvSource[k] = set.EnvTrustedSource[k]
			} else {
				delete(set.Env, k)
				delete(set.EnvSource, k)
			}
		}
	}
	return func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		return set.Env[k]
	}
}

// NewPolicy adds the settings' additionalDirectories to the workspace and builds the
// permission policy, warning about each rule that cannot do what it says (ouro doctor
// calls it too).
func NewPolicy(set *settings.Settings, cwd string, ws *workspace.Workspace, userHome string, writable []string, warn io.Writer, saved func(path string, before, after []byte)) (*permission.Policy, error) {
	for _, d := range set.Permissions.AdditionalDirectories {
		dir := d
		if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "~") {
			dir = filepath.Join(cwd, dir)
		}
		if err := ws.AddRoot(dir); err != nil {
			fmt.Fprintf(warn, "ouro: additionalDirectories: %v\n", err)
		}
	}
	pol, err := permission.NewPolicy(permission.PolicyConfig{
		Settings: set, Workspace: ws, WritableRoots: writable, Home: userHome, ProjectDir: cwd, Saved: saved,
	})
	if err != nil {
		return nil, err
	}
	for _, p := range pol.Problems() {
		fmt.Fprintf(warn, "ouro: settings: %v\n", p)
	}
	warnUnknownRuleTools(set.Permissions, warn)
	return pol, nil
}

// ReportHooks shows the warnings of loading the hooks (ouro doctor calls it too).
func ReportHooks(r *hook.Runner, warn io.Writer) {
	for _, w := range r.Warnings() {
		fmt.Fprintf(warn, "ouro: hooks: %s\n", w)
	}
}

// warnUnknownRuleTools warns about each permission rule naming a tool neither ouro nor
// Claude Code has (a typo such as --disallowedTools Bassh would otherwise deny nothing,
// silently), with the name it most likely meant.
func warnUnknownRuleTools(p settings.Permissions, warn io.Writer) {
	for _, list := range [][]settings.Rule{p.Allow, p.Ask, p.Deny} {
		for _, r := range list {
			name, _, _ := strings.Cut(strings.TrimSpace(r.Text), "(")
			name = strings.TrimSpace(name)
			if pr, err := permission.ParseRule(r); err == nil {
				name = pr.Tool // SlashCommand:/commit is Skill(commit)
			} else if strings.Contains(name, ":") {
				continue // the rule loader has said what is wrong with "Edit:*"
			}
			if _, known := toolnames.Map(name); known || name == "" {
				continue
			}
			msg := fmt.Sprintf("ouro: settings: rule %q (%s) names no tool, so it matches nothing", r.Text, r.Source)
			if c := toolnames.Closest(name); c != "" {
				msg += fmt.Sprintf("; did you mean %q?", c)
			}
			fmt.Fprintln(warn, msg)
		}
	}
}
