// Package subagent delegates work to child agents: the Task tool (alias Agent) runs a
// child loop with fresh messages, its own system prompt and tool subset, under the
// parent's gates and after-tool seams, and returns only the child's final text.
package subagent

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
	"go.yaml.in/yaml/v4"

	"github.com/ouroagent/ouro/internal/frontmatter"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
)

// Definition is one agent type.
type Definition struct {
	Name        string
	Description string
	// Tools names the tools the child gets (Claude Code's names mapped onto ouro's); nil
	// inherits the parent's tools.
	Tools []string
	// DisallowedTools are taken away from whatever Tools gives (disallowedTools).
	DisallowedTools []string
	// Model is the model the definition asks for; "" or "inherit" means the parent's.
	Model          string
	MaxTurns       int
	PermissionMode string
	// Prompt is the child's system prompt (the file's body).
	Prompt string
	// Path is the file it came from; "" for a built-in.
	Path string
	// Source is "built-in", "project", "user" or "plugin".
	Source string
	// Hooks are the definition's own hooks (hooks:, as in settings files): they run only
	// while this agent runs, its Stop hooks as SubagentStop hooks.
	Hooks map[string][]settings.HookMatcher
	// Skills are the skills whose whole text the child starts with (skills:, a
	// comma-separated string or a list), loaded through Config.Preload.
	Skills []string
}

// Warning is a problem found while loading definitions.
type Warning struct {
	Path    string
	Message string
}

func (w Warning) String() string { return w.Path + ": " + w.Message }

// Built-in type names.
const (
	GeneralPurpose = "general-purpose"
	Explore        = "Explore"
)

// ExploreTools are the read-only tools an Explore child gets.
var ExploreTools = []string{"Glob", "Grep", "LS", "Read", "WebFetch", "WebSearch"}

// BuiltIns returns the built-in types: general-purpose (the parent's tools minus
// Task/Agent) and Explore (read-only tools).
func BuiltIns() []Definition {
	return []Definition{
		{
			Name:        GeneralPurpose,
			Description: "General-purpose agent: researches complex questions, searches code, runs multi-step tasks; for work that may need several attempts.",
			Source:      "built-in",
			Prompt: `You are a subagent of ouro, a coding agent. You were given one task by the main agent;
do it with the tools you have, then answer with a concise, complete report of what you
found or did (files as path:line). Your final message is all the main agent will see, so
put everything it needs in it. If you could not finish, say so plainly and why.`,
		},
		{
			Name:        Explore,
			Description: "Fast read-only agent for exploring a codebase: finds files, searches code, reads files to answer questions. It changes nothing.",
			Tools:       append([]string(nil), ExploreTools...),
			Source:      "built-in",
			Prompt: `You are a read-only exploration subagent of ouro, a coding agent. Search and read the
code to answer the question you were given; you cannot change files or run commands. Be
quick: search broadly first, then read only what matters. Your final message is all the
main agent will see: answer the question directly, citing files as path:line.`,
		},
	}
}

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// LoadDefinitions reads agent definitions from <projectDir>/.ouro/agents,
// <projectDir>/.claude/agents, <userHome>/.ouro/agents and <userHome>/.claude/agents (all
// *.md files below them). When two files define the same name the first in that order
// wins: project over user, .ouro over .claude. A file without a description is skipped
// with a warning; other problems (a bad name, an unreadable maxTurns) are warnings too.
// Built-in types are not included (see BuiltIns).
func LoadDefinitions(projectDir, userHome string) ([]Definition, []Warning) {
	type root struct{ dir, source string }
	var roots []root
	if projectDir != "" {
		roots = append(roots, root{filepath.Join(projectDir, ".ouro", "agents"), "project"}, root{filepath.Join(projectDir, ".claude", "agents"), "project"})
	}
	if userHome != "" {
		roots = append(roots, root{filepath.Join(userHome, ".ouro", "agents"), "user"}, root{filepath.Join(userHome, ".claude", "agents"), "user"})
	}
	var defs []Definition
	var warns []Warning
	seen := map[string]string{}
	for _, r := range roots {
		d, w := loadRoot(r.dir, r.source, seen)
		defs, warns = append(defs, d...), append(warns, w...)
	}
	return defs, warns
}

// LoadFrom reads the definitions in dirs (all *.md files below them) with source (a
// plugin's agents/ folders); the first of two files with one name wins.
func LoadFrom(dirs []string, source string) ([]Definition, []Warning) {
	var defs []Definition
	var warns []Warning
	seen := map[string]string{}
	for _, dir := range dirs {
		d, w := loadRoot(dir, source, seen)
		defs, warns = append(defs, d...), append(warns, w...)
	}
	return defs, warns
}

// loadRoot reads the definitions below dir, skipping names seen already.
func loadRoot(dir, source string, seen map[string]string) (defs []Definition, warns []Warning) {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir {
				warns = append(warns, Warning{p, err.Error()})
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	for _, f := range files {
		data, err := regfile.Read(f, regfile.MaxConfig)
		if err != nil {
			warns = append(warns, Warning{f, err.Error()})
			continue
		}
		d, ws, ok := ParseDefinition(f, data)
		warns = append(warns, ws...)
		if !ok {
			continue
		}
		d.Source = source
		if prev, dup := seen[d.Name]; dup {
			warns = append(warns, Warning{f, fmt.Sprintf("agent %q is already defined by %s, which takes precedence; this file is ignored", d.Name, prev)})
			continue
		}
		seen[d.Name] = f
		defs = append(defs, d)
	}
	return defs, warns
}

type header struct {
	Name            string    `yaml:"name"`
	Description     string    `yaml:"description"`
	Tools           yaml.Node `yaml:"tools"`
	DisallowedTools yaml.Node `yaml:"disallowedTools"`
	Model           string    `yaml:"model"`
	MaxTurns        yaml.Node `yaml:"maxTurns"`
	PermissionMode  string    `yaml:"permissionMode"`
	Hooks           yaml.Node `yaml:"hooks"`
	Skills          yaml.Node `yaml:"skills"`
	MCPServers      yaml.Node `yaml:"mcpServers"`
	Memory          yaml.Node `yaml:"memory"`
}

// ParseDefinition parses one definition file (YAML frontmatter between --- lines, then the
// body as the system prompt). ok is false when the file cannot define an agent.
func ParseDefinition(path string, data []byte) (d Definition, warns []Warning, ok bool) {
	warn := func(format string, a ...any) { warns = append(warns, Warning{path, fmt.Sprintf(format, a...)}) }
	text := strings.ReplaceAll(string(bytes.TrimPrefix(data, []byte("\ufeff"))), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		warn("no YAML frontmatter (the file must start with a --- line); skipped")
		return d, warns, false
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	var head, body string
	switch {
	case strings.HasPrefix(rest, "---"):
		head, body = "", rest[3:]
	case end >= 0:
		head, body = rest[:end], rest[end+4:]
	default:
		warn("the frontmatter is not closed by a --- line; skipped")
		return d, warns, false
	}
	if i := strings.IndexByte(body, '\n'); i >= 0 && strings.TrimSpace(body[:i]) == "" {
		body = body[i+1:]
	} else if strings.TrimSpace(body) == "" {
		body = ""
	}
	var fm header
	if _, _, err := frontmatter.Decode([]byte(head), &fm); err != nil {
		// A header strict YAML rejects (an unquoted colon in a generated description) is
		// read line by line, as Claude Code tolerates; only one neither reading accepts
		// is refused.
		warn("%v; skipped", err)
		return d, warns, false
	}
	d = Definition{Path: path, Prompt: strings.TrimSpace(body), PermissionMode: strings.TrimSpace(fm.PermissionMode)}
	d.Name = strings.TrimSpace(fm.Name)
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(path), ".md")
		warn("no name; using the file name %q", d.Name)
	}
	if !nameRE.MatchString(d.Name) {
		warn("name %q should be lowercase letters, digits and hyphens", d.Name)
	}
	d.Description = strings.TrimSpace(fm.Description)
	if d.Description == "" {
		warn("agent %q has no description, so the model could not know when to use it; skipped", d.Name)
		return d, warns, false
	}
	d.Model = CheckModel(strings.TrimSpace(fm.Model), warn)
	if fm.MaxTurns.Kind != 0 {
		var n int
		if err := fm.MaxTurns.Decode(&n); err != nil || n < 0 {
			warn("maxTurns %q is not a positive number; ignored", fm.MaxTurns.Value)
		} else {
			d.MaxTurns = n
		}
	}
	tools, err := toolList(&fm.Tools)
	if err != nil {
		warn("tools: %v; the agent inherits the parent's tools", err)
	}
	if slices.Contains(tools, "*") {
		tools = nil // tools: "*" (or ["*"]) is Claude Code's every tool: as if omitted
	}
	if tools != nil {
		d.Tools = mapTools(tools, "tools", warn)
		if len(d.Tools) == 0 && len(tools) > 0 {
			warn("none of the tools it names exists in ouro, so the agent has no tools")
		}
	}
	disallowed, err := toolList(&fm.DisallowedTools)
	if err != nil {
		warn("disallowedTools: %v; ignored", err)
	}
	d.DisallowedTools = mapTools(disallowed, "disallowedTools", nil)
	if d.Skills, err = toolList(&fm.Skills); err != nil {
		warn("skills: %v; none is preloaded", strings.Replace(err.Error(), "tool names", "skill names", 1))
	}
	if fm.MCPServers.Kind != 0 {
		warn("mcpServers: ouro does not start MCP servers for one agent; it gets the session's MCP tools only")
	}
	if fm.Memory.Kind != 0 {
		warn("memory: ouro keeps no memory per agent; the agent starts without one")
	}
	if h, err := settings.HooksFromYAML(&fm.Hooks); err != nil {
		warn("hooks ignored: %v", err)
	} else {
		d.Hooks = h
	}
	return d, warns, true
}

// CheckModel resolves a definition's (or a skill's) model: "" and "inherit" are the parent's; an alias
// (sonnet, opus, haiku) or a name ouro can serve is kept; anything else would be sent to
// the API verbatim and fail there, so it is dropped with a warning and the parent's model
// serves the agent.
func CheckModel(m string, warn func(string, ...any)) string {
	switch {
	case m == "" || strings.EqualFold(m, "inherit"):
		return ""
	case llm.ResolveAlias(m) != m, llm.LookupModel(m).Known,
		strings.HasPrefix(m, "claude-"), strings.HasPrefix(m, "openai:"), strings.HasPrefix(m, "scripted:"), strings.HasPrefix(m, "anthropic:"):
		return m
	}
	warn("model %q is neither an alias (sonnet, opus, haiku, inherit) nor a model ouro knows; the session's model is used", m)
	return ""
}

// toolList reads tools as a comma-separated string or a YAML list; nil means inherit.
// A specifier in parentheses (Bash(git *)) is dropped: only the name selects a tool.
func toolList(n *yaml.Node) ([]string, error) {
	var raw []string
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		raw = splitTools(n.Value)
	case yaml.SequenceNode:
		raw = []string{}
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("list items must be tool names")
			}
			raw = append(raw, splitTools(c.Value)...)
		}
	default:
		return nil, fmt.Errorf("expected a comma-separated string or a list of tool names")
	}
	out := []string{}
	seen := map[string]bool{}
	for _, t := range raw {
		if i := strings.IndexByte(t, '('); i > 0 {
			t = strings.TrimSpace(t[:i])
		}
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// splitTools splits on commas outside parentheses.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
