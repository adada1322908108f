package tool

import "encoding/json"

// Specifier says what the parenthesised part of a Claude Code permission rule naming a
// tool matches: Bash(go test *), Read(./src/**), WebFetch(domain:x), Task(Explore).
type Specifier int

// The specifiers.
const (
	SpecNone    Specifier = iota // the tool's rules take none (TodoWrite, mcp__srv__tool)
	SpecCommand                  // a command pattern, matched with each command an Exec action runs
	SpecPath                     // a gitignore-style path, matched with a Read or Write action's paths
	SpecDomain                   // domain:host, matched with a Net action's host
	SpecName                     // a name, matched with a Session action's Name
)

// ClaudeCodeTool is a tool of Claude Code's, as Claude Code's own files name it
// (permission rules, agents' tools, hooks' matchers): the vocabulary ouro reads those
// files in. It is not the list of ouro's tools, which is the registry: ouro's tools
// describe their own calls (Describer). Describe here says what a call of Claude Code's
// tool does from Claude Code's input schema, for a call no registered tool describes.
type ClaudeCodeTool struct {
	Name string
	// Equivalent is ouro's tool for a name ouro spells otherwise (MultiEdit: Edit), ""
	// when ouro uses the name itself or has no such tool.
	Equivalent string
	// Specifier is what its rules' specifiers match.
	Specifier Specifier
	// Kind is what its calls do when that does not depend on the input (Read for Grep),
	// Unknown otherwise: what a rule naming it covers when read on its own.
	Kind Kind
	// Also lists the other names whose rules cover its calls (Task and Agent).
	Also []string
	// Describe says what a call does, from Claude Code's input schema; nil for a tool
	// whose calls are Unknown.
	Describe func(json.RawMessage) ([]Action, error)
}

// claudeCode is Claude Code's tool vocabulary (reference/claude-code-tools-2.1.md), in
// the order its permission rules are documented.
var claudeCode = []ClaudeCodeTool{
	{Name: "Bash", Specifier: SpecCommand, Kind: ActExec, Describe: DescribeCommand},
	{Name: "Read", Specifier: SpecPath, Kind: ActRead, Describe: DescribeFile(ActRead, "file_path")},
	{Name: "Edit", Specifier: SpecPath, Kind: ActWrite, Describe: DescribeFile(ActWrite, "file_path")},
	{Name: "Write", Specifier: SpecPath, Kind: ActWrite, Describe: DescribeFile(ActWrite, "file_path")},
	{Name: "MultiEdit", Equivalent: "Edit", Specifier: SpecPath, Kind: ActWrite, Describe: DescribeFile(ActWrite, "file_path")},
	{Name: "NotebookEdit", Specifier: SpecPath, Kind: ActWrite, Describe: DescribeFile(ActWrite, "notebook_path")},
	{Name: "NotebookRead", Equivalent: "Read", Specifier: SpecPath, Kind: ActRead, Describe: DescribeFile(ActRead, "notebook_path")},
	{Name: "Glob", Specifier: SpecPath, Kind: ActRead, Describe: DescribeGlob},
	{Name: "Grep", Specifier: SpecPath, Kind: ActRead, Describe: DescribeSearch},
	{Name: "LS", Specifier: SpecPath, Kind: ActRead, Describe: DescribeSearch},
	{Name: "WebFetch", Specifier: SpecDomain, Kind: ActNet, Describe: DescribeFetch},
	{Name: "Task", Specifier: SpecName, Kind: ActSession, Also: []string{"Agent"}, Describe: DescribeNamed("subagent_type", "Agent")},
	{Name: "Agent", Specifier: SpecName, Kind: ActSession, Also: []string{"Task"}, Describe: DescribeNamed("subagent_type", "Task")},
	{Name: "Skill", Specifier: SpecName, Kind: ActSession, Describe: DescribeNamed("skill")},
	{Name: "SlashCommand", Equivalent: "Skill"},
	{Name: "TodoWrite", Kind: ActSession, Describe: DescribeSession},
	{Name: "TodoRead", Kind: ActSession, Describe: DescribeSession},
	{Name: "TaskCreate", Kind: ActSession, Describe: DescribeSession},
	{Name: "TaskGet", Kind: ActSession, Describe: DescribeSession},
	{Name: "TaskList", Kind: ActSession, Describe: DescribeSession},
	{Name: "TaskUpdate", Kind: ActSession, Describe: DescribeSession},
	{Name: "TaskOutput", Kind: ActSession, Describe: DescribeSession},
	{Name: "TaskStop", Kind: ActSession, Describe: DescribeSession},
	{Name: "BashOutput", Equivalent: "TaskOutput", Kind: ActSession, Describe: DescribeSession},
	{Name: "KillShell", Equivalent: "TaskStop", Kind: ActSession, Describe: DescribeSession},
	{Name: "KillBash", Equivalent: "TaskStop", Kind: ActSession, Describe: DescribeSession},
	{Name: "AskUserQuestion", Kind: ActSession, Describe: DescribeSession},
	{Name: "ExitPlanMode", Kind: ActSession, Describe: DescribeSession},
	{Name: "EnterPlanMode"},
	{Name: "CronCreate", Describe: DescribeSessionUnless("durable")},
	{Name: "CronList", Kind: ActSession, Describe: DescribeSession},
	{Name: "CronDelete", Kind: ActSession, Describe: DescribeSession},
	{Name: "ScheduleWakeup", Kind: ActSession, Describe: DescribeSession},
	{Name: ToolSearchName, Kind: ActSession, Describe: DescribeSession},
	{Name: "SendMessage", Kind: ActSession, Describe: DescribeSession},
	{Name: "TeamCreate"},
	{Name: "TeamDelete"},
	{Name: "EnterWorktree", Kind: ActSession, Describe: DescribeSession},
	{Name: "ExitWorktree", Describe: DescribeSessionUnless("discard_changes")},
	{Name: "Workflow"},
	{Name: "WebSearch", Kind: ActObserve, Describe: DescribeObserve},
	{Name: "LSP"},
	{Name: "ListMcpResourcesTool"},
	{Name: "ReadMcpResourceTool"},
}

// claudeCodeIndex finds an entry of claudeCode by name.
var claudeCodeIndex = func() map[string]int {
	m := make(map[string]int, len(claudeCode))
	for i, t := range claudeCode {
		m[t.Name] = i
	}
	return m
}()

// LookupClaudeCode finds Claude Code's tool called name.
func LookupClaudeCode(name string) (ClaudeCodeTool, bool) {
	i, ok := claudeCodeIndex[name]
	if !ok {
		return ClaudeCodeTool{}, false
	}
	return claudeCode[i], true
}

// ClaudeCode lists Claude Code's tools.
func ClaudeCode() []ClaudeCodeTool { return append([]ClaudeCodeTool(nil), claudeCode...) }
