package sdkproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/tool"
)

// fakeSDK records what the channel writes and answers its requests with answer.
type fakeSDK struct {
	mu      sync.Mutex
	written []map[string]any
	ch      *Channel
	answer  func(req map[string]any) (resp any, errMsg string, skip bool)
}

func newFake(answer func(map[string]any) (any, string, bool)) *fakeSDK {
	f := &fakeSDK{answer: answer}
	f.ch = NewChannel(f.write)
	return f
}

func (f *fakeSDK) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	f.mu.Lock()
	f.written = append(f.written, m)
	f.mu.Unlock()
	if m["type"] != "control_request" || f.answer == nil {
		return nil
	}
	req := m["request"].(map[string]any)
	resp, errMsg, skip := f.answer(req)
	if skip {
		return nil
	}
	body := map[string]any{"subtype": "success", "request_id": m["request_id"], "response": resp}
	if errMsg != "" {
		body = map[string]any{"subtype": "error", "request_id": m["request_id"], "error": errMsg}
	}
	raw, _ := json.Marshal(body)
	go f.ch.Deliver(Line{Type: "control_response", Response: raw})
	return nil
}

func TestCallMatchesAnswersAndBoundsTheWait(t *testing.T) {
	f := newFake(func(req map[string]any) (any, string, bool) {
		switch req["subtype"] {
		case "ok":
			return map[string]any{"v": req["x"]}, "", false
		case "bad":
			return nil, "it broke", false
		}
		return nil, "", true
	})
	raw, err := f.ch.Call(context.Background(), "ok", map[string]any{"x": 7}, time.Second)
	if err != nil || string(raw) != `{"v":7}` {
		t.Fatalf("ok: %s %v", raw, err)
	}
	if _, err := f.ch.Call(context.Background(), "bad", nil, time.Second); err == nil || !strings.Contains(err.Error(), "it broke") {
		t.Fatalf("error answer: %v", err)
	}
	start := time.Now()
	_, err = f.ch.Call(context.Background(), "silent", nil, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not answer silent within 50ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("silent: %v", err)
	}
	last := f.written[len(f.written)-1]
	if last["type"] != "control_cancel_request" {
		t.Fatalf("no cancel after the timeout: %v", last)
	}
	// A late answer to the cancelled request, or one to an id never sent, is an error
	// for the caller to report and changes nothing.
	if err := f.ch.Deliver(Line{Type: "control_response", Response: json.RawMessage(`{"subtype":"success","request_id":"` + last["request_id"].(string) + `"}`)}); err == nil {
		t.Fatal("a late answer was accepted")
	}
	if err := f.ch.Deliver(Line{Type: "control_response", Response: json.RawMessage(`"x"`)}); err == nil {
		t.Fatal("a malformed response was accepted")
	}
}

func TestCloseFailsWaitingAndLaterCalls(t *testing.T) {
	f := newFake(func(map[string]any) (any, string, bool) { return nil, "", true })
	done := make(chan error, 1)
	go func() {
		_, err := f.ch.Call(context.Background(), "x", nil, time.Minute)
		done <- err
	}()
	for {
		f.mu.Lock()
		n := len(f.written)
		f.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	f.ch.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("waiting call: %v", err)
	}
	if _, err := f.ch.Call(context.Background(), "y", nil, time.Minute); !errors.Is(err, ErrClosed) {
		t.Fatalf("later call: %v", err)
	}
}

func TestParseRequestNamesWhatIsMissing(t *testing.T) {
	for _, tc := range []struct {
		line Line
		want string
	}{
		{Line{Request: json.RawMessage(`{"subtype":"interrupt"}`)}, `needs a "request_id"`},
		{Line{RequestID: "r1", Request: json.RawMessage(`[]`)}, `must be an object`},
		{Line{RequestID: "r1", Request: json.RawMessage(`{}`)}, `no "subtype"`},
	} {
		if _, err := ParseRequest(tc.line); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.line, err, tc.want)
		}
	}
	r, err := ParseRequest(Line{RequestID: "r1", Request: json.RawMessage(`{"subtype":"interrupt"}`)})
	if err != nil || r.Subtype != "interrupt" || r.ID != "r1" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestApproverAnswers(t *testing.T) {
	var got map[string]any
	answer := map[string]any{}
	f := newFake(func(req map[string]any) (any, string, bool) { got = req; return answer, "", false })
	interrupted := false
	a := &Approver{Ch: f.ch, Interrupt: func() { interrupted = true }}
	p := permission.Prompt{Call: tool.Call{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)},
		Summary: "go test ./...", Reach: "runs a command", Rules: []string{"Bash(go test *)"}}

	answer = map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "go test ./..."}}
	ans, err := a.Approve(context.Background(), p)
	if err != nil || ans.Choice != permission.Once || ans.UpdatedInput != nil {
		t.Fatalf("allow with the same input: %+v %v", ans, err)
	}
	sug := got["permission_suggestions"].([]any)[0].(map[string]any)
	rule := sug["rules"].([]any)[0].(map[string]any)
	if got["tool_name"] != "Bash" || got["tool_use_id"] != "toolu_1" || rule["toolName"] != "Bash" || rule["ruleContent"] != "go test *" {
		t.Fatalf("request = %v", got)
	}
	answer = map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "go vet ./..."}}
	if ans, _ = a.Approve(context.Background(), p); string(ans.UpdatedInput) != `{"command":"go vet ./..."}` {
		t.Fatalf("updatedInput = %s", ans.UpdatedInput)
	}
	answer = map[string]any{"behavior": "allow", "updatedInput": "rm -rf /"}
	if _, err = a.Approve(context.Background(), p); err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Fatalf("a string updatedInput: %v", err)
	}
	answer = map[string]any{"behavior": "deny", "message": "not now", "interrupt": true}
	if ans, _ = a.Approve(context.Background(), p); ans.Choice != permission.No || ans.Reason != "not now" || !interrupted {
		t.Fatalf("deny: %+v interrupted=%v", ans, interrupted)
	}
	answer = map[string]any{"behavior": "maybe"}
	if _, err = a.Approve(context.Background(), p); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Fatalf("unknown behavior: %v", err)
	}
}

func TestHookFuncsSendClaudeCodesHookJSON(t *testing.T) {
	var got map[string]any
	f := newFake(func(req map[string]any) (any, string, bool) {
		got = req
		return map[string]any{"decision": "block", "reason": "no", "continue": false}, "", false
	})
	m := "Bash"
	funcs, unknown := f.ch.HookFuncs(map[string][]HookMatcher{
		"PreToolUse": {{Matcher: &m, HookCallbackIDs: []string{"hook_0", "hook_1"}}},
		"Bogus":      {{HookCallbackIDs: []string{"hook_2"}}},
	})
	if len(unknown) != 1 || unknown[0] != "Bogus" || len(funcs["PreToolUse"]) != 2 || funcs["PreToolUse"][0].Matcher != "Bash" {
		t.Fatalf("funcs %v unknown %v", funcs, unknown)
	}
	out, err := funcs["PreToolUse"][1].Run(context.Background(), hook.Input{Event: "PreToolUse", ToolName: "Bash",
		ToolInput: json.RawMessage(`{"command":"ls"}`), ToolUseID: "toolu_9", SessionID: "s"})
	if err != nil || out.Decision != "block" || out.Reason != "no" || out.Continue == nil || *out.Continue {
		t.Fatalf("output %+v %v", out, err)
	}
	in := got["input"].(map[string]any)
	if got["callback_id"] != "hook_1" || got["tool_use_id"] != "toolu_9" || in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "Bash" {
		t.Fatalf("hook_callback = %v", got)
	}
}

func TestMCPTransportRoundTripAndFailures(t *testing.T) {
	mode := "ok"
	f := newFake(func(req map[string]any) (any, string, bool) {
		msg := req["message"].(map[string]any)
		switch mode {
		case "silent":
			return nil, "", true
		case "wrong-id":
			return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": 999, "result": map[string]any{}}}, "", false
		case "garbage":
			return map[string]any{"mcp_response": "garbage"}, "", false
		}
		return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": map[string]any{"echo": msg["method"]}}}, "", false
	})
	conn, err := f.ch.MCPTransport("srv", 100*time.Millisecond).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call := func(id int64) *jsonrpc.Response {
		t.Helper()
		jid, _ := jsonrpc.MakeID(float64(id))
		if err := conn.Write(context.Background(), &jsonrpc.Request{ID: jid, Method: "tools/list"}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*jsonrpc.Response)
	}
	if r := call(1); r.Error != nil || !strings.Contains(string(r.Result), "tools/list") {
		t.Fatalf("ok: %+v", r)
	}
	for _, m := range []string{"silent", "wrong-id", "garbage"} {
		mode = m
		if r := call(2); r.Error == nil || fmt.Sprint(r.ID.Raw()) != "2" {
			t.Fatalf("%s: the request did not fail on its own id: %+v", m, r)
		}
	}
}

func TestParseAgentsChecksLikeAFile(t *testing.T) {
	defs, err := ParseAgents([]byte(`{"reviewer":{"description":"Reviews code","prompt":"You review.","tools":["Read","Grep"],"model":"inherit"}}`), "test")
	if err != nil || len(defs) != 1 || defs[0].Name != "reviewer" || defs[0].Prompt != "You review." || len(defs[0].Tools) != 2 || defs[0].Source != "sdk" {
		t.Fatalf("%+v %v", defs, err)
	}
	for _, bad := range []string{`[]`, `{"x":{"prompt":"p"}}`, `{"Bad Name":{"description":"d","prompt":"p"}}`} {
		if _, err := ParseAgents([]byte(bad), "test"); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

// An updatedInput that is no JSON object is refused with what it was, cut short: a long
// one of multi-byte characters is cut between characters, so the error stays valid
// UTF-8 (it was cut at a byte count).
func TestApproverRefusalCutsMultibyteInputBetweenCharacters(t *testing.T) {
	answer := map[string]any{"behavior": "allow", "updatedInput": strings.Repeat("代理循环", 20)}
	f := newFake(func(map[string]any) (any, string, bool) { return answer, "", false })
	a := &Approver{Ch: f.ch}
	p := permission.Prompt{Call: tool.Call{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}}
	_, err := a.Approve(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Fatalf("a string updatedInput: %v", err)
	}
	if !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), `"代理循环`) || !strings.HasSuffix(err.Error(), "…") {
		t.Errorf("the refusal does not show the input cut between characters: %q", err.Error())
	}
}
