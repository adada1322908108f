package task

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// The tools' names, as in Claude Code.
const (
	CreateName = "TaskCreate"
	GetName    = "TaskGet"
	ListName   = "TaskList"
	UpdateName = "TaskUpdate"
)

// Names are the four tools' names.
var Names = []string{CreateName, GetName, ListName, UpdateName}

// Lazy opens the board on first use, so a session that never touches its task list
// never opens the store. A failed open is tried again at the next use.
type Lazy struct {
	open func() (*Board, error)
	mu   sync.Mutex
	b    *Board
}

// NewLazy returns a Lazy that calls open once it is needed.
func NewLazy(open func() (*Board, error)) *Lazy { return &Lazy{open: open} }

// Board opens the board if it is not open yet.
func (l *Lazy) Board() (*Board, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b != nil {
		return l.b, nil
	}
	b, err := l.open()
	if err != nil {
		return nil, fmt.Errorf("the task list is unavailable: %w", err)
	}
	l.b = b
	return b, nil
}

// Opened returns the board if it was opened, else nil.
func (l *Lazy) Opened() *Board {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b
}

// NewTools returns TaskCreate, TaskGet, TaskList and TaskUpdate on the board l opens.
func NewTools(l *Lazy) []tool.Tool {
	return []tool.Tool{
		&taskTool{l: l, name: CreateName, desc: createDesc, schema: createSchema, run: runCreate},
		&taskTool{l: l, name: GetName, desc: getDesc, schema: getSchema, run: runGet, reads: true},
		&taskTool{l: l, name: ListName, desc: listDesc, schema: `{"type":"object","properties":{},"additionalProperties":false}`, run: runList, reads: true},
		&taskTool{l: l, name: UpdateName, desc: updateDesc, schema: updateSchema, run: runUpdate},
	}
}

const (
	createDesc = `Add a task to the task list: use it to plan work of 3 or more steps, or when asked for a task list. New tasks are pending with no owner; TaskUpdate sets dependencies, owner and status.`
	getDesc    = `Get one task by id: subject, description, status, owner, dependencies, metadata.`
	listDesc   = `List the tasks: id, subject, status, owner and open blockers. Work on the lowest id that is pending, unowned and unblocked.`
	updateDesc = `Update a task. Set status in_progress before starting it and completed as soon as it is fully done (deleted removes it). Setting owner claims it: refused if another owns it or a blocker is open. Only its owner completes an owned task. addBlocks/addBlockedBy add dependencies (no cycles). metadata is merged; null removes a key.`

	createSchema = `{"type":"object","properties":{` +
		`"subject":{"type":"string","description":"Short imperative title"},` +
		`"description":{"type":"string","description":"What to do and how to tell it is done"},` +
		`"activeForm":{"type":"string","description":"Present continuous, shown while in progress"},` +
		`"metadata":{"type":"object"}},"required":["subject","description"],"additionalProperties":false}`
	getSchema    = `{"type":"object","properties":{"taskId":{"type":"string"}},"required":["taskId"],"additionalProperties":false}`
	updateSchema = `{"type":"object","properties":{"taskId":{"type":"string"},"subject":{"type":"string"},"description":{"type":"string"},"activeForm":{"type":"string"},` +
		`"status":{"type":"string","enum":["pending","in_progress","completed","deleted"]},` +
		`"addBlocks":{"type":"array","items":{"type":"string"},"description":"Ids this task blocks"},` +
		`"addBlockedBy":{"type":"array","items":{"type":"string"},"description":"Ids that block this task"},` +
		`"owner":{"type":"string"},"metadata":{"type":"object"}},"required":["taskId"],"additionalProperties":false}`
)

type taskTool struct {
	l      *Lazy
	name   string
	desc   string
	schema string
	reads  bool
	run    func(ctx context.Context, b *Board, input json.RawMessage) (string, error)
}

func (t *taskTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.name, Description: t.desc, InputSchema: json.RawMessage(t.schema)}
}

// ReadOnly is true for TaskGet and TaskList. TaskCreate and TaskUpdate change only the
// task list, never files or processes, but run one at a time so that the ids of tasks
// created in one turn follow the order of the calls.
func (t *taskTool) ReadOnly() bool { return t.reads }

// Describe implements tool.Describer: the task list is the session's (or its team's)
// own state, never the user's files.
func (t *taskTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t *taskTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	b, err := t.l.Board()
	if err != nil {
		return tool.Errorf("%s failed: %v", t.name, err), nil
	}
	text, err := t.run(ctx, b, x.Input)
	if err != nil {
		return tool.Errorf("%s failed: %v", t.name, err), nil
	}
	res := tool.Text(text)
	res.ChangedState = !t.reads
	return res, nil
}

func decodeInput(name string, input json.RawMessage, v any) error {
	if err := json.Unmarshal(input, v); err != nil {
		return fmt.Errorf("invalid input for %s: %v", name, err)
	}
	return nil
}

func runCreate(ctx context.Context, b *Board, input json.RawMessage) (string, error) {
	var in struct {
		Subject     string                     `json:"subject"`
		Description string                     `json:"description"`
		ActiveForm  string                     `json:"activeForm"`
		Metadata    map[string]json.RawMessage `json:"metadata"`
	}
	if err := decodeInput(CreateName, input, &in); err != nil {
		return "", err
	}
	t, err := b.Create(ctx, in.Subject, in.Description, in.ActiveForm, in.Metadata)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Task #%s created successfully: %s", t.ID, t.Subject), nil
}

func runGet(ctx context.Context, b *Board, input json.RawMessage) (string, error) {
	var in struct {
		TaskID string `json:"taskId"`
	}
	if err := decodeInput(GetName, input, &in); err != nil {
		return "", err
	}
	t, err := b.Get(ctx, in.TaskID)
	if err != nil {
		return "", err
	}
	return Describe(t), nil
}

func runList(ctx context.Context, b *Board, _ json.RawMessage) (string, error) {
	ts, err := b.All(ctx)
	if err != nil {
		return "", err
	}
	if len(ts) == 0 {
		return "No tasks found", nil
	}
	return Lines(ts), nil
}

func runUpdate(ctx context.Context, b *Board, input json.RawMessage) (string, error) {
	var in struct {
		TaskID       string                     `json:"taskId"`
		Subject      *string                    `json:"subject"`
		Description  *string                    `json:"description"`
		ActiveForm   *string                    `json:"activeForm"`
		Status       *Status                    `json:"status"`
		AddBlocks    []string                   `json:"addBlocks"`
		AddBlockedBy []string                   `json:"addBlockedBy"`
		Owner        *string                    `json:"owner"`
		Metadata     map[string]json.RawMessage `json:"metadata"`
	}
	if err := decodeInput(UpdateName, input, &in); err != nil {
		return "", err
	}
	out, err := b.Update(ctx, in.TaskID, Update{Subject: in.Subject, Description: in.Description, ActiveForm: in.ActiveForm,
		Status: in.Status, AddBlocks: in.AddBlocks, AddBlockedBy: in.AddBlockedBy, Owner: in.Owner, Metadata: in.Metadata})
	if err != nil {
		return "", err
	}
	switch {
	case out.Deleted:
		return fmt.Sprintf("Task #%s deleted", out.Task.ID), nil
	case len(out.Fields) == 0:
		return fmt.Sprintf("Task #%s unchanged", out.Task.ID), nil
	}
	s := fmt.Sprintf("Updated task #%s %s", out.Task.ID, strings.Join(out.Fields, ", "))
	if out.Task.Owner != "" && in.Owner != nil {
		s += fmt.Sprintf(" (claimed by %s)", out.Task.Owner)
	}
	if len(out.Unblocked) > 0 {
		var u []string
		for _, t := range out.Unblocked {
			u = append(u, fmt.Sprintf("#%s %s", t.ID, t.Subject))
		}
		s += "\nUnblocked: " + strings.Join(u, ", ")
	}
	return s, nil
}

// Lines renders tasks one a line, as TaskList shows them: id, status, subject, owner,
// and the blockers still open.
func Lines(ts []Task) string {
	status := map[string]Status{}
	for _, t := range ts {
		status[t.ID] = t.Status
	}
	var sb strings.Builder
	for i, t := range ts {
		if i > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "#%s [%s] %s", t.ID, t.Status, t.Subject)
		if t.Owner != "" {
			fmt.Fprintf(&sb, " (owner: %s)", t.Owner)
		}
		var open []string
		for _, b := range t.BlockedBy {
			if st, ok := status[b]; ok && st != Completed {
				open = append(open, "#"+b)
			}
		}
		if len(open) > 0 {
			fmt.Fprintf(&sb, " [blocked by %s]", strings.Join(open, ", "))
		}
	}
	return sb.String()
}

// Describe renders one task in full, as TaskGet shows it.
func Describe(t Task) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Task #%s: %s\nStatus: %s", t.ID, t.Subject, t.Status)
	if t.Owner != "" {
		fmt.Fprintf(&sb, "\nOwner: %s", t.Owner)
	}
	if t.Description != "" {
		fmt.Fprintf(&sb, "\nDescription: %s", t.Description)
	}
	if len(t.BlockedBy) > 0 {
		fmt.Fprintf(&sb, "\nBlocked by: #%s", strings.Join(t.BlockedBy, ", #"))
	}
	if len(t.Blocks) > 0 {
		fmt.Fprintf(&sb, "\nBlocks: #%s", strings.Join(t.Blocks, ", #"))
	}
	if len(t.Metadata) > 0 {
		md, _ := json.Marshal(t.Metadata)
		fmt.Fprintf(&sb, "\nMetadata: %s", md)
	}
	if t.Note != "" {
		fmt.Fprintf(&sb, "\nNote: %s", t.Note)
	}
	return sb.String()
}
