// Package todo is the session's task list and the TodoWrite tool that edits it, with
// Claude Code's schema ({todos: [{content, status, activeForm}]}). The list is session
// state: the harness persists it (MarshalJSON) in the transcript and restores it on resume
// (Restore). A Reminder, sitting on the loop's BeforeModel seam and observing its events,
// nudges the model when the list has open items but has not been updated for a while.
package todo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Status is where an item stands.
type Status string

// The three statuses Claude Code uses.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
)

// Valid reports whether s is one of the three statuses.
func (s Status) Valid() bool { return s == Pending || s == InProgress || s == Completed }

// Item is one task, with Claude Code's JSON field names.
type Item struct {
	// Content is the imperative form ("Run the tests").
	Content string `json:"content"`
	Status  Status `json:"status"`
	// ActiveForm is the present-continuous form shown while the item is in progress
	// ("Running the tests").
	ActiveForm string `json:"activeForm"`
}

// List is the session's todo list. It is safe for concurrent use.
type List struct {
	mu      sync.Mutex
	items   []Item
	version uint64
	tool    string // the tool that keeps the list; "" is TodoWrite
}

// NewList returns an empty list.
func NewList() *List { return &List{} }

// Items returns a copy of the items, in order.
func (l *List) Items() []Item {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Item(nil), l.items...)
}

// Set replaces the whole list (after validation by the caller).
func (l *List) Set(items []Item) {
	l.mu.Lock()
	l.items = append([]Item(nil), items...)
	l.tool = ""
	l.version++
	l.mu.Unlock()
}

// SetBy replaces the list with items kept by the named tool (the task list mirrors its
// tasks here, so the plan display, the reminder and the snapshot after compaction serve
// both).
func (l *List) SetBy(items []Item, tool string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append([]Item(nil), items...)
	l.tool = tool
	l.version++
}

// Holds reports whether the list is exactly items, kept by tool.
func (l *List) Holds(items []Item, tool string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tool == tool && slices.Equal(l.items, items)
}

// Tool names the tool that keeps the list (TodoWrite unless SetBy said otherwise).
func (l *List) Tool() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tool == "" {
		return ToolName
	}
	return l.tool
}

// Version counts replacements (Set and Restore); it lets observers notice an update.
func (l *List) Version() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version
}

// Open counts the items not yet completed (pending or in progress).
func (l *List) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return countOpen(l.items)
}

func countOpen(items []Item) int {
	n := 0
	for _, it := range items {
		if it.Status != Completed {
			n++
		}
	}
	return n
}

// Render returns the list as a checklist, one item a line: ☐ pending, ◐ in progress
// (showing its activeForm), ☑ completed. An empty list renders as "(no todos)".
func (l *List) Render() string { return Render(l.Items()) }

// Render formats items as a checklist (see List.Render).
func Render(items []Item) string {
	if len(items) == 0 {
		return "(no todos)"
	}
	var sb strings.Builder
	for i, it := range items {
		if i > 0 {
			sb.WriteByte('\n')
		}
		switch it.Status {
		case Completed:
			sb.WriteString("☑ " + it.Content)
		case InProgress:
			active := it.ActiveForm
			if active == "" {
				active = it.Content
			}
			sb.WriteString("◐ " + active + "…")
		default:
			sb.WriteString("☐ " + it.Content)
		}
	}
	return sb.String()
}

// MarshalJSON encodes the list as Claude Code's {"todos": [...]} (the TodoWrite input),
// so a transcript entry reads like the call that produced it.
func (l *List) MarshalJSON() ([]byte, error) {
	items := l.Items()
	if items == nil {
		items = []Item{}
	}
	return json.Marshal(struct {
		Todos []Item `json:"todos"`
	}{items})
}

// Restore replaces the list with one saved by MarshalJSON. It also accepts a bare array
// of items. The saved list is validated (without the item limit); on error the list is
// unchanged.
func (l *List) Restore(data []byte) error {
	items, err := decode(data)
	if err != nil {
		return fmt.Errorf("todo: restore: %w", err)
	}
	if err := Validate(items, -1); err != nil {
		return fmt.Errorf("todo: restore: %w", err)
	}
	l.Set(items)
	return nil
}

// UnmarshalJSON is Restore, so a List can sit inside a struct that is decoded.
func (l *List) UnmarshalJSON(data []byte) error { return l.Restore(data) }

func decode(data []byte) ([]Item, error) {
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "[") {
		var items []Item
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, err
		}
		return items, nil
	}
	var in struct {
		Todos []Item `json:"todos"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	return in.Todos, nil
}

// DefaultMaxItems bounds the list's length unless a tool is configured otherwise.
const DefaultMaxItems = 50

// Validate checks items and returns an error that says exactly what is wrong: an empty
// content or activeForm (by index), a status that is not one of the three, more than one
// item in progress (naming them), more than max items (max < 0: no limit; 0: the
// default), or the same content twice. Every problem found is listed.
func Validate(items []Item, max int) error {
	if max == 0 {
		max = DefaultMaxItems
	}
	var probs []string
	if max > 0 && len(items) > max {
		probs = append(probs, fmt.Sprintf("the list has %d items, more than the limit of %d; merge or drop some, or remove completed ones", len(items), max))
	}
	var inProgress []string
	seen := map[string]int{}
	for i, it := range items {
		content := strings.TrimSpace(it.Content)
		if content == "" {
			probs = append(probs, fmt.Sprintf("todos[%d].content is empty; say what the task is", i))
		}
		if strings.TrimSpace(it.ActiveForm) == "" {
			probs = append(probs, fmt.Sprintf("todos[%d].activeForm is empty; give the present-continuous form shown while it runs (e.g. \"Running the tests\")", i))
		}
		if !it.Status.Valid() {
			probs = append(probs, fmt.Sprintf("todos[%d].status is %q; it must be one of \"pending\", \"in_progress\", \"completed\"", i, it.Status))
		}
		if it.Status == InProgress {
			inProgress = append(inProgress, fmt.Sprintf("[%d] %q", i, it.Content))
		}
		if content != "" {
			if j, dup := seen[content]; dup {
				probs = append(probs, fmt.Sprintf("todos[%d].content %q duplicates todos[%d]; each task must appear once", i, it.Content, j))
			} else {
				seen[content] = i
			}
		}
	}
	if len(inProgress) > 1 {
		probs = append(probs, fmt.Sprintf("%d items are in_progress (%s); exactly one task may be in progress at a time, mark the others pending or completed", len(inProgress), strings.Join(inProgress, ", ")))
	}
	if len(probs) == 0 {
		return nil
	}
	return &ValidationError{Problems: probs}
}

// ValidationError lists what is wrong with a proposed list.
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid todo list: " + e.Problems[0]
	}
	return "invalid todo list:\n- " + strings.Join(e.Problems, "\n- ")
}
