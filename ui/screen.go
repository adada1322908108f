package ui

import (
	"context"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/todo"
)

// Screen is a full-screen front end (package tui) driving the REPL: the REPL keeps its
// commands, prompts, questions, /rewind and wakes, and reads the lines the screen sends
// to In, while the screen draws the run's events, the todo list and permission dialogs
// itself instead of the REPL's plain lines.
type Screen interface {
	// Opened is called with each session the REPL opens (at start and after /clear).
	Opened(s *harness.Session)
	// Observe sees every event of every run.
	Observe(e agent.Event)
	// Approve answers a call the permission policy asks about.
	Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error)
	// Todos shows the todo or task list, titled.
	Todos(title string, items []todo.Item)
	// History shows a resumed session's recent turns (History), skipped prompts before
	// them, ahead of the input.
	History(items []HistoryItem, skipped int)
	// LineRead is called with each line of input the REPL takes, in order: a prompt,
	// each continued line of one, an answer to a question.
	LineRead(line string)
	// RunStarted and RunEnded bound each run of a prompt; totals are the session's so far.
	RunStarted(prompt string)
	RunEnded(o, totals agent.Outcome)
}

// Picker is a Screen that offers a choice itself (arrows and Enter, or a digit; Esc
// cancels) instead of the REPL's numbered list: Pick returns the index chosen, or false.
type Picker interface {
	Pick(title string, options []string) (int, bool)
}
