// Package goal is the goal loop (s17): the user sets a condition for the session (and,
// optionally, a command that must exit 0), and whenever the model wants to stop, an
// independent evaluator call decides from the evidence (what the tools returned, the
// check's output) whether the condition holds. Not met: the model is sent back with the
// reason. Impossible: the run ends failed with the reason. Still not met after the round
// cap: the run ends budget_exhausted. The model's own claim that it is done is never
// enough.
//
// A Loop joins a session as a mechanism.Part: its BeforeStop judges, its BeforeModel
// tells the model the goal, and its Restore puts the goal back after compaction. Where
// the goal is kept (the transcript) and how the check runs (through the session's
// permission gate and sandbox) are the caller's, through Config.
package goal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// Defaults and bounds.
const (
	// DefaultMaxRounds is how many stops are judged in one run before it ends
	// budget_exhausted, as the teaching version caps its goal loop.
	DefaultMaxRounds = 8
	// MaxRoundsLimit bounds what a flag or setting may ask for.
	MaxRoundsLimit = 100
	// BudgetRounds names the limit of a run that ended budget_exhausted because the
	// goal was still not met after its rounds (agent.Outcome.Budget).
	BudgetRounds = "goal_rounds"
	// maxConditionRunes and maxCheckBytes bound what a user may set.
	maxConditionRunes = 4000
	maxCheckBytes     = 4000
)

// State is a session's goal. The zero value is no goal.
type State struct {
	// Condition is what must hold, in the user's words.
	Condition string `json:"condition,omitempty"`
	// Check, when set, is a shell command that must exit 0 for the goal to be met.
	Check string `json:"check,omitempty"`
}

// Active reports whether there is a goal.
func (s State) Active() bool { return s.Condition != "" || s.Check != "" }

// What is the condition as the evaluator and the model read it.
func (s State) What() string {
	if s.Condition != "" {
		return s.Condition
	}
	if s.Check != "" {
		return fmt.Sprintf("the command `%s` succeeds (exits 0)", s.Check)
	}
	return ""
}

// Clean trims s and checks it: a condition of at most 4,000 characters, a check
// command of at most 4,000 bytes, neither holding a NUL byte.
func (s State) Clean() (State, error) {
	s.Condition, s.Check = strings.TrimSpace(s.Condition), strings.TrimSpace(s.Check)
	switch {
	case !utf8.ValidString(s.Condition) || strings.ContainsRune(s.Condition, 0):
		return State{}, errors.New("goal: the condition must be text (valid UTF-8, no NUL bytes)")
	case utf8.RuneCountInString(s.Condition) > maxConditionRunes:
		return State{}, fmt.Errorf("goal: the condition is %d characters long; keep it under %d (say what must hold, not how)", utf8.RuneCountInString(s.Condition), maxConditionRunes)
	case strings.ContainsRune(s.Check, 0):
		return State{}, errors.New("goal: the check command holds a NUL byte")
	case len(s.Check) > maxCheckBytes:
		return State{}, fmt.Errorf("goal: the check command is %d bytes long; keep it under %d (put a longer one in a script)", len(s.Check), maxCheckBytes)
	}
	return s, nil
}

// CheckResult is what running the check command gave.
type CheckResult struct {
	// Refused is set when the command was not run: a deny rule, a hook, the mode or the
	// sandbox refused it, or it could not start. Output says why. The goal can then
	// never be confirmed, and the run fails.
	Refused bool
	// Passed is set when it exited 0.
	Passed bool
	// Output is what it printed, with how it ended (exit code, timeout).
	Output string
}

// Verdict is the evaluator's answer.
type Verdict struct {
	Met        bool   `json:"met"`
	Reason     string `json:"reason"`
	Impossible bool   `json:"impossible,omitempty"`
}

// Report is one judged stop, for the user and the transcript.
type Report struct {
	Round     int          `json:"round"`
	MaxRounds int          `json:"max_rounds"`
	Goal      State        `json:"goal"`
	Verdict   Verdict      `json:"verdict"`
	Check     *CheckResult `json:"check,omitempty"`
	// Error says why the evaluator gave no usable verdict (the verdict is then not met).
	Error string `json:"error,omitempty"`
}

// Config is what a Loop needs from its session.
type Config struct {
	// Provider and Model answer the evaluator's calls (the session's, unless configured).
	Provider llm.Provider
	Model    string
	// MaxRounds bounds the stops judged in one run; 0 means DefaultMaxRounds.
	MaxRounds int
	// MaxTokens bounds the evaluator's answer; 0 means 512.
	MaxTokens int
	// Evidence bounds how much of the conversation the evaluator sees (characters, the
	// most recent kept); 0 means 16,000. CheckOutput bounds the check's output it sees
	// (its head and tail); 0 means 8,000.
	Evidence    int
	CheckOutput int
	// RunCheck runs the check command. It must go through the session's permission gate
	// and sandbox, as a Bash call would, and bound the time it takes. Required when a
	// goal has a check.
	RunCheck func(ctx context.Context, command string) CheckResult
	// Spend counts each evaluator call's usage towards the run (cost and usage).
	Spend func(u llm.Usage, model string)
	// Save records the goal each time it changes, so that a resumed session has it.
	Save func(State) error
	// Report is told of each judged stop.
	Report func(Report)
}

// Loop is a session's goal and the checks that hold the model to it. Safe for
// concurrent use (the REPL sets the goal while no run is going on, but reads may race
// with a wake-up turn).
type Loop struct {
	cfg Config

	mu        sync.Mutex
	state     State
	rounds    int    // stops judged in the current run
	announced string // the announcement the conversation last got ("" for none)
}

var (
	_ agent.BeforeStop  = (*Loop)(nil)
	_ agent.BeforeModel = (*Loop)(nil)
)

// New returns a Loop with the goal initial (the zero State for none); initial is not
// saved again.
func New(cfg Config, initial State) (*Loop, error) {
	if cfg.Provider == nil || cfg.Model == "" {
		return nil, errors.New("goal: the evaluator needs a provider and a model")
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.MaxRounds > MaxRoundsLimit {
		return nil, fmt.Errorf("goal: at most %d rounds may be judged in a run, not %d", MaxRoundsLimit, cfg.MaxRounds)
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 512
	}
	if cfg.Evidence <= 0 {
		cfg.Evidence = 16_000
	}
	if cfg.CheckOutput <= 0 {
		cfg.CheckOutput = 8_000
	}
	st, err := initial.Clean()
	if err != nil {
		return nil, err
	}
	if st.Check != "" && cfg.RunCheck == nil {
		return nil, errors.New("goal: a check command needs a way to run it (Config.RunCheck)")
	}
	return &Loop{cfg: cfg, state: st}, nil
}

// Goal returns the current goal (the zero State for none).
func (l *Loop) Goal() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// MaxRounds is how many stops one run may have judged.
func (l *Loop) MaxRounds() int { return l.cfg.MaxRounds }

// Set replaces the goal (the zero State clears it) and saves it. The model learns of
// the change before its next call.
func (l *Loop) Set(s State) error {
	s, err := s.Clean()
	if err != nil {
		return err
	}
	if s.Check != "" && l.cfg.RunCheck == nil {
		return errors.New("goal: this session cannot run a check command")
	}
	if l.cfg.Save != nil {
		if err := l.cfg.Save(s); err != nil {
			return fmt.Errorf("goal: saving it in the session: %w", err)
		}
	}
	l.mu.Lock()
	l.state = s
	l.mu.Unlock()
	return nil
}

// Part is the Loop as a mechanism.
func (l *Loop) Part() mechanism.Part {
	return mechanism.Part{Name: "goal", BeforeModel: []agent.BeforeModel{l}, BeforeStop: []agent.BeforeStop{l},
		Restore: func() []llm.Block {
			if a := announcement(l.Goal()); a != "" {
				return []llm.Block{llm.TextBlock(a)}
			}
			return nil
		}}
}

// announcement is how the model is told of the goal.
func announcement(s State) string {
	if !s.Active() {
		return ""
	}
	var b strings.Builder
	b.WriteString("<goal>\nThe user set a goal for this session: ")
	b.WriteString(s.What())
	if s.Check != "" && s.Condition != "" {
		fmt.Fprintf(&b, "\nIt is met only when the command `%s` exits 0.", s.Check)
	}
	b.WriteString("\nWhen you stop, an independent check judges from your tool results whether it is met; if it is not, you are sent back with the reason. Verify your work with tools before you stop.\n</goal>")
	return b.String()
}

const cleared = "<goal>\nThe user cleared the session's goal; it no longer applies.\n</goal>"

// BeforeModel starts each run's count of rounds and tells the model the goal when it has
// not heard it yet (a new goal, a changed one, a cleared one). The announcement stays in
// the conversation, so a resumed session that already has it is not told again.
func (l *Loop) BeforeModel(_ context.Context, t *agent.Turn) error {
	l.mu.Lock()
	if t.Number == 1 {
		l.rounds = 0
	}
	st, announced := l.state, l.announced
	l.mu.Unlock()
	want := announcement(st)
	if want == announced {
		return nil
	}
	switch {
	case want == "" && announced == "":
	case want == "" && lastGoalNote(t.Conv.Messages) != "" && lastGoalNote(t.Conv.Messages) != cleared:
		t.AppendUser(llm.TextBlock(cleared))
	case want != "" && lastGoalNote(t.Conv.Messages) != want:
		t.AppendUser(llm.TextBlock(want))
	}
	l.mu.Lock()
	l.announced = want
	l.mu.Unlock()
	return nil
}

// lastGoalNote is the last goal announcement in msgs ("" for none).
func lastGoalNote(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.RoleUser {
			continue
		}
		for j := len(msgs[i].Content) - 1; j >= 0; j-- {
			if b := msgs[i].Content[j]; b.Type == llm.BlockText && strings.HasPrefix(b.Text, "<goal>\n") {
				return b.Text
			}
		}
	}
	return ""
}
