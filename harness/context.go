package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/internal/gitdir"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
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

// contextConfig is what the context mechanism (instructions, memory, compaction) is
// given: the guard's import check and compaction hooks, the session's model.
func contextConfig(d dirs, m model, tr *transcript, g *guard, spent *spending, restore func() []llm.Block) memory.JoinConfig {
	return memory.JoinConfig{RepoRoot: repoRoot(d.cwd), Home: d.config, OuroHome: d.home, Check: g.importCheck, Tools: g.policy,
		Provider: m.provider, Model: m.name, Window: m.window, TranscriptPath: tr.w.Path(),
		PreCompact: g.hooks.PreCompact, PostCompact: g.hooks.PostCompact, Spend: spent.add, Restore: restore,
		Loaded: func(ctx context.Context, l memory.Loaded) {
			g.hooks.InstructionsLoaded(ctx, hook.Instruction{Path: l.Path, MemoryType: l.MemoryType, LoadReason: l.Reason,
				Globs: l.Globs, Trigger: l.Trigger, Parent: l.Parent})
		}}
}

// context is the session's instructions, memory and compactor.
func (s *Session) context() *memory.Context {
	c, _ := mechanism.Handle[*memory.Context](s.parts)
	return c
}

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
	v := g.policy.Check(context.Background(), tool.Call{Name: tool.ActRead.RuleName(), Input: in})
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
	if err := s.context().Compactor.Compact(ctx, s.Conv, focus); err != nil {
		return err
	}
	s.checkpoints().Compacted() // outside a run: no agent event tells the checkpoints
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
	saved, _, cerr, err := memory.Remember(ctx, meter, s.Model, s.context().Stores[0], recent,
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
func (s *Session) MemoryStores() []*memory.Store { return s.context().Stores }

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
