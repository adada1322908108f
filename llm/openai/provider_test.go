package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// fastRetry keeps backoff tiny so retry tests run instantly.
var fastRetry = llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}

// fake starts the fake server on a script and returns it with its /v1 base URL.
func fake(t *testing.T, script string) (*fakeserver.Server, string) {
	t.Helper()
	sc, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	srv, err := fakeserver.New(sc)
	if err != nil {
		t.Fatalf("fake server: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL + "/v1"
}

func newProvider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
	}
	if cfg.Retry == (llm.RetryPolicy{}) {
		cfg.Retry = fastRetry
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

// collect records deltas in order.
type collect []llm.Delta

func (c *collect) add(d llm.Delta) { *c = append(*c, d) }

func (c collect) text(kind string) string {
	var sb strings.Builder
	for _, d := range c {
		if d.Kind == kind {
			sb.WriteString(d.Text)
		}
	}
	return sb.String()
}

func (c collect) count(kind string) int {
	n := 0
	for _, d := range c {
		if d.Kind == kind {
			n++
		}
	}
	return n
}

func userReq(text string) *llm.Request {
	return &llm.Request{Model: "gpt-4o", System: "Be brief.", Messages: []llm.Message{llm.UserText(text)}}
}

// body decodes the JSON body of the i-th recorded request.
func body(t *testing.T, srv *fakeserver.Server, i int) map[string]any {
	t.Helper()
	recs := srv.Requests()
	if len(recs) <= i {
		t.Fatalf("only %d requests recorded", len(recs))
	}
	var m map[string]any
	if err := json.Unmarshal(recs[i].Body, &m); err != nil {
		t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

// bothModes runs f against the streaming and the non-streaming path.
func bothModes(t *testing.T, f func(t *testing.T, noStream bool)) {
	t.Run("stream", func(t *testing.T) { f(t, false) })
	t.Run("no-stream", func(t *testing.T) { f(t, true) })
}

func TestStreamsTextDeltas(t *testing.T) {
	text := "Streaming works: this sentence arrives in several pieces."
	srv, base := fake(t, `{"turns":[{"text":"`+text+`","usage":{"input_tokens":50,"output_tokens":12,"cache_read_input_tokens":20,"cache_creation_input_tokens":0}}]}`)
	p := newProvider(t, Config{BaseURL: base})
	var got collect
	resp, err := p.Complete(context.Background(), userReq("hi"), got.add)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got.count("text") < 2 || got.text("text") != text || got.count("text") != len(got) {
		t.Errorf("deltas = %+v, want several text pieces making %q", got, text)
	}
	if resp.Message.Role != llm.RoleAssistant || resp.Message.Text() != text || resp.StopReason != llm.StopEndTurn {
		t.Errorf("response = %+v", resp)
	}
	if want := (llm.Usage{InputTokens: 50, CacheReadInputTokens: 20, OutputTokens: 12}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.ID == "" || resp.Model != "gpt-4o" || resp.Duration <= 0 {
		t.Errorf("id %q model %q duration %v", resp.ID, resp.Model, resp.Duration)
	}

	b := body(t, srv, 0)
	opts, _ := b["stream_options"].(map[string]any)
	if b["stream"] != true || opts["include_usage"] != true {
		t.Errorf("stream %v, stream_options %v; want a stream with usage", b["stream"], b["stream_options"])
	}
	// gpt-4o's known output limit, as max_tokens since this is not api.openai.com.
	if b["max_tokens"] != 16384.0 || b["max_completion_tokens"] != nil {
		t.Errorf("max_tokens %v, max_completion_tokens %v", b["max_tokens"], b["max_completion_tokens"])
	}
	msgs := b["messages"].([]any)
	if first := msgs[0].(map[string]any); first["role"] != "system" || first["content"] != "Be brief." {
		t.Errorf("first message = %v, want the system prompt", first)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "Bearer test-key" {
		t.Errorf("Authorization = %q", h)
	}
}

func TestToolCallsRoundTrip(t *testing.T) {
	bothModes(t, func(t *testing.T, noStream bool) {
		srv, base := fake(t, `{"turns":[
			{"text":"Let me look.","tool_calls":[
				{"id":"call_1","name":"Bash","input":{"command":"ls"}},
				{"id":"call_2","name":"Read","input":{"file_path":"go.mod"}}]},
			{"expect_contains":"no such file","text":"Done."}]}`)
		p := newProvider(t, Config{BaseURL: base, NoStream: noStream})
		tools := []llm.ToolSpec{{Name: "Bash", Description: "Run a command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}}
		req := &llm.Request{Model: "gpt-4o", Messages: []llm.Message{llm.UserText("look around")}, Tools: tools}
		resp, err := p.Complete(context.Background(), req, nil)
		if err != nil {
			t.Fatalf("turn 1: %v", err)
		}
		want := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.TextBlock("Let me look."),
			llm.ToolUseBlock("call_1", "Bash", json.RawMessage(`{"command":"ls"}`)),
			llm.ToolUseBlock("call_2", "Read", json.RawMessage(`{"file_path":"go.mod"}`)),
		}}
		if !reflect.DeepEqual(resp.Message, want) || resp.StopReason != llm.StopToolUse {
			t.Fatalf("turn 1 = %+v (%s), want %+v", resp.Message, resp.StopReason, want)
		}

		req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResultBlock("call_1", "go.mod\nmain.go", false),
			llm.ToolResultBlock("call_2", "no such file", true),
		}})
		resp, err = p.Complete(context.Background(), req, nil)
		if err != nil {
			t.Fatalf("turn 2: %v", err)
		}
		if resp.Message.Text() != "Done." || resp.StopReason != llm.StopEndTurn {
			t.Errorf("turn 2 = %+v", resp)
		}

		b := body(t, srv, 1)
		msgs := b["messages"].([]any)
		if len(msgs) != 4 {
			t.Fatalf("second request has %d messages, want user, assistant, 2 tool: %v", len(msgs), msgs)
		}
		asst := msgs[1].(map[string]any)
		calls, _ := asst["tool_calls"].([]any)
		wantCall := map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "Bash", "arguments": `{"command":"ls"}`}}
		if asst["role"] != "assistant" || asst["content"] != "Let me look." || len(calls) != 2 || !reflect.DeepEqual(calls[0], wantCall) {
			t.Errorf("assistant message = %v", asst)
		}
		wantTools := []any{
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "go.mod\nmain.go"},
			map[string]any{"role": "tool", "tool_call_id": "call_2", "content": "Error: no such file"},
		}
		if !reflect.DeepEqual(msgs[2:], wantTools) {
			t.Errorf("tool messages = %v, want %v", msgs[2:], wantTools)
		}
		recorded := srv.Requests()[1].Messages
		if len(recorded) != 3 || len(recorded[2].Content) != 2 || recorded[2].Content[0].ToolUseID != "call_1" {
			t.Errorf("the server saw %+v", recorded)
		}
		declared, _ := b["tools"].([]any)
		wantTool := map[string]any{"type": "function", "function": map[string]any{"name": "Bash", "description": "Run a command.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}, "required": []any{"command"}}}}
		if len(declared) != 1 || !reflect.DeepEqual(declared[0], wantTool) {
			t.Errorf("tools = %v, want [%v]", declared, wantTool)
		}
	})
}

func TestNoStreamSendsPlainRequest(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"thinking":"Short answer.","text":"Hello there."}]}`)
	p := newProvider(t, Config{BaseURL: base, NoStream: true})
	var got collect
	resp, err := p.Complete(context.Background(), userReq("hi"), got.add)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	b := body(t, srv, 0)
	if _, ok := b["stream"]; ok {
		t.Errorf("stream = %v in a non-streaming request", b["stream"])
	}
	if _, ok := b["stream_options"]; ok {
		t.Error("stream_options sent without streaming")
	}
	want := collect{{Kind: "thinking", Text: "Short answer."}, {Kind: "text", Text: "Hello there."}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("deltas = %+v, want the whole answer once: %+v", got, want)
	}
	if resp.Message.Text() != "Hello there." || resp.Usage.OutputTokens == 0 {
		t.Errorf("response = %+v", resp)
	}
}

func TestReasoningContentBecomesThinking(t *testing.T) {
	bothModes(t, func(t *testing.T, noStream bool) {
		_, base := fake(t, `{"turns":[{"thinking":"The user greets; greet back briefly.","text":"Hi!"}]}`)
		p := newProvider(t, Config{BaseURL: base, NoStream: noStream})
		var got collect
		resp, err := p.Complete(context.Background(), userReq("hello"), got.add)
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if got.text("thinking") != "The user greets; greet back briefly." || got.text("text") != "Hi!" {
			t.Errorf("deltas = %+v", got)
		}
		want := []llm.Block{{Type: llm.BlockThinking, Thinking: "The user greets; greet back briefly."}, llm.TextBlock("Hi!")}
		if !reflect.DeepEqual(resp.Message.Content, want) {
			t.Errorf("content = %+v, want %+v", resp.Message.Content, want)
		}
	})
}

func TestRetriesRateLimitHonouringRetryAfter(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"fault":{"status":429,"retry_after":0.001}},{"text":"ok"}]}`)
	// The backoff alone would wait an hour: only the server's retry-after lets the test
	// finish, and the context bounds it if that is ignored.
	p := newProvider(t, Config{BaseURL: base, Retry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got collect
	resp, err := p.Complete(ctx, userReq("hi"), got.add)
	if err != nil {
		t.Fatalf("Complete: %v (was retry-after ignored?)", err)
	}
	if resp.Message.Text() != "ok" || len(srv.Requests()) != 2 {
		t.Errorf("response %q after %d requests", resp.Message.Text(), len(srv.Requests()))
	}
	if got.count("retry") != 0 {
		t.Errorf("a retry delta was sent although nothing had been streamed: %+v", got)
	}
}

func TestRetriesServerErrors(t *testing.T) {
	bothModes(t, func(t *testing.T, noStream bool) {
		srv, base := fake(t, `{"turns":[{"fault":{"status":500}},{"fault":{"status":529}},{"text":"recovered"}]}`)
		p := newProvider(t, Config{BaseURL: base, NoStream: noStream})
		resp, err := p.Complete(context.Background(), userReq("hi"), nil)
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if resp.Message.Text() != "recovered" || len(srv.Requests()) != 3 {
			t.Errorf("response %q after %d requests", resp.Message.Text(), len(srv.Requests()))
		}
	})
}

func TestCutStreamStartsOverWithRetryDelta(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"fault":{"cut_stream":true}},{"text":"The complete answer."}]}`)
	p := newProvider(t, Config{BaseURL: base})
	var got collect
	resp, err := p.Complete(context.Background(), userReq("hi"), got.add)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	retry := -1
	for i, d := range got {
		if d.Kind == "retry" {
			if retry >= 0 {
				t.Errorf("two retry deltas: %+v", got)
			}
			retry = i
		}
	}
	if retry < 1 || got[retry].Text == "" {
		t.Fatalf("deltas = %+v, want partial text, then a retry delta saying why", got)
	}
	if after := (collect)(got[retry+1:]).text("text"); after != "The complete answer." {
		t.Errorf("text after the retry = %q", after)
	}
	if resp.Message.Text() != "The complete answer." || len(srv.Requests()) != 2 {
		t.Errorf("response %q after %d requests", resp.Message.Text(), len(srv.Requests()))
	}
}

func TestCutBodyIsRetriedWithoutStreaming(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"fault":{"cut_stream":true}},{"text":"Whole."}]}`)
	p := newProvider(t, Config{BaseURL: base, NoStream: true})
	var got collect
	resp, err := p.Complete(context.Background(), userReq("hi"), got.add)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Message.Text() != "Whole." || len(srv.Requests()) != 2 || got.count("retry") != 0 {
		t.Errorf("response %q after %d requests, deltas %+v", resp.Message.Text(), len(srv.Requests()), got)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"fault":{"status":503,"message":"down for maintenance"},"times":3},{"text":"never reached"}]}`)
	p := newProvider(t, Config{BaseURL: base, Retry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	_, err := p.Complete(context.Background(), userReq("hi"), nil)
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *llm.Error", err)
	}
	if e.Kind != llm.ErrKindServer || e.Status != 503 || e.Attempts != 3 || !strings.Contains(e.Message, "down for maintenance") {
		t.Errorf("err = %+v", e)
	}
	if len(srv.Requests()) != 3 || srv.Remaining() != 1 {
		t.Errorf("%d requests, %d steps left; want 3 and 1", len(srv.Requests()), srv.Remaining())
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		fault  string
		kind   string
		status int
	}{
		{"unauthorized", `{"status":401}`, llm.ErrKindAuth, 401},
		{"bad request", `{"status":400,"message":"bad field"}`, llm.ErrKindInvalid, 400},
		{"context length", `{"prompt_too_long":true}`, llm.ErrKindPromptTooLong, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, base := fake(t, `{"turns":[{"fault":`+tc.fault+`},{"text":"never reached"}]}`)
			p := newProvider(t, Config{BaseURL: base})
			_, err := p.Complete(context.Background(), userReq("hi"), nil)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != tc.kind || e.Status != tc.status || e.Attempts != 1 {
				t.Fatalf("err = %#v, want kind %s, status %d, one attempt", err, tc.kind, tc.status)
			}
			if srv.Remaining() != 1 {
				t.Errorf("%d steps left, want 1: the error must not be retried", srv.Remaining())
			}
		})
	}
}

func TestContextLengthErrorKind(t *testing.T) {
	_, base := fake(t, `{"turns":[{"fault":{"prompt_too_long":true}}]}`)
	p := newProvider(t, Config{BaseURL: base})
	_, err := p.Complete(context.Background(), userReq("a very long prompt"), nil)
	if !llm.IsKind(err, llm.ErrKindPromptTooLong) || !strings.Contains(err.Error(), "maximum context length") {
		t.Errorf("err = %v, want prompt_too_long with the server's message", err)
	}
}

func TestLengthInTheMiddleOfAToolCall(t *testing.T) {
	bothModes(t, func(t *testing.T, noStream bool) {
		partial := `{"file_path":"a.go","content":"package ma`
		script := `{"turns":[{"text":"Writing.","tool_calls":[{"id":"call_w","name":"Write","partial_input":` + jsonString(t, partial) + `}],"stop_reason":"max_tokens"}]}`
		_, base := fake(t, script)
		p := newProvider(t, Config{BaseURL: base, NoStream: noStream})
		resp, err := p.Complete(context.Background(), userReq("write a.go"), nil)
		if err != nil {
			t.Fatalf("a cut-off tool call must not fail the call: %v", err)
		}
		uses := resp.Message.ToolUses()
		if resp.StopReason != llm.StopMaxTokens || len(uses) != 1 || string(uses[0].Input) != partial || uses[0].ID != "call_w" {
			t.Errorf("stop %s, tool uses %+v; want max_tokens and the raw partial input", resp.StopReason, uses)
		}
	})
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRefusal(t *testing.T) {
	bothModes(t, func(t *testing.T, noStream bool) {
		_, base := fake(t, `{"turns":[{"text":"I can't help with that.","stop_reason":"refusal"}]}`)
		p := newProvider(t, Config{BaseURL: base, NoStream: noStream})
		resp, err := p.Complete(context.Background(), userReq("something bad"), nil)
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if resp.StopReason != llm.StopRefusal || resp.Message.Text() != "I can't help with that." {
			t.Errorf("stop %s, text %q", resp.StopReason, resp.Message.Text())
		}
	})
}

func TestBaseURLFromEnvironmentNeedsNoKey(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"text":"local model here"}]}`)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", base)
	p, err := New(Config{Retry: fastRetry})
	if err != nil {
		t.Fatalf("New with only OPENAI_BASE_URL: %v", err)
	}
	resp, err := p.Complete(context.Background(), &llm.Request{Model: "qwen3:8b", Messages: []llm.Message{llm.UserText("hi")}}, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Message.Text() != "local model here" {
		t.Errorf("text = %q", resp.Message.Text())
	}
	rec := srv.Requests()[0]
	if h := rec.Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none without a key", h)
	}
	// An unknown model gets the default output cap.
	if b := body(t, srv, 0); b["model"] != "qwen3:8b" || b["max_tokens"] != float64(llm.LookupModel("qwen3:8b").MaxOutput) {
		t.Errorf("model %v, max_tokens %v", b["model"], b["max_tokens"])
	}
}

func TestNewConfigErrors(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	_, err := New(Config{})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("New without key or URL: %v, want an error naming both variables", err)
	}
	if _, err := New(Config{BaseURL: "localhost:11434"}); err == nil {
		t.Error("New accepted a base URL without a scheme")
	}
	t.Setenv("OPENAI_API_KEY", "sk-env")
	p, err := New(Config{})
	if err != nil || !p.maxCompletionField {
		t.Errorf("New with OPENAI_API_KEY: %v; the OpenAI API must get max_completion_tokens", err)
	}
}

func TestConfigMaxTokensAndRequestOverride(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"text":"a"},{"text":"b"}]}`)
	p := newProvider(t, Config{BaseURL: base, MaxTokens: 1234})
	if _, err := p.Complete(context.Background(), userReq("hi"), nil); err != nil {
		t.Fatal(err)
	}
	req := userReq("hi")
	req.MaxTokens = 99
	if _, err := p.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if a, b := body(t, srv, 0)["max_tokens"], body(t, srv, 1)["max_tokens"]; a != 1234.0 || b != 99.0 {
		t.Errorf("max_tokens = %v then %v, want the config's 1234 then the request's 99", a, b)
	}
}

// cancelOnErrorBody cancels a context once the SDK has read and closed an error
// response: the provider is then between attempts, about to back off.
type cancelOnErrorBody struct {
	next   http.RoundTripper
	cancel context.CancelFunc
}

func (c cancelOnErrorBody) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 {
		resp.Body = cancelOnClose{ReadCloser: resp.Body, cancel: c.cancel}
	}
	return resp, err
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	srv, base := fake(t, `{"turns":[{"fault":{"status":429,"retry_after":3600}},{"text":"never reached"}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := newProvider(t, Config{
		BaseURL:    base,
		HTTPClient: &http.Client{Transport: cancelOnErrorBody{next: http.DefaultTransport, cancel: cancel}},
		Retry:      llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour},
	})
	done := make(chan error, 1)
	go func() {
		_, err := p.Complete(ctx, userReq("hi"), nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Complete kept waiting for the hour-long backoff after its context was cancelled")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestBadGatewayPageIsRetried(t *testing.T) {
	srv, _ := fake(t, `{"turns":[{"text":"through the proxy"}]}`)
	var calls atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("content-type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
			return
		}
		r.URL.Path = strings.TrimPrefix(r.URL.Path, "/proxy")
		srv.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	p := newProvider(t, Config{BaseURL: proxy.URL + "/proxy/v1"})
	resp, err := p.Complete(context.Background(), userReq("hi"), nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Message.Text() != "through the proxy" || calls.Load() != 2 {
		t.Errorf("text %q after %d calls", resp.Message.Text(), calls.Load())
	}
}

// Issue 33 items 5 and 9: a stream that goes quiet after its first chunk, and a chunk that
// is not JSON, are retried like a dropped connection.
func TestQuietAndMalformedStreamsAreRetried(t *testing.T) {
	for _, fault := range []string{`{"stall":true}`, `{"bad_frame":true}`} {
		srv, base := fake(t, `{"turns":[{"fault":`+fault+`},{"text":"second try"}]}`)
		p := newProvider(t, Config{BaseURL: base, StreamIdle: 100 * time.Millisecond})
		var got collect
		resp, err := p.Complete(context.Background(), userReq("hi"), got.add)
		if err != nil {
			t.Fatalf("%s: %v", fault, err)
		}
		if resp.Message.Text() != "second try" || len(srv.Requests()) != 2 || got.count("retry") != 1 {
			t.Errorf("%s: answer %q after %d requests, %d retry deltas", fault, resp.Message.Text(), len(srv.Requests()), got.count("retry"))
		}
	}
	_, base := fake(t, `{"turns":[{"fault":{"stall":true},"times":4}]}`)
	p := newProvider(t, Config{BaseURL: base, StreamIdle: 50 * time.Millisecond})
	_, err := p.Complete(context.Background(), userReq("hi"), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrKindConnection || !strings.Contains(err.Error(), "OURO_STREAM_IDLE_TIMEOUT") {
		t.Errorf("after every attempt stalled: %v", err)
	}
}
