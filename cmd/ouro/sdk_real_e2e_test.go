//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// These tests drive ouro with the official Claude Agent SDKs, the TypeScript one from npm
// and the Python one from PyPI, as applications use them: ouro is the Claude Code
// executable the SDK starts. .ci/sdk-clients/install puts the SDKs into a cache folder;
// without it the tests skip, saying so, unless OURO_SDK_CLIENTS_REQUIRED is set (.ci/run
// sets it).

// sdkClients returns the folder .ci/sdk-clients/install filled.
func sdkClients(t *testing.T) string {
	t.Helper()
	return installed(t, "runs the official Agent SDKs", "OURO_SDK_CLIENTS_DIR", "sdk-clients",
		".ci/sdk-clients/install", "the official Agent SDKs", "OURO_SDK_CLIENTS_REQUIRED")
}

// sdkRun is what one run of a driver printed: the SDK's messages and the callbacks'
// events, one JSON object each.
type sdkRun struct {
	lines  []map[string]any
	stderr string
}

func (r sdkRun) events(kind string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		if l["event"] == kind {
			out = append(out, l)
		}
	}
	return out
}

func (r sdkRun) messages(typ string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

// runTS runs drive.mjs SCENARIO with the TypeScript SDK against ouro and the fake model.
func runTS(t *testing.T, e *env, scenario string) sdkRun {
	t.Helper()
	dir := sdkClients(t)
	node := filepath.Join(mcpNode(t), "node", "bin", "node")
	// The driver next to the SDK's node_modules, so that its imports resolve there.
	work := filepath.Join(dir, "ts")
	script := filepath.Join(work, "drive-"+filepath.Base(t.TempDir())+".mjs")
	src, err := os.ReadFile(filepath.Join("testdata", "sdk", "drive.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(script) })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, node, script, scenario)
	c.Dir = e.dir
	c.Env = append(append([]string(nil), e.vars...), "OURO_BIN="+binary, "WORKDIR="+e.dir, "MCP_SERVER="+mcpTestServer(t))
	r := collect(t, c, "TypeScript", scenario)
	return r
}

// runPy runs drive.py SCENARIO with the Python SDK against ouro and the fake model.
func runPy(t *testing.T, e *env, scenario string) sdkRun {
	t.Helper()
	dir := sdkClients(t)
	script, err := filepath.Abs(filepath.Join("testdata", "sdk", "drive.py"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, filepath.Join(dir, "venv", "bin", "python"), script, scenario)
	c.Dir = e.dir
	c.Env = append(append([]string(nil), e.vars...), "OURO_BIN="+binary, "WORKDIR="+e.dir,
		"PYTHONPATH="+filepath.Join(dir, "py-src", "src"), "PYTHONDONTWRITEBYTECODE=1")
	return collect(t, c, "Python", scenario)
}

// collect runs a driver and reads what it printed.
func collect(t *testing.T, c *exec.Cmd, sdk, scenario string) sdkRun {
	t.Helper()
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := sdkRun{stderr: errb.String()}
	stdout := out.String()
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			r.lines = append(r.lines, m)
		}
	}
	if err != nil || len(r.events("end")) != 1 {
		t.Fatalf("the %s SDK run %s failed: %v\nstdout:\n%s\nstderr:\n%s", sdk, scenario, err, clipOut(stdout), clipOut(r.stderr))
	}
	return r
}

// pyClass lists the messages of a Python SDK class (ResultMessage, AssistantMessage).
func (r sdkRun) pyClass(name string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		if l["_class"] == name {
			out = append(out, l)
		}
	}
	return out
}

// toolsTurns are the fake model's turns for the "tools" scenarios: the SDK's in-process
// tool, a write, a command, an answer.
func toolsTurns(e *env) []scripted.Turn {
	return []scripted.Turn{
		{ToolCalls: jsonCall("mcp__calc__add", map[string]any{"a": 2, "b": 3})},
		{ToolCalls: writeCall(filepath.Join(e.dir, "answer.txt"), "5\n")},
		{ToolCalls: bash("touch made.txt")},
		{Text: "done: 5"},
	}
}

// checkToolsRun checks a "tools" scenario run by either SDK: the in-process tool ran
// once with 2 and 3 and the model got 5; the write canUseTool allowed happened and the
// command it denied did not, its message reaching the model; the hook callbacks ran;
// the preset's addition is in the system prompt.
func checkToolsRun(t *testing.T, e *env, srv *fakeserver.Server, r sdkRun) {
	t.Helper()
	if got := r.events("tool"); len(got) != 1 || got[0]["a"] != 2.0 || got[0]["b"] != 3.0 {
		t.Errorf("the SDK's in-process tool ran %v, want once with 2 and 3\nstderr:\n%s", got, clipOut(r.stderr))
	}
	res := wtResults(srv)
	if !strings.Contains(res["toolu_01_01"], "5") {
		t.Errorf("the model did not get the tool's answer: %q", res["toolu_01_01"])
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, "answer.txt")); err != nil || string(b) != "5\n" {
		t.Errorf("the write canUseTool allowed did not happen: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "made.txt")); err == nil {
		t.Error("the command canUseTool denied ran")
	}
	if !strings.Contains(res["toolu_03_01"], "no shell today") {
		t.Errorf("the denial's message did not reach the model: %q", res["toolu_03_01"])
	}
	asked := map[string]bool{}
	for _, c := range r.events("canUseTool") {
		asked[c["name"].(string)] = true
	}
	if !asked["Write"] || !asked["Bash"] {
		t.Errorf("canUseTool was asked about %v, want Write and Bash", asked)
	}
	hooks := map[string]int{}
	for _, h := range r.events("hook") {
		hooks[h["hook"].(string)]++
	}
	if hooks["PreToolUse"] < 2 || hooks["PostToolUse"] < 2 || hooks["Stop"] != 1 {
		t.Errorf("hook callbacks %v, want PreToolUse and PostToolUse for each tool run and Stop once", hooks)
	}
	if sys := string(srv.Requests()[0].Body); !strings.Contains(sys, "Answer briefly.") {
		t.Errorf("the preset's addition is not in the system prompt:\n%s", clipOut(sys))
	}
}

func jsonCall(name string, in any) []scripted.ToolCall {
	b, _ := json.Marshal(in)
	return []scripted.ToolCall{{Name: name, Input: b}}
}

// The TypeScript SDK's query() with an in-process MCP server (its tool runs in the
// SDK's process), canUseTool allowing a write and denying a command with a message,
// hook callbacks on PreToolUse, PostToolUse and Stop, and the system prompt as a preset
// with an addition.
func TestTypeScriptSDKToolsHooksAndPermissions(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(toolsTurns(e)...)
	r := runTS(t, e, "tools")
	checkToolsRun(t, e, srv, r)
	results := r.messages("result")
	if len(results) != 1 || results[0]["subtype"] != "success" || results[0]["result"] != "done: 5" {
		t.Fatalf("result messages %v", results)
	}
	for _, k := range []string{"session_id", "num_turns", "duration_ms", "total_cost_usd", "usage", "is_error"} {
		if _, ok := results[0][k]; !ok {
			t.Errorf("the result message lacks %s: %v", k, results[0])
		}
	}
}

// The Python SDK's query() with an in-process MCP server, can_use_tool allowing a write
// and denying a command, hook callbacks, and the system prompt preset with an addition.
func TestPythonSDKToolsHooksAndPermissions(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(toolsTurns(e)...)
	r := runPy(t, e, "tools")
	checkToolsRun(t, e, srv, r)
	results := r.pyClass("ResultMessage")
	if len(results) != 1 || results[0]["subtype"] != "success" || results[0]["result"] != "done: 5" {
		t.Fatalf("result messages %v\nstderr:\n%s", results, clipOut(r.stderr))
	}
}

// ClaudeSDKClient: set_permission_mode and set_model between turns, interrupt during a
// command, and a resumed session that carries the first turn.
func TestPythonSDKClientInterruptAndResume(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "first answer"},
		scripted.Turn{ToolCalls: bash("sleep 30")},
		scripted.Turn{Text: "after the interrupt"},
		scripted.Turn{Text: "you asked: first"},
	)
	r := runPy(t, e, "client")
	if len(r.events("changed")) != 1 || len(r.events("interrupted")) != 1 {
		t.Fatalf("changes %v, interrupts %v\nstderr:\n%s", r.events("changed"), r.events("interrupted"), clipOut(r.stderr))
	}
	reqs := srv.Requests()
	var models []string
	for _, q := range reqs {
		var b struct{ Model string }
		json.Unmarshal(q.Body, &b)
		models = append(models, b.Model)
	}
	if len(models) < 2 || models[1] != "claude-sonnet-4-5" {
		t.Errorf("models asked %v, want claude-sonnet-4-5 after set_model", models)
	}
	final := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(final, "first answer") || !strings.Contains(final, "what did I ask first?") {
		t.Errorf("the resumed session's request lacks the earlier conversation:\n%s", clipOut(final))
	}
	results := r.pyClass("ResultMessage")
	if len(results) < 3 {
		t.Fatalf("%d results, want 3\nstderr:\n%s", len(results), clipOut(r.stderr))
	}
}

// The system prompt as a string and as an array of strings reaches the model.
func TestTypeScriptSDKSystemPromptForms(t *testing.T) {
	for scenario, want := range map[string][]string{
		"systemString": {"You are terse."},
		"systemArray":  {"You are terse.", "Say ok."},
	} {
		t.Run(scenario, func(t *testing.T) {
			e := newEnv(t)
			srv := e.fake(scripted.Turn{Text: "ok"})
			r := runTS(t, e, scenario)
			body := string(srv.Requests()[0].Body)
			for _, w := range want {
				if !strings.Contains(body, w) {
					t.Errorf("the system prompt lacks %q:\n%s", w, clipOut(body))
				}
			}
			if res := r.messages("result"); len(res) != 1 || res[0]["subtype"] != "success" {
				t.Errorf("result %v\nstderr:\n%s", res, clipOut(r.stderr))
			}
		})
	}
}

// Streaming input: a turn, then setPermissionMode and setModel between turns, a second
// turn interrupted while its command runs, and the session resumed by its id.
func TestTypeScriptSDKStreamingInterruptAndResume(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "first answer"},
		scripted.Turn{ToolCalls: bash("sleep 30")},
		scripted.Turn{Text: "after the interrupt"},
		scripted.Turn{Text: "you asked: first"},
	)
	r := runTS(t, e, "streaming")
	if len(r.events("changed")) != 1 {
		t.Fatalf("setPermissionMode/setModel did not complete\nstderr:\n%s", clipOut(r.stderr))
	}
	if len(r.events("interrupted")) != 1 {
		t.Errorf("the second turn was not interrupted while its command ran\nstderr:\n%s", clipOut(r.stderr))
	}
	results := r.messages("result")
	if len(results) < 3 {
		t.Fatalf("%d result messages, want the two turns' and the resumed one's: %v", len(results), results)
	}
	session := r.events("session")[0]["id"]
	last := results[len(results)-1]
	if last["session_id"] != session || last["subtype"] != "success" {
		t.Errorf("the resumed run's result %v, want session %v", last, session)
	}
	// setModel took effect from the next turn; the resumed request carries the first turn.
	reqs := srv.Requests()
	var second struct{ Model string }
	json.Unmarshal(reqs[1].Body, &second)
	if second.Model != "claude-sonnet-4-5" {
		t.Errorf("the turn after setModel asked %q, want claude-sonnet-4-5", second.Model)
	}
	final := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(final, "first answer") || !strings.Contains(final, "what did I ask first?") {
		t.Errorf("the resumed session's request lacks the earlier conversation:\n%s", clipOut(final))
	}
}

// maxTurns ends a run that keeps calling tools, with the SDK's error_max_turns result
// (which carries errors[], as the SDK reads it).
func TestTypeScriptSDKMaxTurns(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("echo 1")},
		scripted.Turn{ToolCalls: bash("echo 2")},
		scripted.Turn{ToolCalls: bash("echo 3")},
		scripted.Turn{Text: "never"},
	)
	r := runTS(t, e, "maxTurns")
	res := r.messages("result")
	if len(res) != 1 || res[0]["subtype"] != "error_max_turns" {
		t.Errorf("result %v, want error_max_turns\nstderr:\n%s", res, clipOut(r.stderr))
	}
	if th := r.events("thrown"); len(th) != 1 || !strings.Contains(th[0]["message"].(string), "limit of 2 turns") {
		t.Errorf("the SDK's error after the result %v, want the reason", th)
	}
}

// An ordinary MCP server in the SDK's options arrives in initialize (the SDK starts its
// CLI with --await-initialize): ouro starts it and the model can call its tools.
func TestTypeScriptSDKExternalMCPServer(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"hi from the sdk"}`)}},
		scripted.Turn{Text: "done"},
	)
	r := runTS(t, e, "externalMcp")
	if res := wtResults(srv)["toolu_01_01"]; !strings.Contains(res, "hi from the sdk") {
		t.Errorf("the server's tool did not answer: %q\nstderr:\n%s", res, clipOut(r.stderr))
	}
	if res := r.messages("result"); len(res) != 1 || res[0]["subtype"] != "success" {
		t.Errorf("result %v", res)
	}
}
