// Package workflow is what ouro knows of Claude Code's workflow scripts without running
// one: the types of a run, the journal (Store), saved workflows and the Workflow tool. The
// JavaScript engine is in workflow/engine; a session reaches it through an Engine
// (workflow/wfproc), in ouro itself started again as the workflow engine (workflow/wfserve).
package workflow

import (
	"context"
	"encoding/json"
	"runtime"
	"time"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/llm"
)

// Limits of one run. Going past one is an error, never a silent truncation.
const (
	MaxAgents = 1000 // agent() calls per run, nested workflows included
	MaxItems  = 4096 // items per parallel/pipeline call
)

// DefaultConcurrency is how many agents run at once: min(16, cores−2), at least 1.
func DefaultConcurrency() int { return max(1, min(16, runtime.NumCPU()-2)) }

// Runner runs one agent() call: a subagent given prompt and opts, answering with its final
// text and the tokens it spent. An error means the agent died (agent() resolves to null).
type Runner interface {
	Agent(ctx context.Context, prompt string, opts AgentOptions) (string, llm.Usage, error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, prompt string, opts AgentOptions) (string, llm.Usage, error)

// Agent calls f.
func (f RunnerFunc) Agent(ctx context.Context, prompt string, opts AgentOptions) (string, llm.Usage, error) {
	return f(ctx, prompt, opts)
}

// AgentOptions are agent()'s second argument.
type AgentOptions struct {
	Label     string          `json:"label,omitempty"`
	Phase     string          `json:"phase,omitempty"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	Model     string          `json:"model,omitempty"`
	Effort    string          `json:"effort,omitempty"`
	Isolation string          `json:"isolation,omitempty"`
	AgentType string          `json:"agentType,omitempty"`
	// MaxTokens is what is left of the run's token budget (0: no budget); the engine sets
	// it so an agent cannot spend past the ceiling.
	MaxTokens int `json:"-"`
}

// Script is a workflow's source and where it came from.
type Script struct {
	Name   string // saved name, or the file's base name
	Path   string // "" for an inline script
	Source string
}

// Options configure one run.
type Options struct {
	Runner Runner
	// Store keeps the journal; nil keeps it in memory for this run only.
	Store Store
	// Args is given to the script verbatim as `args` (JSON; empty means undefined).
	Args json.RawMessage
	// Resume is a run whose journal is replayed: its longest unchanged prefix of agent()
	// calls returns the journaled results at once.
	Resume string
	// RunID names the new run ("" → a fresh wf_… id).
	RunID string
	// Budget is the hard token ceiling of the run (0: none).
	Budget int
	// Concurrency bounds agents running at once (0: DefaultConcurrency).
	Concurrency int
	// Resolve finds a saved workflow for workflow(name) (nil: nesting is unavailable).
	Resolve func(name string) (Script, error)
	// Observe receives progress (phases, logs, agents starting and ending); it is called
	// from several goroutines.
	Observe func(Event)
	// Timeout bounds the run's wall time (0: none; the context still cancels it).
	Timeout time.Duration
	// MemoryLimit bounds, in bytes, the heap of the process the script runs in (0: none):
	// past it the run stops with an error that says how to raise it. The workflow
	// engine process, which is the run's, sets it from $OURO_WORKFLOW_MEMORY.
	MemoryLimit int64
}

// Event is progress of a run, for people watching.
type Event struct {
	Kind   string // "phase", "log", "agent_start", "agent_end"
	RunID  string
	Index  int    // the agent call's index
	Label  string // agent label, phase title or log message
	Phase  string
	Status string // agent_end: done, failed, replayed
	Tokens int
}

// Run statuses.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	StatusBudget      = "budget_exhausted"
	// StatusStopped is never journaled: it is how a run recorded running shows once its
	// lease ran out (RunRecord.Shown), resumable like an interrupted one.
	StatusStopped = "stopped"
)

// Result is how a run ended.
type Result struct {
	RunID  string
	Meta   Meta
	Status string
	// Value is what the script returned, as JSON ("null" when nothing).
	Value json.RawMessage
	// Error says why a run that did not complete ended.
	Error    string
	Tokens   int
	Agents   int // agent() calls, replayed ones included
	Replayed int // calls answered from the resumed run's journal
}

// NewRunID returns a fresh run id, wf_ and a UUID.
func NewRunID() string { return "wf_" + uuid.NewString() }

// Meta is a script's `export const meta = {…}`: what it is called, what it does and its
// phases.
type Meta struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	WhenToUse   string  `json:"whenToUse,omitempty"`
	Phases      []Phase `json:"phases,omitempty"`
}

// Phase is one entry of meta.phases.
type Phase struct {
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	Model  string `json:"model,omitempty"`
}

// MaxScriptBytes is the largest script accepted (the Workflow tool's limit).
const MaxScriptBytes = 512 << 10

// Engine checks and runs scripts: engine.Local in this process (tests, the engine
// process itself), wfproc.Client in the engine process (a session).
type Engine interface {
	// Check parses src without running any of it and returns its meta.
	Check(ctx context.Context, src string) (Meta, error)
	// Run runs script to its end under o (o.Store may be left to the engine).
	Run(ctx context.Context, script Script, o Options) (Result, error)
	// Journal returns the journal's record of run id (ErrNotFound if none).
	Journal(ctx context.Context, id string) (RunRecord, error)
}
