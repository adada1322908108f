package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
)

// LoadOptions say where the settings files are and carry the command-line flags that
// take part in the merge.
type LoadOptions struct {
	// UserHome is the user's home folder (holding .claude/settings.json); "" means
	// os.UserHomeDir(). When it cannot be found, user files are skipped.
	UserHome string
	// OuroHome is ouro's own home (OURO_HOME, else ~/.ouro), holding settings.json;
	// "" means UserHome/.ouro.
	OuroHome string
	// ProjectDir is the project root (the working directory): its .ouro/ and .claude/
	// folders are read. "" means the process's working directory.
	ProjectDir string

	// Settings is the --settings flag: a file path (relative to ProjectDir) or a JSON
	// object given inline.
	Settings string
	// AllowedTools and DisallowedTools are --allowedTools and --disallowedTools: each
	// entry is one rule (`Bash(git log *)`, `Edit`).
	AllowedTools    []string
	DisallowedTools []string
	// PermissionMode is --permission-mode; it overrides every file's defaultMode.
	PermissionMode string
	// Managed are the managed settings files (an administrator's), most binding first:
	// they come before every flag and file, so their scalars cannot be overridden and
	// their rules always apply. A managed file that exists but cannot be used is an
	// error: a broken policy must not silently lift itself. See ManagedPaths.
	Managed []string
	// Unreviewed says why the project's or user's settings file at path, holding data, may
	// not widen permissions ("" when it may): an ouro session wrote it and no person has
	// reviewed it since (package grant). Such a file keeps only what restricts (deny and
	// ask rules, disableBypassPermissionsMode, denyWrite, deniedDomains, sandbox.enabled
	// true); the rest is ignored with a warning naming the file, the keys and how to
	// review it. nil: every file is taken as it is.
	Unreviewed func(path string, data []byte) string
}

// ManagedPaths are the managed settings files looked for: ouro's and Claude Code's
// system-wide ones, then the file $OURO_MANAGED_SETTINGS names (which can only add to
// them: it comes after them).
func ManagedPaths() []string {
	ps := []string{"/etc/ouro/managed-settings.json", "/etc/claude-code/managed-settings.json",
		"/Library/Application Support/ClaudeCode/managed-settings.json"}
	if extra := os.Getenv("OURO_MANAGED_SETTINGS"); extra != "" {
		ps = append(ps, extra)
	}
	return ps
}

// restrictive keeps of f only what restricts: the file was written by an ouro session and
// not reviewed (see LoadOptions.Unreviewed). The keys left out are named in a warning.
func restrictive(f *file, path string, data []byte, why string, warnings *[]string) *file {
	g := &file{}
	g.Permissions.Deny, g.Permissions.Ask = f.Permissions.Deny, f.Permissions.Ask
	g.Permissions.DisableBypassPermissionsMode = f.Permissions.DisableBypassPermissionsMode
	g.Sandbox.Filesystem.DenyWrite = f.Sandbox.Filesystem.DenyWrite
	g.Sandbox.Network.DeniedDomains = f.Sandbox.Network.DeniedDomains
	if e := f.Sandbox.Enabled; e != nil && *e {
		g.Sandbox.Enabled = e
	}
	kept := map[string]bool{"$schema": true, "permissions.deny": true, "permissions.ask": true, "permissions.disableBypassPermissionsMode": true,
		"sandbox.filesystem.denyWrite": true, "sandbox.network.deniedDomains": true, "sandbox.enabled": g.Sandbox.Enabled != nil}
	var ignored []string
	var doc map[string]json.RawMessage
	_ = json.Unmarshal(data, &doc)
	var walk func(prefix string, m map[string]json.RawMessage, depth int)
	walk = func(prefix string, m map[string]json.RawMessage, depth int) {
		for _, k := range sortedKeys(m) {
			name := prefix + k
			var sub map[string]json.RawMessage
			if (name == "permissions" || name == "sandbox" || depth == 1 && strings.HasPrefix(name, "sandbox.")) && json.Unmarshal(m[k], &sub) == nil {
				walk(name+".", sub, depth+1)
				continue
			}
			if !kept[name] {
				ignored = append(ignored, name)
			}
		}
	}
	walk("", doc, 0)
	if len(ignored) > 0 {
		*warnings = append(*warnings, fmt.Sprintf("%s: %s ignored: %s, so it may not widen your permissions (only its deny and ask rules apply); review the file, then edit it yourself (any change you save makes it yours) or approve it when an interactive session asks", path, strings.Join(ignored, ", "), why))
	}
	return g
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Sources of the rules that come from flags rather than files.
const (
	SourceAllowedTools    = "--allowedTools"
	SourceDisallowedTools = "--disallowedTools"
	SourceSettingsFlag    = "--settings"
)

// layer is one settings file (or the inline --settings JSON) in the merge.
type layer struct {
	path   string // the file read, or "--settings" for inline JSON
	root   string // what `/path` rule specifiers are relative to
	inline string // the JSON itself when given inline
	// user marks the user's own files (in the home folder). A user or project file that
	// cannot be used is skipped with a warning, so a typo there does not stop ouro.
	user bool
	// flag marks --settings (inline or a file): given by whoever runs ouro.
	flag bool
	// managed marks an administrator's managed settings file.
	managed bool
}

// Load reads every settings file that exists and merges them, most specific first:
// flags, then .ouro/settings.local.json, .claude/settings.local.json,
// .ouro/settings.json, .claude/settings.json in the project, then the user's
// OuroHome/settings.json and ~/.claude/settings.json. Lists (rules, hooks, directories)
// are concatenated in that order, so a deny from any file still applies; a scalar comes
// from the most specific file that sets it; env merges key by key. Every rule records
// its file and the root its `/path` specifiers are relative to. Missing files are
// skipped. A settings file of the project's (.ouro/, .claude/) or the user's (~/.ouro,
// ~/.claude) that cannot be read, is not a regular file, is larger than
// regfile.MaxConfig or is not valid JSON is left out and reported in Settings.Warnings
// (naming the file and, for bad JSON, the line and column), so a broken file in a
// repository does not stop the session; the same problem in --settings or a managed
// file is an error. Unknown keys are ignored, and `${VAR}` is left as written.
//
// A repository may not loosen a person's choices: a project's own files may not set
// defaultMode to bypassPermissions or acceptEdits, turn the sandbox off, allow
// unsandboxed commands the person's files forbid, or add directories outside the
// project. Each is ignored with a warning saying how to allow it (the user's own
// files, --settings, --permission-mode, --add-dir); stricter values still apply.
func Load(opts LoadOptions) (*Settings, error) {
	layers, err := opts.layers()
	if err != nil {
		return nil, err
	}
	s := &Settings{}
	m := merger{project: opts.ProjectDir, home: opts.UserHome, set: map[string]bool{}}
	// Managed files bind first: nothing below may override them.
	for _, p := range opts.Managed {
		data, err := regfile.Read(p, regfile.MaxConfig)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("settings: managed settings: %w", err)
		}
		f, err := parseFile(p, data)
		if err != nil {
			return nil, fmt.Errorf("settings: managed settings: %w", err)
		}
		m.merge(s, f, layer{path: p, root: opts.ProjectDir, flag: true, managed: true})
		s.Files = append(s.Files, p)
	}
	// Flag rules come next: they are the most specific of the rest.
	for _, fl := range []struct {
		dst   *[]Rule
		rules []string
		src   string
	}{{&s.Permissions.Deny, opts.DisallowedTools, SourceDisallowedTools}, {&s.Permissions.Allow, opts.AllowedTools, SourceAllowedTools}} {
		if len(fl.rules) > 0 && s.Permissions.ManagedRulesOnly != "" {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s %s is ignored: managed settings (%s) set allowManagedPermissionRulesOnly, so only their permission rules apply", fl.src, strings.Join(fl.rules, " "), s.Permissions.ManagedRulesOnly))
			continue
		}
		m.addRules(fl.dst, fl.rules, fl.src, opts.ProjectDir)
	}
	if opts.PermissionMode != "" {
		if m.set[keyDefaultMode] {
			s.Warnings = append(s.Warnings, fmt.Sprintf("--permission-mode %s is ignored: managed settings set the mode (%s)", opts.PermissionMode, s.Permissions.DefaultMode.Value))
		} else {
			s.Permissions.DefaultMode = Sourced[string]{Value: opts.PermissionMode, Source: "--permission-mode"}
			m.set[keyDefaultMode] = true
		}
	}
	seen := map[string]bool{}
	for _, l := range layers {
		data := []byte(l.inline)
		var err error
		if l.inline == "" {
			key := l.path
			if real, err := filepath.EvalSymlinks(l.path); err == nil {
				key = real
			}
			if seen[key] {
				continue // the same file at two levels (a project at the home folder)
			}
			seen[key] = true
			data, err = regfile.Read(l.path, regfile.MaxConfig)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				err = fmt.Errorf("settings: %w", err)
			}
		}
		var f *file
		if err == nil {
			f, err = parseFile(l.path, data)
		}
		if err == nil && !l.flag && opts.Unreviewed != nil {
			if why := opts.Unreviewed(l.path, data); why != "" {
				f = restrictive(f, l.path, data, why, &s.Warnings)
			}
		}
		if err != nil && !l.flag {
			kind := "user"
			if !l.user {
				kind = "project"
			}
			s.Warnings = append(s.Warnings, fmt.Sprintf("%v; this %s settings file is skipped, so none of its rules, hooks or other settings apply until it is fixed", err, kind))
			s.Skipped = append(s.Skipped, l.path)
			continue
		}
		if err != nil {
			return nil, err
		}
		m.merge(s, f, l)
		s.Files = append(s.Files, l.path)
	}
	if p := m.unsandboxedByProject; p != "" && s.Sandbox.AllowUnsandboxedCommands != nil && !*s.Sandbox.AllowUnsandboxedCommands {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: sandbox.allowUnsandboxedCommands true is ignored: a project's settings may not let commands leave the sandbox when your settings say no; to allow it, put it in your own settings (~/.claude/settings.json or ~/.ouro/settings.json), or pass --settings '{\"sandbox\":{\"allowUnsandboxedCommands\":true}}'", p))
	}
	return s, nil
}

// layers lists the settings files, most specific first.
func (o *LoadOptions) layers() ([]layer, error) {
	if o.ProjectDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("settings: working directory: %w", err)
		}
		o.ProjectDir = wd
	}
	abs, err := filepath.Abs(o.ProjectDir)
	if err != nil {
		return nil, fmt.Errorf("settings: project folder %s: %w", o.ProjectDir, err)
	}
	o.ProjectDir = realPath(abs)
	if o.UserHome == "" {
		o.UserHome, _ = os.UserHomeDir() // no home: the user files are skipped below
	}
	if o.UserHome != "" {
		o.UserHome = realPath(o.UserHome)
	}
	if o.OuroHome == "" && o.UserHome != "" {
		o.OuroHome = filepath.Join(o.UserHome, ".ouro")
	}

	var ls []layer
	if flag := strings.TrimSpace(o.Settings); flag != "" {
		if strings.HasPrefix(flag, "{") {
			ls = append(ls, layer{path: SourceSettingsFlag, root: o.ProjectDir, inline: flag, flag: true})
		} else {
			p := flag
			if !filepath.IsAbs(p) {
				p = filepath.Join(o.ProjectDir, p)
			}
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("settings: --settings %s: %w", flag, err)
			}
			ls = append(ls, layer{path: p, root: o.ProjectDir, flag: true})
		}
	}
	proj := o.ProjectDir
	ls = append(ls,
		layer{path: filepath.Join(proj, ".ouro", "settings.local.json"), root: proj},
		layer{path: filepath.Join(proj, ".claude", "settings.local.json"), root: proj},
		layer{path: filepath.Join(proj, ".ouro", "settings.json"), root: proj},
		layer{path: filepath.Join(proj, ".claude", "settings.json"), root: proj},
	)
	if o.OuroHome != "" {
		root := o.UserHome
		if root == "" {
			root = filepath.Dir(o.OuroHome)
		}
		ls = append(ls, layer{path: filepath.Join(o.OuroHome, "settings.json"), root: root, user: true})
	}
	if o.UserHome != "" {
		ls = append(ls, layer{path: filepath.Join(o.UserHome, ".claude", "settings.json"), root: o.UserHome, user: true})
	}
	return ls, nil
}

// realPath follows symlinks, so rule roots compare with the real paths tools act on;
// a path that cannot be resolved is kept as given.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// file is one settings file as written. Scalars are pointers so that "not set" differs
// from a zero value; only the keys ouro uses are listed, the rest are ignored.
type file struct {
	Permissions struct {
		Allow                        []string `json:"allow"`
		Ask                          []string `json:"ask"`
		Deny                         []string `json:"deny"`
		DefaultMode                  *string  `json:"defaultMode"`
		AdditionalDirectories        []string `json:"additionalDirectories"`
		DisableBypassPermissionsMode *string  `json:"disableBypassPermissionsMode"`
	} `json:"permissions"`
	Hooks map[string][]HookMatcher `json:"hooks"`
	Env   map[string]string        `json:"env"`
	// The lockdown keys of managed settings (read from managed files only).
	AllowManagedHooksOnly           *bool   `json:"allowManagedHooksOnly"`
	AllowManagedPermissionRulesOnly *bool   `json:"allowManagedPermissionRulesOnly"`
	Model                           *string `json:"model"`
	Workflows                       *bool   `json:"workflows"`
	OutputStyle                     *string `json:"outputStyle"`
	AlwaysThinkingEnabled           *bool   `json:"alwaysThinkingEnabled"`
	EffortLevel                     *string `json:"effortLevel"`
	IncludeCoAuthoredBy             *bool   `json:"includeCoAuthoredBy"`
	Attribution                     struct {
		Commit *string `json:"commit"`
		PR     *string `json:"pr"`
	} `json:"attribution"`
	// APIKeyHelper is a command printing the API key (the user's and managed files only).
	APIKeyHelper *string `json:"apiKeyHelper"`
	// AWSAuthRefresh and AWSCredentialExport are Bedrock's credential commands (the
	// user's and managed files only).
	AWSAuthRefresh      *string `json:"awsAuthRefresh"`
	AWSCredentialExport *string `json:"awsCredentialExport"`
	Store               struct {
		URL *string `json:"url"`
	} `json:"store"`
	// CleanupPeriodDays is Claude Code's retention of sessions.
	CleanupPeriodDays *int `json:"cleanupPeriodDays"`
	// StatusLine is the command of the terminal interface's status line.
	StatusLine *statusLineFile `json:"statusLine"`
	Memory     struct {
		ExtractOnExit *bool `json:"extractOnExit"`
	} `json:"memory"`
	Goal struct {
		MaxRounds *int    `json:"maxRounds"`
		Model     *string `json:"model"`
	} `json:"goal"`
	Background struct {
		MaxRunning *int `json:"maxRunning"`
	} `json:"background"`
	Sandbox struct {
		Enabled                  *bool    `json:"enabled"`
		AutoAllowBashIfSandboxed *bool    `json:"autoAllowBashIfSandboxed"`
		ExcludedCommands         []string `json:"excludedCommands"`
		AllowUnsandboxedCommands *bool    `json:"allowUnsandboxedCommands"`
		FailIfUnavailable        *bool    `json:"failIfUnavailable"`
		Filesystem               struct {
			AllowWrite []string `json:"allowWrite"`
			DenyWrite  []string `json:"denyWrite"`
			DenyRead   []string `json:"denyRead"`
		} `json:"filesystem"`
		Network struct {
			Allow                   *bool    `json:"allow"`
			AllowPorts              []int    `json:"allowPorts"`
			AllowedDomains          []string `json:"allowedDomains"`
			DeniedDomains           []string `json:"deniedDomains"`
			AllowManagedDomainsOnly *bool    `json:"allowManagedDomainsOnly"`
		} `json:"network"`
	} `json:"sandbox"`
}

// setSource records in *m that key came from path.
func setSource(m *map[string]string, key, path string) {
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[key] = path
}

// parseFile decodes one file; errors name the file and the line:column of the problem.
func parseFile(name string, data []byte) (*file, error) {
	f := &file{}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil // an empty file sets nothing
	}
	err := json.Unmarshal(data, f)
	if err == nil {
		return f, nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return nil, fmt.Errorf("settings %s:%d:%d: invalid JSON: %s", name, line, col, syn.Error())
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		what := typ.Field
		if what == "" {
			return nil, fmt.Errorf("settings %s:%d:%d: the file must hold a JSON object, not %s", name, line, col, typ.Value)
		}
		return nil, fmt.Errorf("settings %s:%d:%d: %s must be %s, not %s", name, line, col, what, kindOf(typ.Type.String()), typ.Value)
	}
	return nil, fmt.Errorf("settings %s: %w", name, err)
}

// kindOf says in words what a Go type is in JSON.
func kindOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "struct"), strings.Contains(goType, "."):
		return "an object"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	default:
		return "a number"
	}
}

// position turns the offset encoding/json reports (the bytes read when it stopped, so
// the offending byte is the one before) into a 1-based line and column. Columns count
// bytes; for ASCII that is characters.
func position(data []byte, off int64) (line, col int) {
	idx := int(min(max(off-1, 0), int64(len(data))))
	before := data[:idx]
	line = bytes.Count(before, []byte("\n")) + 1
	col = idx - bytes.LastIndexByte(before, '\n')
	return line, col
}

// rootSandboxPath anchors a sandbox path to the file that names it, as its `/path` rule
// specifiers are: "/x" and "x" lie under the file's root (the project for project files,
// the home folder for user files) and become "//" absolute; "//abs" and "~/" paths are
// kept for the sandbox to read.
func rootSandboxPath(p, root string) string {
	switch {
	case p == "" || root == "" || strings.HasPrefix(p, "//") || p == "~" || strings.HasPrefix(p, "~/"):
		return p
	case strings.HasPrefix(p, "/"):
		return "/" + filepath.Join(root, p[1:])
	default:
		return "/" + filepath.Join(root, p)
	}
}

// absDir joins a relative additional directory to the root of the file that names it,
// so it means the same whichever folder ouro later runs in; `~` is left for the
// workspace to expand.
func absDir(d, root string) string {
	if d == "" || filepath.IsAbs(d) || d == "~" || strings.HasPrefix(d, "~/") {
		return d
	}
	return filepath.Join(root, d)
}
