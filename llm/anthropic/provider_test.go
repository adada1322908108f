package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

func TestNewNeedsAKey(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	_, err := New(Config{})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || !strings.Contains(err.Error(), "ouro demo") {
		t.Fatalf("New without key: %v", err)
	}
	if _, err := New(Config{APIKey: "k", BaseURL: "not a url"}); err == nil {
		t.Fatal("New accepted a relative base URL")
	}
}

func TestNewReadsEnvironment(t *testing.T) {
	fs, url := newFakeServer(t, `{"turns":[{"text":"from env"}]}`)
	t.Setenv("ANTHROPIC_API_KEY", "sk-env")
	t.Setenv("ANTHROPIC_BASE_URL", url)
	p, err := New(Config{Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := complete(t, p, userReq("claude-test", "hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "from env" {
		t.Errorf("answer %q", resp.Message.Text())
	}
	// A key goes in x-api-key, the header the API documents for keys, and nowhere else.
	if h := fs.Requests()[0].Header; h.Get("x-api-key") != "sk-env" || h.Get("authorization") != "" {
		t.Errorf("the key from the environment was not sent as x-api-key alone: %v", h)
	}
}

func TestStreamedTextDeltas(t *testing.T) {
	const text = "Hello! This answer is long enough to arrive in several text deltas, in order."
	p, fs := newTestProvider(t, `{"turns":[{"text":"`+text+`","usage":{"input_tokens":12,"output_tokens":34,"cache_read_input_tokens":56,"cache_creation_input_tokens":78}}]}`, Config{})
	var d deltaLog
	resp, err := complete(t, p, userReq("claude-test", "hi"), &d)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.count("text"); n < 3 {
		t.Errorf("%d text deltas, want several", n)
	}
	if got := d.text("text"); got != text {
		t.Errorf("deltas join to %q", got)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.Message.Text() != text || len(resp.Message.Content) != 1 {
		t.Errorf("message %+v", resp.Message)
	}
	if resp.StopReason != llm.StopEndTurn || resp.ID == "" || resp.Model != "claude-test" || resp.Duration <= 0 {
		t.Errorf("response %+v", resp)
	}
	want := llm.Usage{InputTokens: 12, OutputTokens: 34, CacheReadInputTokens: 56, CacheCreationInputTokens: 78}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	if !fs.Requests()[0].Stream {
		t.Error("the request did not ask for a stream")
	}
}

func TestToolCallsAndResultRoundTrip(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[
		{"text":"Looking.","tool_calls":[{"name":"Bash","input":{"command":"ls -la","timeout":5}},{"id":"toolu_custom","name":"Read","input":{"path":"go.mod","nested":{"a":[1,2,"x"]}}}]},
		{"expect_contains":"module github.com","text":"It is a Go module."}]}`, Config{})
	tools := []llm.ToolSpec{
		{Name: "Bash", Description: "run a command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
		{Name: "Read", Description: "read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	}
	req := userReq("claude-test", "what is this repo?")
	req.Tools = tools
	resp, err := complete(t, p, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolUses()
	if resp.StopReason != llm.StopToolUse || len(calls) != 2 {
		t.Fatalf("stop %q, calls %+v", resp.StopReason, calls)
	}
	if calls[0].ID != "toolu_01_01" || calls[0].Name != "Bash" || !jsonEqual(t, calls[0].Input, json.RawMessage(`{"command":"ls -la","timeout":5}`)) {
		t.Errorf("call 0 %+v (input %s)", calls[0], calls[0].Input)
	}
	if calls[1].ID != "toolu_custom" || calls[1].Name != "Read" || !jsonEqual(t, calls[1].Input, json.RawMessage(`{"path":"go.mod","nested":{"a":[1,2,"x"]}}`)) {
		t.Errorf("call 1 %+v (input %s)", calls[1], calls[1].Input)
	}

	// The tool declarations went out as declared.
	sent := body(t, fs, 0)["tools"].([]any)
	if len(sent) != 2 || sent[0].(map[string]any)["name"] != "Bash" ||
		sent[0].(map[string]any)["input_schema"].(map[string]any)["required"].([]any)[0] != "command" {
		t.Errorf("tools sent %v", sent)
	}

	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.ToolResultBlock(calls[0].ID, "total 0", false),
		llm.ToolResultBlock(calls[1].ID, "module github.com/x/y", true),
	}})
	resp2, err := complete(t, p, req, nil)
	if err != nil {
		t.Fatalf("second request: %v", err)
	}
	if resp2.Message.Text() != "It is a Go module." {
		t.Errorf("second answer %q", resp2.Message.Text())
	}
	rec := fs.Requests()[1].Messages
	last := rec[len(rec)-1]
	if len(last.Content) != 2 || last.Content[0].ToolUseID != "toolu_01_01" || last.Content[1].ToolUseID != "toolu_custom" ||
		!last.Content[1].IsError || last.Content[0].IsError || last.Content[1].ResultText() != "module github.com/x/y" {
		t.Errorf("tool results sent %+v", last.Content)
	}
	if echoed := rec[1].ToolUses(); len(echoed) != 2 || !jsonEqual(t, echoed[1].Input, calls[1].Input) {
		t.Errorf("assistant message sent back %+v", rec[1])
	}
}

func TestThinkingBlocks(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"thinking":"First I consider the question carefully.","text":"Answer."},{"text":"ok"}]}`, Config{})
	var d deltaLog
	req := userReq("claude-test", "think")
	resp, err := complete(t, p, req, &d)
	if err != nil {
		t.Fatal(err)
	}
	all := d.all()
	if len(all) == 0 || all[0].Kind != "thinking" || d.text("thinking") != "First I consider the question carefully." || d.text("text") != "Answer." {
		t.Errorf("deltas %+v", all)
	}
	c := resp.Message.Content
	if len(c) != 2 || c[0].Type != llm.BlockThinking || c[0].Thinking != "First I consider the question carefully." || c[0].Signature != scripted.Signature(c[0].Thinking) || c[1].Text != "Answer." {
		t.Fatalf("content %+v", c)
	}
	// Thinking (and redacted thinking) goes back unchanged with its signature.
	asst := resp.Message
	asst.Content = append([]llm.Block{{Type: llm.BlockRedactedThinking, Data: "opaque"}}, asst.Content...)
	req.Messages = append(req.Messages, asst, llm.UserText("more"))
	if _, err := complete(t, p, req, nil); err != nil {
		t.Fatal(err)
	}
	got := fs.Requests()[1].Messages[1].Content
	if len(got) != 3 || got[0].Data != "opaque" || got[1].Signature != scripted.Signature(c[0].Thinking) || got[1].Thinking != c[0].Thinking {
		t.Errorf("sent back %+v", got)
	}
}

func TestNoStream(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"thinking":"hmm","text":"Whole answer at once.","tool_calls":[{"name":"Bash","input":{"command":"pwd"}}]}]}`, Config{NoStream: true})
	var d deltaLog
	// No max_tokens anywhere: the model's 64k maximum applies, which the SDK refuses
	// without streaming unless a timeout is given.
	req := &llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{llm.UserText("hi")}}
	resp, err := complete(t, p, req, &d)
	if err != nil {
		t.Fatal(err)
	}
	rec := fs.Requests()[0]
	if rec.Stream {
		t.Error("NoStream request asked for a stream")
	}
	if mt := body(t, fs, 0)["max_tokens"].(float64); mt != 64000 {
		t.Errorf("max_tokens %v, want the model's 64000", mt)
	}
	if resp.Message.Text() != "Whole answer at once." || d.text("text") != "Whole answer at once." || d.text("thinking") != "hmm" {
		t.Errorf("answer %q, deltas %+v", resp.Message.Text(), d.all())
	}
	calls := resp.Message.ToolUses()
	if len(calls) != 1 || !jsonEqual(t, calls[0].Input, json.RawMessage(`{"command":"pwd"}`)) || resp.StopReason != llm.StopToolUse {
		t.Errorf("calls %+v stop %q", calls, resp.StopReason)
	}
}

func TestMaxTokensDefaults(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"text":"a"},{"text":"b"}]}`, Config{MaxTokens: 321})
	if _, err := complete(t, p, &llm.Request{Model: "claude-test", Messages: []llm.Message{llm.UserText("x")}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := complete(t, p, &llm.Request{Model: "claude-test", MaxTokens: 77, Messages: []llm.Message{llm.UserText("x")}}, nil); err != nil {
		t.Fatal(err)
	}
	if a, b := body(t, fs, 0)["max_tokens"], body(t, fs, 1)["max_tokens"]; a != 321.0 || b != 77.0 {
		t.Errorf("max_tokens %v then %v, want 321 (config) then 77 (request)", a, b)
	}
}

func TestRetryAfterThenSuccess(t *testing.T) {
	// Backoff of an hour: only the server's retry-after (1ms) lets this finish.
	policy := llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}
	p, fs := newTestProvider(t, `{"turns":[{"fault":{"status":429,"message":"rate limited","retry_after":0.001}},{"text":"done"}]}`, Config{Retry: policy})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := p.Complete(ctx, userReq("claude-test", "hi"), nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Message.Text() != "done" || len(fs.Requests()) != 2 {
		t.Errorf("answer %q after %d requests", resp.Message.Text(), len(fs.Requests()))
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		p, fs := newTestProvider(t, `{"turns":[{"fault":{"status":500,"message":"internal"}},{"fault":{"status":503}},{"text":"recovered"}]}`, Config{NoStream: noStream})
		resp, err := complete(t, p, userReq("claude-test", "hi"), nil)
		if err != nil {
			t.Fatalf("noStream=%v: %v", noStream, err)
		}
		if resp.Message.Text() != "recovered" || len(fs.Requests()) != 3 {
			t.Errorf("noStream=%v: answer %q after %d requests", noStream, resp.Message.Text(), len(fs.Requests()))
		}
	}
}

func TestCutStreamThenSuccess(t *testing.T) {
	const text = "The complete answer, streamed after the cut."
	p, fs := newTestProvider(t, `{"turns":[{"fault":{"cut_stream":true}},{"text":"`+text+`"}]}`, Config{})
	var d deltaLog
	resp, err := complete(t, p, userReq("claude-test", "hi"), &d)
	if err != nil {
		t.Fatal(err)
	}
	all := d.all()
	retry := -1
	for i, x := range all {
		if x.Kind == "retry" {
			if retry >= 0 {
				t.Errorf("two retry deltas: %+v", all)
			}
			retry = i
		}
	}
	if retry <= 0 {
		t.Fatalf("want text deltas, then a retry delta: %+v", all)
	}
	if !strings.Contains(all[retry].Text, string(llm.ErrKindConnection)) {
		t.Errorf("retry reason %q", all[retry].Text)
	}
	var after strings.Builder
	for _, x := range all[retry+1:] {
		after.WriteString(x.Text)
	}
	if after.String() != text || resp.Message.Text() != text {
		t.Errorf("after the retry: deltas %q, message %q", after.String(), resp.Message.Text())
	}
	if len(fs.Requests()) != 2 {
		t.Errorf("%d requests", len(fs.Requests()))
	}
}

func TestCutBodyThenSuccessNoStream(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"fault":{"cut_stream":true}},{"text":"fine"}]}`, Config{NoStream: true})
	var d deltaLog
	resp, err := complete(t, p, userReq("claude-test", "hi"), &d)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "fine" || len(fs.Requests()) != 2 || d.count("retry") != 0 {
		t.Errorf("answer %q after %d requests, deltas %+v", resp.Message.Text(), len(fs.Requests()), d.all())
	}
}

func TestOverloadedFallsBack(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"fault":{"status":529,"message":"Overloaded"},"times":3},{"text":"from the fallback"}]}`,
		Config{FallbackModel: "claude-fallback", Retry: llm.RetryPolicy{MaxAttempts: 6, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, FallbackAfter529: 3}})
	resp, err := complete(t, p, userReq("claude-primary", "hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "claude-fallback" || resp.Message.Text() != "from the fallback" {
		t.Errorf("model %q answer %q", resp.Model, resp.Message.Text())
	}
	var models []string
	for i := range fs.Requests() {
		models = append(models, body(t, fs, i)["model"].(string))
	}
	if got := strings.Join(models, ","); got != "claude-primary,claude-primary,claude-primary,claude-fallback" {
		t.Errorf("models asked: %s", got)
	}
}

func TestOverloadedWithoutFallbackExhausts(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"fault":{"status":529,"message":"Overloaded"},"times":5},{"text":"never"}]}`, Config{})
	_, err := complete(t, p, userReq("claude-primary", "hi"), nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrKindOverloaded || e.Status != 529 || e.Attempts != 4 || e.Message != "Overloaded" {
		t.Fatalf("error %#v", err)
	}
	for i := range fs.Requests() {
		if m := body(t, fs, i)["model"]; m != "claude-primary" {
			t.Errorf("request %d asked %v", i, m)
		}
	}
}

func TestRetriesExhausted(t *testing.T) {
	p, fs := newTestProvider(t, `{"turns":[{"fault":{"status":500,"message":"boom"},"times":5},{"text":"never"}]}`,
		Config{Retry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	_, err := complete(t, p, userReq("claude-test", "hi"), nil)
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v", err, err)
	}
	if e.Kind != llm.ErrKindServer || e.Status != 500 || e.Attempts != 3 || e.Message != "boom" || !e.Retryable() {
		t.Errorf("error %+v", e)
	}
	if n := len(fs.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("message %q", err.Error())
	}
}

func TestNonRetryableErrors(t *testing.T) {
	tests := []struct {
		fault  string
		kind   string
		status int
		msg    string
	}{
		{`{"status":401,"message":"invalid x-api-key"}`, llm.ErrKindAuth, 401, "invalid x-api-key"},
		{`{"status":403,"message":"forbidden"}`, llm.ErrKindAuth, 403, "forbidden"},
		{`{"status":400,"message":"bad field"}`, llm.ErrKindInvalid, 400, "bad field"},
		{`{"prompt_too_long":true}`, llm.ErrKindPromptTooLong, 400, "prompt is too long"},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			p, fs := newTestProvider(t, `{"turns":[{"fault":`+tt.fault+`},{"text":"never"}]}`, Config{})
			_, err := complete(t, p, userReq("claude-test", "hi"), nil)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
			if e.Kind != tt.kind || e.Status != tt.status || e.Attempts != 1 || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("error %+v", e)
			}
			if n := len(fs.Requests()); n != 1 {
				t.Errorf("%d requests, want 1 (no retry)", n)
			}
		})
	}
}

func TestValidationErrorFromServer(t *testing.T) {
	// A tool_result answering nothing is refused by the API, and not retried.
	p, fs := newTestProvider(t, `{"turns":[{"text":"never"}]}`, Config{})
	req := &llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("toolu_x", "out", false)}}}}
	_, err := complete(t, p, req, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrKindInvalid || e.Status != 400 || !strings.Contains(e.Message, "toolu_x") {
		t.Fatalf("error %v", err)
	}
	if len(fs.Requests()) != 1 {
		t.Errorf("%d requests", len(fs.Requests()))
	}
}

func TestMaxTokensInsideToolUse(t *testing.T) {
	const partial = `{"path":"notes.txt","content":"The first li`
	script := `{"turns":[{"text":"Writing the file.","tool_calls":[{"name":"Write","partial_input":` + jsonString(partial) + `}],"stop_reason":"max_tokens"}]}`
	p, _ := newTestProvider(t, script, Config{})
	resp, err := complete(t, p, userReq("claude-test", "write"), nil)
	if err != nil {
		t.Fatalf("a cut-off tool call must not fail the call: %v", err)
	}
	calls := resp.Message.ToolUses()
	if resp.StopReason != llm.StopMaxTokens || len(calls) != 1 {
		t.Fatalf("stop %q calls %+v", resp.StopReason, calls)
	}
	if string(calls[0].Input) != partial || json.Valid(calls[0].Input) {
		t.Errorf("input %q, want the raw partial %q", calls[0].Input, partial)
	}
	if resp.Message.Text() != "Writing the file." {
		t.Errorf("text %q", resp.Message.Text())
	}

	// Sending the cut call back is refused before any request is made.
	p2, fs2 := newTestProvider(t, `{"turns":[{"text":"never"}]}`, Config{})
	req := userReq("claude-test", "write")
	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock(calls[0].ID, "cut", true)}})
	_, err = complete(t, p2, req, nil)
	if !llm.IsKind(err, llm.ErrKindInvalid) || !strings.Contains(err.Error(), "not valid JSON") || len(fs2.Requests()) != 0 {
		t.Errorf("error %v after %d requests", err, len(fs2.Requests()))
	}
}

func TestRefusal(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		p, _ := newTestProvider(t, `{"turns":[{"stop_reason":"refusal"}]}`, Config{NoStream: noStream})
		resp, err := complete(t, p, userReq("claude-test", "bad idea"), nil)
		if err != nil {
			t.Fatalf("noStream=%v: %v", noStream, err)
		}
		if resp.StopReason != llm.StopRefusal || len(resp.Message.Content) != 0 {
			t.Errorf("noStream=%v: %+v", noStream, resp)
		}
	}
}

func TestContextCancelledDuringBackoff(t *testing.T) {
	// An hour of backoff: the call can only return early by honouring ctx.
	policy := llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}
	p, fs := newTestProvider(t, `{"turns":[{"fault":{"cut_stream":true}},{"text":"never"}]}`, Config{Retry: policy})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	retrying := make(chan struct{})
	on := func(d llm.Delta) {
		if d.Kind == "retry" {
			close(retrying)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Complete(ctx, userReq("claude-test", "hi"), on)
		done <- err
	}()
	select {
	case <-retrying:
	case err := <-done:
		t.Fatalf("Complete returned before retrying: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no retry delta after the cut stream")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if !strings.Contains(err.Error(), "retry") {
			t.Errorf("error %q does not say it was waiting to retry", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Complete kept waiting after its context was cancelled")
	}
	if n := len(fs.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestContextCancelledBeforeCall(t *testing.T) {
	p, _ := newTestProvider(t, `{"turns":[{"text":"never"}]}`, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Complete(ctx, userReq("claude-test", "hi"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v", err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Issue 33 items 5 and 9: a stream that goes quiet after its first delta, and a stream
// frame that is not JSON, are transient: the attempt is retried like a dropped connection.
func TestQuietAndMalformedStreamsAreRetried(t *testing.T) {
	for _, fault := range []string{`{"stall":true}`, `{"bad_frame":true}`} {
		p, fs := newTestProvider(t, `{"turns":[{"fault":`+fault+`},{"text":"second try"}]}`, Config{StreamIdle: 100 * time.Millisecond})
		d := &deltaLog{}
		resp, err := complete(t, p, userReq("claude-test", "hi"), d)
		if err != nil {
			t.Fatalf("%s: %v", fault, err)
		}
		if resp.Message.Text() != "second try" || len(fs.Requests()) != 2 {
			t.Errorf("%s: answer %q after %d requests", fault, resp.Message.Text(), len(fs.Requests()))
		}
		if !strings.Contains(fmt.Sprint(d.deltas), "retry") {
			t.Errorf("%s: no retry delta told the caller to drop the first attempt's text: %v", fault, d.deltas)
		}
	}
	// Given up on, a quiet stream says so and names the bound's variable.
	p, _ := newTestProvider(t, `{"turns":[{"fault":{"stall":true},"times":4}]}`, Config{StreamIdle: 50 * time.Millisecond})
	_, err := complete(t, p, userReq("claude-test", "hi"), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrKindConnection || !strings.Contains(err.Error(), "OURO_STREAM_IDLE_TIMEOUT") {
		t.Errorf("after every attempt stalled: %v", err)
	}
}
