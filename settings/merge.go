package settings

import (
	"fmt"
	"path/filepath"
	"strings"
)

// merger remembers, while the files are merged from the most specific down, which
// scalar keys a file already set and what the trust rules noted on the way.
type merger struct {
	// set holds the names of the scalar keys already given (keyDefaultMode also by
	// --permission-mode).
	set map[string]bool
	// managedDomainsOnly: a managed file set allowManagedDomainsOnly, so only managed
	// files' allowedDomains count.
	managedDomainsOnly bool
	// project is the project folder, home the user's (for `~` in directories).
	project, home string
	// unsandboxedByProject names the first project file whose
	// sandbox.allowUnsandboxedCommands: true was not taken.
	unsandboxedByProject string
}

// merge adds f (less specific than everything merged so far) into s: each key of the
// table in turn, so the warnings come in the table's order.
func (m *merger) merge(s *Settings, f *file, l layer) {
	for _, k := range keys {
		k.join(m, s, f, l)
	}
}

// key is one row of the merge: a settings key and how one file's value joins what the
// more specific files already gave.
type key interface {
	join(m *merger, s *Settings, f *file, l layer)
	// names are the keys it merges, as written in a file ("sandbox.enabled").
	names() []string
}

// scalar is a key whose value comes from the most specific file that sets it and may:
// a file whose value is refused leaves the key to the less specific files.
type scalar[T any] struct {
	name string         // as written in a file: "sandbox.enabled"
	get  func(*file) *T // what the file sets; nil when it sets nothing
	// may says whether l may set v, and when not, why (a warning after the file's
	// path; "" leaves it out without a word). nil: every file may.
	may func(m *merger, l layer, v T) (ok bool, why string)
	put func(s *Settings, v Sourced[T])
}

func (k scalar[T]) names() []string { return []string{k.name} }

func (k scalar[T]) join(m *merger, s *Settings, f *file, l layer) {
	v := k.get(f)
	if v == nil || m.set[k.name] {
		return
	}
	if k.may != nil {
		if ok, why := k.may(m, l, *v); !ok {
			if why != "" {
				s.Warnings = append(s.Warnings, l.path+": "+why)
			}
			return
		}
	}
	m.set[k.name] = true
	k.put(s, Sourced[T]{Value: *v, Source: l.path})
}

// list is a key every file adds to, the most specific file's entries first (as in
// Claude Code: a deny from any file still applies).
type list[T any] struct {
	name string
	get  func(*file) []T
	put  func(s *Settings, vs []T, l layer)
}

func (k list[T]) names() []string { return []string{k.name} }

func (k list[T]) join(_ *merger, s *Settings, f *file, l layer) {
	if vs := k.get(f); len(vs) > 0 {
		k.put(s, vs, l)
	}
}

// step is a key merged by code of its own: its entries are checked one by one, or it
// changes how other keys merge.
type step struct {
	name string
	fn   func(m *merger, s *Settings, f *file, l layer)
}

func (k step) names() []string { return strings.Split(k.name, ", ") }

func (k step) join(m *merger, s *Settings, f *file, l layer) { k.fn(m, s, f, l) }

// project reports whether l is a repository's own file: not the user's, not --settings,
// not managed (managed files are flag files too).
func (l layer) project() bool { return !l.user && !l.flag }

// Who may set a key.

// anyone: every file may (a nil may).

// personal: only the user's own files, --settings and managed settings; a project's
// value is left out with why ("" leaves it out without a word).
func personal[T any](why string) func(*merger, layer, T) (bool, string) {
	return func(_ *merger, l layer, _ T) (bool, string) { return !l.project(), why }
}

// notLooserByProject: any file, but a project's own file may not choose a value that
// loosens what the person's files allow; why says so for that value.
func notLooserByProject[T any](loosens func(T) bool, why func(T) string) func(*merger, layer, T) (bool, string) {
	return func(_ *merger, l layer, v T) (bool, string) {
		if l.project() && loosens(v) {
			return false, why(v)
		}
		return true, ""
	}
}

// credentialCommand: a command ouro runs outside the sandbox for credentials
// (apiKeyHelper, awsAuthRefresh, awsCredentialExport), only from the person's own files,
// --settings and managed settings: a repository must not run code on opening (Claude Code
// asks for workspace trust first; ouro never takes it from a project's files).
func credentialCommand(key string) func(*merger, layer, string) (bool, string) {
	return func(_ *merger, l layer, v string) (bool, string) {
		if l.project() {
			return false, key + " is ignored: a project's settings may not name a command that ouro runs for your credentials; set it in " + yourOwn + " or managed settings"
		}
		return strings.TrimSpace(v) != "", ""
	}
}

// managedOnly: only a managed settings file, and only to turn the lockdown on.
func managedOnly(_ *merger, l layer, v bool) (bool, string) { return l.managed && v, "" }

// unset: a zero value counts as not set (0 and "" mean the default), so a less specific
// file may still give one.
func unset[T comparable](_ *merger, _ layer, v T) (bool, string) {
	var zero T
	return v != zero, ""
}

const (
	keyDefaultMode = "permissions.defaultMode"
	// yourOwn names the person's own settings files in warnings.
	yourOwn = "your own settings (~/.claude/settings.json or ~/.ouro/settings.json)"
)

// keys is the merge, key by key, in the order the keys are merged: a new key is one row.
var keys = []key{
	// The lockdown keys come first: the rules and hooks of the same file already obey them.
	scalar[bool]{name: "allowManagedPermissionRulesOnly", get: func(f *file) *bool { return f.AllowManagedPermissionRulesOnly }, may: managedOnly,
		put: func(s *Settings, v Sourced[bool]) { s.Permissions.ManagedRulesOnly = v.Source }},
	scalar[bool]{name: "allowManagedHooksOnly", get: func(f *file) *bool { return f.AllowManagedHooksOnly }, may: managedOnly,
		put: func(s *Settings, v Sourced[bool]) { s.ManagedHooksOnly = v.Source }},
	step{name: "permissions.allow, permissions.ask, permissions.deny", fn: mergeRules},
	scalar[string]{name: keyDefaultMode, get: func(f *file) *string { return f.Permissions.DefaultMode },
		may: notLooserByProject(looseMode, func(mode string) string {
			return fmt.Sprintf("permissions.defaultMode %q is ignored: a project's settings may not loosen your permissions; to allow it, put it in %s, or pass --permission-mode %s (or --settings)", mode, yourOwn, mode)
		}),
		put: func(s *Settings, v Sourced[string]) { s.Permissions.DefaultMode = v }},
	// A restriction: honoured from any file, most binding first.
	scalar[string]{name: "permissions.disableBypassPermissionsMode", get: func(f *file) *string { return f.Permissions.DisableBypassPermissionsMode },
		may: func(_ *merger, _ layer, v string) (bool, string) { return v == "disable", "" },
		put: func(s *Settings, v Sourced[string]) { s.Permissions.DisableBypass = v.Source }},
	step{name: "permissions.additionalDirectories", fn: mergeDirectories},
	step{name: "hooks", fn: mergeHooks},
	step{name: "env", fn: mergeEnv},
	step{name: "statusLine", fn: mergeStatusLine},
	scalar[string]{name: "apiKeyHelper", get: func(f *file) *string { return f.APIKeyHelper }, may: credentialCommand("apiKeyHelper"),
		put: func(s *Settings, v Sourced[string]) { s.APIKeyHelper = v }},
	scalar[string]{name: "awsAuthRefresh", get: func(f *file) *string { return f.AWSAuthRefresh }, may: credentialCommand("awsAuthRefresh"),
		put: func(s *Settings, v Sourced[string]) { s.AWSAuthRefresh = v }},
	scalar[string]{name: "awsCredentialExport", get: func(f *file) *string { return f.AWSCredentialExport }, may: credentialCommand("awsCredentialExport"),
		put: func(s *Settings, v Sourced[string]) { s.AWSCredentialExport = v }},
	scalar[string]{name: "model", get: func(f *file) *string { return f.Model },
		put: func(s *Settings, v Sourced[string]) { s.Model = v }},
	scalar[string]{name: "outputStyle", get: func(f *file) *string { return f.OutputStyle },
		put: func(s *Settings, v Sourced[string]) {
			s.OutputStyle = Sourced[string]{Value: strings.TrimSpace(v.Value), Source: v.Source}
		}},
	scalar[bool]{name: "alwaysThinkingEnabled", get: func(f *file) *bool { return f.AlwaysThinkingEnabled },
		put: func(s *Settings, v Sourced[bool]) { s.AlwaysThinking = &v }},
	scalar[string]{name: "effortLevel", get: func(f *file) *string { return f.EffortLevel },
		put: func(s *Settings, v Sourced[string]) {
			s.EffortLevel = Sourced[string]{Value: strings.TrimSpace(v.Value), Source: v.Source}
		}},
	scalar[string]{name: "attribution.commit", get: func(f *file) *string { return f.Attribution.Commit },
		put: func(s *Settings, v Sourced[string]) { s.Attribution.Commit = &v.Value }},
	scalar[string]{name: "attribution.pr", get: func(f *file) *string { return f.Attribution.PR },
		put: func(s *Settings, v Sourced[string]) { s.Attribution.PR = &v.Value }},
	scalar[bool]{name: "includeCoAuthoredBy", get: func(f *file) *bool { return f.IncludeCoAuthoredBy },
		put: func(s *Settings, v Sourced[bool]) { s.Attribution.CoAuthoredBy = &v.Value }},
	scalar[int]{name: "goal.maxRounds", get: func(f *file) *int { return f.Goal.MaxRounds }, may: unset[int],
		put: func(s *Settings, v Sourced[int]) { s.Goal.MaxRounds = v.Value }},
	scalar[string]{name: "goal.model", get: func(f *file) *string { return f.Goal.Model }, may: unset[string],
		put: func(s *Settings, v Sourced[string]) { s.Goal.Model = v.Value }},
	// Workflows can spend a lot: a repository must not turn them on for whoever opens it.
	scalar[bool]{name: "workflows", get: func(f *file) *bool { return f.Workflows }, may: personal[bool](""),
		put: func(s *Settings, v Sourced[bool]) { s.Workflows = &v.Value }},
	// The store holds the user's task lists and journals: a repository must not point
	// whoever opens it at its own server.
	scalar[string]{name: "store.url", get: func(f *file) *string { return f.Store.URL },
		may: personal[string]("store.url is ignored: a project's settings may not choose where your tasks and journals are kept; set it in your own settings (~/.ouro/settings.json), or use --store or OURO_STORE"),
		put: func(s *Settings, v Sourced[string]) { v.Value = strings.TrimSpace(v.Value); s.Store.URL = v }},
	// Deleting the user's history is the user's call: a repository's own files may not
	// shorten how long sessions are kept.
	scalar[int]{name: "cleanupPeriodDays", get: func(f *file) *int { return f.CleanupPeriodDays },
		may: func(_ *merger, l layer, n int) (bool, string) {
			switch {
			case l.project():
				return false, "cleanupPeriodDays is ignored: only your own settings (~/.claude/settings.json, ~/.ouro/settings.json), --settings or managed settings decide when sessions are deleted"
			case n < 1:
				return false, fmt.Sprintf("cleanupPeriodDays must be at least 1 (days), not %d; sessions are kept for the default %d days", n, defaultCleanupDays)
			}
			return true, ""
		},
		put: func(s *Settings, v Sourced[int]) { s.CleanupPeriodDays = v }},
	scalar[bool]{name: "memory.extractOnExit", get: func(f *file) *bool { return f.Memory.ExtractOnExit },
		put: func(s *Settings, v Sourced[bool]) { s.Memory.ExtractOnExit = &v.Value }},
	scalar[int]{name: "background.maxRunning", get: func(f *file) *int { return f.Background.MaxRunning },
		put: func(s *Settings, v Sourced[int]) { s.Background.MaxRunning = v }},

	scalar[bool]{name: "sandbox.enabled", get: func(f *file) *bool { return f.Sandbox.Enabled },
		may: notLooserByProject(off, func(bool) string {
			return "sandbox.enabled false is ignored: a project's settings may not turn the sandbox off; to allow it, put it in " + yourOwn + `, or pass --settings '{"sandbox":{"enabled":false}}'`
		}),
		put: func(s *Settings, v Sourced[bool]) { s.Sandbox.Enabled = &v }},
	// true is the default: it only loosens when a person's file says false, which Load
	// reports once every file is read.
	scalar[bool]{name: "sandbox.allowUnsandboxedCommands", get: func(f *file) *bool { return f.Sandbox.AllowUnsandboxedCommands },
		may: func(m *merger, l layer, v bool) (bool, string) {
			if l.project() && v {
				if m.unsandboxedByProject == "" {
					m.unsandboxedByProject = l.path
				}
				return false, ""
			}
			return true, ""
		},
		put: func(s *Settings, v Sourced[bool]) { s.Sandbox.AllowUnsandboxedCommands = &v.Value }},
	scalar[bool]{name: "sandbox.failIfUnavailable", get: func(f *file) *bool { return f.Sandbox.FailIfUnavailable },
		may: notLooserByProject(off, func(bool) string {
			return "sandbox.failIfUnavailable false is ignored: a project's settings may not let commands run without a sandbox; to allow it, put it in " + yourOwn + `, or pass --settings '{"sandbox":{"failIfUnavailable":false}}'`
		}),
		put: func(s *Settings, v Sourced[bool]) { s.Sandbox.FailIfUnavailable = &v }},
	scalar[bool]{name: "sandbox.autoAllowBashIfSandboxed", get: func(f *file) *bool { return f.Sandbox.AutoAllowBashIfSandboxed },
		put: func(s *Settings, v Sourced[bool]) { s.Sandbox.AutoAllowBashIfSandboxed = &v.Value }},
	// Lists merge from every file, as in Claude Code: a project's file may add excluded
	// commands and domains. Neither bypasses the permission rules (an excluded command is
	// never auto-allowed), and deniedDomains refuse whatever allows them.
	list[string]{name: "sandbox.excludedCommands", get: func(f *file) []string { return f.Sandbox.ExcludedCommands }, put: addExcluded},
	scalar[bool]{name: "sandbox.network.allow", get: func(f *file) *bool { return f.Sandbox.Network.Allow },
		put: func(s *Settings, v Sourced[bool]) { s.Sandbox.Network.Allow = &v.Value }},
	list[int]{name: "sandbox.network.allowPorts", get: func(f *file) []int { return f.Sandbox.Network.AllowPorts },
		put: func(s *Settings, vs []int, _ layer) {
			s.Sandbox.Network.AllowPorts = append(s.Sandbox.Network.AllowPorts, vs...)
		}},
	step{name: "sandbox.network.allowManagedDomainsOnly", fn: func(m *merger, _ *Settings, f *file, l layer) {
		if v := f.Sandbox.Network.AllowManagedDomainsOnly; l.managed && v != nil && *v {
			m.managedDomainsOnly = true
		}
	}},
	step{name: "sandbox.network.allowedDomains", fn: mergeAllowedDomains},
	list[string]{name: "sandbox.network.deniedDomains", get: func(f *file) []string { return f.Sandbox.Network.DeniedDomains },
		put: func(s *Settings, vs []string, _ layer) {
			s.Sandbox.Network.DeniedDomains = append(s.Sandbox.Network.DeniedDomains, vs...)
		}},
	list[string]{name: "sandbox.filesystem.allowWrite", get: func(f *file) []string { return f.Sandbox.Filesystem.AllowWrite },
		put: func(s *Settings, vs []string, l layer) {
			s.Sandbox.Filesystem.AllowWrite = appendRooted(s.Sandbox.Filesystem.AllowWrite, vs, l)
		}},
	list[string]{name: "sandbox.filesystem.denyWrite", get: func(f *file) []string { return f.Sandbox.Filesystem.DenyWrite },
		put: func(s *Settings, vs []string, l layer) {
			s.Sandbox.Filesystem.DenyWrite = appendRooted(s.Sandbox.Filesystem.DenyWrite, vs, l)
		}},
	list[string]{name: "sandbox.filesystem.denyRead", get: func(f *file) []string { return f.Sandbox.Filesystem.DenyRead },
		put: func(s *Settings, vs []string, l layer) {
			s.Sandbox.Filesystem.DenyRead = appendRooted(s.Sandbox.Filesystem.DenyRead, vs, l)
		}},
}

// off: false turns a protection off.
func off(v bool) bool { return !v }

// looseMode reports whether a permission mode asks less than the default: a project's
// own files may not choose it.
func looseMode(mode string) bool {
	return mode == "bypassPermissions" || mode == "acceptEdits"
}

// mergeRules adds the file's permission rules, unless managed settings keep only theirs.
func mergeRules(m *merger, s *Settings, f *file, l layer) {
	p := &f.Permissions
	if by := s.Permissions.ManagedRulesOnly; by != "" && !l.managed && len(p.Allow)+len(p.Ask)+len(p.Deny) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: permission rules (allow, ask, deny) are ignored: managed settings (%s) set allowManagedPermissionRulesOnly, so only their rules apply", l.path, by))
		return
	}
	m.addRules(&s.Permissions.Deny, p.Deny, l.path, l.root)
	m.addRules(&s.Permissions.Ask, p.Ask, l.path, l.root)
	m.addRules(&s.Permissions.Allow, p.Allow, l.path, l.root)
}

// mergeDirectories adds the file's additional directories, each relative to the file's
// root; a project's own file may not open a folder outside the project.
func mergeDirectories(m *merger, s *Settings, f *file, l layer) {
	for _, d := range f.Permissions.AdditionalDirectories {
		abs := absDir(d, l.root)
		if l.project() && !m.insideProject(abs) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: permissions.additionalDirectories %q is ignored: a project's settings may not open folders outside the project; to allow it, put it in %s, or pass --add-dir %s (or --settings)", l.path, d, yourOwn, d))
			continue
		}
		s.Permissions.AdditionalDirectories = append(s.Permissions.AdditionalDirectories, abs)
	}
}

// mergeHooks adds the file's hook groups, each naming the file, unless managed settings
// keep only theirs.
func mergeHooks(_ *merger, s *Settings, f *file, l layer) {
	if len(f.Hooks) == 0 {
		return
	}
	if by := s.ManagedHooksOnly; by != "" && !l.managed {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: hooks are ignored: managed settings (%s) set allowManagedHooksOnly, so only their hooks run", l.path, by))
		return
	}
	if s.Hooks == nil {
		s.Hooks = map[string][]HookMatcher{}
	}
	for event, groups := range f.Hooks {
		for _, g := range groups {
			g.Source = l.path
			s.Hooks[event] = append(s.Hooks[event], g)
		}
	}
}

// mergeEnv merges env key by key: the most specific file's value stands, and the most
// specific value the person's own files (or --settings) give is kept apart, with the
// project file behind each value a project set.
func mergeEnv(_ *merger, s *Settings, f *file, l layer) {
	for k, v := range f.Env {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		if !l.project() {
			if s.EnvTrusted == nil {
				s.EnvTrusted = map[string]string{}
			}
			if _, set := s.EnvTrusted[k]; !set {
				s.EnvTrusted[k] = v
				setSource(&s.EnvTrustedSource, k, l.path)
			}
		}
		if _, set := s.Env[k]; !set {
			s.Env[k] = v
			setSource(&s.EnvSource, k, l.path)
			if l.project() {
				setSource(&s.EnvProject, k, l.path)
			}
		}
	}
}

// addExcluded adds excluded commands, naming the project file behind each a project added.
func addExcluded(s *Settings, cmds []string, l layer) {
	s.Sandbox.ExcludedCommands = append(s.Sandbox.ExcludedCommands, cmds...)
	if !l.project() {
		return
	}
	for _, c := range cmds {
		if _, set := s.Sandbox.ExcludedByProject[c]; !set {
			setSource(&s.Sandbox.ExcludedByProject, c, l.path)
		}
	}
}

// mergeAllowedDomains adds the file's allowed domains, unless managed settings keep only
// theirs. An empty list counts: the file chose the proxy with nothing allowed.
func mergeAllowedDomains(m *merger, s *Settings, f *file, l layer) {
	ds := f.Sandbox.Network.AllowedDomains
	switch {
	case ds == nil:
	case m.managedDomainsOnly && !l.managed:
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: sandbox.network.allowedDomains is ignored: managed settings set allowManagedDomainsOnly", l.path))
	default:
		s.Sandbox.Network.DomainsSet = true
		s.Sandbox.Network.DomainSources = append(s.Sandbox.Network.DomainSources, l.path)
		s.Sandbox.Network.AllowedDomains = append(s.Sandbox.Network.AllowedDomains, ds...)
	}
}

// appendRooted appends sandbox paths, each anchored to the root of the file that names it.
func appendRooted(dst, paths []string, l layer) []string {
	for _, p := range paths {
		dst = append(dst, rootSandboxPath(p, l.root))
	}
	return dst
}

// insideProject reports whether dir (absolute, or starting with `~`) lies in the project
// folder.
func (m *merger) insideProject(dir string) bool {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if m.home == "" {
			return false
		}
		dir = filepath.Join(m.home, strings.TrimPrefix(dir[1:], "/"))
	}
	if m.project == "" || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a link in the project to a folder outside it is outside
	}
	rel, err := filepath.Rel(m.project, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func (m *merger) addRules(dst *[]Rule, texts []string, source, root string) {
	for _, t := range texts {
		*dst = append(*dst, Rule{Text: strings.TrimSpace(t), Source: source, Root: root})
	}
}
