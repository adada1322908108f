package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Tool names, as in Claude Code.
const (
	EnterName = "EnterWorktree"
	ExitName  = "ExitWorktree"
)

// Mover moves the session's working directory, its tools' workspace and Bash's sandbox
// into dir, or back where the session started when dir is "".
type Mover func(ctx context.Context, dir string) error

// Session is which worktree a session is in, shared by its EnterWorktree and
// ExitWorktree tools.
type Session struct {
	m    *Manager
	move Mover

	mu  sync.Mutex
	cur *Worktree
	// onChange hears each move: the worktree entered, or nil when the session left.
	onChange func(*Worktree)
}

// OnChange sets what hears each move in or out (the transcript, so that a resumed
// session goes back into its worktree). Set it before the tools run.
func (s *Session) OnChange(f func(*Worktree)) { s.onChange = f }

func (s *Session) changed(w *Worktree) {
	if s.onChange != nil {
		s.onChange(w)
	}
}

// NewTools returns the EnterWorktree and ExitWorktree tools of one session.
func NewTools(m *Manager, move Mover) (enter, exit tool.Tool, s *Session) {
	s = &Session{m: m, move: move}
	return enterTool{s}, exitTool{s}, s
}

// Current is the worktree the session is in (nil: the main checkout).
func (s *Session) Current() *Worktree {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Restore puts the session back into the worktree name (a resumed session that was in
// one); a worktree that is gone leaves it where it is, with the error.
func (s *Session) Restore(ctx context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.m.Get(ctx, name)
	if err != nil {
		return err
	}
	if err := s.move(ctx, w.Path); err != nil {
		return err
	}
	s.cur = w
	return nil
}

type enterTool struct{ s *Session }

func (enterTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: EnterName,
		Description: "Create a git worktree (.ouro/worktrees/<name>, branch ouro/<name> from HEAD) and move this session into it: files and Bash then work there, not in the main checkout. Use only when asked to work in a worktree; leave with ExitWorktree.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
"name":{"type":"string","description":"Letters, digits, . _ - per / segment, at most 64 chars; default: generated. An existing worktree's name enters it"},
"path":{"type":"string","description":"Enter this existing worktree instead"}},"additionalProperties":false}`)}
}

func (enterTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: entering a worktree of the session's own changes
// only where the session works.
func (enterTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

type enterInput struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

func (t enterTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	var in enterInput
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Errorf("Invalid input for %s: %v", EnterName, err), nil
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return tool.Errorf("This session is already in the worktree %s (%s); call ExitWorktree first.", s.cur.Name, s.cur.Path), nil
	}
	var w *Worktree
	var err error
	created := false
	switch {
	case in.Path != "" && in.Name != "":
		return tool.Errorf("Give either name (a new or existing worktree) or path (an existing one), not both."), nil
	case in.Path != "":
		w, err = s.m.ByPath(ctx, in.Path)
	default:
		name := in.Name
		if name == "" {
			name = s.m.NewName()
		}
		w, err = s.m.Create(ctx, name)
		created = err == nil
		if errors.Is(err, ErrExists) {
			w, err = s.m.Get(ctx, name)
		}
	}
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if err := s.move(ctx, w.Path); err != nil {
		if created {
			_, _ = s.m.RemoveIfUnchanged(context.WithoutCancel(ctx), w.Name)
		}
		return tool.Errorf("The session could not move into the worktree %s: %v", w.Path, err), nil
	}
	s.cur = w
	s.changed(w)
	verb := "Entered the existing"
	if created {
		verb = "Created and entered"
	}
	msg := fmt.Sprintf("%s worktree %s at %s", verb, w.Name, w.Path)
	if w.Branch != "" {
		msg += ", branch " + w.Branch
	}
	if w.Base != "" {
		msg += " (from " + short(w.Base) + ")"
	}
	return tool.Text(msg + ". The working directory is now this worktree: files and Bash work here, and the main checkout is outside the workspace until ExitWorktree."), nil
}

type exitTool struct{ s *Session }

func (exitTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ExitName,
		Description: "Leave the worktree EnterWorktree entered and return to the main checkout. keep leaves the worktree and its branch; remove deletes both, refused (listing what would be lost) while it has uncommitted files or commits on no other branch, unless discard_changes is true.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
"action":{"type":"string","enum":["keep","remove"]},
"discard_changes":{"type":"boolean","description":"With remove: throw away uncommitted files and unmerged commits"}},"required":["action"],"additionalProperties":false}`)}
}

func (exitTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: leaving (and removing, when nothing would be lost)
// changes only the session; discarding changes throws work away, so it is decided as any
// other action.
func (exitTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return describeExit(input)
}

var describeExit = tool.DescribeSessionUnless("discard_changes")

type exitInput struct {
	Action  string `json:"action"`
	Discard bool   `json:"discard_changes"`
}

func (t exitTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	var in exitInput
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Errorf("Invalid input for %s: %v", ExitName, err), nil
	}
	if in.Action != "keep" && in.Action != "remove" {
		return tool.Errorf("action must be \"keep\" or \"remove\", not %q.", in.Action), nil
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.cur
	if w == nil {
		return tool.Errorf("This session is not in a worktree (EnterWorktree was not called, or it already left); nothing to exit."), nil
	}
	var summary string
	if in.Action == "remove" {
		if err := s.m.Remove(ctx, w.Name, in.Discard); err != nil {
			return tool.Errorf("%v\nThe session is still in the worktree %s.", err, w.Path), nil
		}
	} else if sum, err := s.m.Summary(ctx, w.Name); err == nil {
		summary = sum.String()
	}
	if err := s.move(ctx, ""); err != nil {
		return tool.Errorf("Could not move the session back to the main checkout: %v", err), nil
	}
	s.cur = nil
	s.changed(nil)
	if in.Action == "remove" {
		what := "worktree " + w.Name
		if w.Branch != "" && !w.Hooked {
			what += " and its branch " + w.Branch
		}
		note := ""
		if in.Discard {
			note = ", discarding its changes"
		}
		return tool.Text(fmt.Sprintf("Removed the %s%s; the session is back in the main checkout.", what, note)), nil
	}
	msg := fmt.Sprintf("Left the worktree %s (kept at %s); the session is back in the main checkout.", w.Name, w.Path)
	if summary != "" {
		msg += "\n" + summary
	}
	if w.Branch != "" {
		msg += fmt.Sprintf("\nTo merge it: git merge %s. Nothing was merged.", w.Branch)
	}
	return tool.Text(strings.TrimSpace(msg)), nil
}
