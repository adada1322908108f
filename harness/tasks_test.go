package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/todo"
)

func call(name string, in any) scripted.ToolCall {
	b, _ := json.Marshal(in)
	return scripted.ToolCall{Name: name, Input: b}
}

func create(subject string) scripted.ToolCall {
	return call("TaskCreate", map[string]string{"subject": subject, "description": subject + " properly", "activeForm": subject + "ing"})
}

// The task tools feed the plan display (OnTodo), stream-json (OnTasks) and state.db under
// the home; the list is the session's own unless named.
func TestTaskListFeedsPlanAndState(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	var shown [][]todo.Item
	var lists []string
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{create("Write code"), create("Test it")}},
		{ExpectContains: "Task #2 created", ToolCalls: []scripted.ToolCall{call("TaskUpdate", map[string]any{"taskId": "2", "addBlockedBy": []string{"1"}})}},
		{ExpectContains: "Updated task #2 blockedBy", ToolCalls: []scripted.ToolCall{call("TaskUpdate", map[string]any{"taskId": "2", "owner": "main"})}},
		{ExpectContains: "#2 is blocked by #1 (pending)", ToolCalls: []scripted.ToolCall{call("TaskList", map[string]any{})}},
		{ExpectContains: "#2 [pending] Test it [blocked by #1]", Text: "planned"},
	}, func(o *Options) {
		o.UI.OnTodo = func(items []todo.Item) { shown = append(shown, items) }
		o.UI.OnTasks = func(list string, ts []task.Task) { lists = append(lists, list) }
	})
	if o := s.Run(context.Background(), "plan"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	if _, err := os.Stat(filepath.Join(home, "state.db")); err != nil {
		t.Fatalf("state.db: %v", err)
	}
	if len(shown) == 0 || len(shown[len(shown)-1]) != 2 || shown[len(shown)-1][1].Content != "#2 Test it" {
		t.Fatalf("OnTodo saw %v", shown)
	}
	if len(lists) == 0 || lists[0] != s.ID() || s.TaskList != s.ID() {
		t.Fatalf("OnTasks lists %v, session list %q, id %s", lists, s.TaskList, s.ID())
	}
	if s.Todos.Tool() != "TaskUpdate" {
		t.Fatalf("the plan is kept by %s", s.Todos.Tool())
	}
}

// A session that never uses its task list never opens state.db.
func TestTaskListOpensLazily(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, _ := open(t, home, cwd, []scripted.Turn{{Text: "hi"}}, nil)
	if o := s.Run(context.Background(), "hello"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(home, "state.db")); !os.IsNotExist(err) {
		t.Fatalf("state.db exists after a session that never used tasks: %v", err)
	}
}

// A resumed session works on the same list and sees it at once (reminder, snapshot); an
// idle model is reminded to use TaskUpdate.
func TestTaskListSurvivesResumeAndReminds(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("x"), 0o644)
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{create("Refactor")}},
		{Text: "planned"},
	}, nil)
	s.Todos.Items()
	if o := s.Run(context.Background(), "plan"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	first := s.ID()
	s.Close()
	read := []scripted.ToolCall{call("Read", map[string]string{"file_path": filepath.Join(cwd, "a.txt")})}
	get := call("TaskGet", map[string]string{"taskId": "1"})
	get.ID = "toolu_resumed"
	s2, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{get}},
		{ExpectContains: "Task #1: Refactor", ToolCalls: read},
		{ToolCalls: read},
		{ExpectContains: "Update it with TaskUpdate", Text: "ok"},
	}, func(o *Options) { o.Resume.Latest = true })
	if s2.TaskList != first {
		t.Fatalf("the resumed session works on list %q, want %q", s2.TaskList, first)
	}
	if o := s2.Run(context.Background(), "go on"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	if snap := s2.Todos.Snapshot(); !strings.Contains(snap, "#1 Refactor") || !strings.Contains(snap, "TaskUpdate") {
		t.Fatalf("snapshot after compaction would be %q", snap)
	}
}

// A named list is shared by sessions; a name with a path in it is refused.
func TestNamedTaskList(t *testing.T) {
	home := t.TempDir()
	a, _ := open(t, home, t.TempDir(), []scripted.Turn{{ToolCalls: []scripted.ToolCall{create("Shared work")}}, {Text: "ok"}},
		func(o *Options) { o.TaskList = "team" })
	if o := a.Run(context.Background(), "add"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	b, _ := open(t, home, t.TempDir(), []scripted.Turn{{ToolCalls: []scripted.ToolCall{call("TaskList", map[string]any{})}},
		{ExpectContains: "#1 [pending] Shared work", Text: "seen"}}, func(o *Options) { o.TaskList = "team" })
	if o := b.Run(context.Background(), "list"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	none := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "never"}}})
	_, err := Open(Options{Model: ModelOptions{Name: "scripted", Provider: none}, Dirs: Dirs{CWD: t.TempDir(), Home: home},
		TaskList: "../../etc"})
	if err == nil || !strings.Contains(err.Error(), "--task-list") {
		t.Fatalf("a list name with ../ in it: %v", err)
	}
	t.Setenv("OURO_TASK_LIST", "a/b")
	_, err = Open(Options{Model: ModelOptions{Name: "scripted", Provider: none}, Dirs: Dirs{CWD: t.TempDir(), Home: home}})
	if err == nil || !strings.Contains(err.Error(), "OURO_TASK_LIST") {
		t.Fatalf("OURO_TASK_LIST with a slash: %v", err)
	}
}

// An agent that names TodoWrite in its tools gets it, though the session is not offered it.
func TestAgentMayNameTodoWrite(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".claude", "agents"), 0o755)
	os.WriteFile(filepath.Join(cwd, ".claude", "agents", "planner.md"),
		[]byte("---\nname: planner\ndescription: plans\ntools: TodoWrite\n---\nPlan.\n"), 0o644)
	todos := map[string]any{"todos": []map[string]string{{"content": "a", "status": "pending", "activeForm": "doing a"}}}
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Task", map[string]string{"description": "plan it", "prompt": "plan", "subagent_type": "planner"})}},
		{ToolCalls: []scripted.ToolCall{call("TodoWrite", todos)}},
		{ExpectContains: "Todos have been modified", Text: "child planned"},
		{ExpectContains: "child planned", Text: "done"},
	}, nil)
	for _, n := range s.Tools.Names() {
		if n == "TodoWrite" {
			t.Fatal("TodoWrite is offered by default")
		}
	}
	if o := s.Run(context.Background(), "delegate"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
}

// After the conversation is summarised, the request carries the task list as it stands
// in the store, including what another session changed meanwhile.
func TestTaskListSurvivesCompaction(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, prov := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{create("Rename the package")}},
		{Text: "planned"},
		{Text: "Summary: the user wants a rename."}, // the compaction summary
		{Text: "carrying on"},
	}, func(o *Options) { o.TaskList = "shared" })
	ctx := context.Background()
	if out := s.Run(ctx, "plan"); !out.OK() {
		t.Fatalf("first run: %+v", out)
	}
	// Another session adds a task to the shared list.
	other, _ := open(t, home, t.TempDir(), []scripted.Turn{{ToolCalls: []scripted.ToolCall{create("Fix the imports")}}, {Text: "ok"}},
		func(o *Options) { o.TaskList = "shared" })
	if out := other.Run(ctx, "add"); !out.OK() {
		t.Fatalf("other: %+v", out)
	}
	if err := s.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if out := s.Run(ctx, "go on"); !out.OK() {
		t.Fatalf("run after the summary: %+v", out)
	}
	reqs := prov.Requests()
	var sent strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		sent.WriteString(m.Text())
	}
	if !strings.Contains(sent.String(), "#1 Rename the package") || !strings.Contains(sent.String(), "#2 Fix the imports") ||
		!strings.Contains(sent.String(), "keep it up to date with TaskUpdate") {
		t.Fatalf("the request after the summary lacks the task list:\n%s", sent.String())
	}
}

// A subagent works on its parent's list: what the child creates, the parent lists.
func TestSubagentSharesTheTaskList(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Task", map[string]string{"description": "plan it", "prompt": "plan", "subagent_type": "general-purpose"})}},
		{ToolCalls: []scripted.ToolCall{create("Child's task")}},
		{ExpectContains: "Task #1 created", Text: "child planned"},
		{ExpectContains: "child planned", ToolCalls: []scripted.ToolCall{call("TaskList", map[string]any{})}},
		{ExpectContains: "#1 [pending] Child's task", Text: "done"},
	}, nil)
	if o := s.Run(context.Background(), "delegate"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
}
