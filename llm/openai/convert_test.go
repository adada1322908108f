package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/ouroagent/ouro/llm"
)

func TestStopReason(t *testing.T) {
	tests := []struct {
		finish         string
		calls, refusal bool
		want           string
	}{
		{"stop", false, false, llm.StopEndTurn},
		{"tool_calls", true, false, llm.StopToolUse},
		{"stop", true, false, llm.StopToolUse}, // compatible servers that say "stop" after a call
		{"length", true, false, llm.StopMaxTokens},
		{"length", false, false, llm.StopMaxTokens},
		{"content_filter", false, false, llm.StopRefusal},
		{"stop", false, true, llm.StopRefusal},
		{"eos", false, false, llm.StopEndTurn},
	}
	for _, tc := range tests {
		if got := stopReason(tc.finish, tc.calls, tc.refusal); got != tc.want {
			t.Errorf("stopReason(%q, calls=%v, refusal=%v) = %s, want %s", tc.finish, tc.calls, tc.refusal, got, tc.want)
		}
	}
}

func decodeCompletion(t *testing.T, raw string) *sdk.ChatCompletion {
	t.Helper()
	var cc sdk.ChatCompletion
	if err := json.Unmarshal([]byte(raw), &cc); err != nil {
		t.Fatalf("decode completion: %v", err)
	}
	return &cc
}

func TestToResponseFromCompatibleServers(t *testing.T) {
	cc := decodeCompletion(t, `{"id":"cmpl-7","model":"llama3","choices":[{"index":0,"finish_reason":"stop",
		"message":{"role":"assistant","content":null,"tool_calls":[
			{"type":"function","function":{"name":"LS","arguments":""}},
			{"id":"x","type":"custom","custom":{"name":"grammar","input":"x"}},
			{"id":"c2","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]}}],
		"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8,"prompt_tokens_details":{"cached_tokens":9}}}`)
	resp, err := toResponse(cc, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{
		llm.ToolUseBlock("call_cmpl-7_0", "LS", json.RawMessage(`{}`)),
		llm.ToolUseBlock("c2", "Read", json.RawMessage(`{"file_path":"a"}`)),
	}
	if !reflect.DeepEqual(resp.Message.Content, want) || resp.StopReason != llm.StopToolUse {
		t.Errorf("content %+v stop %s; want %+v and tool_use", resp.Message.Content, resp.StopReason, want)
	}
	// A server reporting more cached than prompt tokens must not produce negative input.
	if resp.Usage != (llm.Usage{InputTokens: 0, CacheReadInputTokens: 9, OutputTokens: 3}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if resp.ID != "cmpl-7" || resp.Model != "llama3" {
		t.Errorf("id %q model %q", resp.ID, resp.Model)
	}

	if _, err := toResponse(decodeCompletion(t, `{"id":"e","choices":[]}`), ""); err == nil {
		t.Error("a completion without choices was accepted")
	}
}

// paramsJSON builds the request and returns its wire form.
func paramsJSON(t *testing.T, req *llm.Request, maxCompletion bool) map[string]any {
	t.Helper()
	p, err := buildParams(req, 777, maxCompletion)
	if err != nil {
		t.Fatalf("buildParams: %v", err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildParamsMessages(t *testing.T) {
	img := &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0K"}
	req := &llm.Request{
		Model:  "gpt-4.1",
		System: "sys",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("look at"), {Type: llm.BlockImage, Source: img}}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Thinking: "private", Signature: "sig"},
				llm.ToolUseBlock("c1", "Screenshot", json.RawMessage(`{}`)),
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "c1", Content: []llm.Block{llm.TextBlock("captured"), {Type: llm.BlockImage, Source: img}}},
				llm.TextBlock("what do you see?"),
				llm.TextBlock("be precise"),
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Thinking: "only thoughts"}}},
			llm.UserText("go on"),
		},
		Tools: []llm.ToolSpec{{Name: "Screenshot"}},
	}
	m := paramsJSON(t, req, true)
	want := []any{
		map[string]any{"role": "system", "content": "sys"},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "look at"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw0K"}},
		}},
		map[string]any{"role": "assistant", "tool_calls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "Screenshot", "arguments": "{}"}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "captured\n" + imageInToolResult},
		map[string]any{"role": "user", "content": "what do you see?\n\nbe precise"},
		map[string]any{"role": "user", "content": "go on"},
	}
	if got := m["messages"]; !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("messages:\n%s", g)
	}
	if m["max_completion_tokens"] != 777.0 || m["max_tokens"] != nil {
		t.Errorf("max_completion_tokens %v, max_tokens %v", m["max_completion_tokens"], m["max_tokens"])
	}
	wantTool := map[string]any{"type": "function", "function": map[string]any{"name": "Screenshot",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{}}}}
	if tools := m["tools"].([]any); !reflect.DeepEqual(tools[0], wantTool) {
		t.Errorf("tool = %v, want %v", tools[0], wantTool)
	}
}

func TestBuildParamsRejectsWhatItCannotSend(t *testing.T) {
	tests := []struct {
		name string
		req  *llm.Request
		want string
	}{
		{"schema not an object", &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")},
			Tools: []llm.ToolSpec{{Name: "Bad", InputSchema: json.RawMessage(`[1]`)}}}, "tool Bad"},
		{"tool_use from the user", &llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser,
			Content: []llm.Block{llm.ToolUseBlock("a", "b", nil)}}}}, `"tool_use"`},
		{"unknown role", &llm.Request{Model: "m", Messages: []llm.Message{{Role: "system", Content: []llm.Block{llm.TextBlock("x")}}}}, "role"},
	}
	for _, tc := range tests {
		if _, err := buildParams(tc.req, 1, false); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one mentioning %s", tc.name, err, tc.want)
		}
	}
}

func TestUnsendableRequestFailsBeforeCalling(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"text":"never reached"}]}`)
	p := newProvider(t, Config{BaseURL: base})
	req := userReq("hi")
	req.Tools = []llm.ToolSpec{{Name: "Bad", InputSchema: json.RawMessage(`"nope"`)}}
	_, err := p.Complete(context.Background(), req, nil)
	if !llm.IsKind(err, llm.ErrKindInvalid) {
		t.Errorf("err = %v, want invalid_request", err)
	}
	if len(srv.Requests()) != 0 {
		t.Error("the request was sent anyway")
	}
}

func TestClassify(t *testing.T) {
	api := func(status int, code, typ, msg string) error {
		return fmt.Errorf("call: %w", &sdk.Error{StatusCode: status, Code: code, Type: typ, Message: msg})
	}
	tests := []struct {
		name string
		err  error
		kind string
	}{
		{"rate limit", api(429, "rate_limit_exceeded", "requests", "slow down"), llm.ErrKindRateLimit},
		{"out of credit", api(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota"), llm.ErrKindInvalid},
		{"overloaded", api(529, "", "", "overloaded"), llm.ErrKindOverloaded},
		{"server", api(502, "", "", ""), llm.ErrKindServer},
		{"forbidden", api(403, "", "", "no"), llm.ErrKindAuth},
		{"vLLM context", api(400, "", "BadRequestError", "This model's maximum context length is 4096 tokens."), llm.ErrKindPromptTooLong},
		{"llama.cpp context", api(400, "", "exceed_context_size_error", "the request exceeds the available context size"), llm.ErrKindPromptTooLong},
		{"other 400", api(400, "", "invalid_request_error", "bad"), llm.ErrKindInvalid},
		{"cut body", fmt.Errorf("error reading response body: %w", io.ErrUnexpectedEOF), llm.ErrKindConnection},
		{"early end", errStreamIncomplete, llm.ErrKindConnection},
		{"error event", &ssestream.StreamError{Message: "received error while streaming: overloaded"}, llm.ErrKindServer},
		{"garbled", fmt.Errorf("decode: %w", &json.SyntaxError{}), llm.ErrKindServer},
		{"unknown", errors.New("something odd"), llm.ErrKindInvalid},
	}
	for _, tc := range tests {
		e := classify(tc.err)
		if e.Kind != tc.kind || e.Err == nil || e.Message == "" {
			t.Errorf("%s: %#v, want kind %s with a message and the cause", tc.name, e, tc.kind)
		}
	}
}

// A tool's schema reaches the wire as declared: key order kept, integers exact (a
// decode into map[string]any would sort the keys and round 2^53+1 to 2^53).
func TestToolSchemaSentAsDeclared(t *testing.T) {
	const schema = `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993},"a":{"type":"string"}},"required":["n"]}`
	p, err := buildParams(&llm.Request{
		Messages: []llm.Message{llm.UserText("hi")},
		Tools:    []llm.ToolSpec{{Name: "Count", Description: "Counts.", InputSchema: json.RawMessage(" " + schema + "\n")}},
	}, 777, true)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `"tools":[{"function":{"name":"Count","description":"Counts.","parameters":` + schema + `},"type":"function"}]`
	if !strings.Contains(string(raw), want) {
		t.Errorf("wire JSON:\n%s\nwant it to contain\n%s", raw, want)
	}
}
