package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Tool names.
const (
	TaskName  = "Task"
	AgentName = "Agent"
)

// Config is what the Task tool needs from the session that offers it.
type Config struct {
	// Provider and Model serve every child unless ProviderFor says otherwise.
	Provider llm.Provider
	Model    string
	// ProviderFor, when set, picks the provider and model name for a child of agentType;
	// model is the definition's model ("" when it inherits). A nil provider falls back
	// to Provider/Model. Without ProviderFor a definition's model is ignored.
	ProviderFor func(agentType, model string) (llm.Provider, string)
	// BaseSystem is the parent's system prompt (or just its <env> block): its <env>…</env>
	// block, with the child's tools, is appended to each child's prompt.
	BaseSystem string
	// Tools is the parent's registry; children get subsets of its tools by name.
	Tools *tool.Registry
	// Named are tools the parent is not offered by default that a definition may still
	// name in its tools: (TodoWrite, which the task list replaced); children that inherit
	// the parent's tools do not get them.
	Named map[string]tool.Tool
	// ParentOnly are tools no child gets, even by naming them (the Workflow tool: the
	// agents of a workflow must not start workflows of their own).
	ParentOnly []string
	// ToolOptions are set on each child's registry (output budget, spill directory).
	ToolOptions tool.Options
	// Definitions are the user's agent types (LoadDefinitions); a definition named like a
	// built-in replaces it.
	Definitions []Definition
	// Gates, AfterTool and BeforeModel are the parent's seams, run for the children too:
	// permission asks reach the parent's approver through the same gate.
	Gates       []agent.Gate
	AfterTool   []agent.AfterTool
	BeforeModel []agent.BeforeModel
	// GatesFor, when set, replaces Gates for a definition with a permissionMode.
	GatesFor func(d Definition) []agent.Gate
	// ScopeFor, when set, is asked for the seams of a definition that has hooks of its
	// own; a nil Scope keeps the seams above.
	ScopeFor func(d Definition) *Scope
	// StartHook runs the SubagentStart hooks for a child; what it returns is added to the
	// prompt.
	StartHook func(ctx context.Context, child Child) string
	// Preload, when set, returns the blocks a child of a definition with skills: starts
	// with (each skill's whole text), before its prompt; what cannot be loaded it
	// reports itself.
	Preload func(ctx context.Context, d Definition) []llm.Block
	// StopHook gives the SubagentStop seam for a child; may be nil.
	StopHook func(child Child) agent.BeforeStop
	// Observer receives every event of every child, with the tool_use ID of the Task
	// call that started it (for stream-json's parent_tool_use_id). Children may run
	// concurrently, so it must be safe for concurrent use.
	Observer func(parentToolUseID string, e agent.Event)
	// MaxTurns bounds a child's model calls unless its definition says (default 30).
	MaxTurns int
	// Limits bound each child besides turns (time, tokens, cost); MaxTurns here is ignored.
	Limits    agent.Limits
	MaxOutput int
	// Depth is how deep this tool's children are nested minus one (0 for the session's
	// own Task tool); a child may delegate again while its depth is below MaxDepth
	// (default 2).
	Depth, MaxDepth int
	// TranscriptDir is the session's subagents/ folder; each child's transcript is
	// written there as <agentType>-<tool_use_id>.jsonl. Empty: no transcripts.
	TranscriptDir string
	// Warn receives problems writing transcripts; nil discards them.
	Warn func(string)
	// Background, when set, offers run_in_background: the child runs as a task of this
	// starter (the session's *background.Manager) and its final text arrives as a
	// notification.
	Background AgentStarter
	// Isolate, when set, offers isolation "worktree": it makes a fresh git worktree
	// named name for one child of d and returns what the child runs with there.
	Isolate func(ctx context.Context, name string, d Definition) (*Isolation, error)
}

// Isolation is what a child with isolation "worktree" runs with: its own git worktree,
// the tools that reach files rebound to it, and gates that confine writes to it.
type Isolation struct {
	// Dir is the worktree.
	Dir string
	// Tools replace the parent's tools of the same names for this child (Bash, Read,
	// Edit, Write ... bound to Dir); the child's other tools are the parent's.
	Tools map[string]tool.Tool
	// Gates replace the child's permission gates; GatesFor gives those of a nested child
	// of a definition (its permissionMode applied).
	Gates    []agent.Gate
	GatesFor func(d Definition) []agent.Gate
	// Finish runs once the child has ended, whatever the outcome: it removes an unchanged
	// worktree and returns what the lead should know (the branch, its commits and
	// diffstat, how to merge; or that it was removed). Nothing is merged.
	Finish func(ctx context.Context) string
}

// sessionOnly are tools that act on the whole session (moving its working directory):
// never a child's.
var sessionOnly = map[string]bool{"EnterWorktree": true, "ExitWorktree": true}

// Scope is the seams of a child whose definition brings hooks of its own: they replace
// Gates (GatesFor included), AfterTool, BeforeModel and StopHook for that child.
type Scope struct {
	Gates       []agent.Gate
	AfterTool   []agent.AfterTool
	BeforeModel []agent.BeforeModel
	StopHook    func(child Child) agent.BeforeStop
}

// Child names one subagent run for its hooks: its agent type, its id (the tool_use id of
// the Task call that started it) and its transcript ("" when none is written).
type Child struct {
	Type, ID, TranscriptPath string
}

// Tool is the Task tool (or its Agent alias). Both share one state: the usage totals.
type Tool struct {
	name string
	sh   *shared
}

type shared struct {
	cfg    Config
	types  []Definition
	byName map[string]Definition

	spawner Spawner // starts named teammates; nil: no teams
	// resumable are the background agents a message can continue, by task id.
	resumable map[string]*resumable

	mu     sync.Mutex
	usage  llm.Usage
	cost   float64
	parent *shared // usage also counts here (a nested Task tool)
}

// NewTool returns the Task tool and its Agent alias, sharing one state.
func NewTool(cfg Config) (task, agentAlias *Tool) {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 30
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 2
	}
	if cfg.Tools == nil {
		cfg.Tools = tool.NewRegistry()
	}
	sh := &shared{cfg: cfg, byName: map[string]Definition{}}
	for _, d := range BuiltIns() {
		sh.byName[d.Name] = d
		sh.types = append(sh.types, d)
	}
	for _, d := range cfg.Definitions {
		if _, ok := sh.byName[d.Name]; ok {
			for i := range sh.types {
				if sh.types[i].Name == d.Name {
					sh.types[i] = d
				}
			}
		} else {
			sh.types = append(sh.types, d)
		}
		sh.byName[d.Name] = d
	}
	return &Tool{name: TaskName, sh: sh}, &Tool{name: AgentName, sh: sh}
}

// Types lists the agent types offered, built-ins first.
func (t *Tool) Types() []Definition { return append([]Definition(nil), t.sh.types...) }

// Usage returns the tokens and cost of every child run so far (nested children included),
// for the session to add to what it reports.
func (t *Tool) Usage() (llm.Usage, float64) {
	t.sh.mu.Lock()
	defer t.sh.mu.Unlock()
	return t.sh.usage, t.sh.cost
}

func (sh *shared) addUsage(u llm.Usage, cost float64) {
	for s := sh; s != nil; s = s.parent {
		s.mu.Lock()
		s.usage = s.usage.Add(u)
		s.cost += cost
		s.mu.Unlock()
	}
}

const schemaTmpl = `{"type":"object","properties":{
"description":{"type":"string","description":"A short (3-5 word) description of the task"},
"prompt":{"type":"string","description":"The task, with everything the agent needs to know"},
"subagent_type":{"type":"string","enum":%s,"description":"The agent type"}%s},
"required":["description","prompt","subagent_type"],"additionalProperties":false}`

func (sh *shared) buildSpec() llm.ToolSpec {
	var names []string
	var sb strings.Builder
	sb.WriteString(`Launch a subagent to do a task on its own. It starts fresh and sees only your prompt, not this conversation: say everything it needs. Its single final report is this tool's result (the user does not see it; relay what matters). Several calls in one message run at once when their agents only read.

Agent types:
`)
	var parent []string
	if sh.cfg.Tools != nil {
		parent = sh.cfg.Tools.Names()
	}
	for _, d := range sh.types {
		names = append(names, d.Name)
		fmt.Fprintf(&sb, "- %s: %s (Tools: %s)\n", d.Name, d.Description, toolsNote(sh.toolNames(d), parent))
	}
	enum, _ := json.Marshal(names)
	bg := ""
	if sh.cfg.Background != nil || sh.spawner != nil {
		bg = `,
"run_in_background":{"type":"boolean","description":"Do not wait: its report arrives as a notification"}`
	}
	if sh.spawner != nil {
		bg += `,
"name":{"type":"string","description":"With run_in_background: a named teammate that stays, takes ready tasks and uses SendMessage"}`
	}
	if sh.cfg.Isolate != nil {
		bg += `,
"isolation":{"type":"string","enum":["worktree"],"description":"Work in a fresh git worktree; its branch is reported back"}`
	}
	return llm.ToolSpec{Description: sb.String(), InputSchema: json.RawMessage(fmt.Sprintf(schemaTmpl, enum, bg))}
}

// toolsNote names a type's tools: as "all yours except ..." when that is the shorter
// way to say it (general-purpose gets all but a few of the parent's), else one by one.
func toolsNote(tools, parent []string) string {
	list := strings.Join(tools, ", ")
	var missing []string
	for _, n := range parent {
		if !slices.Contains(tools, n) {
			missing = append(missing, n)
		}
	}
	for _, n := range tools {
		if !slices.Contains(parent, n) {
			return list // a tool the parent lacks: only the list says it
		}
	}
	if len(missing) == 0 {
		return "all yours"
	}
	if note := "all yours except " + strings.Join(missing, ", "); len(note) < len(list) {
		return note
	}
	return list
}

// Spec implements tool.Tool. The description lists each type with the tools it would get
// from the parent's registry as it is now, so tools added after NewTool are listed.
func (t *Tool) Spec() llm.ToolSpec {
	s := t.sh.buildSpec()
	s.Name = t.name
	return s
}

// ReadOnly implements tool.Tool: in general a child may write.
func (t *Tool) ReadOnly() bool { return false }

// Describe implements tool.Describer: a call starts a child of the agent type it names,
// whose own calls pass the gate one by one; rules on Task and Agent both name it.
func (t *Tool) Describe(input json.RawMessage) ([]tool.Action, error) {
	other := AgentName
	if t.name == AgentName {
		other = TaskName
	}
	return tool.DescribeNamed("subagent_type", other)(input)
}

// ReadOnlyInput implements tool.InputReadOnly: a call only reads when every tool of its
// agent type only reads.
func (t *Tool) ReadOnlyInput(input json.RawMessage) bool {
	var in taskInput
	if json.Unmarshal(input, &in) != nil {
		return false
	}
	d, ok := t.sh.byName[in.SubagentType]
	if !ok {
		return true // refused without doing anything
	}
	for _, name := range t.sh.toolNames(d) {
		if name == TaskName || name == AgentName {
			return false
		}
		pt, ok := t.sh.cfg.Tools.Get(name)
		if !ok || !pt.ReadOnly() {
			return false
		}
	}
	return true
}

// toolNames is the tools a child of d gets, in the parent's order: Explore the read-only
// ones, general-purpose all but Task/Agent, a definition without tools all (Task only
// while nesting is allowed), else those it names that exist.
func (sh *shared) toolNames(d Definition) []string {
	nest := sh.cfg.Depth+1 < sh.cfg.MaxDepth
	var parent []string
	if sh.cfg.Tools != nil {
		parent = sh.cfg.Tools.Names()
	}
	has := func(n string) bool {
		for _, p := range parent {
			if p == n {
				return true
			}
		}
		return false
	}
	var out []string
	switch {
	case d.Tools == nil && d.Source == "built-in" && d.Name == GeneralPurpose:
		for _, n := range parent {
			if n != TaskName && n != AgentName {
				out = append(out, n)
			}
		}
	case d.Tools == nil:
		for _, n := range parent {
			if n == AgentName || (n == TaskName && !nest) {
				continue
			}
			out = append(out, n)
		}
	default:
		for _, n := range d.Tools {
			if n == TaskName || n == AgentName {
				if nest && (has(TaskName) || has(AgentName)) && !contains(out, TaskName) {
					out = append(out, TaskName)
				}
				continue
			}
			if _, named := sh.cfg.Named[n]; (has(n) || named) && !contains(out, n) {
				out = append(out, n)
			}
		}
	}
	if len(sh.cfg.ParentOnly) > 0 {
		kept := out[:0]
		for _, n := range out {
			if !contains(sh.cfg.ParentOnly, n) {
				kept = append(kept, n)
			}
		}
		out = kept
	}
	if len(d.DisallowedTools) > 0 {
		kept := out[:0]
		for _, n := range out {
			if !contains(d.DisallowedTools, n) && !(n == TaskName && contains(d.DisallowedTools, AgentName)) {
				kept = append(kept, n)
			}
		}
		out = kept
	}
	return slices.DeleteFunc(out, func(n string) bool { return sessionOnly[n] })
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

type taskInput struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
	Background   bool   `json:"run_in_background"`
	Name         string `json:"name"`
	Isolation    string `json:"isolation"`
}

// Run implements tool.Tool: it runs one child to its end.
func (t *Tool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	sh := t.sh
	var in taskInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tool.Errorf("Invalid input for %s: %v", t.name, err), nil
	}
	d, ok := sh.byName[in.SubagentType]
	if !ok {
		names := make([]string, 0, len(sh.types))
		for _, d := range sh.types {
			names = append(names, d.Name)
		}
		sort.Strings(names)
		return tool.Errorf("Unknown subagent_type %q. The agent types that exist are: %s.", in.SubagentType, strings.Join(names, ", ")), nil
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tool.Errorf("The prompt is empty: say what the %s agent should do.", d.Name), nil
	}
	switch {
	case in.Isolation == "":
	case in.Isolation != "worktree":
		return tool.Errorf("isolation %q is not available: the only isolation here is \"worktree\".", in.Isolation), nil
	case sh.cfg.Isolate == nil:
		return tool.Errorf("isolation \"worktree\" is not available in this session; run the agent without isolation."), nil
	}
	if in.Name != "" && (!in.Background || sh.spawner == nil) {
		return tool.Errorf("name starts a teammate, which needs run_in_background: true; leave name out to run a subagent and wait for its report."), nil
	}
	if in.Name != "" {
		return sh.spawner.Spawn(ctx, x, SpawnInput{Name: in.Name, Description: in.Description, Prompt: in.Prompt, AgentType: d.Name, Isolation: in.Isolation}), nil
	}
	if in.Background && sh.cfg.Background != nil {
		if in.Isolation != "" {
			return sh.startBackground(x, d, in, nil), nil
		}
		return sh.startBackground(x, d, in, &agent.Conversation{}), nil
	}
	return sh.runChild(ctx, d, in, x), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
