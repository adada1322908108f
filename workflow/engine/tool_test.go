package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
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

func newTool(t *testing.T, dir string, r workflow.Runner) (*workflow.Tool, *background.Manager) {
	t.Helper()
	m := background.New(background.Config{Dir: filepath.Join(dir, "tasks")})
	t.Cleanup(func() { m.Close() })
	return workflow.NewTool(workflow.ToolConfig{CWD: dir, SaveDir: filepath.Join(dir, "saved"), Runner: r,
		Engine: Local{Store: workflow.NewMemStore()}, Background: m}), m
}

// A run is a background task under its run id: the call returns at once, the
// <task-notification> carries the result, the output file the progress.
func TestToolRunsInTheBackgroundAndNotifies(t *testing.T) {
	dir := t.TempDir()
	r := echo()
	wt, _ := newTool(t, dir, r)
	notes := make(chan string, 4)
	sink := tool.NotifierFunc(func(n tool.Notification) { notes <- n.Text })
	src := head + "phase('Ask'); return [args.n, await agent('hello', {label: 'greeter'})];"
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
	output := filepath.Join(dir, "tasks", m[1]+".output")
	for _, want := range []string{"<task-notification>", "<task-id>" + m[1], "<status>completed</status>", `<result>[7,"did: hello"]</result>`, "<tool-use-id>toolu_1", `<summary>Workflow "t" completed</summary>`, output} {
		if !strings.Contains(note, want) {
			t.Fatalf("notification lacks %q:\n%s", want, note)
		}
	}
	if r := wt.Render(); !strings.Contains(r, m[1]+"  t  completed") || !strings.Contains(r, "└─ Ask  agents: 0 running, 1 done, 0 failed, 0 replayed") {
		t.Fatalf("/workflows: %s", r)
	}
	out, err := os.ReadFile(output)
	for _, want := range []string{"== Ask", "#0 greeter started", "#0 greeter done", "completed: 1 agents (0 replayed from the journal)", `[7,"did: hello"]`} {
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("output file lacks %q: %s %v", want, out, err)
		}
	}
	// Resume with nothing but the run id: the journaled script runs, every call replayed.
	r.calls.Store(0)
	res = callTool(t, wt, `{"resumeFromRunId":"`+m[1]+`"}`, sink)
	if res.IsError {
		t.Fatal(res.Text())
	}
	note = <-notes
	if r.calls.Load() != 0 || !strings.Contains(note, `<result>[7,"did: hello"]`) {
		t.Fatalf("calls=%d %s", r.calls.Load(), note)
	}
	if r := wt.Render(); !strings.Contains(r, "0 done, 0 failed, 1 replayed") {
		t.Fatalf("/workflows after the resume: %s", r)
	}
}

func TestToolRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "w.js")
	os.WriteFile(outside, []byte(head+"return 1"), 0o600)
	os.MkdirAll(filepath.Join(dir, ".claude", "workflows"), 0o700)
	os.WriteFile(filepath.Join(dir, ".claude", "workflows", "review.js"), []byte(head+"return 'saved'"), 0o600)
	wt, _ := newTool(t, dir, echo())
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

// blocking is a runner whose agents wait for release or their context.
type blocking struct {
	release chan struct{}
	mu      sync.Mutex
	ended   []error
}

func (b *blocking) Agent(ctx context.Context, prompt string, _ workflow.AgentOptions) (string, llm.Usage, error) {
	select {
	case <-b.release:
		return "late", llm.Usage{OutputTokens: 5}, nil
	case <-ctx.Done():
		b.mu.Lock()
		b.ended = append(b.ended, ctx.Err())
		b.mu.Unlock()
		return "", llm.Usage{}, ctx.Err()
	}
}

// /workflows shows the phase tree while the run goes; a headless stop waits for the run
// (mechanism.Waiter) and gets its notification; TaskStop on the run id stops it without
// one.
func TestStopWaitsForRunsAndTaskStopEndsThem(t *testing.T) {
	dir := t.TempDir()
	r := &blocking{release: make(chan struct{})}
	wt, m := newTool(t, dir, r)
	var mu sync.Mutex
	var queued []string
	sink := tool.NotifierFunc(func(n tool.Notification) { mu.Lock(); queued = append(queued, n.Text); mu.Unlock() })
	take := func() string {
		mu.Lock()
		defer mu.Unlock()
		s := strings.Join(queued, "\n")
		queued = nil
		return s
	}
	src := "export const meta = { name: 'two', description: 'd', phases: [{title: 'Scan'}, {title: 'Judge'}] };\n" +
		"phase('Scan'); return await parallel([() => agent('a', {label: 'scan:a'}), () => agent('b', {label: 'scan:b'})]);"
	in, _ := json.Marshal(map[string]any{"script": src})
	res := callTool(t, wt, string(in), sink)
	if res.IsError {
		t.Fatal(res.Text())
	}
	// Concurrency may be 1 (min(16, cores−2)): at least one agent runs.
	for deadline := time.Now().Add(5 * time.Second); !regexp.MustCompile(`Scan  agents: [12] running`).MatchString(wt.Render()); {
		if time.Now().After(deadline) {
			t.Fatalf("/workflows while the agents run: %s", wt.Render())
		}
		time.Sleep(5 * time.Millisecond)
	}
	tree := wt.Render()
	for _, want := range []string{"two  running", "├─ Scan  agents: ", "◀ current", " scan:", "  running  0 tokens", "└─ Judge  not started"} {
		if !strings.Contains(tree, want) {
			t.Fatalf("/workflows lacks %q:\n%s", want, tree)
		}
	}
	go func() { time.Sleep(50 * time.Millisecond); close(r.release) }()
	d := mechanism.Waiter{Manager: m, Take: take}.BeforeStop(context.Background(), &agent.Stop{})
	if !d.Continue || !strings.Contains(d.Message, `<result>["late","late"]</result>`) {
		t.Fatalf("%+v", d)
	}

	// TaskStop by the run id: its agents are cancelled, no notification follows.
	r2 := &blocking{release: make(chan struct{})}
	wt2, m2 := newTool(t, t.TempDir(), r2)
	res = callTool(t, wt2, `{"script":"`+strings.ReplaceAll(head, "\n", "\\n")+`return await agent('x')"}`, sink)
	id := runIDOut.FindStringSubmatch(res.Text())
	if id == nil {
		t.Fatal(res.Text())
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(wt2.Render(), "1 running"); {
		if time.Now().After(deadline) {
			t.Fatalf("%s", wt2.Render())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Resuming the run while it still goes would run its unfinished agent twice.
	if res := callTool(t, wt2, `{"resumeFromRunId":"`+id[1]+`"}`, sink); !res.IsError || !strings.Contains(res.Text(), "is still running in this session") {
		t.Fatalf("resume of a running run: %s", res.Text())
	}
	msg, err := m2.Stop(id[1])
	if err != nil || !strings.Contains(msg, "Successfully stopped task "+id[1]) {
		t.Fatalf("%s %v", msg, err)
	}
	r2.mu.Lock()
	ended := len(r2.ended)
	r2.mu.Unlock()
	if ended != 1 || take() != "" {
		t.Fatalf("agents cancelled: %d; notified: %q", ended, take())
	}
}
