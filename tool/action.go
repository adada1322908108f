package tool

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Kind says what an action does. The permission policy decides on it (and on the data of
// the action), never on the name of the tool that described it.
type Kind int

// The kinds of action.
const (
	// ActUnknown is an action the tool says nothing about (an MCP tool's call): it is put to
	// the rules that name the tool, then asked about.
	ActUnknown Kind = iota
	// ActObserve only reads, but nothing the policy could place (a trusted MCP server's
	// read-only tool): asked about like ActUnknown, but plan mode lets it be asked.
	ActObserve
	// ActRead reads the files or folders of Paths: free inside the workspace.
	ActRead
	// ActWrite writes the files of Paths: Edit rules, protected paths, plan mode and the
	// workspace's bounds apply.
	ActWrite
	// ActExec runs the shell line Command: the hard-deny set, the read-only set and Bash
	// rules judge each command of it.
	ActExec
	// ActNet reaches the network at URL: asked about unless a rule allows its host.
	ActNet
	// ActSession changes only the session's own state (its todo list, a session-only cron
	// job, a message to a teammate, a subagent it starts): it needs no rule in any mode.
	ActSession
)

var kindNames = [...]string{"unknown", "observe", "read", "write", "exec", "net", "session"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// RuleName is the tool name of Claude Code's rules that cover every action of this kind,
// whichever tool takes it: Read(...) rules every file read, Edit(...) rules every file
// write, Bash(...) rules every shell command, WebFetch(domain:...) every fetch. "" for a
// kind only rules naming the tool itself cover.
func (k Kind) RuleName() string {
	switch k {
	case ActRead:
		return "Read"
	case ActWrite:
		return "Edit"
	case ActExec:
		return "Bash"
	case ActNet:
		return "WebFetch"
	}
	return ""
}

// Action is one thing a call does, as its tool describes it. One call may do several.
type Action struct {
	Kind Kind
	// Paths are the files or folders a Read or Write action touches, as the input gives
	// them: relative to the working directory, `~/` for the home folder. An empty path is
	// the working directory for a Search, and a missing path otherwise.
	Paths []string
	// Search is set when Paths are folders searched (Glob, Grep, LS): a rule suggested to
	// allow the action covers the folder's contents.
	Search bool
	// Command is the shell line an Exec action runs.
	Command string
	// URL is what a Net action fetches.
	URL string
	// Name is what rules with a name specifier match: the agent type a subagent is
	// started as, the skill loaded.
	Name string
	// Also lists further tool names whose rules cover this action (Task for Agent).
	Also []string
}

// Describer is implemented by a tool that says what a call does. A tool that does not is
// taken to do something unknown: its calls are asked about unless a rule names it.
type Describer interface {
	// Describe reads a call's input (already checked against the schema when the call
	// comes from the model) and says what the call would do. An error refuses the call:
	// it says what is wrong with the input.
	Describe(input json.RawMessage) ([]Action, error)
}

// Describe says what a call of t with input does.
func Describe(t Tool, input json.RawMessage) ([]Action, error) {
	if d, ok := t.(Describer); ok {
		return d.Describe(input)
	}
	return []Action{{Kind: ActUnknown}}, nil
}

// Describe says what call c does, asking the registered tool of that name (one that
// describes nothing does something ActUnknown); a call of a tool this registry lacks is
// described as Claude Code's tool of that name would be (see ClaudeCode).
func (r *Registry) Describe(c Call) ([]Action, error) {
	if r != nil {
		if t, ok := r.Get(c.Name); ok {
			return Describe(t, c.Input)
		}
	}
	return DescribeByName(c)
}

// DescribeByName describes c by Claude Code's tool of that name (ClaudeCode), for a call
// no registered tool describes: a Claude Code tool ouro lacks (MultiEdit), or a call
// checked with no registry at hand (a hook's `if`, a policy on its own in a test).
func DescribeByName(c Call) ([]Action, error) {
	if cc, ok := LookupClaudeCode(c.Name); ok && cc.Describe != nil {
		return cc.Describe(c.Input)
	}
	return []Action{{Kind: ActUnknown}}, nil
}

// CallDescriber says what calls do: a Registry, or DescribeByName on its own.
type CallDescriber interface {
	Describe(c Call) ([]Action, error)
}

// decode reads input into v, saying which input could not be read.
func decode(input json.RawMessage, v any) error {
	if len(input) == 0 {
		return nil
	}
	if err := json.Unmarshal(input, v); err != nil {
		return fmt.Errorf("the input could not be read (%v)", err)
	}
	return nil
}

// DescribeCommand is the action of a tool whose input's "command" is a shell line.
func DescribeCommand(input json.RawMessage) ([]Action, error) {
	var in struct {
		Command string `json:"command"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	return []Action{{Kind: ActExec, Command: in.Command}}, nil
}

// DescribeFile returns the describer of a tool that reads (k ActRead) or writes (k ActWrite)
// the one file its input's field names.
func DescribeFile(k Kind, field string) func(json.RawMessage) ([]Action, error) {
	return func(input json.RawMessage) ([]Action, error) {
		var in map[string]json.RawMessage
		if err := decode(input, &in); err != nil {
			return nil, err
		}
		var p string
		if raw, ok := in[field]; ok {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("the input could not be read (%s: %v)", field, err)
			}
		}
		return []Action{{Kind: k, Paths: []string{p}}}, nil
	}
}

// DescribeSearch is the action of a tool searching the folder its input's "path" names
// ("" for the working directory), with an optional glob "pattern" that may name a folder
// of its own: an absolute pattern, or one climbing out of the path with "..".
func DescribeSearch(input json.RawMessage) ([]Action, error) {
	var in struct {
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	return []Action{{Kind: ActRead, Search: true, Paths: []string{in.Path}}}, nil
}

// DescribeGlob is DescribeSearch for a glob whose pattern may reach another folder.
func DescribeGlob(input json.RawMessage) ([]Action, error) {
	var in struct {
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	p := in.Path
	switch {
	case filepath.IsAbs(in.Pattern):
		p = GlobDir(in.Pattern)
	case slices.Contains(strings.Split(filepath.ToSlash(in.Pattern), "/"), ".."):
		// "../other/*" searches outside the folder it starts from: check where.
		base := in.Path
		if base == "" {
			base = "."
		}
		p = GlobDir(filepath.Join(base, in.Pattern))
	}
	return []Action{{Kind: ActRead, Search: true, Paths: []string{p}}}, nil
}

// GlobDir is the folder part of a glob pattern before its first special character: where
// a search by the pattern starts.
func GlobDir(pattern string) string {
	i := strings.IndexAny(pattern, "*?[{")
	if i < 0 {
		return filepath.Dir(pattern)
	}
	return filepath.Dir(pattern[:i+1])
}

// DescribeFetch is the action of a tool fetching its input's "url".
func DescribeFetch(input json.RawMessage) ([]Action, error) {
	var in struct {
		URL string `json:"url"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	return []Action{{Kind: ActNet, URL: in.URL}}, nil
}

// DescribeNamed returns the describer of a session tool whose input's field names what
// its rules match (a subagent's type, a skill), covered by the rules of also too.
func DescribeNamed(field string, also ...string) func(json.RawMessage) ([]Action, error) {
	return func(input json.RawMessage) ([]Action, error) {
		var in map[string]json.RawMessage
		if err := decode(input, &in); err != nil {
			return nil, err
		}
		var name string
		if raw, ok := in[field]; ok && json.Unmarshal(raw, &name) != nil {
			name = ""
		}
		return []Action{{Kind: ActSession, Name: name, Also: also}}, nil
	}
}

// DescribeSession is the action of a tool that changes only the session's state.
func DescribeSession(json.RawMessage) ([]Action, error) {
	return []Action{{Kind: ActSession}}, nil
}

// DescribeObserve is the action of a tool that only reads, but nothing a file or host
// rule places (WebSearch): asked about unless a rule names the tool, even in plan mode.
func DescribeObserve(json.RawMessage) ([]Action, error) {
	return []Action{{Kind: ActObserve}}, nil
}

// DescribeSessionUnless returns the describer of a session tool whose boolean input
// field, when true, makes it reach past the session (a durable cron job lives in the
// project; an exit that discards a worktree's changes throws work away): then Unknown.
func DescribeSessionUnless(field string) func(json.RawMessage) ([]Action, error) {
	return func(input json.RawMessage) ([]Action, error) {
		var in map[string]json.RawMessage
		if err := decode(input, &in); err != nil {
			return nil, err
		}
		var set bool
		if raw, ok := in[field]; ok && json.Unmarshal(raw, &set) == nil && set {
			return []Action{{Kind: ActUnknown}}, nil
		}
		return []Action{{Kind: ActSession}}, nil
	}
}
