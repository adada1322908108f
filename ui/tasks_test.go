package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/task"
)

// The REPL shows the task list as it changes, as it shows TodoWrite's.
func TestREPLShowsTheTaskList(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"subject": "Write the docs", "description": "d", "activeForm": "Writing the docs"})
	upd, _ := json.Marshal(map[string]string{"taskId": "1", "status": "in_progress"})
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "TaskCreate", Input: in}}},
		{ToolCalls: []scripted.ToolCall{{Name: "TaskUpdate", Input: upd}}},
		{Text: "on it"},
	}})
	out, errOut := &syncBuf{}, &syncBuf{}
	r := &REPL{In: strings.NewReader("document it\n/exit\n"), Out: out, Err: errOut, Version: "test",
		Signals: make(chan os.Signal), Options: harness.Options{Model: harness.ModelOptions{Name: "scripted", Provider: prov},
			Dirs: harness.Dirs{CWD: t.TempDir(), Home: t.TempDir()}, TaskList: "docs"}}
	if err := r.Run(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Tasks (docs):\n  ☐ #1 Write the docs") || !strings.Contains(out.String(), "◐ Writing the docs…") {
		t.Fatalf("output:\n%s\nerrors:\n%s", out.String(), errOut.String())
	}
}

// stream-json carries the whole list after a change, blockedBy holding open blockers only.
func TestTaskListEvent(t *testing.T) {
	var buf bytes.Buffer
	h, _ := NewHeadless(&buf, FormatStreamJSON)
	h.Start(Init{SessionID: "s1"})
	buf.Reset()
	h.TaskList("team", []task.Task{
		{ID: "1", Subject: "a", Status: task.Completed},
		{ID: "2", Subject: "b", Status: task.Pending, BlockedBy: []string{"1", "3"}},
		{ID: "3", Subject: "c", Status: task.InProgress, Owner: "w"},
	})
	want := `{"type":"system","subtype":"task_list","list":"team","tasks":[{"id":"1","subject":"a","status":"completed","owner":"","blockedBy":[]},{"id":"2","subject":"b","status":"pending","owner":"","blockedBy":["3"]},{"id":"3","subject":"c","status":"in_progress","owner":"w","blockedBy":[]}],"session_id":"s1","uuid":`
	if !strings.HasPrefix(buf.String(), want) {
		t.Fatalf("got  %s\nwant %s…", buf.String(), want)
	}
	text, _ := NewHeadless(&buf, FormatText)
	buf.Reset()
	text.TaskList("team", nil)
	if buf.Len() != 0 {
		t.Fatalf("text output got %q", buf.String())
	}
}
