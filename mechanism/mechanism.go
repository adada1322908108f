// Package mechanism is the one shape in which a mechanism joins a session: the tools it
// offers, the seams it hangs on the loop, the observers it needs, its section of the
// system prompt and what a summary of the conversation must not lose.
//
// Each mechanism package offers its own Join(env, cfg) (Part, error): it builds its
// Part over the small interfaces of Env (recording and restoring transcript entries,
// notifying the model, asking for a turn, warning) without importing the harness, and
// says in Part.Phase when its seams run. The harness keeps a list of joiners, calls
// each once and assembles the Parts in phase order (Order) into one agent: ordering is
// data a test reads, not the position of a line.
package mechanism

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// Phase says when a Part's seams run relative to the others': a lower phase's gates
// decide first, its BeforeModel seams see a request first and its BeforeStop seams
// judge a stop first. Its tools are offered and its prompt section appended in the
// same order. Parts of one phase must not depend on each other's order (they keep the
// order they joined in).
type Phase int

// The phases, in the order they run.
const (
	// PhaseGate is the permission gate and the hooks: they decide before any other seam.
	PhaseGate Phase = iota * 10
	// PhaseTools is the built-in tools.
	PhaseTools
	// PhaseContext is compaction: it has its say on a request before anything is added.
	PhaseContext
	// PhaseNotify delivers what tools notified, after compaction, so a summary never
	// swallows a notification the model has not read.
	PhaseNotify
	// PhasePlan is the shared task list: it mirrors itself into the session's plan
	// before the plan's reminder (PhaseState) reads it.
	PhasePlan
	// PhaseState is what the session keeps for the model: tasks, todo, skills, grants,
	// schedules, background work. Their stop seams end work before a goal is judged.
	PhaseState
	// PhaseGoal judges a stop against the session's goal, once work has ended.
	PhaseGoal
	// PhaseWorkspace is where the session works (git worktrees).
	PhaseWorkspace
	// PhaseDelegation is the session's subagents, teammates and workflows.
	PhaseDelegation
	// PhaseExtension is the mechanisms from outside the harness (the scout's): the gate
	// and hooks have decided before them.
	PhaseExtension
	// PhaseRemote is the tools of MCP servers, offered last.
	PhaseRemote
)

// Part is what one mechanism adds to a session. Every field is optional.
type Part struct {
	// Name says which mechanism this is, in errors ("todo", "skills", "scout").
	Name string
	// Phase is when its seams run (see Phase). A Joiner's part from outside the harness
	// runs in PhaseExtension whatever it says, so the gate and hooks decide first.
	Phase Phase
	// Tools are offered to the model (unless the session's tool list leaves them out).
	Tools []tool.Tool
	// Deferred are offered on demand: the model is told their names and loads their
	// schemas with ToolSearch (rarely used tools, so the first request stays small).
	Deferred []tool.Tool
	// Prompt is a section of the system prompt; "" adds none.
	Prompt string
	// Restore gives what must be put back after the conversation is summarised
	// (instructions, the todo list, skills in force).
	Restore func() []llm.Block

	BeforeModel []agent.BeforeModel
	Gates       []agent.Gate
	AfterTool   []agent.AfterTool
	BeforeStop  []agent.BeforeStop
	Observers   []agent.Observer

	// Start runs once the session is assembled, before any run (a scheduler starts).
	Start func()
	// Close runs as the session ends, in the reverse of phase order.
	Close func() error
	// Handle is the mechanism's own value, for the session's accessors (Handle[T]).
	Handle any
}

// Entry is one entry of a session's transcript that a mechanism recorded.
type Entry struct {
	Type string
	Data json.RawMessage
}

// Journal records a mechanism's entries in the session's transcript, so that a resumed
// session gets them back (Env.Resumed).
type Journal interface {
	AppendEntry(typ string, data any) error
	// Sync makes what was appended durable (a kill -9 keeps it).
	Sync() error
}

// Warner tells whoever runs the session something went wrong that does not stop it.
type Warner interface {
	// Warnf writes "ouro: " and the formatted message on a line.
	Warnf(format string, args ...any)
}

// Waker asks for a turn of its own while the session is idle (a schedule fired, a
// background task ended while nobody typed); safe for concurrent use.
type Waker interface {
	Wake(source, prompt string)
}

// Asker asks the person a yes/no question while the session opens.
type Asker interface {
	Confirm(question string) bool
}

// Env is what a session offers a mechanism as it joins.
type Env struct {
	// Workspace is where the session's tools may reach; every path a mechanism checks
	// should resolve through it.
	Workspace *workspace.Workspace
	// CWD is the working directory; Project the state folder of this directory under
	// ouro's home; SessionDir the session's own folder beside its transcript.
	CWD, Project, SessionDir string
	// Journal records entries in the transcript; Resumed is what the transcript being
	// continued held, in order (nil for a new session).
	Journal Journal
	Resumed []Entry
	// Notes is where notifications for the model go: it reads them before its next
	// request.
	Notes tool.Notifier
	// Warn receives warnings.
	Warn Warner
	// Waker asks for a turn; nil means nobody is at the keyboard (headless).
	Waker Waker
	// Asker asks the person; nil means nobody is there to ask.
	Asker Asker
}

// Entries are the resumed entries of the given types, in order.
func (e Env) Entries(types ...string) []Entry {
	var out []Entry
	for _, en := range e.Resumed {
		if slices.Contains(types, en.Type) {
			out = append(out, en)
		}
	}
	return out
}

// Joiner is a mechanism the session is given from outside the harness. The harness
// calls Join once, while it assembles the session and before any run.
type Joiner interface {
	Join(Env) (Part, error)
}

// JoinFunc is one entry of a session's list of joiners.
type JoinFunc func(Env) (Part, error)

// With makes the joiner of a mechanism's Join and its configuration: the list of
// joiners holds one such line a mechanism.
func With[C any](join func(Env, C) (Part, error), cfg C) JoinFunc {
	return func(e Env) (Part, error) { return join(e, cfg) }
}

// Order sorts parts by phase, keeping the order of parts of one phase.
func Order(parts []Part) {
	slices.SortStableFunc(parts, func(a, b Part) int { return cmp.Compare(a.Phase, b.Phase) })
}

// Handle is the handle of the first part holding a T, and whether one does.
func Handle[T any](parts []Part) (T, bool) {
	for _, p := range parts {
		if h, ok := p.Handle.(T); ok {
			return h, true
		}
	}
	var zero T
	return zero, false
}

// Seams collects the seams and observers of parts, in order, into an agent.Config's
// fields: cfg's own entries stay first.
func Seams(cfg *agent.Config, parts ...Part) {
	for _, p := range parts {
		cfg.BeforeModel = append(cfg.BeforeModel, p.BeforeModel...)
		cfg.Gates = append(cfg.Gates, p.Gates...)
		cfg.AfterTool = append(cfg.AfterTool, p.AfterTool...)
		cfg.BeforeStop = append(cfg.BeforeStop, p.BeforeStop...)
		cfg.Observers = append(cfg.Observers, p.Observers...)
	}
}

// Restore gives what every part must have put back after a summary, in order.
func Restore(parts ...Part) func() []llm.Block {
	return func() []llm.Block {
		var out []llm.Block
		for _, p := range parts {
			if p.Restore != nil {
				out = append(out, p.Restore()...)
			}
		}
		return out
	}
}

// Start runs the parts' Start, in order.
func Start(parts []Part) {
	for _, p := range parts {
		if p.Start != nil {
			p.Start()
		}
	}
}

// Close runs the parts' Close in the reverse of their order and joins the errors.
func Close(parts []Part) error {
	var errs []error
	for i := len(parts) - 1; i >= 0; i-- {
		if c := parts[i].Close; c != nil {
			if err := c(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
