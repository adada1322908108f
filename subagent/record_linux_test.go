package subagent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

// A child whose transcript cannot be written stops before its next step, as the session
// does: the call in the answer it could not record does not run, and the parent is told
// the child failed and why. The full disk is a file size limit (RLIMIT_FSIZE), set in a
// helper process (this test binary again) so that no other test meets it.
func TestChildStopsWhenItsTranscriptCannotBeWritten(t *testing.T) {
	dir := os.Getenv("OURO_TEST_FSIZE_DIR")
	if dir == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildStopsWhenItsTranscriptCannotBeWritten$", "-test.v")
		cmd.Env = append(os.Environ(), "OURO_TEST_FSIZE_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("the helper process: %v\n%s", err, out)
		}
		return
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}); err != nil {
		t.Skipf("cannot limit the file size: %v", err)
	}
	var runs atomic.Int32
	work := &fakeTool{name: "Work", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		runs.Add(1)
		return tool.Text("worked"), nil
	}}
	big, _ := json.Marshal(map[string]string{"note": strings.Repeat("x", 200_000)})
	child := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Work", Input: json.RawMessage(`{}`)}}},
		{ToolCalls: []scripted.ToolCall{{Name: "Work", Input: big}}},
		{Text: "went on"},
	}})
	task, _ := NewTool(Config{Provider: child, Model: "scripted", Tools: tool.NewRegistry(work),
		TranscriptDir: filepath.Join(dir, "subagents")})
	in, _ := json.Marshal(map[string]string{"description": "d", "prompt": "work", "subagent_type": GeneralPurpose})
	res, err := task.Run(context.Background(), tool.NewExec(tool.Call{ID: "toolu_1", Name: TaskName, Input: in}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text(), "record could not be written") || !strings.Contains(res.Text(), "file too large") {
		t.Fatalf("the parent's result: %s", res.Text())
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("Work ran %d times; want 1 (not the call whose answer was not recorded)", n)
	}
	if n := len(child.Requests()); n != 2 {
		t.Errorf("%d model calls; want none after the failed write", n)
	}
}
