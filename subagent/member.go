package subagent

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Spawner starts named teammates: the Agent tool hands it a call with run_in_background
// and a name (package team implements it).
type Spawner interface {
	Spawn(ctx context.Context, x *tool.Exec, in SpawnInput) tool.Result
}

// SpawnInput is an Agent call that starts a teammate.
type SpawnInput struct {
	Name, Description, Prompt, AgentType string
	// Isolation is "worktree" when the teammate works in a git worktree of its own.
	Isolation string
}

// SetSpawner makes Agent calls with run_in_background and a name start teammates
// through s. Call it before the first run.
func (t *Tool) SetSpawner(s Spawner) { t.sh.spawner = s }

// Definition returns the agent type called name (general-purpose when name is "").
func (t *Tool) Definition(name string) (Definition, error) {
	if name == "" {
		name = GeneralPurpose
	}
	if d, ok := t.sh.byName[name]; ok {
		return d, nil
	}
	names := make([]string, 0, len(t.sh.types))
	for _, d := range t.sh.types {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return Definition{}, fmt.Errorf("unknown subagent_type %q; the agent types that exist are: %s", name, strings.Join(names, ", "))
}

// MemberSpec describes a long-lived child (a teammate): one agent and one conversation
// that runs many times, with tools and seams of the team's besides its definition's.
type MemberSpec struct {
	// Def is its agent type; Name names its transcript and appears in its events.
	Def  Definition
	Name string
	// Description is recorded in its transcript.
	Description string
	// Tools are added to what its definition gives, replacing tools of the same name
	// (its own view of the task list, SendMessage).
	Tools       []tool.Tool
	BeforeModel []agent.BeforeModel
	BeforeStop  []agent.BeforeStop
	// Gates run before the session's; with Modeless the definition's permissionMode is
	// left to them (plan approval lifts it).
	Gates    []agent.Gate
	Modeless bool
	Observer agent.Observer
	// System is appended to its system prompt (who it is in the team).
	System string
	// Isolation, when set (Tool.Isolate), makes it work in its own git worktree.
	Isolation *Isolation
}

// Isolate makes a git worktree called name for a long-lived child of d (isolation
// "worktree"); an error when the session offers no worktrees or it cannot be made.
func (t *Tool) Isolate(ctx context.Context, name string, d Definition) (*Isolation, error) {
	if t.sh.cfg.Isolate == nil {
		return nil, fmt.Errorf("isolation \"worktree\" is not available in this session (is it a git repository?); start the teammate without isolation")
	}
	return t.sh.cfg.Isolate(ctx, name, d)
}

// Member is a long-lived child. Run is not for concurrent use; the rest is.
type Member struct {
	sh   *shared
	b    *built
	Def  Definition
	Conv *agent.Conversation

	mu     sync.Mutex
	usage  llm.Usage
	cost   float64
	closed bool
}

// NewMember builds a long-lived child under the session's permissions, tools and hooks.
func (t *Tool) NewMember(s MemberSpec) (*Member, error) {
	system := s.System
	if s.Isolation != nil {
		system = strings.TrimRight(system, "\n") + "\n" + isolationNote(s.Isolation.Dir)
	}
	b, err := t.sh.build(s.Def, s.Name, s.Description, nil, override{iso: s.Isolation}, extras{
		tools: s.Tools, beforeModel: s.BeforeModel, gates: s.Gates, modeless: s.Modeless,
		stops: s.BeforeStop, observer: s.Observer, system: system, name: s.Name})
	if err != nil {
		return nil, fmt.Errorf("teammate %s could not start: %w", s.Name, err)
	}
	return &Member{sh: t.sh, b: b, Def: s.Def, Conv: &agent.Conversation{}}, nil
}

// Run runs the member on its conversation with input (none: it answers what its seams add).
func (m *Member) Run(ctx context.Context, input ...llm.Block) agent.Outcome {
	out := m.b.a.Run(withAgent(ctx, m.b.child.ID, m.b.dir), m.Conv, input...)
	m.sh.addUsage(out.Usage, out.CostUSD)
	m.mu.Lock()
	m.usage = m.usage.Add(out.Usage)
	m.cost += out.CostUSD
	m.mu.Unlock()
	return out
}

// Usage is what the member spent so far.
func (m *Member) Usage() (llm.Usage, float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage, m.cost
}

// Tools is the member's registry.
func (m *Member) Tools() *tool.Registry { return m.b.reg }

// Model is the model the member runs on.
func (m *Member) Model() string { return m.b.model }

// TranscriptPath is its transcript ("" when none is written).
func (m *Member) TranscriptPath() string { return m.b.child.TranscriptPath }

// Sync makes what the transcript holds durable.
func (m *Member) Sync() error {
	if m.b.tr == nil {
		return nil
	}
	return m.b.tr.w.Sync()
}

// Close closes the transcript.
func (m *Member) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed && m.b.tr != nil {
		m.b.tr.close()
	}
	m.closed = true
}

// Record writes an entry of the team's into the member's transcript (a task it claimed).
func (m *Member) Record(typ string, data any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.b.tr == nil {
		return
	}
	if err := m.b.tr.w.AppendEntry(typ, data); err != nil {
		m.b.tr.warn(fmt.Sprintf("teammate transcript %s: %v", m.b.tr.w.Path(), err))
	}
}
