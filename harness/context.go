package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/compact"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/session"
)

// contextParts are what keeps the context useful over a long session: instruction files,
// cross-session memory and compaction.
type contextParts struct {
	mu           sync.Mutex
	usage        llm.Usage // what summaries and memory selections cost, counted towards the runs
	cost         float64
	instructions string
	stores       []*memory.Store
	recaller     *memory.Recaller
	compactor    *compact.Compactor
}

// setupContext loads the instruction files (AGENTS.md, CLAUDE.md ...), opens the memory
// stores and builds the compactor. It returns the text to add to the system prompt.
func (s *Session) setupContext(prov llm.Provider, model, home string) string {
	o := s.opts
	text, _, warns := memory.LoadInstructions(s.CWD, repoRoot(s.CWD), s.configHome())
	for _, w := range warns {
		fmt.Fprintf(o.Warn, "ouro: instructions: %s\n", w)
	}
	c := &contextParts{instructions: text}
	c.stores = []*memory.Store{
		memory.Open(memory.ProjectMemoryDir(s.projectDir), "project"),
		memory.Open(memory.UserMemoryDir(home), "user"),
	}
	c.recaller = &memory.Recaller{Provider: prov, Model: model, Stores: c.stores,
		OnUsage: func(u llm.Usage) { c.addUsage(u, model) }}
	g := s.guard
	c.compactor = compact.New(compact.Config{
		Provider: prov, Model: model, TranscriptPath: s.writer.Path(), Window: o.ContextWindow,
		Restore:     s.restoreAfterCompaction,
		PreCompact:  g.hooks.PreCompact,
		PostCompact: g.hooks.PostCompact,
		OnCompact: func(ev compact.Event) {
			c.addUsage(ev.Usage, model)
			if ev.Trigger == compact.TriggerManual && len(ev.Messages) > 0 {
				// A manual compaction happens outside a run, so no agent event records it.
				if err := s.writer.AppendEntry(session.TypeReplace, map[string]any{"messages": ev.Messages}); err != nil {
					fmt.Fprintf(o.Warn, "ouro: recording the compaction: %v\n", err)
				}
			}
		},
	})
	s.ctx = c
	if text == "" {
		return ""
	}
	return "\n<instructions>\n" + text + "\n</instructions>\n"
}

// addUsage counts a side call (a summary, a memory selection) towards the runs.
func (c *contextParts) addUsage(u llm.Usage, model string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.usage = c.usage.Add(u)
	c.cost += llm.LookupModel(model).Cost(u)
}

// restoreAfterCompaction is what a summary must not lose: the instruction files, the
// todo list and the skills loaded so far.
func (s *Session) restoreAfterCompaction() []llm.Block {
	var out []llm.Block
	if s.ctx.instructions != "" {
		out = append(out, llm.TextBlock("<instructions>\n"+s.ctx.instructions+"\n</instructions>"))
	}
	if snap := s.Todos.Snapshot(); snap != "" {
		out = append(out, llm.TextBlock(snap))
	}
	return append(out, s.invokedSkills()...)
}

// seams are the BeforeModel parts of the context: compaction first (it decides what the
// request holds), then recalled memories for a new user turn.
func (c *contextParts) seams() []agent.BeforeModel {
	return []agent.BeforeModel{c.compactor, c.recaller}
}

// sideUsage is what the run spends outside its own model calls: subagents and compaction
// summaries, as running totals.
func (s *Session) sideUsage() (llm.Usage, float64) {
	u, c := s.task.Usage()
	s.ctx.mu.Lock()
	defer s.ctx.mu.Unlock()
	return u.Add(s.ctx.usage), c + s.ctx.cost
}

// Compact summarises the conversation now (the REPL's /compact [focus]).
func (s *Session) Compact(ctx context.Context, focus string) error {
	return s.ctx.compactor.Compact(ctx, s.Conv, focus)
}

// Remember asks the model for durable facts in the recent conversation and saves them to
// the project's memory (the REPL's /remember, and the end of an interactive session).
func (s *Session) Remember(ctx context.Context) ([]memory.Record, error) {
	recent := s.Conv.Messages
	if len(recent) > 40 {
		recent = recent[len(recent)-40:]
	}
	if len(recent) == 0 {
		return nil, nil
	}
	saved, _, cerr, err := memory.Remember(ctx, s.Agent.Config().Provider, s.Model, s.ctx.stores[0], recent,
		fmt.Sprintf("session %s", s.ID()), 0)
	if err == nil && cerr != nil {
		fmt.Fprintf(s.opts.Warn, "ouro: memory consolidation failed, the store is unchanged: %v\n", cerr)
	}
	return saved, err
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
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
