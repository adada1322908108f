package hook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

type echoTool struct{ name string }

func (e echoTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: e.name, Description: "echoes", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (echoTool) ReadOnly() bool { return false }
func (echoTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	in := x.Input
	return tool.Text("ran " + string(in)), nil
}

// gate is how the permission layer uses PreToolUse verdicts, reduced to what the loop
// needs here: deny refuses, updatedInput replaces the input.
type gate struct{ r *hook.Runner }

func (g gate) Gate(ctx context.Context, c tool.Call) agent.Decision {
	v := g.r.PreToolUse(ctx, c)
	return agent.Decision{Deny: v.Decision == "deny", Reason: v.Reason, UpdatedInput: v.UpdatedInput}
}

func runAgent(t *testing.T, r *hook.Runner, turns []scripted.Turn) (agent.Outcome, *scripted.Provider, *agent.Conversation) {
	t.Helper()
	prov := scripted.New(&scripted.Script{Turns: turns})
	a, err := agent.New(agent.Config{
		Provider:    prov,
		Model:       "claude-sonnet-5-5",
		Tools:       tool.NewRegistry(echoTool{"Bash"}),
		BeforeModel: []agent.BeforeModel{r},
		Gates:       []agent.Gate{gate{r}},
		AfterTool:   []agent.AfterTool{r},
		BeforeStop:  []agent.BeforeStop{r},
	})
	if err != nil {
		t.Fatal(err)
	}
	conv := &agent.Conversation{}
	out := a.Run(context.Background(), conv, llm.TextBlock("do the task"))
	if err := llm.ValidateConversation(conv.Messages); err != nil {
		t.Fatal(err)
	}
	return out, prov, conv
}

// TestStopHookThatAlwaysBlocksIsOverridden runs the loop with a Stop hook that blocks
// every time: the model is sent back with the hook's reason 8 times, then the run
// completes anyway.
func TestStopHookThatAlwaysBlocksIsOverridden(t *testing.T) {
	e := newEnv(t)
	log := e.path("stdin.log")
	c := e.script(fmt.Sprintf("cat >> '%s'\necho >> '%s'\necho 'tests have not been run' >&2\nexit 2", log, log))
	r := e.runner(on("Stop", "", c))
	turns := make([]scripted.Turn, 12)
	for i := range turns {
		turns[i] = scripted.Turn{Text: fmt.Sprintf("done (%d)", i+1)}
	}
	for i := 1; i <= 8; i++ {
		turns[i].ExpectContains = "Stop hook feedback:\ntests have not been run"
	}
	out, prov, _ := runAgent(t, r, turns)
	if out.Status != agent.StatusCompleted || out.Turns != 9 || out.Result != "done (9)" {
		t.Fatalf("outcome = %+v", out)
	}
	if prov.Remaining() != 3 {
		t.Fatalf("%d turns left, want 3", prov.Remaining())
	}
	payloads := strings.Split(strings.TrimSpace(e.read("stdin.log")), "\n")
	if len(payloads) != 8 {
		t.Fatalf("the Stop hook ran %d times, want 8", len(payloads))
	}
	for i, p := range payloads {
		var in struct {
			Active bool `json:"stop_hook_active"`
		}
		if err := json.Unmarshal([]byte(p), &in); err != nil {
			t.Fatal(err)
		}
		if in.Active != (i > 0) {
			t.Fatalf("run %d: stop_hook_active = %v", i+1, in.Active)
		}
	}
}

func TestPostToolUseFeedbackReachesTheModel(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PostToolUse", "Bash", e.script("echo 'lint: 2 warnings in main.go' >&2\nexit 2")))
	out, _, _ := runAgent(t, r, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: json.RawMessage(`{"command":"go build"}`)}}},
		{ExpectContains: "PostToolUse hook feedback: lint: 2 warnings in main.go", Text: "fixed"},
	})
	if !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestContinueFalseEndsTheRun(t *testing.T) {
	e := newEnv(t)
	pre := e.script("echo x >> '" + e.path("pre.log") + "'")
	r := e.runner(map[string][]settings.HookMatcher{
		"PreToolUse":  {group("", pre)},
		"PostToolUse": {group("", e.script(printJSON(`{"continue":false,"stopReason":"the deploy window closed"}`)))},
	})
	out, prov, conv := runAgent(t, r, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{
			{Name: "Bash", Input: json.RawMessage(`{"command":"deploy"}`)},
			{Name: "Bash", Input: json.RawMessage(`{"command":"announce"}`)},
		}},
		{Text: "never asked"},
	})
	if out.Status != agent.StatusFailed || !strings.Contains(out.Reason, "the deploy window closed") {
		t.Fatalf("outcome = %+v", out)
	}
	if prov.Remaining() != 1 {
		t.Fatal("the model was called after continue:false")
	}
	results := conv.Messages[len(conv.Messages)-1].Content
	if len(results) != 2 || results[0].IsError || !results[1].IsError || !strings.Contains(results[1].ResultText(), "Not run: a PostToolUse hook") {
		t.Fatalf("results = %+v", results)
	}
	if lines(e.read("pre.log")) != 1 {
		t.Fatal("PreToolUse hooks ran for a call after continue:false")
	}
}

func TestUpdatedInputIsWhatRuns(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PreToolUse", "Bash", e.script(printJSON(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"go test ./... -count=1"}}}`))))
	out, _, _ := runAgent(t, r, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}}},
		{ExpectContains: `ran {"command":"go test ./... -count=1"}`, Text: "ok"},
	})
	if !out.OK() {
		t.Fatalf("outcome = %+v", out)
	}
}
