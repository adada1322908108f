package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/compact"
	"github.com/ouroagent/ouro/internal/gitdir"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/tool"
)

// spending is what side calls cost (summaries, memory selections, hook judges), counted
// towards the runs.
type spending struct {
	mu    sync.Mutex
	usage llm.Usage
	cost  float64
}

// add counts a side call of model.
func (s *spending) add(u llm.Usage, model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usage = s.usage.Add(u)
	s.cost += llm.LookupModel(model).Cost(u)
}

// with adds the totals so far to u and cost (the subagents').
func (s *spending) with(u llm.Usage, cost float64) (llm.Usage, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return u.Add(s.usage), cost + s.cost
}

// contextParts are what keeps the context useful over a long session: instruction files,
// cross-session memory and compaction.
type contextParts struct {
	// instructions is the instruction files' text in the system prompt; sources the files.
	instructions string
	sources      []string
	memoryIndex  string // the saved memories' index in the system prompt
	stores       []*memory.Store
	compactor    *compact.Compactor
	part         mechanism.Part
}

// openContext loads the instruction files (AGENTS.md, CLAUDE.md, rules ...), opens the memory
// stores and builds the compactor, which puts the instructions and what restore gives
// back after a summary. Compaction comes first on the BeforeModel seam (it decides what
// the request holds), then what the files read since the last call bring (nested
// CLAUDE.md, path-scoped rules: see memory.Seam), then recalled memories for a new user turn.
func openContext(d dirs, m model, w *session.Writer, g *guard, spent *spending, warn io.Writer, restore func() []llm.Block) *contextParts {
	root := repoRoot(d.cwd)
	in := memory.Load(d.cwd, root, d.config, g.importCheck, instructionBudget(m))
	for _, w := range in.Warnings {
		fmt.Fprintf(warn, "ouro: instructions: %s\n", w)
	}
	text := in.Text
	later := memory.NewSeam(&memory.OnDemand{CWD: d.cwd, RepoRoot: root, Home: d.config,
		Check: g.importCheck, Rules: in.Rules, Loaded: in.Sources, Budget: instructionBudget(m)}, d.cwd, warner{warn}.Warnf)
	c := &contextParts{stores: []*memory.Store{
		memory.Open(memory.ProjectMemoryDir(d.project), "project"),
		memory.Open(memory.UserMemoryDir(d.home), "user"),
	}}
	// Recall costs no model call: the index of saved memories is in the system prompt
	// (as Claude Code's MEMORY.md is), and each new user turn gets the records its words
	// match, ranked locally.
	recaller := &memory.Recaller{Stores: c.stores}
	c.compactor = compact.New(compact.Config{
		Provider: m.provider, Model: m.name, TranscriptPath: w.Path(), Window: m.window,
		Restore: func() []llm.Block {
			var out []llm.Block
			if text != "" {
				out = append(out, llm.TextBlock("<instructions>\n"+text+"\n</instructions>"))
			}
			return append(out, restore()...)
		},
		PreCompact:  g.hooks.PreCompact,
		PostCompact: g.hooks.PostCompact,
		OnCompact: func(ev compact.Event) {
			spent.add(ev.Usage, m.name)
			if ev.Trigger == compact.TriggerManual && len(ev.Messages) > 0 {
				// A manual compaction happens outside a run, so no agent event records it.
				if err := w.AppendEntry(session.TypeReplace, map[string]any{"messages": ev.Messages}); err != nil {
					fmt.Fprintf(warn, "ouro: recording the compaction: %v\n", err)
				}
			}
		},
	})
	c.part = mechanism.Part{Name: "context", Phase: mechanism.PhaseContext, BeforeModel: []agent.BeforeModel{c.compactor, later, recaller},
		AfterTool: []agent.AfterTool{later}}
	if text != "" {
		c.part.Prompt = "<instructions>\n" + text + "\n</instructions>"
		c.instructions, c.sources = c.part.Prompt, in.Sources
	}
	if index := memory.Index(c.stores, memoryIndexBudget); index != "" {
		c.memoryIndex = index
		c.part.Prompt = strings.TrimPrefix(c.part.Prompt+"\n"+index, "\n")
	}
	return c
}

// instructionBudget is the share of the model's context window the instruction files may
// take: a quarter of it, at about four bytes a token (Claude Code loads them whole; a
// quarter keeps room for the work), and never less than MaxInstructionBytes.
func instructionBudget(m model) int {
	window := m.window
	if window <= 0 {
		window = llm.LookupModel(m.name).ContextWindow
	}
	return max(memory.MaxInstructionBytes, window) // window/4 tokens × 4 bytes
}

// memoryIndexBudget bounds the memory index in the system prompt (characters).
const memoryIndexBudget = 3000

// importCheck decides on an @import in an instruction file as on a Read of the file: a
// deny rule refuses it anywhere, an allow rule (or the mode) allows it, and what would ask
// is skipped, since nobody is asked while the instruction files load, headless or not.
func (g *guard) importCheck(path string) (memory.Access, string) {
	if g.policy.ReadDenied(path) {
		return memory.AccessDeny, "a deny rule forbids reading " + path
	}
	in, err := json.Marshal(map[string]string{"file_path": path})
	if err != nil {
		return memory.AccessDeny, err.Error()
	}
	v := g.policy.Check(context.Background(), tool.Call{Name: "Read", Input: in})
	if v.Behavior == permission.Allow {
		return memory.AccessAllow, ""
	}
	hint := v.Reason + "; reading it needs approval, and imports are never asked about"
	if len(v.Suggest) > 0 {
		hint += fmt.Sprintf("; to import it, add %s to permissions.allow", v.Suggest[0])
	}
	return memory.AccessAsk, hint
}

// Compact summarises the conversation now (the REPL's /compact [focus]).
func (s *Session) Compact(ctx context.Context, focus string) error {
	if err := s.ctx.compactor.Compact(ctx, s.Conv, focus); err != nil {
		return err
	}
	s.cp.Compacted() // outside a run: no agent event tells the checkpoints
	return nil
}

// Remembered is what a Remember call saved and what its model calls cost.
type Remembered struct {
	Saved   []memory.Record
	Usage   llm.Usage
	CostUSD float64
}

// Remember asks the model for durable facts in the recent conversation and saves them to
// the project's memory (the REPL's /remember, and the end of an interactive session). It
// says what the model calls cost, so spending money on memory is never silent.
func (s *Session) Remember(ctx context.Context) (Remembered, error) {
	recent := s.Conv.Messages
	if len(recent) > 40 {
		recent = recent[len(recent)-40:]
	}
	if len(recent) == 0 {
		return Remembered{}, nil
	}
	meter := &llm.Meter{Provider: s.provider, Model: s.Model}
	saved, _, cerr, err := memory.Remember(ctx, meter, s.Model, s.ctx.stores[0], recent,
		fmt.Sprintf("session %s", s.ID()), 0)
	if err == nil && cerr != nil {
		fmt.Fprintf(s.warn, "ouro: memory consolidation failed, the store is unchanged: %v\n", cerr)
	}
	u, cost := meter.Spent()
	return Remembered{Saved: saved, Usage: u, CostUSD: cost}, err
}

// ExtractOnExit says whether the session should save memories when it ends: the setting
// memory.extractOnExit when a file sets it, else on for interactive sessions only.
func (s *Session) ExtractOnExit(interactive bool) bool {
	if v := s.guard.settings.Memory.ExtractOnExit; v != nil {
		return *v
	}
	return interactive
}

// MemoryStores are the project and user memory stores.
func (s *Session) MemoryStores() []*memory.Store { return s.ctx.stores }

// repoRoot is the nearest directory at or above dir holding .git, or "".
func repoRoot(dir string) string {
	for d := dir; ; {
		if gitdir.Marks(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
