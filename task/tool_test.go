package task_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/tool"
)

func registry(t *testing.T, open func() (*task.Board, error)) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry(task.NewTools(task.NewLazy(open))...) // panics on a broken schema
	if strings.Join(reg.Names(), ",") != "TaskCreate,TaskGet,TaskList,TaskUpdate" {
		t.Fatalf("tools %v", reg.Names())
	}
	return reg
}

func runTool(reg *tool.Registry, name, input string) tool.Result {
	return reg.Run(context.Background(), tool.Call{ID: "x", Name: name, Input: json.RawMessage(input)})
}

func TestTools(t *testing.T) {
	b := task.NewBoard(task.Config{Store: task.NewMemStore(), List: "l", Holder: "me"})
	reg := registry(t, func() (*task.Board, error) { return b, nil })
	steps := []struct {
		name, input, want string
		isErr             bool
	}{
		{"TaskList", `{}`, "No tasks found", false},
		{"TaskCreate", `{"subject":"Write tests","description":"cover the parser","metadata":{"prio":1}}`, "Task #1 created successfully: Write tests", false},
		{"TaskCreate", `{"subject":"Ship","description":""}`, "Task #2 created successfully: Ship", false},
		{"TaskCreate", `{"description":"no subject"}`, "subject", true},
		{"TaskUpdate", `{"taskId":"2","addBlockedBy":["1"]}`, "Updated task #2 blockedBy", false},
		{"TaskList", `{}`, "#1 [pending] Write tests\n#2 [pending] Ship [blocked by #1]", false},
		{"TaskGet", `{"taskId":"1"}`, "Task #1: Write tests\nStatus: pending\nDescription: cover the parser\nBlocks: #2\nMetadata: {\"prio\":1}", false},
		{"TaskGet", `{"taskId":"1; DROP TABLE tasks"}`, "is not a task id", true},
		{"TaskGet", `{"taskId":7}`, "taskId", true},
		{"TaskUpdate", `{"taskId":"1","status":"finished"}`, "status", true},
		{"TaskUpdate", `{"taskId":"1","owner":"me","status":"in_progress"}`, "Updated task #1 owner, status (claimed by me)", false},
		{"TaskUpdate", `{"taskId":"1","status":"completed"}`, "Updated task #1 status\nUnblocked: #2 Ship", false},
		{"TaskUpdate", `{"taskId":"1"}`, "Task #1 unchanged", false},
		{"TaskUpdate", `{"taskId":"2","status":"deleted"}`, "Task #2 deleted", false},
		{"TaskGet", `{"taskId":"2"}`, "there is no task #2 in this list; its tasks are #1", true},
	}
	for _, s := range steps {
		res := runTool(reg, s.name, s.input)
		if res.IsError != s.isErr || !strings.Contains(res.Text(), s.want) {
			t.Fatalf("%s %s: error=%v %q, want error=%v containing %q", s.name, s.input, res.IsError, res.Text(), s.isErr, s.want)
		}
	}
}

// A store that cannot be opened makes each call fail with the reason, and is tried again.
func TestToolsStoreUnavailable(t *testing.T) {
	tries := 0
	reg := registry(t, func() (*task.Board, error) {
		tries++
		return nil, errors.New("the task store /x/state.db is damaged")
	})
	res := runTool(reg, "TaskList", `{}`)
	if !res.IsError || !strings.Contains(res.Text(), "the task list is unavailable: the task store /x/state.db is damaged") {
		t.Fatalf("%+v", res)
	}
	runTool(reg, "TaskCreate", `{"subject":"a","description":"b"}`)
	if tries != 2 {
		t.Fatalf("opened %d times, want a new try at each use", tries)
	}
}
