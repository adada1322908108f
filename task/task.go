// Package task is the shared task list (Claude Code's TaskCreate, TaskGet, TaskList and
// TaskUpdate): a graph of tasks with dependencies that outlives a turn, a session and a
// process. A Board applies the semantics (sequential ids, symmetric blocks/blockedBy,
// no cycles, atomic claims with leases, owner-only completion, merged metadata) on top of
// a Store, which only keeps tasks and compares and sets their revisions: an embedded
// SQLite file (package task/sqlitestore) by default, a distributed store later. Every
// Store must pass the contract suite in task/storetest.
package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Status is where a task stands.
type Status string

// The statuses a stored task may have; Deleted is only an update's request.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Deleted    Status = "deleted"
)

// Task is one task, with Claude Code's JSON field names (its per-task file) and ouro's
// claim lease after them.
type Task struct {
	ID          string                     `json:"id"`
	Subject     string                     `json:"subject"`
	Description string                     `json:"description"`
	ActiveForm  string                     `json:"activeForm,omitempty"`
	Status      Status                     `json:"status"`
	Owner       string                     `json:"owner,omitempty"`
	Blocks      []string                   `json:"blocks"`
	BlockedBy   []string                   `json:"blockedBy"`
	Metadata    map[string]json.RawMessage `json:"metadata,omitempty"`

	// Holder identifies who claimed the task (a session ID, "cli"); LeaseUntil is when the
	// claim lapses unless the holder renews it. Both are empty for an unclaimed task.
	Holder     string    `json:"holder,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
	// Note says what last happened to the task that nobody asked for (a lapsed claim).
	Note    string    `json:"note,omitempty"`
	Created time.Time `json:"created,omitzero"`
	Updated time.Time `json:"updated,omitzero"`
	// Report is the completion report owed to a team's lead, kept with the task so that
	// completing it and owing its report are one write: ReportOwed once a teammate
	// completed it, "sending HOLDER UNIXTIME" while one sends it, "sent MESSAGEID" after.
	// A report owed (or being sent) for longer than a lease is sent by whoever looks next.
	Report string `json:"report,omitempty"`

	// Rev is the store's revision of the task, for compare-and-set; not part of the task.
	Rev int64 `json:"-"`
}

// Limits on what a task holds, so a hostile or confused caller cannot fill the store.
const (
	MaxSubject     = 500
	MaxDescription = 16 << 10
	MaxMetadata    = 16 << 10 // the metadata object, as JSON
	MaxListName    = 128
	MaxTasks       = 1000 // tasks in one list
	MaxLinks       = 100  // blocks or blockedBy of one task
)

// Store errors.
var (
	// ErrNotFound: no task with that id in the list.
	ErrNotFound = errors.New("task not found")
	// ErrConflict: a revision compared was no longer the stored one; nothing was written.
	ErrConflict = errors.New("task changed concurrently")
)

// ParseID reads a task id as the model may write it ("3", "#3", " 3 ") and returns its
// canonical form, or an error saying what an id looks like.
func ParseID(s string) (string, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "#")
	n, err := strconv.ParseUint(t, 10, 31)
	if err != nil || n == 0 {
		return "", fmt.Errorf("%q is not a task id: ids are the numbers TaskCreate returned (\"1\", \"2\", ...); TaskList shows them", textcut.Runes(s, 40, "…"))
	}
	return strconv.FormatUint(n, 10), nil
}

// ValidListName checks a list name (--task-list, OURO_TASK_LIST, CLAUDE_CODE_TASK_LIST_ID):
// letters, digits, '-', '_' and '.', not starting with '.', at most MaxListName bytes.
func ValidListName(name string) error {
	if name == "" {
		return errors.New("the task list name is empty")
	}
	if len(name) > MaxListName {
		return fmt.Errorf("the task list name is %d bytes long; at most %d are allowed", len(name), MaxListName)
	}
	if name[0] == '.' {
		return fmt.Errorf("the task list name %q starts with '.'; use letters, digits, '-', '_' and '.'", textcut.Runes(name, 40, "…"))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("the task list name %q has %q in it; use only letters, digits, '-', '_' and '.'", textcut.Runes(name, 40, "…"), r)
		}
	}
	return nil
}

// Open reports whether the task still needs doing (pending or in progress).
func (t Task) Open() bool { return t.Status != Completed }

// Claimed reports whether someone holds the task.
func (t Task) Claimed() bool { return t.Owner != "" }

// Clone returns a deep copy of t.
func (t Task) Clone() Task {
	c := t
	c.Blocks = append([]string(nil), t.Blocks...)
	c.BlockedBy = append([]string(nil), t.BlockedBy...)
	if t.Metadata != nil {
		c.Metadata = make(map[string]json.RawMessage, len(t.Metadata))
		for k, v := range t.Metadata {
			c.Metadata[k] = append(json.RawMessage(nil), v...)
		}
	}
	return c
}

// idNum orders ids numerically (ids that are no number sort last).
func idNum(id string) int {
	n, err := strconv.Atoi(id)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return n
}
