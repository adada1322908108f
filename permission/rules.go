// Package permission decides whether a tool call may run: Claude Code's allow/ask/deny
// rules, the permission modes, protected paths, the judgement of Bash commands (from
// package shell's analysis of what a line runs, reads and writes: the hard-deny set,
// the read-only set, the decision table of policy_bash_decide.go), the approvers that
// ask a person (or refuse when nobody is there), and the audit log of every decision.
package permission

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// specKind says how a rule's specifier is read, which depends on the tool.
type specKind int

const (
	specNone    specKind = iota // bare `Tool`
	specCommand                 // Bash: a command pattern
	specPath                    // file tools: a gitignore-style path
	specDomain                  // WebFetch: domain:host
	specName                    // Task/Agent: subagent_type; Skill: skill
)

// Rule is a parsed permission rule.
type Rule struct {
	// Text is the rule as written; Source the file (or flag) it came from; Root the
	// directory its `/path` specifiers are relative to.
	Text, Source, Root string
	// Tool is the tool part (`Bash`, `Edit`, `mcp__srv__*`); Specifier what is inside
	// the parentheses, "" for a bare rule (`Bash(*)` is stored bare).
	Tool, Specifier string

	kind   specKind
	owner  string // a turn rule's agent (Policy.SetTurnOwner): it allows that agent's calls only
	bash   string // command pattern with the legacy `:*` turned into ` *`
	env    bool   // the pattern starts with NAME=value: matched with the command's assignments
	path   pathPattern
	domain string
}

// pathPattern is a gitignore-style path specifier, kept relative until a call tells what
// the working directory and home are.
type pathPattern struct {
	anchor anchor
	rest   string // the pattern after its anchor, in doublestar syntax
}

type anchor int

const (
	anchorCWD      anchor = iota // `./p`, `p/q`: from the working directory
	anchorAnywhere               // `p` with no slash: at any depth below the working directory
	anchorRoot                   // `/p`: from the rule's root (its settings file's project)
	anchorHome                   // `~/p`
	anchorAbs                    // `//p`: from the filesystem root
)

// RuleError is a rule that cannot be parsed. Settings loading reports it and goes on
// without the rule.
type RuleError struct {
	Rule    settings.Rule
	Problem string
}

func (e *RuleError) Error() string {
	src := e.Rule.Source
	if src == "" {
		src = "an unknown source"
	}
	return fmt.Sprintf("permission rule %q in %s: %s", e.Rule.Text, src, e.Problem)
}

// ParseRule reads a rule in Claude Code's syntax: `Tool` or `Tool(specifier)`.
func ParseRule(sr settings.Rule) (Rule, error) {
	bad := func(format string, args ...any) (Rule, error) {
		return Rule{}, &RuleError{Rule: sr, Problem: fmt.Sprintf(format, args...)}
	}
	text := strings.TrimSpace(sr.Text)
	r := Rule{Text: text, Source: sr.Source, Root: sr.Root}
	if text == "" {
		return bad("the rule is empty")
	}
	toolName, spec, hasSpec := text, "", false
	if i := strings.IndexByte(text, '('); i >= 0 {
		if !strings.HasSuffix(text, ")") {
			return bad(`a specifier must end with ")" and nothing may follow it`)
		}
		toolName, spec, hasSpec = strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+1:len(text)-1]), true
	} else if strings.ContainsRune(text, ')') {
		return bad(`")" without "("`)
	}
	if rest, ok := strings.CutPrefix(toolName, slashCommand+":"); ok && !hasSpec {
		// Claude Code's older rule for its SlashCommand tool: SlashCommand:/commit, with
		// :* for any arguments. Commands are skills now: it is Skill(commit).
		name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(rest), "/"), ":*")
		if name == "" || strings.ContainsAny(name, " \t/()") {
			return bad("SlashCommand rules name one command, as in SlashCommand:/commit (or Skill(commit))")
		}
		cc, _ := tool.LookupClaudeCode(slashCommand)
		toolName, spec, hasSpec = cc.Equivalent, name, true
	}
	if t, _, ok := strings.Cut(toolName, ":"); ok && !strings.HasPrefix(toolName, "mcp__") {
		// Edit:* and the like: the :* suffix belongs inside a Bash specifier.
		return bad("%q is not a tool name: the :* form is for Bash command prefixes, as in Bash(npm run test:*); for every %s call write %s alone", toolName, t, t)
	}
	if err := checkToolName(toolName); err != "" {
		return bad("%s", err)
	}
	r.Tool = toolName
	if !hasSpec {
		return r, nil
	}
	if spec == "" {
		return bad("the specifier is empty; write %s alone to match every call", toolName)
	}
	if strings.HasSuffix(toolName, "*") {
		return bad("a tool pattern with * takes no specifier")
	}
	cc, _ := tool.LookupClaudeCode(toolName)
	switch cc.Specifier {
	case tool.SpecCommand:
		pat := strings.Join(strings.Fields(spec), " ")
		if strings.HasSuffix(pat, ":*") { // legacy prefix form: `npm run test:*`
			pat = strings.TrimSpace(strings.TrimSuffix(pat, ":*")) + " *"
		}
		if pat == "*" || pat == "" {
			return r, nil // Bash(*) is Bash
		}
		if op := lineOperator(pat); op != "" {
			return bad("it can never match: ouro checks each command of a line on its own, and %q splits a line into commands, so no single command holds it; write a rule for each command instead (e.g. Bash(wget *) and Bash(bash *))", op)
		}
		r.kind, r.bash, r.Specifier = specCommand, pat, spec
		// A rule naming variables in front of the command (FOO=1 make *) is matched
		// against the command with the assignments it is run with.
		r.env = envAssign.MatchString(pat)
	case tool.SpecPath:
		p, err := parsePathPattern(spec)
		if err != "" {
			return bad("%s", err)
		}
		r.kind, r.path, r.Specifier = specPath, p, spec
	case tool.SpecDomain:
		host, ok := strings.CutPrefix(spec, "domain:")
		host = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(host), "."))
		if !ok || host == "" || strings.ContainsAny(host, "/: \t") || strings.Contains(host[1:], "*") ||
			(strings.HasPrefix(host, "*") && !strings.HasPrefix(host, "*.")) {
			return bad(`%s takes "domain:host" (e.g. %s(domain:example.com))`, toolName, toolName)
		}
		r.kind, r.domain, r.Specifier = specDomain, host, spec
	case tool.SpecName:
		r.kind, r.Specifier = specName, spec
	default:
		return bad("%s takes no specifier (rules with a specifier exist for %s)", toolName, specifiedTools())
	}
	return r, nil
}

// specifiedTools names the tools whose rules take a specifier, for an error.
func specifiedTools() string {
	var names []string
	for _, t := range tool.ClaudeCode() {
		if t.Specifier != tool.SpecNone {
			names = append(names, t.Name)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// slashCommand is Claude Code's older tool for commands, whose rules read
// SlashCommand:/name.
const slashCommand = "SlashCommand"

// checkToolName accepts tool names as tools spell them, plus a trailing * for MCP.
// envAssign is a NAME=value word at the start of a command pattern.
var envAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// lineOperator is the first unquoted |, &&, || or ; in a command pattern: what splits a
// shell line into separate commands ("" when there is none).
func lineOperator(pat string) string {
	var quote rune
	for i, c := range pat {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'', c == '"':
			quote = c
		case c == ';':
			return ";"
		case c == '|':
			if strings.HasPrefix(pat[i:], "||") {
				return "||"
			}
			return "|"
		case c == '&' && strings.HasPrefix(pat[i:], "&&"):
			return "&&"
		}
	}
	return ""
}

func checkToolName(name string) string {
	if name == "" {
		return "the tool name is missing"
	}
	base := name
	if strings.HasSuffix(name, "*") {
		if !strings.HasPrefix(name, "mcp__") {
			return "only MCP tool names may end with * (mcp__server__*)"
		}
		base = strings.TrimSuffix(name, "*")
	}
	for _, c := range base {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
		if !ok {
			return fmt.Sprintf("%q is not a tool name", name)
		}
	}
	return ""
}

func parsePathPattern(spec string) (pathPattern, string) {
	var p pathPattern
	rest := spec
	switch {
	case strings.HasPrefix(spec, "!"):
		return p, "negated paths (!) are not supported; write a deny rule instead"
	case strings.HasPrefix(spec, "//"):
		p.anchor, rest = anchorAbs, spec[2:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		p.anchor, rest = anchorHome, strings.TrimPrefix(strings.TrimPrefix(spec, "~"), "/")
	case strings.HasPrefix(spec, "/"):
		p.anchor, rest = anchorRoot, spec[1:]
	case spec == "." || strings.HasPrefix(spec, "./"):
		p.anchor, rest = anchorCWD, strings.TrimPrefix(strings.TrimPrefix(spec, "."), "/")
	case !strings.Contains(strings.TrimSuffix(spec, "/"), "/"):
		// gitignore: a pattern with no slash but a trailing one matches at any depth.
		p.anchor = anchorAnywhere
	default:
		p.anchor = anchorCWD
	}
	// A trailing slash names a directory: everything inside it.
	if strings.HasSuffix(rest, "/") {
		rest = strings.TrimRight(rest, "/") + "/**"
	}
	if !doublestar.ValidatePattern("/" + rest) {
		return p, fmt.Sprintf("%q is not a valid path pattern", spec)
	}
	p.rest = rest
	return p, ""
}

// Subject is what a rule is matched against: one action of a call and where it happens.
type Subject struct {
	// Tool is the tool called (`Bash`, `Write`, `mcp__srv__tool`).
	Tool string
	// Command is one simple shell command, wrappers stripped, its words joined by spaces.
	Command string
	// Env is the NAME=value assignments the command runs with, joined by spaces (for
	// rules that name them).
	Env string
	// Path is the absolute, clean path a file tool acts on.
	Path string
	// Host is the host a WebFetch reaches.
	Host string
	// Name is the subagent type (Task/Agent) or the skill (Skill).
	Name string
	// Kind is what the action does (tool.Action): Read(...) rules cover every file read,
	// Edit(...) rules every file write. Unset, it is what Claude Code's tool of that name
	// does (tool.LookupClaudeCode).
	Kind tool.Kind
	// Also lists further tool names whose rules cover the action (Task for Agent); unset,
	// those of Claude Code's tool of that name.
	Also []string
	// CWD and Home anchor relative and `~/` path specifiers.
	CWD, Home string
}

// Bare reports whether the rule names a whole tool, with no specifier.
func (r Rule) Bare() bool { return r.kind == specNone }

// String names the rule and where it came from, for reasons and the audit.
func (r Rule) String() string {
	if r.Source == "" {
		return r.Text
	}
	return r.Text + " (" + r.Source + ")"
}

// Match reports whether the rule covers s.
func (r Rule) Match(s Subject) bool {
	if !toolMatches(r.Tool, s) {
		return false
	}
	switch r.kind {
	case specNone:
		return true
	case specCommand:
		if r.env {
			return s.Env != "" && s.Command != "" && commandMatches(r.bash, s.Env+" "+s.Command)
		}
		return s.Command != "" && commandMatches(r.bash, s.Command)
	case specPath:
		return s.Path != "" && r.matchPath(s)
	case specDomain:
		return hostMatches(r.domain, s.Host)
	case specName:
		return s.Name != "" && starMatch(r.Specifier, s.Name)
	}
	return false
}

// toolMatches applies the tool part of a rule: exact names, MCP server and wildcard
// forms, and the rules that cover a kind of action whichever tool takes it (Edit every
// file write, Read every file read, Bash every shell command), and the names an action
// answers to besides its tool's (Task and Agent).
func toolMatches(rule string, s Subject) bool {
	name := s.Tool
	switch {
	case rule == name:
		return true
	case strings.HasSuffix(rule, "*"):
		return strings.HasPrefix(name, strings.TrimSuffix(rule, "*"))
	case strings.HasPrefix(rule, "mcp__") && !strings.Contains(rule[len("mcp__"):], "__"):
		return strings.HasPrefix(name, rule+"__") // mcp__srv: every tool of the server
	}
	kind, also := s.family()
	return rule == kind.RuleName() || slices.Contains(also, rule)
}

// family is what the subject's action does and the other names its rules may use: as
// set, or else as Claude Code's tool of that name has them.
func (s Subject) family() (tool.Kind, []string) {
	if s.Kind != tool.ActUnknown || s.Also != nil {
		return s.Kind, s.Also
	}
	cc, _ := tool.LookupClaudeCode(s.Tool)
	return cc.Kind, cc.Also
}

// kind is what the subject's action does (see family).
func (s Subject) kind() tool.Kind {
	k, _ := s.family()
	return k
}

// family is the kind of action the tool a rule names takes, as Claude Code's tool of
// that name does (Read for Grep), Unknown for any other.
func (r Rule) family() tool.Kind {
	cc, _ := tool.LookupClaudeCode(r.Tool)
	return cc.Kind
}

// commandMatches applies a Bash pattern: `*` matches any run of characters, spaces
// included; a pattern ending in ` *` also matches the command without arguments, so
// `Bash(ls *)` covers `ls` and `ls -la` but, needing the space, never `lsof`.
func commandMatches(pattern, cmd string) bool {
	if starMatch(pattern, cmd) {
		return true
	}
	if head, ok := strings.CutSuffix(pattern, " *"); ok {
		return starMatch(head, cmd)
	}
	return false
}

// starMatch matches s against a pattern whose only special character is `*`.
func starMatch(pattern, s string) bool {
	p, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, si
			p++
		case p < len(pattern) && pattern[p] == s[si]:
			p++
			si++
		case star >= 0:
			p = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

func hostMatches(rule, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return false
	}
	if sub, ok := strings.CutPrefix(rule, "*."); ok {
		return strings.HasSuffix(host, "."+sub)
	}
	return host == rule
}

// matchPath applies a gitignore-style pattern to s.Path: the path matches when it or
// any folder above it does (a rule on a folder covers what is inside).
func (r Rule) matchPath(s Subject) bool {
	full, ok := r.absPattern(s)
	if !ok {
		return false
	}
	p := filepath.ToSlash(filepath.Clean(s.Path))
	if onWindows {
		p = upperDrive(p)
	}
	for {
		if m, _ := doublestar.Match(full, p); m {
			return true
		}
		parent := path.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// absPattern anchors the rule's path pattern for one call.
func (r Rule) absPattern(s Subject) (string, bool) {
	var base string
	switch r.path.anchor {
	case anchorAbs:
		if onWindows {
			return windowsAbs(r.path.rest), true
		}
		base = "/"
	case anchorHome:
		base = s.Home
	case anchorRoot:
		base = r.Root
	default:
		base = s.CWD
	}
	if base == "" {
		return "", false // nothing to anchor to: a relative rule never matches
	}
	base = escapeGlob(filepath.ToSlash(filepath.Clean(base)))
	rest := r.path.rest
	if r.path.anchor == anchorAnywhere {
		rest = "**/" + rest
	}
	if onWindows {
		base = upperDrive(base)
	}
	if rest == "" {
		return base, true
	}
	return path.Clean(base + "/" + rest), true
}

// escapeGlob quotes the characters doublestar treats as special, so a folder whose
// name holds them is matched literally.
func escapeGlob(s string) string {
	var sb strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]{}\`, c) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

func isOneOf(s string, list []string) bool { return slices.Contains(list, s) }
