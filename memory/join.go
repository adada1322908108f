package memory

import (
	"context"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/compact"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/tool"
)

// JoinConfig is what a session gives its context mechanism.
type JoinConfig struct {
	// RepoRoot is the repository's root ("" outside one); Home the user's configuration
	// folder; OuroHome ouro's state (the user's memory is under it).
	RepoRoot, Home, OuroHome string
	// Check decides on each @import and on-demand file as on a Read.
	Check ReadCheck
	// Tools say what calls do, for the files a call worked on (nil: Claude Code's tools
	// by name).
	Tools tool.CallDescriber
	// Provider, Model and Window summarise the conversation (Window 0: the model's).
	Provider llm.Provider
	Model    string
	Window   int
	// TranscriptPath is named in the summary, so the model can look back.
	TranscriptPath string
	// PreCompact and PostCompact are the session's hooks.
	PreCompact  func(ctx context.Context, trigger, instructions string) (blocked bool, reason string)
	PostCompact func(ctx context.Context, trigger string)
	// Spend counts each summary's usage towards the run; Restore gives what the other
	// mechanisms must have put back after a summary.
	Spend   func(u llm.Usage, model string)
	Restore func() []llm.Block
	// Loaded, when set, is told of each instruction file that enters the context: at the
	// start, again after a summary, and as files read bring more (the session's
	// InstructionsLoaded hooks).
	Loaded func(ctx context.Context, l Loaded)
}

// Context is what keeps the context useful over a long session: instruction files,
// cross-session memory and compaction.
type Context struct {
	// Instructions is the instruction files' text in the system prompt; Sources the
	// files; MemoryIndex the saved memories' index in it.
	Instructions string
	Sources      []string
	MemoryIndex  string
	// Stores are the project's memory, then the user's.
	Stores    []*Store
	Compactor *compact.Compactor
}

// memoryIndexBudget bounds the memory index in the system prompt (characters).
const memoryIndexBudget = 3000

// Join loads the instruction files (AGENTS.md, CLAUDE.md, rules ...), opens the memory
// stores and builds the compactor, which puts the instructions and what Restore gives
// back after a summary (PhaseContext; the Part's Handle is the *Context). Compaction
// comes first on the BeforeModel seam (it decides what the request holds), then what
// the files read since the last call bring (nested CLAUDE.md, path-scoped rules: see
// Seam), then recalled memories for a new user turn.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	budget := InstructionBudget(jc.Model, jc.Window)
	in := Load(env.CWD, jc.RepoRoot, jc.Home, jc.Check, budget)
	for _, w := range in.Warnings {
		env.Warn.Warnf("instructions: %s", w)
	}
	text := in.Text
	tell(context.Background(), jc.Loaded, startLoaded(in, jc.Home, ReasonSessionStart))
	later := NewSeam(&OnDemand{CWD: env.CWD, RepoRoot: jc.RepoRoot, Home: jc.Home,
		Check: jc.Check, Rules: in.Rules, Loaded: in.Sources, Budget: budget}, env.CWD, jc.Tools, env.Warn.Warnf)
	later.OnLoaded(jc.Loaded)
	c := &Context{Stores: []*Store{
		Open(ProjectMemoryDir(env.Project), "project"),
		Open(UserMemoryDir(jc.OuroHome), "user"),
	}}
	// Recall costs no model call: the index of saved memories is in the system prompt
	// (as Claude Code's MEMORY.md is), and each new user turn gets the records its words
	// match, ranked locally.
	recaller := &Recaller{Stores: c.Stores}
	c.Compactor = compact.New(compact.Config{
		Provider: jc.Provider, Model: jc.Model, TranscriptPath: jc.TranscriptPath, Window: jc.Window,
		Restore: func() []llm.Block {
			var out []llm.Block
			if text != "" {
				out = append(out, llm.TextBlock("<instructions>\n"+text+"\n</instructions>"))
				tell(context.Background(), jc.Loaded, startLoaded(in, jc.Home, ReasonCompact))
			}
			return append(out, jc.Restore()...)
		},
		PreCompact:  jc.PreCompact,
		PostCompact: jc.PostCompact,
		OnCompact: func(ev compact.Event) {
			jc.Spend(ev.Usage, jc.Model)
			if ev.Trigger == compact.TriggerManual && len(ev.Messages) > 0 {
				// A manual compaction happens outside a run, so no agent event records it.
				if err := env.Journal.AppendEntry(session.TypeReplace, map[string]any{"messages": ev.Messages}); err != nil {
					env.Warn.Warnf("recording the compaction: %v", err)
				}
			}
		},
	})
	p := mechanism.Part{Name: "context", Phase: mechanism.PhaseContext, BeforeModel: []agent.BeforeModel{c.Compactor, later, recaller},
		AfterTool: []agent.AfterTool{later}, Handle: c}
	if text != "" {
		p.Prompt = "<instructions>\n" + text + "\n</instructions>"
		c.Instructions, c.Sources = p.Prompt, in.Sources
	}
	if index := Index(c.Stores, memoryIndexBudget); index != "" {
		c.MemoryIndex = index
		p.Prompt = strings.TrimPrefix(p.Prompt+"\n"+index, "\n")
	}
	return p, nil
}

// InstructionBudget is the share of the model's context window the instruction files may
// take: a quarter of it, at about four bytes a token (Claude Code loads them whole; a
// quarter keeps room for the work), and never less than MaxInstructionBytes.
func InstructionBudget(model string, window int) int {
	if window <= 0 {
		window = llm.LookupModel(model).ContextWindow
	}
	return max(MaxInstructionBytes, window) // window/4 tokens × 4 bytes
}
