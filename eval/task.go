// Package eval runs a fixed set of small practice tasks against a model and the harness,
// keeps every trajectory, checks each final state from outside the agent, and reports the
// six metrics of the seed's section 9: task success rate, invalid tool call rate,
// out-of-bounds requests, average turns, context tokens consumed and false completion rate.
package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Task kinds: a read-only question answered by the scout, or a fix made with guarded edits.
const (
	KindScout = "scout"
	KindFix   = "fix"
)

// Task is one practice repository with its prompt and machine-checkable acceptance. It is
// read from DIR/task.json; the repository itself is DIR/repo, and scripted trajectories
// are DIR/scripts/NAME.json (reference.json is the good one).
type Task struct {
	Name     string `json:"-"` // the folder's name
	Dir      string `json:"-"`
	Kind     string `json:"kind"`     // scout or fix
	Language string `json:"language"` // go or python
	Prompt   string `json:"prompt"`
	// Expect are facts the final answer must state (entry file, failing test and why).
	Expect []Expectation `json:"expect,omitempty"`
	// AllowedChanges are the files (doublestar globs, relative to the repository) a fix
	// may change; any other file changed, created or deleted fails the task. A scout task
	// may change nothing.
	AllowedChanges []string `json:"allowed_changes,omitempty"`
	// Test is the command that must pass after a fix (run by the checker, not trusted
	// from the trajectory); for a fix it is also the prefix the agent may run.
	Test string `json:"test,omitempty"`
	// SecretFiles must never be read: a deny rule keeps tools away from them, and any of
	// their content appearing in a tool result fails the task.
	SecretFiles []string `json:"secret_files,omitempty"`
	// Check is a script in the task folder that says whether the outcome holds: run with
	// sh in the working copy after the run, the final answer on its stdin, it exits 0 when
	// it does (a fix's hidden cases, a rename that left no old name, the fact a question
	// asks for). Its output says what is wrong.
	Check string `json:"check,omitempty"`
	// MaxTurns bounds the run (default 30).
	MaxTurns int `json:"max_turns,omitempty"`
	// Traps says in words what the task is meant to catch (documentation only).
	Traps string `json:"traps,omitempty"`
}

// Expectation is one fact the final answer must contain: Pattern is a regular expression
// (Go syntax, matched case-insensitively), What says in words what it checks.
type Expectation struct {
	What    string `json:"what"`
	Pattern string `json:"pattern"`
}

// LoadTasks reads every task folder under dir (a folder holding task.json), sorted by name.
func LoadTasks(dir string) ([]Task, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("task set %s: %w", dir, err)
	}
	var tasks []Task
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(p, "task.json")); err != nil {
			continue
		}
		t, err := LoadTask(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tasks = append(tasks, t)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("task set %s: no task folders (each needs a task.json)", dir)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].Name < tasks[j].Name })
	return tasks, nil
}

// LoadTask reads and checks one task folder.
func LoadTask(dir string) (Task, error) {
	var t Task
	data, err := os.ReadFile(filepath.Join(dir, "task.json"))
	if err != nil {
		return t, fmt.Errorf("task %s: %w", dir, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("task %s: task.json: %w", dir, err)
	}
	t.Name, t.Dir = filepath.Base(dir), dir
	if t.MaxTurns == 0 {
		t.MaxTurns = 30
	}
	return t, t.check()
}

func (t Task) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("task %s: %s", t.Name, fmt.Sprintf(format, a...))
	}
	switch t.Kind {
	case KindScout, KindFix:
	default:
		return bad("kind %q: want scout or fix", t.Kind)
	}
	switch t.Language {
	case "go", "python":
	default:
		return bad("language %q: want go or python", t.Language)
	}
	if strings.TrimSpace(t.Prompt) == "" {
		return bad("the prompt is empty")
	}
	if st, err := os.Stat(t.RepoDir()); err != nil || !st.IsDir() {
		return bad("no repo folder at %s", t.RepoDir())
	}
	for _, e := range t.Expect {
		if _, err := regexp.Compile("(?i)" + e.Pattern); err != nil {
			return bad("expectation %q: %v", e.What, err)
		}
	}
	for _, g := range append(append([]string(nil), t.AllowedChanges...), t.SecretFiles...) {
		if !doublestar.ValidatePattern(g) {
			return bad("bad glob %q", g)
		}
	}
	if t.Kind == KindFix && (t.Test == "" || len(t.AllowedChanges) == 0) {
		return bad("a fix task needs a test command and allowed_changes")
	}
	if t.Kind == KindScout && len(t.Expect) == 0 && t.Check == "" {
		return bad("a scout task needs at least one expectation or a check")
	}
	if t.Check != "" {
		if !filepath.IsLocal(t.Check) {
			return bad("check %q: name a script inside the task folder", t.Check)
		}
		if st, err := os.Stat(t.CheckPath()); err != nil || !st.Mode().IsRegular() {
			return bad("no check script at %s", t.CheckPath())
		}
	}
	if _, err := os.Stat(t.ScriptPath("reference")); err != nil {
		return bad("no reference trajectory at %s", t.ScriptPath("reference"))
	}
	return nil
}

// RepoDir is the practice repository copied fresh for each run.
func (t Task) RepoDir() string { return filepath.Join(t.Dir, "repo") }

// CheckPath is the task's check script ("" when it has none).
func (t Task) CheckPath() string {
	if t.Check == "" {
		return ""
	}
	return filepath.Join(t.Dir, t.Check)
}

// ScriptPath is the scripted trajectory called name.
func (t Task) ScriptPath(name string) string {
	return filepath.Join(t.Dir, "scripts", name+".json")
}
