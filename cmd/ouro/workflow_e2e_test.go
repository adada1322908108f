//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// The reference workflow (review dimensions → pipeline → parallel verifiers with a
// schema), unchanged from examples/s16_workflow.
func referenceWorkflow(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "s16_workflow", "review.js"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every agent answers the same (their order is the scheduler's), and the answer fits both a
// review and the verifiers' schema.
const verdict = `{"valid": true, "reason": "checked"}`

func sameTurns(n int) []scripted.Turn {
	turns := make([]scripted.Turn, n)
	for i := range turns {
		turns[i] = scripted.Turn{Text: verdict}
	}
	return turns
}

var wfRunID = regexp.MustCompile(`workflow (wf_[a-z0-9-]+) `)

func TestWorkflowReferenceRunsThroughTheBinary(t *testing.T) {
	e := newEnv(t)
	saved := filepath.Join(e.dir, ".claude", "workflows")
	if err := os.MkdirAll(saved, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(saved, "review.js"), []byte(referenceWorkflow(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := e.fake(sameTurns(6)...)
	out, stderr, code := e.run("", "workflow", "run", "review", "--args", `{"dimensions":["correctness","security","tests"]}`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var res struct {
		Held     int `json:"held"`
		Findings []struct {
			Dimension string `json:"dimension"`
			Index     int    `json:"index"`
			Review    string `json:"review"`
			Verdict   *struct {
				Valid  bool   `json:"valid"`
				Reason string `json:"reason"`
			} `json:"verdict"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Held != 3 || len(res.Findings) != 3 || res.Findings[2].Dimension != "tests" || res.Findings[2].Index != 2 ||
		res.Findings[0].Verdict == nil || !res.Findings[0].Verdict.Valid || res.Findings[0].Verdict.Reason != "checked" {
		t.Fatalf("%s", out)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d model turns unused", srv.Remaining())
	}
	for _, want := range []string{"== Review", "== Verify", "3 of 3 findings hold", "6 agents (0 replayed)"} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("progress lacks %q:\n%s", want, stderr)
		}
	}
	m := wfRunID.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run id in %s", stderr)
	}
	// The verifiers were asked for the schema; the reviewers ran as Explore agents.
	var sawSchema bool
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), `\"required\":[\"valid\",\"reason\"]`) {
			sawSchema = true
		}
	}
	if !sawSchema {
		t.Fatal("no verifier was given the schema")
	}

	show, stderr, code := e.run("", "workflow", "show", m[1])
	if code != 0 {
		t.Fatalf("show: %d %s", code, stderr)
	}
	for _, want := range []string{m[1], "completed", "Review\n", "Verify\n", "review:security", "verify:tests", "done"} {
		if !strings.Contains(show, want) {
			t.Fatalf("show lacks %q:\n%s", want, show)
		}
	}
	list, _, _ := e.run("", "workflow", "list")
	if !strings.Contains(list, "review") || !strings.Contains(list, m[1]) {
		t.Fatalf("list:\n%s", list)
	}

	// Resume with the same script and args: every call comes from the journal, no model call.
	srv2 := e.fake(scripted.Turn{Text: "a model call a full replay must not make"})
	again, stderr, code := e.run("", "workflow", "run", "review", "--args", `{"dimensions":["correctness","security","tests"]}`, "--resume", m[1])
	if code != 0 || again != out || !strings.Contains(stderr, "6 agents (6 replayed)") || len(srv2.Requests()) != 0 {
		t.Fatalf("resume: exit %d, %d requests\n%s\n%s", code, len(srv2.Requests()), again, stderr)
	}
	// Different args change the calls: the changed ones run live.
	e.fake(sameTurns(4)...)
	_, stderr, code = e.run("", "workflow", "run", "review", "--args", `{"dimensions":["correctness","speed"]}`, "--resume", m[1])
	if code != 0 || !strings.Contains(stderr, "4 agents (1 replayed)") {
		t.Fatalf("changed args: exit %d\n%s", code, stderr)
	}
}

func TestWorkflowBadInputsThroughTheBinary(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "unused"})
	bad := filepath.Join(e.dir, "bad.js")
	os.WriteFile(bad, []byte("export const meta = {name: process.env.HOME};\nawait agent('x');"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"workflow", "run", "bad.js"}, "pure literal"},
		{[]string{"workflow", "run", "nope"}, "neither a file nor a saved workflow"},
		{[]string{"workflow", "run", "bad.js", "--args", "{"}, "--args is not valid JSON"},
		{[]string{"workflow", "run", "bad.js", "--resume", "x"}, "not a run id"},
		{[]string{"workflow", "show", "wf_missing"}, "no workflow run wf_missing"},
	} {
		_, stderr, code := e.run("", c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, stderr)
		}
	}
}

// The model runs the reference workflow with the Workflow tool: the call returns at once
// with the run id, the headless run waits for the workflow, and the model reads its
// <task-notification>. Without --workflows the tool is not offered.
func TestWorkflowToolThroughPrompt(t *testing.T) {
	e := newEnv(t)
	in, _ := json.Marshal(map[string]any{"script": referenceWorkflow(t), "args": map[string]any{"dimensions": []string{"a", "b"}}})
	turns := []scripted.Turn{{ToolCalls: []scripted.ToolCall{{Name: "Workflow", Input: in}}}}
	// The model's turn after the call and the 4 agents answer alike: their order is not fixed.
	turns = append(turns, sameTurns(5)...)
	turns = append(turns, scripted.Turn{ExpectContains: "<status>completed</status>", Text: "Both findings hold."})
	srv := e.fake(turns...)
	out, stderr, code := e.run("", "-p", "review the change", "--workflows", "--allowedTools", "Workflow")
	if code != 0 || !strings.Contains(out, "Both findings hold.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var sawStarted bool
	for _, r := range srv.Requests() {
		body := string(r.Body)
		if strings.Contains(body, "Run id: wf_") && strings.Contains(body, "Script saved to: ") {
			sawStarted = true
		}
	}
	if !sawStarted {
		t.Fatal("the tool result did not carry the run id and the saved script's path")
	}
	last := string(srv.Requests()[len(srv.Requests())-1].Body)
	if !strings.Contains(last, `\"held\":2`) {
		t.Fatalf("the notification lacks the result: %s", last)
	}

	e2 := newEnv(t)
	srv = e2.fake(scripted.Turn{Text: "ok"})
	if _, stderr, code := e2.run("", "-p", "hi"); code != 0 {
		t.Fatalf("%d %s", code, stderr)
	}
	if strings.Contains(string(srv.Requests()[0].Body), `"name":"Workflow"`) {
		t.Fatal("the Workflow tool is offered without --workflows")
	}
	// A project's settings cannot opt in; the user's can.
	os.MkdirAll(filepath.Join(e2.dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(e2.dir, ".claude", "settings.json"), []byte(`{"workflows": true}`), 0o644)
	srv = e2.fake(scripted.Turn{Text: "ok"})
	e2.run("", "-p", "hi")
	if strings.Contains(string(srv.Requests()[0].Body), `"name":"Workflow"`) {
		t.Fatal("a project's settings turned workflows on")
	}
	os.MkdirAll(filepath.Join(e2.home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(e2.home, ".claude", "settings.json"), []byte(`{"workflows": true}`), 0o644)
	srv = e2.fake(scripted.Turn{Text: "ok"})
	e2.run("", "-p", "hi")
	if !strings.Contains(string(srv.Requests()[0].Body), `"name":"Workflow"`) {
		t.Fatal("the user's settings did not turn workflows on")
	}
}

// kill -9 of `ouro workflow run` during step 4 of 5, then --resume: no finished step is
// redone (no model request for steps 1-3 again; each step wrote its file once) and the
// result equals an uninterrupted run.
func TestWorkflowKillNineThenResume(t *testing.T) {
	e := newEnv(t)
	script := `export const meta = { name: 'five', description: 'five steps with side effects' };
const out = [];
for (let i = 1; i <= 5; i++) out.push(await agent('do step ' + i, {label: 'step' + i}));
return out;`
	os.WriteFile(filepath.Join(e.dir, "five.js"), []byte(script), 0o644)
	step := func(i int) []scripted.Turn {
		in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, fmt.Sprintf("effect-%d", i)), "content": fmt.Sprint(i)})
		return []scripted.Turn{
			{ExpectContains: fmt.Sprintf("do step %d", i), ToolCalls: []scripted.ToolCall{{Name: "Write", Input: in}}},
			{Text: fmt.Sprintf("step %d done", i)},
		}
	}
	var turns []scripted.Turn
	for i := 1; i <= 3; i++ {
		turns = append(turns, step(i)...)
	}
	// Step 4's model is overloaded and asks to be retried much later: the step is in flight.
	turns = append(turns, scripted.Turn{Fault: &scripted.Fault{Status: 529, Message: "overloaded", RetryAfter: 30}, Times: 10})
	srv := e.fake(turns...)
	c := e.cmd("workflow", "run", "five.js", "--allowedTools", "Write")
	var errb strings.Builder
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(srv.Requests()) < 7 {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("step 4 never started:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.Process.Kill() // SIGKILL
	c.Wait()
	list, _, _ := e.run("", "workflow", "list")
	// The engine records the run interrupted when it sees ouro gone, unless it is killed
	// first; either way the run resumes.
	id := regexp.MustCompile(`(wf_[a-z0-9-]+)\s+(running|interrupted)`).FindStringSubmatch(list)
	if id == nil {
		t.Fatalf("the killed run is not in the journal as running or interrupted:\n%s", list)
	}

	var rest []scripted.Turn
	for i := 4; i <= 5; i++ {
		rest = append(rest, step(i)...)
	}
	srv = e.fake(rest...)
	out, stderr, code := e.run("", "workflow", "run", "five.js", "--allowedTools", "Write", "--resume", id[1])
	if code != 0 || !strings.Contains(stderr, "5 agents (3 replayed)") || srv.Remaining() != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, r := range srv.Requests() {
		for i := 1; i <= 3; i++ {
			if strings.Contains(string(r.Body), fmt.Sprintf("do step %d", i)) {
				t.Fatalf("finished step %d was redone", i)
			}
		}
	}
	for i := 1; i <= 5; i++ {
		if b, err := os.ReadFile(filepath.Join(e.dir, fmt.Sprintf("effect-%d", i))); err != nil || string(b) != fmt.Sprint(i) {
			t.Fatalf("step %d's side effect: %q %v", i, b, err)
		}
	}
	var clean []scripted.Turn
	for i := 1; i <= 5; i++ {
		clean = append(clean, step(i)...)
	}
	e.fake(clean...)
	whole, stderr, code := e.run("", "workflow", "run", "five.js", "--allowedTools", "Write")
	if code != 0 || whole != out {
		t.Fatalf("uninterrupted: exit %d\n%s\nresumed: %s\n%s", code, whole, out, stderr)
	}
}

// /workflows in the REPL says whether workflows are offered and how the runs are going.
func TestWorkflowsREPLCommand(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "unused"})
	out, stderr, code := e.run("/workflows\n/exit\n")
	if code != 0 || !strings.Contains(out, "Workflows are not offered yet in this session: ask for a workflow in a prompt, or start ouro with --workflows") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = e.run("/workflows\n/exit\n", "--workflows")
	if code != 0 || !strings.Contains(out, "No workflow runs yet in this session.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}
