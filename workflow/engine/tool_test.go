package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workflow"
)

func callTool(t *testing.T, wt *workflow.Tool, input string, sink tool.Notifier) tool.Result {
	t.Helper()
	x := tool.NewExec(tool.Call{ID: "toolu_1", Name: workflow.ToolName, Input: json.RawMessage(input)}, nil, sink)
	res, err := wt.Run(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var runIDOut = regexp.MustCompile(`Run id: (wf_[a-z0-9-]+)`)

func TestToolRunsInTheBackgroundAndNotifies(t *testing.T) {
	dir := t.TempDir()
	r := echo()
	store := workflow.NewMemStore()
	wt := workflow.NewTool(workflow.ToolConfig{CWD: dir, SaveDir: filepath.Join(dir, "saved"), Runner: r,
		Engine: Local{Store: store}})
	defer wt.Close()
	notes := make(chan string, 4)
	sink := tool.NotifierFunc(func(n tool.Notification) { notes <- n.Text })
	src := head + "return [args.n, await agent('hello')];"
	in, _ := json.Marshal(map[string]any{"script": src, "args": map[string]int{"n": 7}})
	res := callTool(t, wt, string(in), sink)
	if res.IsError {
		t.Fatal(res.Text())
	}
	m := runIDOut.FindStringSubmatch(res.Text())
	if m == nil || !strings.Contains(res.Text(), filepath.Join(dir, "saved", m[1]+".js")) {
		t.Fatalf("%s", res.Text())
	}
	var note string
	select {
	case note = <-notes:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification")
	}
	for _, want := range []string{"<task-notification>", "<task-id>" + m[1], "<status>completed</status>", `<result>[7,"did: hello"]</result>`, "<tool-use-id>toolu_1"} {
		if !strings.Contains(note, want) {
			t.Fatalf("notification lacks %q:\n%s", want, note)
		}
	}
	if r := wt.Render(); !strings.Contains(r, m[1]+"  t  completed") || !strings.Contains(r, "1 done, 0 failed") {
		t.Fatalf("/workflows: %s", r)
	}
	out, err := os.ReadFile(filepath.Join(dir, "saved", m[1]+".result.json"))
	if err != nil || !strings.Contains(string(out), `"status": "completed"`) {
		t.Fatalf("%s %v", out, err)
	}
	// Resume with nothing but the run id: the journaled script runs, every call replayed.
	r.calls.Store(0)
	res = callTool(t, wt, `{"resumeFromRunId":"`+m[1]+`"}`, sink)
	if res.IsError {
		t.Fatal(res.Text())
	}
	note = <-notes
	if r.calls.Load() != 0 || !strings.Contains(note, "1 replayed") || !strings.Contains(note, `<result>[7,"did: hello"]`) {
		t.Fatalf("calls=%d %s", r.calls.Load(), note)
	}
}

func TestToolRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "w.js")
	os.WriteFile(outside, []byte(head+"return 1"), 0o600)
	os.MkdirAll(filepath.Join(dir, ".claude", "workflows"), 0o700)
	os.WriteFile(filepath.Join(dir, ".claude", "workflows", "review.js"), []byte(head+"return 'saved'"), 0o600)
	wt := workflow.NewTool(workflow.ToolConfig{CWD: dir, SaveDir: filepath.Join(dir, "saved"), Runner: echo(), Engine: Local{Store: workflow.NewMemStore()}})
	defer wt.Close()
	for input, want := range map[string]string{
		`{}`:                                "give the workflow as script",
		`{"script":"return 1"}`:             "export const meta",
		`{"scriptPath":"` + outside + `"}`:  "outside the working directory",
		`{"scriptPath":"../x.js"}`:          "outside the working directory",
		`{"name":"../../etc/passwd"}`:       "not a saved workflow's name",
		`{"name":"nope"}`:                   "the saved workflows are: review",
		`{"resumeFromRunId":"wf_unknown1"}`: "no workflow run wf_unknown1",
	} {
		res := callTool(t, wt, input, nil)
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s: %s", input, res.Text())
		}
	}
	if s := workflow.ListSaved(workflow.SavedDirs(dir), Check); len(s) != 1 || s[0].Meta.Name != "t" {
		t.Fatalf("%+v", s)
	}
}

// A headless session holds the notification for its stop, which waits for the run.
func TestStopWaitsForRuns(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	r := &scripted{answer: func(p string, _ workflow.AgentOptions) (string, error) { <-release; return "late", nil }}
	wt := workflow.NewTool(workflow.ToolConfig{CWD: dir, SaveDir: dir, Runner: r, HoldForStop: true, Engine: Local{Store: workflow.NewMemStore()}})
	defer wt.Close()
	res := callTool(t, wt, `{"script":"`+strings.ReplaceAll(head, "\n", "\\n")+`return await agent('x')"}`, tool.NotifierFunc(func(tool.Notification) {
		t.Error("a held notification went to the queue")
	}))
	if res.IsError {
		t.Fatal(res.Text())
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(wt.Render(), "1 running"); {
		if time.Now().After(deadline) {
			t.Fatalf("/workflows while the agent runs: %s", wt.Render())
		}
		time.Sleep(5 * time.Millisecond)
	}
	go func() { time.Sleep(50 * time.Millisecond); close(release) }()
	d := wt.BeforeStop(context.Background(), &agent.Stop{})
	if !d.Continue || !strings.Contains(d.Message, `<result>"late"</result>`) {
		t.Fatalf("%+v", d)
	}
	if d := wt.BeforeStop(context.Background(), &agent.Stop{}); d.Continue {
		t.Fatalf("delivered twice: %+v", d)
	}
}
