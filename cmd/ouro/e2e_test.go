//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// These tests build the real binary and run it as a user would, against the fake model
// server speaking the real wire protocols.

var (
	binary string
	goEnv  []string // GOCACHE, GOMODCACHE and GOPATH of the developer's go command
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ouro-e2e-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "ouro")
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if v, err := exec.Command("go", "env", k).Output(); err == nil {
			goEnv = append(goEnv, k+"="+strings.TrimSpace(string(v)))
		}
	}
	// Every program the tests run is built here, once, in one go command (which builds
	// them in parallel and shares their packages), before m.Run starts the -timeout clock:
	// built inside a test, a helper's cold compile on a busy 2-core machine used up the
	// package's 10-minute limit while the test itself had not started.
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".",
		"../../mcpclient/testdata/server", "../../mcpclient/testdata/conformance").CombinedOutput()
	if err != nil {
		panic("build ouro and its test programs: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testProgram is the path of a program TestMain built: "server" (the MCP test server of
// mcpclient/testdata) or "conformance" (the MCP conformance client).
func testProgram(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(binary), name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("TestMain did not build %s: %v", name, err)
	}
	return p
}

// env is a clean environment: no keys or model settings leak in from the developer's.
type env struct {
	t    *testing.T
	home string
	dir  string
	vars []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, home: t.TempDir(), dir: t.TempDir()}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "OURO_") || k == "HOME" {
			continue
		}
		e.vars = append(e.vars, kv)
	}
	e.vars = append(e.vars, "HOME="+e.home, "OURO_HOME="+filepath.Join(e.home, ".ouro"))
	// The fresh HOME must not cost the go command its build cache (the demo runs go test).
	e.vars = append(e.vars, goEnv...)
	if err := os.WriteFile(filepath.Join(e.dir, "go.mod"), []byte("module example.com/demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// fake starts an in-process fake model and points the Anthropic and OpenAI env at it.
func (e *env) fake(turns ...scripted.Turn) *fakeserver.Server {
	e.t.Helper()
	srv, err := fakeserver.New(&scripted.Script{Turns: turns})
	if err != nil {
		e.t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	e.t.Cleanup(hs.Close)
	e.vars = append(e.vars, "ANTHROPIC_BASE_URL="+hs.URL, "ANTHROPIC_API_KEY=test-key", "OPENAI_BASE_URL="+hs.URL+"/v1")
	return srv
}

func (e *env) cmd(args ...string) *exec.Cmd {
	c := exec.Command(binary, args...)
	c.Dir = e.dir
	c.Env = e.vars
	return c
}

func (e *env) run(stdin string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	c := e.cmd(args...)
	c.Stdin = strings.NewReader(stdin)
	var o, er bytes.Buffer
	c.Stdout, c.Stderr = &o, &er
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run %v: %v", args, err)
	}
	return o.String(), er.String(), code
}

func bash(cmd string) []scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return []scripted.ToolCall{{Name: "Bash", Input: in}}
}

func parseLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stream-json line does not parse: %v\n%s", err, sc.Text())
		}
		lines = append(lines, m)
	}
	return lines
}

func TestDemoRunsWithoutKey(t *testing.T) {
	e := newEnv(t)
	tmp := t.TempDir()
	e.vars = append(e.vars, "TMPDIR="+tmp)
	out, stderr, code := e.run("", "demo")
	// The demo leaves nothing behind unless --keep asks for it (issue 12, item 21).
	if left, _ := filepath.Glob(filepath.Join(tmp, "ouro-demo-*")); len(left) != 0 {
		t.Errorf("the demo left %v behind", left)
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{
		"SCRIPTED", "[tool_use] id=toolu_01_01 name=Glob", "[tool_result] tool_use_id=toolu_01_01",
		"id=toolu_02_02 name=Read", "ran at the same time", "return hours*60 + minutes, nil",
		"run completed after 5 turns", "$ go test ./...\n  ok  \texample.com/duration",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestHeadlessStreamJSONRoundTrip(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "Reading go.mod.", ToolCalls: bash("cat go.mod")},
		scripted.Turn{ExpectContains: "module example.com/demo", Text: "The module is example.com/demo."},
	)
	out, stderr, code := e.run("", "-p", "which module is this?", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	lines := parseLines(t, out)
	if lines[0]["type"] != "system" || lines[0]["subtype"] != "init" {
		t.Fatalf("first line = %v", lines[0])
	}
	var types []string
	for _, l := range lines {
		types = append(types, l["type"].(string))
	}
	if got := strings.Join(types, ","); got != "system,assistant,user,assistant,result" {
		t.Fatalf("event sequence = %s", got)
	}
	res := lines[len(lines)-1]
	if res["subtype"] != "success" || res["is_error"] != false || res["result"] != "The module is example.com/demo." || res["num_turns"] != 2.0 {
		t.Fatalf("result = %v", res)
	}
	if res["session_id"] != lines[0]["session_id"] {
		t.Fatal("session ids differ between init and result")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Content[0].Type != llm.BlockToolResult || last.Content[0].ToolUseID != "toolu_01_01" || !strings.Contains(last.Content[0].ResultText(), "module example.com/demo") {
		t.Fatalf("second request's last message = %+v", last)
	}
}

func TestHeadlessJSONAndText(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "hello"}, scripted.Turn{Text: "hello again"})
	out, _, code := e.run("", "-p", "hi", "--output-format", "json")
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("json output: %v, exit %d\n%s", err, code, out)
	}
	if res["type"] != "result" || res["result"] != "hello" {
		t.Fatalf("result = %v", res)
	}
	out, _, code = e.run("", "-p", "hi")
	if code != 0 || out != "hello again\n" {
		t.Fatalf("text output %q, exit %d", out, code)
	}
}

func TestPromptFromStdin(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{ExpectContains: "piped question", Text: "got it"})
	out, stderr, code := e.run("piped question\n", "-p")
	if code != 0 || out != "got it\n" {
		t.Fatalf("exit %d, out %q, err %s", code, out, stderr)
	}
}

func TestExitStatusFollowsOutcome(t *testing.T) {
	ask, _ := json.Marshal(map[string]any{"questions": []map[string]any{{
		"question": "Which database?", "header": "DB", "multiSelect": false,
		"options": []map[string]string{{"label": "Postgres", "description": "server"}, {"label": "SQLite", "description": "file"}},
	}}})
	loop := scripted.Turn{ToolCalls: bash("true")}
	cases := []struct {
		name    string
		turns   []scripted.Turn
		args    []string
		code    int
		subtype string
		status  string
	}{
		{"needs_input", []scripted.Turn{{ToolCalls: []scripted.ToolCall{{Name: "AskUserQuestion", Input: ask}}}}, nil, 3, "error_during_execution", "needs_input"},
		{"max_turns", []scripted.Turn{loop, loop, loop}, []string{"--max-turns", "2"}, 4, "error_max_turns", "budget_exhausted"},
		{"refused", []scripted.Turn{{StopReason: llm.StopRefusal, Text: "no"}}, nil, 5, "error_during_execution", "refused"},
		{"failed", []scripted.Turn{{Fault: &scripted.Fault{Status: 400, Message: "bad request"}}}, nil, 1, "error_during_execution", "failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.fake(tc.turns...)
			out, stderr, code := e.run("", append([]string{"-p", "go", "--output-format", "json"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, stderr)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			if res["subtype"] != tc.subtype || res["is_error"] != true || res["status"] != tc.status {
				t.Fatalf("result = %v", res)
			}
			if tc.name == "needs_input" && !strings.Contains(res["question"].(string), "Which database?") {
				t.Fatalf("question missing: %v", res)
			}
		})
	}
}

func TestNoKeySaysWhatToSet(t *testing.T) {
	e := newEnv(t)
	_, stderr, code := e.run("", "-p", "hi")
	if code == 0 || !strings.Contains(stderr, "ANTHROPIC_API_KEY") || !strings.Contains(stderr, "ouro demo") {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	if strings.Count(strings.TrimSpace(stderr), "\n") > 3 {
		t.Fatalf("the message should be short:\n%s", stderr)
	}
}

func TestOpenAIProviderThroughBinary(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("echo from-bash")},
		scripted.Turn{ExpectContains: "from-bash", Text: "done via openai"},
	)
	out, stderr, code := e.run("", "-p", "go", "--model", "openai:gpt-5")
	if code != 0 || out != "done via openai\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	if reqs := srv.Requests(); reqs[0].Protocol != "openai" {
		t.Fatalf("protocol = %s", reqs[0].Protocol)
	}
}

// A run killed with SIGKILL while a tool runs resumes with --continue: the dangling call
// is answered as interrupted and the conversation goes on.
func TestKilledRunResumesWithContinue(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "Starting a long job.", ToolCalls: bash("echo started; sleep 60")},
		scripted.Turn{ExpectContains: "carry on", Text: "Resumed fine."},
	)
	c := e.cmd("-p", "run the long job")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(e.home, ".ouro", "projects")
	deadline := time.Now().Add(20 * time.Second)
	for !transcriptHas(sessions, `"tool_use"`) {
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatalf("the tool_use never reached the transcript\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.Wait()

	out, errOut, code := e.run("", "--continue", "-p", "carry on")
	if code != 0 || out != "Resumed fine.\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	msgs := reqs[1].Messages
	if err := llm.ValidateConversation(msgs); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult && b.ToolUseID == "toolu_01_01" && b.IsError && strings.Contains(strings.ToLower(b.ResultText()), "interrupted") {
				found = true
			}
		}
	}
	if !found || msgs[0].Text() != "run the long job" {
		t.Fatalf("resumed conversation lacks the history or the interrupted result: %+v", msgs)
	}
}

func transcriptHas(root, s string) bool {
	var hit bool
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
				hit = true
			}
		}
		return nil
	})
	return hit
}

func TestResumeByIDAndBadID(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "first"}, scripted.Turn{ExpectContains: "second", Text: "still here"})
	out, _, _ := e.run("", "-p", "first", "--output-format", "json")
	var res map[string]any
	json.Unmarshal([]byte(out), &res)
	id := res["session_id"].(string)
	out, stderr, code := e.run("", "--resume", id[:8], "-p", "second")
	if code != 0 || out != "still here\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	_, stderr, code = e.run("", "--resume", "nope", "-p", "x")
	if code == 0 || !strings.Contains(stderr, "no session") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}

func TestFakeModelCommand(t *testing.T) {
	e := newEnv(t)
	script := filepath.Join(e.dir, "script.json")
	os.WriteFile(script, []byte(`{"turns":[{"text":"Look.","tool_calls":[{"name":"Bash","input":{"command":"ls"}}]},{"expect_contains":"go.mod","text":"There is a go.mod."}]}`), 0o644)
	fm := e.cmd("fake-model", "--script", script, "--exit-when-done")
	stdout, err := fm.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := fm.Start(); err != nil {
		t.Fatal(err)
	}
	defer fm.Process.Kill()
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	e.vars = append(e.vars, "ANTHROPIC_BASE_URL="+strings.TrimSpace(url), "ANTHROPIC_API_KEY=x")
	out, stderr, code := e.run("", "-p", "what is here?")
	if code != 0 || out != "There is a go.mod.\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	done := make(chan error, 1)
	go func() { done <- fm.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("fake-model exited with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("fake-model did not exit when its script was done")
	}
	_, stderr, code = e.run("", "fake-model", "--script", filepath.Join(e.dir, "missing.json"))
	if code == 0 || !strings.Contains(stderr, "missing.json") {
		t.Fatalf("missing script: exit %d, %s", code, stderr)
	}
}

func TestREPLSession(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{Text: "Listing.", ToolCalls: bash("ls")},
		scripted.Turn{ExpectContains: "go.mod", Text: "You have a go.mod."},
	)
	out, stderr, code := e.run("what is here?\n/cost\n/nonsense\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"⏺ Bash(ls)", "⎿ go.mod", "You have a go.mod.", "2 turns", "$"} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "unknown command /nonsense") {
		t.Errorf("stderr lacks the unknown command error: %s", stderr)
	}
}

func TestBadFlags(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"-p", "x", "--output-format", "yaml"},
		{"-p", "x", "--resume", "a", "--continue"},
		{"-p"},
	} {
		_, stderr, code := e.run("", args...)
		if code == 0 || !strings.HasPrefix(stderr, "ouro: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	out, _, code := e.run("", "--version")
	if code != 0 || !strings.HasPrefix(out, "ouro ") {
		t.Fatalf("--version: %q", out)
	}
}

// Several reads in one turn plus a write: the results come back in call order, the reads
// ran at the same time (their recorded intervals overlap), the write ran after them.
func TestParallelReadsThenWrite(t *testing.T) {
	e := newEnv(t)
	line := strings.Repeat("abcdefghij", 500) + "\n"
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(strings.Repeat(name+" "+line, 2000)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) scripted.ToolCall {
		in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, name)})
		return scripted.ToolCall{Name: "Read", Input: in}
	}
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "out/summary.txt"), "content": "three files read\n"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{read("a.txt"), read("b.txt"), read("c.txt"), {Name: "Write", Input: write}}},
		scripted.Turn{Text: "Done."},
	)
	out, stderr, code := e.run("", "-p", "read them all", "--output-format", "json", "--permission-mode", "acceptEdits")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	results := srv.Requests()[1].Messages
	last := results[len(results)-1].Content
	for i, want := range []string{"a.txt", "b.txt", "c.txt", "summary.txt"} {
		b := last[i]
		if b.ToolUseID != fmt.Sprintf("toolu_01_%02d", i+1) || b.IsError || !strings.Contains(b.ResultText(), want) {
			t.Fatalf("result %d = %s %v %.200s", i, b.ToolUseID, b.IsError, b.ResultText())
		}
	}
	if got, err := os.ReadFile(filepath.Join(e.dir, "out/summary.txt")); err != nil || string(got) != "three files read\n" {
		t.Fatalf("written file: %q, %v", got, err)
	}
	spans := toolSpans(t, filepath.Join(e.home, ".ouro", "projects"))
	if len(spans) != 4 {
		t.Fatalf("%d tool records in the transcript, want 4", len(spans))
	}
	// Run one after another, no two reads would overlap; run concurrently, some must
	// (all three need not: a 2-core machine runs two at once).
	overlap := false
	for i := range 3 {
		for j := i + 1; j < 3; j++ {
			a, b := spans[i], spans[j]
			overlap = overlap || (a.Start.Before(b.End) && b.Start.Before(a.End))
		}
	}
	if !overlap {
		t.Fatalf("no two reads overlapped in time: %+v", spans[:3])
	}
	if w := spans[3]; w.Name != "Write" || w.Start.Before(spans[0].End) || w.Start.Before(spans[1].End) || w.Start.Before(spans[2].End) {
		t.Fatalf("the write did not run after the reads: %+v", spans)
	}
}

type span struct {
	ToolUseID  string    `json:"tool_use_id"`
	Name       string    `json:"name"`
	Start, End time.Time `json:"-"`
	RawStart   time.Time `json:"start"`
	RawEnd     time.Time `json:"end"`
}

// toolSpans reads the "tool" entries of the only transcript under root, in call order.
func toolSpans(t *testing.T, root string) []span {
	t.Helper()
	var spans []span
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var entry struct {
				Type string `json:"type"`
				Data span   `json:"data"`
			}
			if json.Unmarshal([]byte(l), &entry) == nil && entry.Type == "tool" {
				s := entry.Data
				s.Start, s.End = s.RawStart, s.RawEnd
				spans = append(spans, s)
			}
		}
		return nil
	})
	sort.Slice(spans, func(i, j int) bool { return spans[i].ToolUseID < spans[j].ToolUseID })
	return spans
}

// allText is every text and tool result of a request's messages.
func allText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, bl := range m.Content {
			b.WriteString(bl.Text)
			b.WriteString(bl.ResultText())
			b.WriteByte('\n')
		}
	}
	return b.String()
}
