//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// The Claude Agent SDK's side is played by sdkSide (sdk_side_e2e_test.go).

// The SDK starts ouro with its command line (no -p, --system-prompt "", flags ouro has
// no use for), initializes, and keeps one session open across two messages until it
// closes standard input. What it parses (system/init, assistant, result) is there.
func TestSDKStreamingSessionWithItsCommandLine(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(scripted.Turn{ExpectContains: "first", Text: "one"}, scripted.Turn{ExpectContains: "second", Text: "two"})
	// A command and a model-only skill: initialize lists the first (supportedCommands()).
	os.MkdirAll(filepath.Join(e.dir, ".claude", "commands"), 0o755)
	os.WriteFile(filepath.Join(e.dir, ".claude", "commands", "review.md"), []byte("---\ndescription: Review a change\nargument-hint: \"[pr]\"\n---\nReview $ARGUMENTS\n"), 0o644)
	os.MkdirAll(filepath.Join(e.dir, ".claude", "skills", "internal-notes"), 0o755)
	os.WriteFile(filepath.Join(e.dir, ".claude", "skills", "internal-notes", "SKILL.md"), []byte("---\nname: internal-notes\ndescription: Notes for the model\nuser-invocable: false\n---\nbody\n"), 0o644)
	s := startSDK(t, e, nil, "--max-turns", "5", "--model", "claude-sonnet-4-5", "--permission-mode", "default",
		"--betas", "context-1m-2025-08-07", "--max-thinking-tokens", "8000", "--setting-sources=user,project,local",
		"--tools", "default", "--include-hook-events")
	// The agents option, and the system prompt as the TypeScript SDK sends it.
	init := s.initialize(nil, map[string]any{
		"agents":       map[string]any{"ledger-checker": map[string]any{"description": "Checks the ledger", "prompt": "You check ledgers.", "tools": []string{"Read", "Grep"}}},
		"systemPrompt": "You are the ledger bot.",
	})
	resp := init["response"].(map[string]any)
	cmds, ok := resp["commands"].([]any)
	if !ok || resp["output_style"] != "default" {
		t.Fatalf("initialize response = %v", init)
	}
	listed, _ := json.Marshal(cmds)
	if !strings.Contains(string(listed), `{"argumentHint":"[pr]","description":"Review a change","name":"review"}`) || strings.Contains(string(listed), "internal-notes") {
		t.Fatalf("initialize should list the user's commands, not model-only skills: %s", listed)
	}
	s.user("first question")
	r1 := s.result(1)
	s.user("second question")
	r2 := s.result(2)
	if r1["result"] != "one" || r2["result"] != "two" || r1["session_id"] != r2["session_id"] || r1["subtype"] != "success" {
		t.Fatalf("results: %v / %v", r1, r2)
	}
	for _, k := range []string{"duration_ms", "duration_api_ms", "is_error", "num_turns", "session_id", "total_cost_usd", "usage"} {
		if _, ok := r1[k]; !ok {
			t.Errorf("result lacks %q, which the SDK reads", k)
		}
	}
	inits := s.ofType("system", "init")
	if len(inits) != 1 || inits[0]["session_id"] != r1["session_id"] || inits[0]["model"] != "claude-sonnet-4-5" {
		t.Fatalf("system/init lines: %v", inits)
	}
	for _, a := range s.ofType("assistant", "") {
		if m := a["message"].(map[string]any); m["model"] == nil || m["content"] == nil {
			t.Fatalf("assistant line lacks model or content, which the SDK requires: %v", a)
		}
	}
	if code := s.finish(); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.stderr)
	}
	first := string(srv.Requests()[0].Body)
	if !strings.Contains(first, "ledger-checker: Checks the ledger") || !strings.Contains(first, "You are the ledger bot.") {
		t.Errorf("the SDK's agents or system prompt did not reach the model:\n%.2000s", first)
	}
	// --max-thinking-tokens is the SDK's maxThinkingTokens: thinking with that budget.
	if !strings.Contains(first, `"thinking":{"budget_tokens":8000,"type":"enabled"}`) || strings.Contains(s.stderr.String(), "--max-thinking-tokens is ignored") {
		t.Errorf("--max-thinking-tokens 8000 did not reach the model:\n%.600s\n%s", first, s.stderr)
	}
	for _, flag := range []string{"--betas", "--setting-sources", "--include-hook-events"} {
		if !strings.Contains(s.stderr.String(), "warning: "+flag+" is ignored") {
			t.Errorf("no warning for %s:\n%s", flag, s.stderr)
		}
	}
	// Only the SDK's flags are tolerated: a misspelt flag of ouro's own is still an error.
	_, stderr, code := e.run("", sdkCommand("--max-turnz", "3")...)
	if code != 1 || !strings.Contains(stderr, "unknown flag: --max-turnz") {
		t.Fatalf("typo: exit %d %s", code, stderr)
	}
}

// canUseTool: a call the policy asks about goes to the SDK; its deny reaches the model,
// its allow with updatedInput runs the rewritten call.
func TestSDKCanUseToolDeniesAndAllowsWithUpdatedInput(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("rm -rf build")},
		scripted.Turn{ExpectContains: "no deleting today", ToolCalls: bash("echo original > out.txt")},
		scripted.Turn{Text: "done"},
	)
	s := startSDK(t, e, func(req map[string]any) (any, string, bool) {
		if req["subtype"] != "can_use_tool" {
			return nil, "unexpected " + fmt.Sprint(req["subtype"]), false
		}
		in := req["input"].(map[string]any)
		if strings.HasPrefix(in["command"].(string), "rm") {
			return map[string]any{"behavior": "deny", "message": "no deleting today"}, "", false
		}
		return map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "echo rewritten > out.txt"}}, "", false
	}, "--permission-prompt-tool", "stdio")
	s.initialize(nil)
	s.user("clean up")
	r := s.result(1)
	if r["result"] != "done" {
		t.Fatalf("result = %v\n%s", r, s.stderr)
	}
	asks := s.requestsOf("can_use_tool")
	if len(asks) != 2 || asks[0]["tool_name"] != "Bash" || asks[0]["tool_use_id"] == nil || asks[0]["permission_suggestions"] == nil {
		t.Fatalf("can_use_tool requests: %v", asks)
	}
	data, err := os.ReadFile(filepath.Join(e.dir, "out.txt"))
	if err != nil || strings.TrimSpace(string(data)) != "rewritten" {
		t.Fatalf("out.txt = %q, %v: the SDK's updatedInput was not what ran", data, err)
	}
	if code := s.finish(); code != 0 {
		t.Fatalf("exit %d\n%s", code, s.stderr)
	}
}

// A PreToolUse hook registered by the SDK (hook_callback) blocks a Bash call that the
// mode would have allowed.
func TestSDKHookCallbackBlocksBash(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("touch pwned")},
		scripted.Turn{ExpectContains: "bash is off limits", Text: "blocked"},
	)
	var seen map[string]any
	s := startSDK(t, e, func(req map[string]any) (any, string, bool) {
		if req["subtype"] != "hook_callback" || req["callback_id"] != "hook_0" {
			return nil, "unexpected request", false
		}
		seen = req["input"].(map[string]any)
		return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
			"permissionDecision": "deny", "permissionDecisionReason": "bash is off limits"}}, "", false
	}, "--permission-mode", "bypassPermissions")
	s.initialize(map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hookCallbackIds": []string{"hook_0"}}}})
	s.user("make a file")
	if r := s.result(1); r["result"] != "blocked" {
		t.Fatalf("result = %v\n%s", r, s.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "pwned")); err == nil {
		t.Fatal("the blocked command ran")
	}
	if seen["hook_event_name"] != "PreToolUse" || seen["tool_name"] != "Bash" || seen["tool_input"].(map[string]any)["command"] != "touch pwned" {
		t.Fatalf("hook input = %v", seen)
	}
	s.finish()
}

// An SDK MCP server ("type": "sdk") is reached over mcp_message: handshake, tools/list
// and a tools/call the model makes.
func TestSDKMCPServerOverControlMessages(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: sdkToolCall("mcp__calc__add", map[string]any{"a": 2, "b": 3})},
		scripted.Turn{ExpectContains: "sum=5", Text: "it is 5"},
	)
	var methods []string
	var mu sync.Mutex
	s := startSDK(t, e, func(req map[string]any) (any, string, bool) {
		if req["subtype"] != "mcp_message" || req["server_name"] != "calc" {
			return nil, "unexpected request", false
		}
		msg := req["message"].(map[string]any)
		mu.Lock()
		methods = append(methods, fmt.Sprint(msg["method"]))
		mu.Unlock()
		id := msg["id"]
		var result any
		switch msg["method"] {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "calc", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "add", "description": "Add two numbers",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "number"}, "b": map[string]any{"type": "number"}}}}}}
		case "tools/call":
			args := msg["params"].(map[string]any)["arguments"].(map[string]any)
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("sum=%v", args["a"].(float64)+args["b"].(float64))}}}
		default:
			if id == nil { // a notification: the SDK answers an empty result
				return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "result": map[string]any{}}}, "", false
			}
			return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "nope"}}}, "", false
		}
		return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": id, "result": result}}, "", false
	}, "--mcp-config", `{"mcpServers":{"calc":{"type":"sdk","name":"calc"}}}`, "--allowedTools", "mcp__calc__add")
	s.initialize(nil)
	s.user("add 2 and 3")
	if r := s.result(1); r["result"] != "it is 5" {
		t.Fatalf("result = %v\n%s", r, s.stderr)
	}
	init := s.ofType("system", "init")[0]
	if !strings.Contains(fmt.Sprint(init["mcp_servers"]), "name:calc status:connected") {
		t.Errorf("init mcp_servers = %v", init["mcp_servers"])
	}
	mu.Lock()
	got := strings.Join(methods, " ")
	mu.Unlock()
	if !strings.Contains(got, "initialize notifications/initialized") || !strings.Contains(got, "tools/list") || !strings.Contains(got, "tools/call") {
		t.Fatalf("MCP methods over the control channel: %s", got)
	}
	s.finish()
}

// interrupt ends the running turn at once; the session stays open for the next message.
func TestSDKInterruptMidTurnKeepsTheSession(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("sleep 60")},
		scripted.Turn{ExpectContains: "again", Text: "back"},
	)
	s := startSDK(t, e, nil, "--permission-mode", "bypassPermissions")
	s.initialize(nil)
	s.user("wait a minute")
	s.waitFor(func() bool {
		for _, l := range s.lines {
			if l["type"] == "assistant" {
				return true
			}
		}
		return false
	}, "the assistant's tool call")
	start := time.Now()
	if r := s.control(map[string]any{"subtype": "interrupt"}); r["subtype"] != "success" {
		t.Fatalf("interrupt answered %v", r)
	}
	r := s.result(1)
	if r["is_error"] != true || r["status"] != "interrupted" {
		t.Fatalf("result after interrupt = %v", r)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the turn took %s to end after the interrupt", d)
	}
	s.user("again")
	if r := s.result(2); r["result"] != "back" {
		t.Fatalf("second result = %v\n%s", r, s.stderr)
	}
	s.finish()
}

// set_permission_mode changes what the policy allows from the next call on; a mode that
// does not exist is an error answer naming it.
func TestSDKSetPermissionMode(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("touch made")},
		scripted.Turn{Text: "ok"},
	)
	s := startSDK(t, e, nil)
	s.initialize(nil)
	if r := s.control(map[string]any{"subtype": "set_permission_mode", "mode": "yolo"}); r["subtype"] != "error" || !strings.Contains(fmt.Sprint(r["error"]), `"yolo"`) {
		t.Fatalf("bad mode answered %v", r)
	}
	if r := s.control(map[string]any{"subtype": "set_permission_mode", "mode": "bypassPermissions"}); r["subtype"] != "success" {
		t.Fatalf("set_permission_mode answered %v", r)
	}
	s.user("make it")
	s.result(1)
	if _, err := os.Stat(filepath.Join(e.dir, "made")); err != nil {
		t.Fatalf("after set_permission_mode bypassPermissions the command did not run: %v\n%s", err, s.stderr)
	}
	if code := s.finish(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// A hostile or broken SDK side: unknown subtypes and unknown request ids are answered or
// reported, never hang; a callback that never answers is bounded by OURO_SDK_TIMEOUT and
// cancelled; a malformed line ends the session with an error naming it.
func TestSDKHostileSide(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("rm -rf build")},
		scripted.Turn{ExpectContains: "did not answer can_use_tool within 1s", Text: "gave up"},
	)
	e.vars = append(e.vars, "OURO_SDK_TIMEOUT=1s")
	s := startSDK(t, e, func(req map[string]any) (any, string, bool) { return nil, "", true }, "--permission-prompt-tool", "stdio")
	s.initialize(nil)
	if r := s.control(map[string]any{"subtype": "rewind_files", "user_message_id": "x"}); r["subtype"] != "error" || !strings.Contains(fmt.Sprint(r["error"]), `"rewind_files"`) {
		t.Fatalf("unsupported subtype answered %v", r)
	}
	if r := s.control(map[string]any{"subtype": "initialize", "hooks": nil}); r["subtype"] != "error" {
		t.Fatalf("a second initialize answered %v", r)
	}
	s.write(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": "never-asked", "response": map[string]any{}}})
	s.writeRaw(`{"type":"control_request","request":{"subtype":"interrupt"}}` + "\n") // no request_id
	s.user("clean up")
	if r := s.result(1); r["result"] != "gave up" {
		t.Fatalf("result = %v\n%s", r, s.stderr)
	}
	var cancelled bool
	for _, l := range s.ofType("control_cancel_request", "") {
		cancelled = cancelled || l["request_id"] != nil
	}
	if !cancelled {
		t.Error("the unanswered can_use_tool was not cancelled")
	}
	if !strings.Contains(s.stderr.String(), `"never-asked"`) || !strings.Contains(s.stderr.String(), `needs a "request_id"`) {
		t.Errorf("stderr does not report the stray lines:\n%s", s.stderr)
	}
	s.writeRaw("{not json\n")
	code := s.finish()
	if code != 1 || !strings.Contains(s.stderr.String(), "is not a JSON object") {
		t.Fatalf("malformed line: exit %d\n%s", code, s.stderr)
	}
}

// resume + fork_session (--resume=ID --fork-session): the model sees the old
// conversation, the new turns go to a new session, and the resumed one stays as it was.
// --system-prompt-file and --agents take their Claude Code meaning.
func TestSDKForkSessionSystemPromptFileAndAgents(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "remembered 42"},
		scripted.Turn{ExpectContains: "what number", Text: "it was 42"},
	)
	out, stderr, code := e.run("", "-p", "remember 42", "--output-format", "json")
	if code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	var first map[string]any
	json.Unmarshal([]byte(out), &first)
	oldID := first["session_id"].(string)
	prompt := filepath.Join(e.dir, "prompt.txt")
	os.WriteFile(prompt, []byte("You are the number keeper."), 0o644)
	s := startSDK(t, e, nil, "--resume="+oldID, "--fork-session", "--system-prompt-file", prompt,
		"--agents", `{"counter":{"description":"Counts things","prompt":"You count."}}`)
	s.initialize(nil)
	s.user("what number?")
	r := s.result(1)
	if r["result"] != "it was 42" || r["session_id"] == oldID {
		t.Fatalf("forked result = %v (old session %s)\n%s", r, oldID, s.stderr)
	}
	s.finish()
	body := string(srv.Requests()[1].Body)
	if !strings.Contains(body, "remember 42") || !strings.Contains(body, "You are the number keeper.") || !strings.Contains(body, "counter: Counts things") {
		t.Fatalf("the forked request lacks the history, the system prompt file or the agent:\n%.1500s", body)
	}
	// The resumed session was not written to: resuming it again sends only its own turn
	// (the script has no third answer; what matters is the history the request carries).
	e.run("", "--resume", oldID, "-p", "what number?", "--output-format", "json")
	if n := len(srv.Requests()); n != 3 || len(srv.Requests()[2].Messages) != 3 {
		t.Fatalf("resuming the original session sent %d messages, want 3 (it must not hold the fork's turn)", len(srv.Requests()[2].Messages))
	}
	// Flags that contradict each other are errors.
	_, stderr, code = e.run("", sdkCommand("--fork-session")...)
	if code != 1 || !strings.Contains(stderr, "--fork-session forks the session being resumed") {
		t.Fatalf("fork without resume: %d %s", code, stderr)
	}
	_, stderr, code = e.run("", sdkCommand("--tools", "")...)
	if code != 1 || !strings.Contains(stderr, `--tools "" (no built-in tools`) {
		t.Fatalf("--tools \"\": %d %s", code, stderr)
	}
	_, stderr, code = e.run("", sdkCommand("--agents", `{"x":{"prompt":"p"}}`)...)
	if code != 1 || !strings.Contains(stderr, `agent "x" needs a "description"`) {
		t.Fatalf("bad --agents: %d %s", code, stderr)
	}
}

// The SDK goes away (closes its end) while ouro waits for a can_use_tool answer: the
// call is refused at once, not after the timeout, and ouro finishes and exits.
func TestSDKGoneWhileACallbackWaits(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("rm -rf build")},
		scripted.Turn{ExpectContains: "closed standard input", Text: "nobody left"},
	)
	s := startSDK(t, e, func(map[string]any) (any, string, bool) { return nil, "", true }, "--permission-prompt-tool", "stdio")
	s.initialize(nil)
	s.user("clean up")
	s.waitFor(func() bool { return len(s.requests) > 0 }, "the can_use_tool request")
	start := time.Now()
	s.finish()
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("ouro took %s to notice the SDK was gone", d)
	}
	if r := s.result(1); r["result"] != "nobody left" {
		t.Fatalf("result = %v\n%s", r, s.stderr)
	}
	if len(s.requestsOf("can_use_tool")) != 1 {
		t.Fatalf("can_use_tool requests: %v", s.requestsOf("can_use_tool"))
	}
}
