package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/compact"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/subagent"
)

// Settings are the session's effective settings: Files lists the files they came from,
// most binding first, Skipped those left out (see settings.Load).
func (s *Session) Settings() *settings.Settings { return s.guard.settings }

// AgentDefinitions are the agent types the session can start: the built-in ones, then
// those found in the project's and the user's agents folders and in plugins.
func (s *Session) AgentDefinitions() []subagent.Definition {
	return append(subagent.BuiltIns(), s.agents...)
}

// AddDir makes dir one more directory the tools may work in for the rest of the session,
// as an entry of permissions.additionalDirectories would (relative to the working
// directory, `~` for the home folder; it must exist and be a directory), the sandbox's
// write roots included. It returns the directory's real path.
func (s *Session) AddDir(dir string) (string, error) {
	if dir = strings.TrimSpace(dir); dir == "" {
		return "", fmt.Errorf("which directory?")
	}
	if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "~") {
		dir = filepath.Join(s.CWD, dir)
	}
	before := s.Workspace.Roots()
	if err := s.Workspace.AddRoot(dir); err != nil {
		return "", err
	}
	roots := s.Workspace.Roots()
	if len(roots) == len(before) {
		return "", fmt.Errorf("%s is already a working directory of this session", dir)
	}
	added := roots[len(roots)-1]
	if s.Bash != nil {
		if cwd, sb := s.Bash.Placement(); sb != nil {
			nb := sb.WithRoot(added)
			s.Bash.MoveTo(cwd, &nb)
		}
	}
	return added, nil
}

// ContextUsage is what fills the context window, in estimated tokens (about four bytes
// a token, as compaction counts them).
type ContextUsage struct {
	Window int // the model's context window; 0 when unknown
	// System is the whole system prompt; Instructions (AGENTS.md, CLAUDE.md, rules) and
	// Memory (the saved memories' index) are parts of it.
	System, Instructions, Memory int
	InstructionFiles             []string
	Tools, ToolCount             int
	Messages, MessageCount       int
}

// Total is everything a request holds.
func (u ContextUsage) Total() int { return u.System + u.Tools + u.Messages }

// ContextWindow is the window compaction works against (tokens): --context-window, else
// what a local server reported, else the model table's.
func (s *Session) ContextWindow() int { return s.context().Compactor.Config().Window }

// ContextUsage measures what the next request would hold.
func (s *Session) ContextUsage() ContextUsage {
	specs := s.Tools.Specs()
	u := ContextUsage{
		Window:           s.ContextWindow(),
		System:           compact.Estimate(&llm.Request{System: s.system}),
		Instructions:     compact.Estimate(&llm.Request{System: s.context().Instructions}),
		Memory:           compact.Estimate(&llm.Request{System: s.context().MemoryIndex}),
		InstructionFiles: s.context().Sources,
		Tools:            compact.Estimate(&llm.Request{Tools: specs}),
		ToolCount:        len(specs),
		Messages:         compact.Estimate(&llm.Request{Messages: s.Conv.Messages}),
		MessageCount:     len(s.Conv.Messages),
	}
	return u
}
