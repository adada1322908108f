package hook_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// asyncOn is one async (or asyncRewake) command hook on event.
func asyncOn(event, command string, rewake bool) map[string][]settings.HookMatcher {
	return map[string][]settings.HookMatcher{event: {{Source: "/p/.claude/settings.json",
		Hooks: []settings.HookCommand{{Type: "command", Command: command, Async: !rewake, AsyncRewake: rewake}}}}}
}

// turnOf is a turn whose conversation ends with the user's prompt.
func turnOf() *agent.Turn {
	conv := &agent.Conversation{Messages: []llm.Message{llm.UserText("go")}}
	return &agent.Turn{Number: 2, Conv: conv, Req: &llm.Request{Messages: conv.Messages}}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// An async hook never holds up the call that fired it; what it answers reaches the model
// at its next request, once.
func TestAsyncHookDoesNotBlockAndDeliversLater(t *testing.T) {
	e := newEnv(t)
	// The hook waits for a file the test writes only once AfterTool has returned: had
	// the call waited for the hook, the hook would have timed out.
	gate := e.path("gate")
	hooks := asyncOn("PostToolUse", e.script(`while [ ! -f `+gate+` ]; do sleep 0.02; done; echo '{"systemMessage":"lint ran","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"LINT: 2 warnings"}}'`), false)
	hooks["PostToolUse"][0].Hooks[0].Timeout = 5
	r := e.runner(hooks)
	defer r.Close()
	res := llmText("ok")
	r.AfterTool(context.Background(), bash("1", "go build"), &res)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text(), "LINT") {
		t.Fatalf("async output reached the result: %q", res.Text())
	}
	waitFor(t, "the async hook", func() bool { return len(e.reported()) == 1 })
	if run := e.reported()[0]; run.Outcome != hook.OutcomeSuccess {
		t.Fatalf("the hook did not finish on its own: %+v", run)
	}
	turn := turnOf()
	if err := r.BeforeModel(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	last := turn.Conv.Messages[len(turn.Conv.Messages)-1].Text()
	if !strings.Contains(last, "LINT: 2 warnings") || !strings.Contains(last, "lint ran") {
		t.Fatalf("the next request lacks the async output: %q", last)
	}
	if e.shown() != "lint ran" {
		t.Errorf("the user was shown %q", e.shown())
	}
	again := turnOf()
	_ = r.BeforeModel(context.Background(), again)
	if len(again.Conv.Messages) != 1 {
		t.Errorf("delivered twice: %+v", again.Conv.Messages)
	}
}

// Headless: the Stop waits for asyncRewake hooks still running; exit code 2 sends the
// model back with the hook's stderr. Exit 0 does not.
func TestAsyncRewakeAtStop(t *testing.T) {
	for _, c := range []struct {
		code string
		wake bool
	}{{"2", true}, {"0", false}} {
		e := newEnv(t)
		r := e.runner(asyncOn("PostToolUse", e.script("sleep 0.3; echo 'tests fail: TestX' >&2; exit "+c.code), true),
			func(cfg *hook.Config) { cfg.WaitRewake = true })
		res := llmText("ok")
		r.AfterTool(context.Background(), bash("1", "go build"), &res)
		d := r.BeforeStop(context.Background(), stopOf(0))
		if d.Continue != c.wake || (c.wake && !strings.Contains(d.Message, "tests fail: TestX")) {
			t.Errorf("exit %s: decision %+v", c.code, d)
		}
		if c.wake {
			if d := r.BeforeStop(context.Background(), stopOf(1)); d.Continue {
				t.Errorf("the wake-up was delivered twice: %+v", d)
			}
		}
		r.Close()
	}
}

// A hook that wakes the model after every change cannot keep it busy for ever: past
// MaxRewakes in a row without a user prompt, wake-ups are dropped, and the user is told.
func TestRewakeLoopIsBounded(t *testing.T) {
	e := newEnv(t)
	r := e.runner(asyncOn("PostToolUse", e.script("echo again >&2; exit 2"), true), func(cfg *hook.Config) { cfg.WaitRewake = true })
	defer r.Close()
	woken := 0
	for i := 0; i < hook.MaxRewakes+4; i++ {
		res := llmText("ok")
		r.AfterTool(context.Background(), bash(strconv.Itoa(i), "touch x"), &res)
		if d := r.BeforeStop(context.Background(), stopOf(0)); d.Continue {
			woken++
		}
	}
	if woken != hook.MaxRewakes {
		t.Fatalf("woken %d times, want %d", woken, hook.MaxRewakes)
	}
	if !strings.Contains(strings.Join(e.allShown(), "\n"), "wake-ups in a row") {
		t.Errorf("the user was not told: %q", e.allShown())
	}
	r.UserPrompt("")
	res := llmText("ok")
	r.AfterTool(context.Background(), bash("x", "touch y"), &res)
	if d := r.BeforeStop(context.Background(), stopOf(0)); !d.Continue {
		t.Error("a new prompt did not reset the bound")
	}
}

// An async hook that never exits, and the process it started, are killed by Close, which
// returns promptly.
func TestCloseKillsAsyncHooks(t *testing.T) {
	e := newEnv(t)
	pidFile := e.path("child.pid")
	r := e.runner(asyncOn("PostToolUse", e.script("sleep 1000 & echo $! > "+pidFile+"; while :; do sleep 1; done"), false))
	res := llmText("ok")
	r.AfterTool(context.Background(), bash("1", "ls"), &res)
	var pid int
	waitFor(t, "the child's pid", func() bool {
		b, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	start := time.Now()
	r.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %v", d)
	}
	waitFor(t, "the child to die", func() bool { return !processAlive(pid) })
	// After Close, async hooks no longer start.
	r.AfterTool(context.Background(), bash("2", "ls"), &res)
	time.Sleep(100 * time.Millisecond)
	if n := len(e.reported()); n != 1 {
		t.Errorf("%d runs after Close", n)
	}
}

// PostToolBatch runs once per batch, with every call and its result; a block stops the
// loop before the model is called; the same request again (a retry) does not fire it twice.
func TestPostToolBatch(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PostToolBatch", "", e.script("cat > "+e.path("in.json")+"\necho 'too many files touched' >&2\nexit 2")))
	conv := &agent.Conversation{Messages: []llm.Message{
		llm.UserText("go"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: "tool_use", ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
			{Type: "tool_use", ID: "t2", Name: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{
			{Type: "tool_result", ToolUseID: "t1", Content: []llm.Block{llm.TextBlock("a.go")}},
			{Type: "tool_result", ToolUseID: "t2", IsError: true, Content: []llm.Block{llm.TextBlock("no such file")}}}},
	}}
	turn := &agent.Turn{Number: 2, Conv: conv, Req: &llm.Request{Messages: conv.Messages}}
	err := r.BeforeModel(context.Background(), turn)
	var h *hook.HaltError
	if !errorsAs(err, &h) || h.Event != "PostToolBatch" || !strings.Contains(h.Reason, "too many files touched") {
		t.Fatalf("err = %v", err)
	}
	var in struct {
		Event string `json:"hook_event_name"`
		Calls []struct {
			Name     string          `json:"tool_name"`
			Input    json.RawMessage `json:"tool_input"`
			ID       string          `json:"tool_use_id"`
			Response string          `json:"tool_response"`
			IsError  bool            `json:"is_error"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(e.read("in.json")), &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "PostToolBatch" || len(in.Calls) != 2 || in.Calls[0].Response != "a.go" || in.Calls[1].ID != "t2" || !in.Calls[1].IsError || string(in.Calls[0].Input) != `{"command":"ls"}` {
		t.Fatalf("input = %+v", in)
	}
	if err := r.BeforeModel(context.Background(), turn); err != nil {
		t.Errorf("the same batch fired again: %v", err)
	}
	if n := len(e.reported()); n != 1 {
		t.Errorf("%d runs", n)
	}
}

// StopFailure carries the error's class (what its matcher selects), code and message;
// Setup its trigger, and what it prints joins the context.
func TestStopFailureAndSetup(t *testing.T) {
	e := newEnv(t)
	hooks := on("StopFailure", "rate_limit", e.script("cat > "+e.path("fail.json")))
	hooks["Setup"] = []settings.HookMatcher{group("maintenance", e.script("cat > "+e.path("setup.json")+"; echo 'deps refreshed'"))}
	r := e.runner(hooks)
	r.StopFailure(context.Background(), "server_error", "500", "boom", "")
	if _, err := os.Stat(e.path("fail.json")); err == nil {
		t.Fatal("the rate_limit matcher ran for a server_error")
	}
	r.StopFailure(context.Background(), "rate_limit", "429", "slow down", "half an answer")
	var in map[string]any
	_ = json.Unmarshal([]byte(e.read("fail.json")), &in)
	if in["error_type"] != "rate_limit" || in["error"] != "429" || in["error_message"] != "slow down" || in["last_assistant_message"] != "half an answer" {
		t.Errorf("StopFailure input %v", in)
	}
	if got := r.Setup(context.Background(), "init"); got != "" {
		t.Errorf("the maintenance matcher ran for init: %q", got)
	}
	if got := r.Setup(context.Background(), "maintenance"); got != "deps refreshed" {
		t.Errorf("Setup context %q", got)
	}
	_ = json.Unmarshal([]byte(e.read("setup.json")), &in)
	if in["trigger"] != "maintenance" || in["hook_event_name"] != "Setup" {
		t.Errorf("Setup input %v", in)
	}
}

// An agent's own hooks join the session's for its child only; its Stop hooks are
// SubagentStop hooks.
func TestScopedAgentHooks(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PreToolUse", "Bash", e.script("echo session >> "+e.path("log"))))
	s, warns, err := r.Scoped(map[string][]settings.HookMatcher{
		"PreToolUse": {group("Bash", e.script("echo agent >> "+e.path("log")))},
		"Stop":       {group("", e.script("echo 'check your work' >&2; exit 2"))},
	})
	if err != nil || len(warns) > 0 {
		t.Fatalf("Scoped: %v %v", err, warns)
	}
	s.PreToolUse(context.Background(), bash("1", "ls"))
	r.PreToolUse(context.Background(), bash("2", "ls"))
	if got := e.read("log"); got != "session\nagent\nsession\n" && got != "agent\nsession\nsession\n" {
		t.Errorf("log %q", got)
	}
	if s.Has("Stop") || !s.Has("SubagentStop") || r.Has("SubagentStop") {
		t.Error("the agent's Stop hook was not made a SubagentStop hook of its runner only")
	}
	d := s.Subagent(hook.Child{Type: "reviewer"}).BeforeStop(context.Background(), stopOf(0))
	if !d.Continue || !strings.Contains(d.Message, "check your work") {
		t.Errorf("decision %+v", d)
	}
	if _, _, err := r.Scoped(map[string][]settings.HookMatcher{"Stop": {{Hooks: []settings.HookCommand{{Type: "command"}}}}}); err == nil {
		t.Error("an empty command was accepted")
	}
}

// A plugin's hook runs with CLAUDE_PLUGIN_ROOT set, and ${CLAUDE_PLUGIN_ROOT} in its
// command replaced.
func TestPluginRoot(t *testing.T) {
	e := newEnv(t)
	root := e.path("plug")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root+"/h.sh", []byte("#!/bin/sh\necho \"$CLAUDE_PLUGIN_ROOT\" > "+e.path("out")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.runner(map[string][]settings.HookMatcher{"SessionStart": {{PluginRoot: root, Source: root + "/hooks/hooks.json",
		Hooks: []settings.HookCommand{{Type: "command", Command: "${CLAUDE_PLUGIN_ROOT}/h.sh"}}}}})
	r.SessionStart(context.Background(), "startup")
	if got := strings.TrimSpace(e.read("out")); got != root {
		t.Fatalf("CLAUDE_PLUGIN_ROOT = %q; runs %+v", got, e.reported())
	}
}

func llmText(s string) tool.Result { return tool.Text(s) }

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func (e *env) allShown() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.user...)
}

// With Deliver (the REPL's notification queue), async output and wake-ups go there, still
// bounded, and nothing is kept for the runner's own next request.
func TestAsyncDeliverSink(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var got []string
	r := e.runner(asyncOn("PostToolUse", e.script("echo 'lint failed' >&2; exit 2"), true), func(cfg *hook.Config) {
		cfg.Deliver = func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
	})
	defer r.Close()
	for i := 0; i < hook.MaxRewakes+2; i++ {
		res := llmText("ok")
		r.AfterTool(context.Background(), bash(strconv.Itoa(i), "touch x"), &res)
	}
	waitFor(t, "the hooks", func() bool { return len(e.reported()) == hook.MaxRewakes+2 })
	mu.Lock()
	n := len(got)
	first := ""
	if n > 0 {
		first = got[0]
	}
	mu.Unlock()
	if n != hook.MaxRewakes || !strings.Contains(first, "lint failed") {
		t.Fatalf("delivered %d: %q", n, first)
	}
	turn := turnOf()
	_ = r.BeforeModel(context.Background(), turn)
	if d := r.BeforeStop(context.Background(), stopOf(0)); len(turn.Conv.Messages) != 1 || d.Continue {
		t.Errorf("the runner kept what it delivered: %+v %+v", turn.Conv.Messages, d)
	}
}

// A subagent's loop does not take what async hooks left for the main conversation.
func TestChildSeamLeavesAsyncOutputForTheMainLoop(t *testing.T) {
	e := newEnv(t)
	r := e.runner(asyncOn("PostToolUse", e.script(`echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"FOR-MAIN"}}'`), false))
	defer r.Close()
	res := llmText("ok")
	r.AfterTool(context.Background(), bash("1", "ls"), &res)
	waitFor(t, "the async hook", func() bool { return len(e.reported()) == 1 })
	child := turnOf()
	if err := r.Child().BeforeModel(context.Background(), child); err != nil || len(child.Conv.Messages) != 1 {
		t.Fatalf("the child took it: %v %+v", err, child.Conv.Messages)
	}
	main := turnOf()
	_ = r.BeforeModel(context.Background(), main)
	if !strings.Contains(main.Conv.Messages[len(main.Conv.Messages)-1].Text(), "FOR-MAIN") {
		t.Errorf("the main loop did not get it: %+v", main.Conv.Messages)
	}
}

// With OnRewake (the REPL's wake seam), a wake-up becomes a turn of its own; that turn's
// prompt does not reset the bound, a prompt of the user's does.
func TestOnRewakeTurnsDoNotResetTheBound(t *testing.T) {
	e := newEnv(t)
	wakes := make(chan string, 2*hook.MaxRewakes)
	r := e.runner(asyncOn("PostToolUse", e.script("echo 'fix it' >&2; exit 2"), true), func(cfg *hook.Config) {
		cfg.OnRewake = func(s string) { wakes <- s }
	})
	defer r.Close()
	got := 0
	for i := 0; i < hook.MaxRewakes+3; i++ {
		res := llmText("ok")
		r.AfterTool(context.Background(), bash(strconv.Itoa(i), "touch x"), &res)
		waitFor(t, "the hook", func() bool { return len(e.reported()) == i+1 })
		select {
		case w := <-wakes:
			got++
			r.UserPrompt(w) // the woken turn starts with the wake-up as its prompt
		default:
		}
	}
	if got != hook.MaxRewakes {
		t.Fatalf("woken %d times, want %d", got, hook.MaxRewakes)
	}
	r.UserPrompt("a prompt of the user's")
	res := llmText("ok")
	r.AfterTool(context.Background(), bash("x", "touch y"), &res)
	waitFor(t, "a wake-up after the user's prompt", func() bool { return len(wakes) == 1 })
}
