package todo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// ToolName is the tool's name, as in Claude Code.
const ToolName = "TodoWrite"

// ResultText opens every successful TodoWrite result, as Claude Code's does.
const ResultText = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

const description = `Use this tool to create and manage a structured task list for your current session. It helps you track progress, organize complex tasks, and show the user how the work is going.

Use it for tasks with 3 or more distinct steps, when the user gives several tasks, or when they ask for a todo list. Skip it for a single trivial task.

Rules:
- Each call sends the whole list; it replaces the previous one.
- Each item has content (imperative: "Run the tests"), activeForm (present continuous: "Running the tests") and status: pending, in_progress or completed.
- Exactly one item is in_progress while you work; mark it in_progress before starting and completed as soon as it is done. Do not batch completions.
- Only mark an item completed when it is fully done (tests pass, no unresolved errors); if blocked, keep it in_progress and add an item for what blocks it.
- Remove items that are no longer relevant.`

const schema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The updated todo list",
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string", "minLength": 1},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
          "activeForm": {"type": "string", "minLength": 1}
        },
        "required": ["content", "status", "activeForm"],
        "additionalProperties": false
      }
    }
  },
  "required": ["todos"],
  "additionalProperties": false
}`

// ToolConfig tunes the TodoWrite tool.
type ToolConfig struct {
	// MaxItems bounds the list (0: DefaultMaxItems; <0: no limit).
	MaxItems int
	// OnChange, if set, is called with the new items after every successful update (the
	// REPL redraws its checklist, the harness persists the list). It runs on the call's
	// goroutine.
	OnChange func([]Item)
}

type todoTool struct {
	list *List
	cfg  ToolConfig
}

// NewTool returns the TodoWrite tool editing list; onChange may be nil.
func NewTool(list *List, onChange func([]Item)) tool.Tool {
	return NewToolConfig(list, ToolConfig{OnChange: onChange})
}

// NewToolConfig returns the TodoWrite tool editing list, configured by cfg.
func NewToolConfig(list *List, cfg ToolConfig) tool.Tool {
	if cfg.MaxItems == 0 {
		cfg.MaxItems = DefaultMaxItems
	}
	return &todoTool{list: list, cfg: cfg}
}

func (t *todoTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ToolName, Description: description, InputSchema: json.RawMessage(schema)}
}

// ReadOnly is true: the tool changes only session state, never files or processes, so it
// may run alongside reads. Its results set ChangedState.
func (t *todoTool) ReadOnly() bool { return true }

// Describe implements tool.Describer: the todo list is the session's own state.
func (t *todoTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t *todoTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	var in struct {
		Todos *[]Item `json:"todos"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return tool.Errorf("Invalid input for %s: %v. Send {\"todos\": [{\"content\", \"status\", \"activeForm\"}, ...]}.", ToolName, err), nil
	}
	if in.Todos == nil {
		return tool.Errorf("Invalid input for %s: todos is missing; send the whole list as {\"todos\": [...]} (an empty array clears it).", ToolName), nil
	}
	items := *in.Todos
	if err := Validate(items, t.cfg.MaxItems); err != nil {
		return tool.Errorf("%s was not applied; the previous list is unchanged. %s", ToolName, err), nil
	}
	t.list.Set(items)
	if t.cfg.OnChange != nil {
		t.cfg.OnChange(append([]Item(nil), items...))
	}
	res := tool.Text(fmt.Sprintf("%s\n\n%s", ResultText, Render(items)))
	res.ChangedState = true
	return res, nil
}
