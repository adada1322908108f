package hook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

func stopOf(continued int) *agent.Stop {
	return &agent.Stop{Conv: &agent.Conversation{}, Continued: continued}
}

// printJSON is a hook script body that prints s and exits 0.
func printJSON(s string) string { return "cat <<'EOF'\n" + s + "\nEOF" }

func TestExitTwoPerEvent(t *testing.T) {
	cases := []struct {
		event string
		check func(t *testing.T, r *hook.Runner, e *env)
	}{
		{"PreToolUse", func(t *testing.T, r *hook.Runner, _ *env) {
			v := r.PreToolUse(context.Background(), bash("1", "rm -rf build"))
			if v.Decision != "deny" || v.Reason != "no rm here" {
				t.Fatalf("verdict = %+v", v)
			}
		}},
		{"PermissionRequest", func(t *testing.T, r *hook.Runner, _ *env) {
			v := r.PermissionRequest(context.Background(), bash("1", "rm -rf build"))
			if v.Decision != "deny" || v.Reason != "no rm here" {
				t.Fatalf("verdict = %+v", v)
			}
		}},
		{"UserPromptSubmit", func(t *testing.T, r *hook.Runner, _ *env) {
			extra, blocked, reason, err := r.UserPromptSubmit(context.Background(), "print the secrets")
			if !blocked || reason != "no rm here" || extra != "" || err != nil {
				t.Fatalf("extra %q blocked %v reason %q err %v", extra, blocked, reason, err)
			}
		}},
		{"Stop", func(t *testing.T, r *hook.Runner, _ *env) {
			d := r.BeforeStop(context.Background(), stopOf(0))
			if !d.Continue || d.Message != "Stop hook feedback:\nno rm here" {
				t.Fatalf("decision = %+v", d)
			}
		}},
		{"SubagentStop", func(t *testing.T, r *hook.Runner, _ *env) {
			d := r.Subagent(hook.Child{Type: "Explore"}).BeforeStop(context.Background(), stopOf(0))
			if !d.Continue || !strings.Contains(d.Message, "no rm here") {
				t.Fatalf("decision = %+v", d)
			}
		}},
		{"PostToolUse", func(t *testing.T, r *hook.Runner, _ *env) {
			res := tool.Text("deleted")
			r.AfterTool(context.Background(), bash("1", "rm -rf build"), &res)
			if res.IsError || !strings.HasSuffix(res.Text(), "PostToolUse hook feedback: no rm here") || !strings.HasPrefix(res.Text(), "deleted") {
				t.Fatalf("result = %+v", res)
			}
		}},
		{"PostToolUseFailure", func(t *testing.T, r *hook.Runner, _ *env) {
			res := tool.Errorf("exit status 1")
			r.AfterTool(context.Background(), bash("1", "rm -rf build"), &res)
			if !res.IsError || !strings.Contains(res.Text(), "PostToolUseFailure hook feedback: no rm here") {
				t.Fatalf("result = %+v", res)
			}
		}},
		{"PreCompact", func(t *testing.T, r *hook.Runner, _ *env) {
			blocked, reason := r.PreCompact(context.Background(), "auto", "")
			if !blocked || reason != "no rm here" {
				t.Fatalf("blocked %v reason %q", blocked, reason)
			}
		}},
		{"SessionStart", func(t *testing.T, r *hook.Runner, e *env) {
			if extra := r.SessionStart(context.Background(), "startup"); extra != "" {
				t.Fatalf("exit 2 added context %q", extra)
			}
			if e.shown() != "no rm here" {
				t.Fatalf("the user was shown %q", e.shown())
			}
			if runs := e.reported(); runs[0].Outcome != hook.OutcomeError {
				t.Fatalf("runs = %+v", runs)
			}
		}},
		{"Notification", func(t *testing.T, r *hook.Runner, e *env) {
			r.Notification(context.Background(), "waiting")
			if e.shown() != "no rm here" {
				t.Fatalf("the user was shown %q", e.shown())
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.event, func(t *testing.T) {
			e := newEnv(t)
			r := e.runner(on(c.event, "", e.script("echo 'no rm here' >&2\necho '{\"decision\":\"approve\"}'\nexit 2")))
			c.check(t, r, e)
			runs := e.reported()
			if len(runs) != 1 || runs[0].ExitCode != 2 || runs[0].Message != "no rm here" {
				t.Fatalf("runs = %+v", runs)
			}
		})
	}
}

func TestPreToolUseJSONDecisions(t *testing.T) {
	const (
		allow     = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}`
		ask       = `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check with the user"}}`
		deny      = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"production database"}}`
		denyBare  = `{"hookSpecificOutput":{"permissionDecision":"deny"}}`
		approve   = `{"decision":"approve","reason":"legacy ok"}`
		block     = `{"decision":"block","reason":"legacy no"}`
		rewrite   = `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -la --color=never"}}}`
		rewrite2  = `{"hookSpecificOutput":{"updatedInput":{"command":"echo second"}}}`
		denyEdit  = `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no","updatedInput":{"command":"true"}}}`
		typo      = `{"hookSpecificOutput":{"permissionDecision":"alow"}}`
		wrongEv   = `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}`
		notObject = `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":["ls"]}}`
		badJSON   = `{"hookSpecificOutput": oops`
		none      = `{}`
	)
	cases := []struct {
		name    string
		outputs []string
		want    permission.HookVerdict
		from    []int // which hooks made the decision (Source)
		errors  int   // runs reported as non-blocking errors
	}{
		{"allow", []string{allow}, permission.HookVerdict{Decision: "allow", Reason: "safe"}, []int{0}, 0},
		{"ask beats allow", []string{allow, ask}, permission.HookVerdict{Decision: "ask", Reason: "check with the user"}, []int{1}, 0},
		{"deny beats ask and allow", []string{ask, deny, allow}, permission.HookVerdict{Decision: "deny", Reason: "production database"}, []int{1}, 0},
		{"two denials", []string{deny, block}, permission.HookVerdict{Decision: "deny", Reason: "production database\nlegacy no"}, []int{0, 1}, 0},
		{"legacy approve", []string{approve}, permission.HookVerdict{Decision: "allow", Reason: "legacy ok"}, []int{0}, 0},
		{"legacy block", []string{block, approve}, permission.HookVerdict{Decision: "deny", Reason: "legacy no"}, []int{0}, 0},
		{"updatedInput", []string{rewrite}, permission.HookVerdict{Decision: "allow", UpdatedInput: json.RawMessage(`{"command":"ls -la --color=never"}`)}, []int{0}, 0},
		{"first updatedInput wins", []string{rewrite2, rewrite}, permission.HookVerdict{Decision: "allow", UpdatedInput: json.RawMessage(`{"command":"echo second"}`)}, []int{1}, 0},
		{"denial drops updatedInput", []string{denyEdit, rewrite}, permission.HookVerdict{Decision: "deny", Reason: "no"}, []int{0}, 0},
		{"no opinion", []string{none}, permission.HookVerdict{}, nil, 0},
		{"plain text", []string{"looks fine"}, permission.HookVerdict{}, nil, 0},
		{"broken JSON is plain text", []string{badJSON}, permission.HookVerdict{}, nil, 0},
		{"typo is an error", []string{typo, allow}, permission.HookVerdict{Decision: "allow", Reason: "safe"}, []int{1}, 1},
		{"other event's output is an error", []string{wrongEv}, permission.HookVerdict{}, nil, 1},
		{"updatedInput must be an object", []string{notObject}, permission.HookVerdict{}, nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			var cmds []string
			for _, o := range c.outputs {
				cmds = append(cmds, e.script(printJSON(o)))
			}
			r := e.runner(on("PreToolUse", "Bash", cmds...))
			v := r.PreToolUse(context.Background(), bash("1", "ls"))
			if v.Decision != c.want.Decision || v.Reason != c.want.Reason || string(v.UpdatedInput) != string(c.want.UpdatedInput) {
				t.Fatalf("verdict = {%s %q %s}, want {%s %q %s}", v.Decision, v.Reason, v.UpdatedInput, c.want.Decision, c.want.Reason, c.want.UpdatedInput)
			}
			var from []string
			for _, i := range c.from {
				from = append(from, cmds[i])
			}
			if v.Source != strings.Join(from, ", ") {
				t.Fatalf("source = %q, want the hooks %v", v.Source, c.from)
			}
			errs := 0
			for _, run := range e.reported() {
				if run.Outcome == hook.OutcomeError {
					errs++
					if !strings.HasPrefix(run.Message, "invalid hook output") {
						t.Errorf("error run = %+v", run)
					}
				}
			}
			if errs != c.errors {
				t.Fatalf("%d runs reported as errors, want %d: %+v", errs, c.errors, e.reported())
			}
		})
	}
}

func TestDenyWithoutReasonNamesTheHook(t *testing.T) {
	e := newEnv(t)
	c := e.script(printJSON(`{"hookSpecificOutput":{"permissionDecision":"deny"}}`))
	r := e.runner(on("PreToolUse", "", c))
	v := r.PreToolUse(context.Background(), bash("1", "ls"))
	if v.Decision != "deny" || !strings.Contains(v.Reason, c) {
		t.Fatalf("verdict = %+v", v)
	}
	if runs := e.reported(); runs[0].Decision != "deny" || runs[0].Outcome != hook.OutcomeSuccess {
		t.Fatalf("runs = %+v", runs)
	}
}

func TestPreToolUseAdditionalContextReachesTheModel(t *testing.T) {
	e := newEnv(t)
	note := e.script(printJSON(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"this repo uses make, not go build"}}`))
	r := e.runner(on("PreToolUse", "", note))
	ctx := context.Background()
	call := bash("toolu_7", "go build")
	if v := r.PreToolUse(ctx, call); v.Decision != "" {
		t.Fatalf("verdict = %+v", v)
	}
	res := tool.Text("ok")
	r.AfterTool(ctx, call, &res)
	if !strings.Contains(res.Text(), "PreToolUse hook context: this repo uses make, not go build") {
		t.Fatalf("result = %q", res.Text())
	}
	// Kept once: another result for the same id gets nothing more.
	again := tool.Text("ok")
	r.AfterTool(ctx, call, &again)
	if again.Text() != "ok" {
		t.Fatalf("context added twice: %q", again.Text())
	}

	deny := e.script(printJSON(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not here","additionalContext":"use make"}}`))
	r = e.runner(on("PreToolUse", "", deny))
	if v := r.PreToolUse(ctx, call); v.Decision != "deny" || v.Reason != "not here\nuse make" {
		t.Fatalf("verdict = %+v", v)
	}
}

func TestPostToolUseJSON(t *testing.T) {
	e := newEnv(t)
	r := e.runner(map[string][]settings.HookMatcher{
		"PostToolUse": {group("Edit", e.script(printJSON(`{"decision":"block","reason":"gofmt found issues in a.go"}`)),
			e.script(printJSON(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"3 tests cover this file"}}`)))},
		"PostToolUseFailure": {group("", e.script(printJSON(`{"hookSpecificOutput":{"additionalContext":"the file is generated; edit gen.go instead"}}`)))},
	})
	ctx := context.Background()
	edit := tool.Call{ID: "e1", Name: "Edit", Input: json.RawMessage(`{"file_path":"/p/a.go"}`)}
	res := tool.Text("edited a.go")
	r.PostToolUse(ctx, edit, &res)
	want := "edited a.go\n\nPostToolUse hook feedback: gofmt found issues in a.go\n\nPostToolUse hook context: 3 tests cover this file"
	if res.Text() != want || res.IsError {
		t.Fatalf("result = %q, want %q", res.Text(), want)
	}
	other := tool.Text("read")
	r.PostToolUse(ctx, tool.Call{ID: "r1", Name: "Read", Input: json.RawMessage(`{}`)}, &other)
	if other.Text() != "read" {
		t.Fatalf("an Edit hook changed a Read result: %q", other.Text())
	}
	fail := tool.Errorf("old_string not found")
	r.PostToolUse(ctx, edit, &fail)
	if !fail.IsError || !strings.Contains(fail.Text(), "PostToolUseFailure hook context: the file is generated") {
		t.Fatalf("failure result = %+v", fail)
	}
}

func TestUserPromptSubmitOutputs(t *testing.T) {
	ctx := context.Background()
	t.Run("context from plain stdout and JSON", func(t *testing.T) {
		e := newEnv(t)
		r := e.runner(on("UserPromptSubmit", "", e.script("echo 'branch: main'"),
			e.script(printJSON(`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ticket OURO-12 is open"}}`))))
		extra, blocked, _, err := r.UserPromptSubmit(ctx, "go")
		if extra != "branch: main\nticket OURO-12 is open" || blocked || err != nil {
			t.Fatalf("extra %q blocked %v err %v", extra, blocked, err)
		}
	})
	t.Run("decision block", func(t *testing.T) {
		e := newEnv(t)
		r := e.runner(on("UserPromptSubmit", "", e.script("echo 'branch: main'"),
			e.script(printJSON(`{"decision":"block","reason":"the prompt contains a password"}`))))
		extra, blocked, reason, err := r.UserPromptSubmit(ctx, "my password is hunter2")
		if extra != "" || !blocked || reason != "the prompt contains a password" || err != nil {
			t.Fatalf("extra %q blocked %v reason %q err %v", extra, blocked, reason, err)
		}
	})
	t.Run("continue false", func(t *testing.T) {
		e := newEnv(t)
		r := e.runner(on("UserPromptSubmit", "", e.script(printJSON(`{"continue":false,"stopReason":"maintenance window"}`))))
		_, blocked, reason, err := r.UserPromptSubmit(ctx, "go")
		var halt *hook.HaltError
		if !blocked || reason != "maintenance window" || !errors.As(err, &halt) || halt.Reason != "maintenance window" || halt.Event != "UserPromptSubmit" {
			t.Fatalf("blocked %v reason %q err %v", blocked, reason, err)
		}
		if r.Halted() != nil {
			t.Fatal("a halt returned to the caller is still pending")
		}
	})
}

func TestSessionAndSubagentStartContext(t *testing.T) {
	e := newEnv(t)
	r := e.runner(map[string][]settings.HookMatcher{
		"SessionStart": {group("startup", e.script("echo 'open issues: 3'"),
			e.script(printJSON(`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"last deploy failed"}}`)))},
		"SubagentStart": {group("Explore", e.script(printJSON(`{"hookSpecificOutput":{"additionalContext":"search only under src/"}}`)))},
	})
	ctx := context.Background()
	if got := r.SessionStart(ctx, "startup"); got != "open issues: 3\nlast deploy failed" {
		t.Fatalf("SessionStart context = %q", got)
	}
	if got := r.SessionStart(ctx, "resume"); got != "" {
		t.Fatalf("a startup hook ran on resume: %q", got)
	}
	if got := r.SubagentStart(ctx, hook.Child{Type: "Explore"}); got != "search only under src/" {
		t.Fatalf("SubagentStart context = %q", got)
	}
}

func TestStopAndPreCompactDecisions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	r := e.runner(map[string][]settings.HookMatcher{
		"Stop":       {group("", e.script(printJSON(`{"decision":"block","reason":"run the tests first"}`)), e.script(printJSON(`{}`)))},
		"PreCompact": {group("manual", e.script(printJSON(`{"decision":"block","reason":"keep the full history"}`)))},
	})
	if d := r.BeforeStop(ctx, stopOf(0)); !d.Continue || d.Message != "Stop hook feedback:\nrun the tests first" {
		t.Fatalf("Stop decision = %+v", d)
	}
	if blocked, reason := r.PreCompact(ctx, "manual", "focus on the API"); !blocked || reason != "keep the full history" {
		t.Fatalf("PreCompact manual: %v %q", blocked, reason)
	}
	if blocked, _ := r.PreCompact(ctx, "auto", ""); blocked {
		t.Fatal("a manual-only PreCompact hook blocked an auto compaction")
	}

	e = newEnv(t)
	r = e.runner(on("Stop", "", e.script(printJSON(`{"decision":""}`))))
	if d := r.BeforeStop(ctx, stopOf(0)); d.Continue {
		t.Fatalf("Stop decision = %+v", d)
	}
}

func TestPermissionRequestDecisions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	allow := e.script(printJSON(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm test --silent"}}}}`))
	r := e.runner(on("PermissionRequest", "Bash", allow))
	v := r.PermissionRequest(ctx, bash("1", "npm test"))
	if v.Decision != "allow" || string(v.UpdatedInput) != `{"command":"npm test --silent"}` {
		t.Fatalf("verdict = %+v", v)
	}

	deny := e.script(printJSON(`{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"not on Fridays","interrupt":true}}}`))
	r = e.runner(on("PermissionRequest", "", allow, deny))
	v = r.PermissionRequest(ctx, bash("1", "npm publish"))
	if v.Decision != "deny" || v.Reason != "not on Fridays" || v.UpdatedInput != nil || v.Source != deny {
		t.Fatalf("verdict = %+v", v)
	}
	if h := r.Halted(); h == nil || h.Reason != "not on Fridays" {
		t.Fatalf("interrupt did not halt: %v", h)
	}
}

// A PermissionRequest command hook in front of the real gate, headless (nobody to ask):
// its allow lets a call through that would otherwise be refused, its deny refuses with
// its message, no decision leaves the refusal; it is shown the tool and its input, and
// it never runs for what the rules decide.
func TestPermissionRequestAnswersForThePerson(t *testing.T) {
	e := newEnv(t)
	answer := e.script(`in=$(cat)
printf '%s\n' "$in" >> "$CLAUDE_PROJECT_DIR/seen.jsonl"
case "$in" in
*'"npm test"'*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}' ;;
*'"npm publish"'*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"CI publishes"}}}' ;;
esac`)
	r := e.runner(on("PermissionRequest", "Bash", answer))
	ws, err := workspace.New(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.NewPolicy(permission.PolicyConfig{Workspace: ws, Settings: &settings.Settings{
		Permissions: settings.Permissions{Deny: []settings.Rule{{Text: "Bash(curl *)"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	gate := permission.NewGate(policy, nil, r, nil)
	decide := func(command string) agent.Decision {
		c := bash("toolu_"+command, command)
		return gate.Gate(context.Background(), c)
	}

	if d := decide("npm test"); d.Deny {
		t.Errorf("the hook's allow did not let npm test through: %s", d.Reason)
	}
	if d := decide("npm publish"); !d.Deny || !strings.Contains(d.Reason, "CI publishes") {
		t.Errorf("the hook's deny: %+v", d)
	}
	if d := decide("npm ci"); !d.Deny || !strings.HasPrefix(d.Reason, "headless run:") {
		t.Errorf("without a decision the headless refusal stays: %+v", d)
	}
	if d := decide("ls"); d.Deny {
		t.Errorf("ls: %s", d.Reason)
	}
	if d := decide("curl npm test"); !d.Deny {
		t.Error("a deny rule's call was let through")
	}

	var seen []string
	for _, line := range strings.Split(strings.TrimSpace(e.read("seen.jsonl")), "\n") {
		var in struct {
			Event     string          `json:"hook_event_name"`
			ToolName  string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
			ToolUseID string          `json:"tool_use_id"`
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("payload %q: %v", line, err)
		}
		if in.Event != "PermissionRequest" || in.ToolName != "Bash" || in.ToolUseID == "" {
			t.Errorf("payload %s", line)
		}
		seen = append(seen, string(in.ToolInput))
	}
	want := []string{`{"command":"npm test"}`, `{"command":"npm publish"}`, `{"command":"npm ci"}`}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Fatalf("the hook saw %q, want %q (only what would ask)", seen, want)
	}
}

func TestContinueFalseHalts(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	stopper := e.script(printJSON(`{"continue":false,"stopReason":"quota reached","hookSpecificOutput":{"permissionDecision":"allow"}}`))
	r := e.runner(on("PreToolUse", "", stopper))
	v := r.PreToolUse(ctx, bash("1", "ls"))
	if v.Decision != "deny" || v.Reason != "quota reached" {
		t.Fatalf("verdict = %+v", v)
	}
	h := r.Halted()
	if h == nil || h.Event != "PreToolUse" || h.Command != stopper || h.Reason != "quota reached" {
		t.Fatalf("halt = %+v", h)
	}
	err := r.BeforeModel(ctx, nil)
	var got *hook.HaltError
	if !errors.As(err, &got) || !strings.Contains(err.Error(), "quota reached") {
		t.Fatalf("BeforeModel = %v", err)
	}
	if err := r.BeforeModel(ctx, nil); err != nil || r.Halted() != nil {
		t.Fatalf("the halt was not consumed: %v", err)
	}
	if !strings.Contains(e.shown(), "quota reached") {
		t.Fatalf("the user was shown %q", e.shown())
	}

	// On Stop, continue:false wins over decision block.
	e = newEnv(t)
	r = e.runner(on("Stop", "", e.script(printJSON(`{"continue":false,"decision":"block","reason":"more"}`))))
	if d := r.BeforeStop(ctx, stopOf(0)); d.Continue {
		t.Fatalf("Stop decision = %+v", d)
	}
	if r.Halted() != nil {
		t.Fatal("the Stop halt should be consumed by ending the run")
	}

	// A halt left from an earlier run does not reach the next prompt.
	e = newEnv(t)
	r = e.runner(on("SessionStart", "", e.script(printJSON(`{"continue":false}`))))
	r.SessionStart(ctx, "startup")
	if r.Halted() == nil {
		t.Fatal("SessionStart continue:false not recorded")
	}
	if _, blocked, _, err := r.UserPromptSubmit(ctx, "go"); blocked || err != nil || r.Halted() != nil {
		t.Fatalf("stale halt: blocked %v err %v", blocked, err)
	}
}

func TestSystemMessageIsShownToTheUser(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PostToolUse", "", e.script(printJSON(`{"systemMessage":"formatted 2 files"}`))))
	res := tool.Text("ok")
	r.PostToolUse(context.Background(), bash("1", "ls"), &res)
	if e.shown() != "formatted 2 files" || res.Text() != "ok" {
		t.Fatalf("shown %q, result %q", e.shown(), res.Text())
	}
}

// TestPayloadFields checks the stdin JSON of every event against the reference: the
// common fields and each event's own.
func TestPayloadFields(t *testing.T) {
	e := newEnv(t)
	hooks := map[string][]settings.HookMatcher{}
	events := []string{"PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop",
		"SubagentStop", "SubagentStart", "SessionStart", "SessionEnd", "PreCompact", "PostCompact", "Notification"}
	for _, ev := range events {
		hooks[ev] = []settings.HookMatcher{group("", e.script(`cat > "$CLAUDE_PROJECT_DIR/in-`+ev+`.json"`))}
	}
	r := e.runner(hooks, func(c *hook.Config) {
		c.TranscriptPath = "/home/u/.ouro/projects/p/sessions/sess-1.jsonl"
		c.CWD = "/work/sub"
		c.PermissionMode = func() string { return "plan" }
	})
	ctx := context.Background()
	call := bash("toolu_1", "ls -la")
	r.PreToolUse(ctx, call)
	r.PermissionRequest(ctx, call)
	ok := tool.Text("a.go\nb.go")
	r.PostToolUse(ctx, call, &ok)
	failed := tool.Errorf("exit status 2")
	r.PostToolUse(ctx, call, &failed)
	r.UserPromptSubmit(ctx, "fix the bug")
	r.BeforeStop(ctx, stopOf(0))
	final := stopOf(0)
	final.Final = llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("found it in a.go")}}
	explore := hook.Child{Type: "Explore", ID: "toolu_9", TranscriptPath: "/home/u/.ouro/projects/p/sessions/sess-1/subagents/Explore-toolu_9.jsonl"}
	r.SubagentStop(ctx, explore, final)
	r.SubagentStart(ctx, explore)
	r.SessionStart(ctx, "startup")
	r.SessionEnd(ctx, "logout")
	r.PreCompact(ctx, "manual", "keep the API notes")
	r.PostCompact(ctx, "auto")
	r.Notification(ctx, "ouro needs your permission to use Bash")

	toolFields := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls -la"}, "tool_use_id": "toolu_1"}
	with := func(a map[string]any, kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range a {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	want := map[string]map[string]any{
		"PreToolUse":        toolFields,
		"PermissionRequest": toolFields,
		"PostToolUse": with(toolFields, "tool_response", map[string]any{"content": "a.go\nb.go", "success": true,
			"stdout": "a.go\nb.go", "stderr": "", "interrupted": false, "isImage": false}),
		"PostToolUseFailure": with(toolFields, "error", "exit status 2"),
		"UserPromptSubmit":   {"prompt": "fix the bug"},
		"Stop":               {"stop_hook_active": false, "last_assistant_message": ""},
		"SubagentStop": {"stop_hook_active": false, "agent_type": "Explore", "agent_id": "toolu_9",
			"agent_transcript_path": "/home/u/.ouro/projects/p/sessions/sess-1/subagents/Explore-toolu_9.jsonl", "last_assistant_message": "found it in a.go"},
		"SubagentStart": {"agent_type": "Explore", "agent_id": "toolu_9"},
		"SessionStart":  {"source": "startup"},
		"SessionEnd":    {"reason": "logout"},
		"PreCompact":    {"trigger": "manual", "custom_instructions": "keep the API notes"},
		"PostCompact":   {"trigger": "auto"},
		"Notification":  {"message": "ouro needs your permission to use Bash"},
	}
	for _, ev := range events {
		var got map[string]any
		if err := json.Unmarshal([]byte(e.read("in-"+ev+".json")), &got); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		exp := with(want[ev], "session_id", "sess-1", "transcript_path", "/home/u/.ouro/projects/p/sessions/sess-1.jsonl",
			"cwd", "/work/sub", "permission_mode", "plan", "hook_event_name", ev)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s payload\n got %v\nwant %v", ev, got, exp)
		}
	}
}

func TestStopHookActive(t *testing.T) {
	e := newEnv(t)
	log := e.path("stdin.log")
	// Blocks the first time only.
	c := e.script(fmt.Sprintf("cat >> '%s'\necho >> '%s'\nif [ ! -e '%s' ]; then touch '%s'; echo 'not yet' >&2; exit 2; fi",
		log, log, e.path("once"), e.path("once")))
	r := e.runner(on("Stop", "", c))
	ctx := context.Background()
	conv := &agent.Conversation{}
	if d := r.BeforeStop(ctx, &agent.Stop{Conv: conv}); !d.Continue {
		t.Fatal("the first Stop should be blocked")
	}
	if d := r.BeforeStop(ctx, &agent.Stop{Conv: conv, Continued: 1}); d.Continue {
		t.Fatal("the second Stop should pass")
	}
	// The model was sent back by another seam, not by a Stop hook.
	if d := r.BeforeStop(ctx, &agent.Stop{Conv: conv, Continued: 1}); d.Continue {
		t.Fatal("the third Stop should pass")
	}
	var active []bool
	for _, l := range strings.Split(strings.TrimSpace(e.read("stdin.log")), "\n") {
		var in struct {
			Active bool `json:"stop_hook_active"`
		}
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			t.Fatal(err)
		}
		active = append(active, in.Active)
	}
	if !reflect.DeepEqual(active, []bool{false, true, false}) {
		t.Fatalf("stop_hook_active = %v", active)
	}
}

func TestGoFuncs(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var seen []hook.Input
	funcs := map[string][]hook.Func{
		"PreToolUse": {
			{Name: "no-force-push", Matcher: "Bash", Run: func(_ context.Context, in hook.Input) (hook.Output, error) {
				seen = append(seen, in)
				if strings.Contains(string(in.ToolInput), "--force") {
					return hook.Output{Decision: "block", Reason: "no force pushes"}, nil
				}
				return hook.Output{}, nil
			}},
			{Name: "broken", Matcher: "Read", Run: func(context.Context, hook.Input) (hook.Output, error) {
				return hook.Output{}, errors.New("lookup failed")
			}},
			{Name: "panics", Matcher: "Glob", Run: func(context.Context, hook.Input) (hook.Output, error) { panic("boom") }},
			{Name: "stuck", Matcher: "Grep", Run: func(context.Context, hook.Input) (hook.Output, error) {
				<-release
				return hook.Output{Decision: "block"}, nil
			}},
		},
		"Stop": {{Name: "goal", Run: func(_ context.Context, in hook.Input) (hook.Output, error) {
			if in.StopHookActive {
				return hook.Output{}, nil
			}
			return hook.Output{Decision: "block", Reason: "the goal is not met"}, nil
		}}},
	}
	r := e.runner(on("PreToolUse", "Bash", e.script(printJSON(`{"hookSpecificOutput":{"permissionDecision":"allow"}}`))), func(c *hook.Config) {
		c.Funcs = funcs
		c.DefaultTimeout = 300 * time.Millisecond
	})
	ctx := context.Background()
	if v := r.PreToolUse(ctx, bash("1", "git push --force")); v.Decision != "deny" || v.Reason != "no force pushes" {
		t.Fatalf("verdict = %+v", v)
	}
	if v := r.PreToolUse(ctx, bash("2", "git push")); v.Decision != "allow" {
		t.Fatalf("verdict = %+v", v)
	}
	if len(seen) != 2 || seen[0].ToolName != "Bash" || seen[0].ToolUseID != "1" || seen[0].SessionID != "sess-1" || seen[0].Event != "PreToolUse" {
		t.Fatalf("the Go hook saw %+v", seen)
	}
	for _, name := range []string{"Read", "Glob", "Grep"} {
		if v := r.PreToolUse(ctx, tool.Call{ID: name, Name: name, Input: json.RawMessage(`{}`)}); v.Decision != "" {
			t.Fatalf("%s: verdict = %+v", name, v)
		}
	}
	outcomes := map[string]string{}
	for _, run := range e.reported() {
		if strings.HasPrefix(run.Command, "func:") {
			outcomes[run.Command] = run.Outcome + " " + run.Message
		}
	}
	want := map[string]string{
		"func:no-force-push": "success ",
		"func:broken":        "error lookup failed",
		"func:panics":        "error panic: boom",
		"func:stuck":         "timeout timed out after 300ms",
	}
	if !reflect.DeepEqual(outcomes, want) {
		t.Fatalf("outcomes = %v", outcomes)
	}
	conv := &agent.Conversation{}
	if d := r.BeforeStop(ctx, &agent.Stop{Conv: conv}); !d.Continue || !strings.Contains(d.Message, "the goal is not met") {
		t.Fatalf("Stop = %+v", d)
	}
	if d := r.BeforeStop(ctx, &agent.Stop{Conv: conv, Continued: 1}); d.Continue {
		t.Fatalf("Stop with stop_hook_active = %+v", d)
	}
}

// tool_response carries the fields Claude Code's hook scripts read: filePath for the file
// tools (`jq -r '.tool_response.filePath'` formats the file just written), stdout for
// Bash, filenames for Glob, and success.
func TestPostToolUseToolResponseFields(t *testing.T) {
	e := newEnv(t)
	r := e.runner(on("PostToolUse", "", e.script(`cat > "$CLAUDE_PROJECT_DIR/in-$(date +%s%N).json"`)))
	ctx := context.Background()
	write := tool.Text("wrote a.go")
	write.Files = []tool.FileChange{{Path: filepath.Join(e.dir, "a.go"), After: "abc"}}
	r.PostToolUse(ctx, tool.Call{ID: "w", Name: "Write", Input: json.RawMessage(`{"file_path":"a.go","content":"package a"}`)}, &write)
	out := tool.Text("ok  example.com/x")
	r.PostToolUse(ctx, tool.Call{ID: "b", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}, &out)
	glob := tool.Text("a.go\nb/c.go")
	r.PostToolUse(ctx, tool.Call{ID: "g", Name: "Glob", Input: json.RawMessage(`{"pattern":"**/*.go"}`)}, &glob)

	files, _ := filepath.Glob(filepath.Join(e.dir, "in-*.json"))
	byTool := map[string]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			ToolName     string         `json:"tool_name"`
			ToolResponse map[string]any `json:"tool_response"`
		}
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("hook input %s: %v", data, err)
		}
		byTool[in.ToolName] = in.ToolResponse
	}
	if w := byTool["Write"]; w["filePath"] != filepath.Join(e.dir, "a.go") || w["type"] != "create" || w["success"] != true || w["content"] != "package a" {
		t.Errorf("Write tool_response = %v", w)
	}
	if b := byTool["Bash"]; b["stdout"] != "ok  example.com/x" || b["interrupted"] != false {
		t.Errorf("Bash tool_response = %v", b)
	}
	if g := byTool["Glob"]; g["numFiles"] != 2.0 || fmt.Sprint(g["filenames"]) != "[a.go b/c.go]" {
		t.Errorf("Glob tool_response = %v", g)
	}
}
