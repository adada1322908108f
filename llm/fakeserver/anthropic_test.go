package fakeserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

func newAnthropicTestServer(t *testing.T, script string) (*Server, string) {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatalf("parse script: %v", err)
	}
	fs, err := New(s)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	ts := httptest.NewServer(fs)
	t.Cleanup(ts.Close)
	return fs, ts.URL
}

func postAnthropic(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", "test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sseEvent struct {
	name string
	data map[string]any
}

// readSSE parses events until the body ends; err is the read error that ended it, if any.
func readSSE(t *testing.T, r io.Reader) (events []sseEvent, err error) {
	t.Helper()
	sc := bufio.NewScanner(r)
	var name, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if name == "" && data == "" {
				continue
			}
			var m map[string]any
			if jerr := json.Unmarshal([]byte(data), &m); jerr != nil {
				t.Fatalf("event %s: data is not JSON: %v: %s", name, jerr, data)
			}
			if m["type"] != name {
				t.Fatalf("event %s carries data of type %v", name, m["type"])
			}
			events = append(events, sseEvent{name, m})
			name, data = "", ""
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	return events, sc.Err()
}

func eventNames(evs []sseEvent) string {
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	return strings.Join(names, " ")
}

const simpleUser = `"messages":[{"role":"user","content":"hi"}]`

func TestAnthropicStreamEventSequence(t *testing.T) {
	_, url := newAnthropicTestServer(t, `{"turns":[{"thinking":"Let me think about it.","text":"I will list the files in the directory.",
		"tool_calls":[{"id":"toolu_a","name":"Bash","input":{"command":"ls -la /tmp"}}]}]}`)
	resp := postAnthropic(t, url, `{"model":"claude-test","max_tokens":100,"stream":true,`+simpleUser+`}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("content-type"); ct != "text/event-stream" {
		t.Errorf("content-type %q", ct)
	}
	evs, err := readSSE(t, resp.Body)
	if err != nil {
		t.Fatalf("read stream: %v", err)
	}
	// Collapse runs of deltas so the order of the rest can be compared exactly.
	var shape []string
	for _, e := range evs {
		if e.name == "content_block_delta" && len(shape) > 0 && shape[len(shape)-1] == "delta*" {
			continue
		}
		if e.name == "content_block_delta" {
			shape = append(shape, "delta*")
			continue
		}
		shape = append(shape, e.name)
	}
	want := "message_start ping content_block_start delta* content_block_stop content_block_start delta* content_block_stop content_block_start delta* content_block_stop message_delta message_stop"
	if got := strings.Join(shape, " "); got != want {
		t.Fatalf("event order:\n got %s\nwant %s", got, want)
	}

	start := evs[0].data["message"].(map[string]any)
	if start["model"] != "claude-test" || start["role"] != "assistant" || start["stop_reason"] != nil {
		t.Errorf("message_start: %v", start)
	}
	if in := start["usage"].(map[string]any)["input_tokens"].(float64); in <= 0 {
		t.Errorf("message_start input_tokens %v", in)
	}

	// Reassemble each block from its deltas.
	var text, thinking, sig, input strings.Builder
	var deltaTypes = map[string]int{}
	var textDeltas int
	for _, e := range evs {
		if e.name != "content_block_delta" {
			continue
		}
		d := e.data["delta"].(map[string]any)
		deltaTypes[d["type"].(string)]++
		switch d["type"] {
		case "text_delta":
			text.WriteString(d["text"].(string))
			textDeltas++
		case "thinking_delta":
			thinking.WriteString(d["thinking"].(string))
		case "signature_delta":
			sig.WriteString(d["signature"].(string))
		case "input_json_delta":
			input.WriteString(d["partial_json"].(string))
		}
	}
	if text.String() != "I will list the files in the directory." || textDeltas < 2 {
		t.Errorf("text %q in %d deltas", text.String(), textDeltas)
	}
	if thinking.String() != "Let me think about it." || sig.String() == "" {
		t.Errorf("thinking %q signature %q", thinking.String(), sig.String())
	}
	if deltaTypes["input_json_delta"] < 3 {
		t.Errorf("tool input in %d pieces, want several", deltaTypes["input_json_delta"])
	}
	var in map[string]string
	if err := json.Unmarshal([]byte(input.String()), &in); err != nil || in["command"] != "ls -la /tmp" {
		t.Errorf("tool input %q: %v", input.String(), err)
	}
	toolStart := evs[0]
	for _, e := range evs {
		if e.name == "content_block_start" && e.data["content_block"].(map[string]any)["type"] == "tool_use" {
			toolStart = e
		}
	}
	cb := toolStart.data["content_block"].(map[string]any)
	if cb["id"] != "toolu_a" || cb["name"] != "Bash" || toolStart.data["index"].(float64) != 2 {
		t.Errorf("tool_use start %v", toolStart.data)
	}
	md := evs[len(evs)-2].data
	if md["delta"].(map[string]any)["stop_reason"] != "tool_use" {
		t.Errorf("message_delta %v", md)
	}
	if out := md["usage"].(map[string]any)["output_tokens"].(float64); out <= 0 {
		t.Errorf("output_tokens %v", out)
	}
}

func TestAnthropicNonStreamMessage(t *testing.T) {
	fs, url := newAnthropicTestServer(t, `{"turns":[{"text":"Hello there.","tool_calls":[{"name":"Read","input":{"path":"a.go"}}],
		"usage":{"input_tokens":11,"output_tokens":7,"cache_read_input_tokens":5,"cache_creation_input_tokens":3}}]}`)
	resp := postAnthropic(t, url, `{"model":"m1","max_tokens":10,`+simpleUser+`}`)
	if resp.StatusCode != 200 || resp.Header.Get("request-id") == "" {
		t.Fatalf("status %d request-id %q", resp.StatusCode, resp.Header.Get("request-id"))
	}
	var body struct {
		ID           string          `json:"id"`
		Type         string          `json:"type"`
		Role         string          `json:"role"`
		Model        string          `json:"model"`
		Content      []llm.Block     `json:"content"`
		StopReason   string          `json:"stop_reason"`
		StopSequence json.RawMessage `json:"stop_sequence"`
		Usage        llm.Usage       `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.ID == "" || body.Type != "message" || body.Role != "assistant" || body.Model != "m1" {
		t.Errorf("envelope %+v", body)
	}
	if string(body.StopSequence) != "null" || body.StopReason != "tool_use" {
		t.Errorf("stop %q %s", body.StopReason, body.StopSequence)
	}
	if len(body.Content) != 2 || body.Content[0].Text != "Hello there." || body.Content[1].ID != "toolu_01_01" ||
		body.Content[1].Name != "Read" || string(body.Content[1].Input) != `{"path":"a.go"}` {
		t.Errorf("content %+v", body.Content)
	}
	want := llm.Usage{InputTokens: 11, OutputTokens: 7, CacheReadInputTokens: 5, CacheCreationInputTokens: 3}
	if body.Usage != want {
		t.Errorf("usage %+v, want %+v", body.Usage, want)
	}
	reqs := fs.Requests()
	if len(reqs) != 1 || reqs[0].Protocol != "anthropic" || reqs[0].Stream || reqs[0].Step != 0 {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestAnthropicRecordsDecodedMessages(t *testing.T) {
	fs, url := newAnthropicTestServer(t, `{"turns":[{"text":"ok"}]}`)
	body := `{"model":"m","max_tokens":2048,"stream":true,
		"system":[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}],
		"thinking":{"type":"enabled","budget_tokens":1024},"metadata":{"user_id":"u"},
		"tools":[{"name":"Bash","description":"run","input_schema":{"type":"object"}}],
		"messages":[
		{"role":"user","content":"list files"},
		{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"` + scripted.Signature("hm") + `"},{"type":"redacted_thinking","data":"xyz"},
			{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go","is_error":true},
			{"type":"text","text":"and?","cache_control":{"type":"ephemeral"}},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]}]}`
	resp := postAnthropic(t, url, body)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if _, err := readSSE(t, resp.Body); err != nil {
		t.Fatal(err)
	}
	rec := fs.Requests()[0]
	if !rec.Stream || rec.Path != "/v1/messages" || rec.Header.Get("x-api-key") != "test-key" || !json.Valid(rec.Body) {
		t.Errorf("recorded %+v", rec)
	}
	want := []llm.Message{
		llm.UserText("list files"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockThinking, Thinking: "hm", Signature: scripted.Signature("hm")},
			{Type: llm.BlockRedactedThinking, Data: "xyz"},
			llm.ToolUseBlock("t1", "Bash", json.RawMessage(`{"command":"ls"}`)),
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResultBlock("t1", "a.go", true),
			llm.TextBlock("and?"),
			{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBO"}},
		}},
	}
	got, _ := json.Marshal(rec.Messages)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("messages\n got %s\nwant %s", got, exp)
	}
}

var requestIDPattern = regexp.MustCompile(`^req_\w+$`)

func checkAnthropicError(t *testing.T, resp *http.Response, status int, errType, msgPart string) {
	t.Helper()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, b)
	}
	if !requestIDPattern.MatchString(resp.Header.Get("request-id")) {
		t.Errorf("request-id header %q", resp.Header.Get("request-id"))
	}
	if ct := resp.Header.Get("content-type"); ct != "application/json" {
		t.Errorf("content-type %q", ct)
	}
	var body struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body: %v", err)
	}
	if body.Type != "error" || body.Error.Type != errType || !strings.Contains(body.Error.Message, msgPart) {
		t.Errorf("error body %+v, want type %s and a message containing %q", body, errType, msgPart)
	}
}

func TestAnthropicValidation(t *testing.T) {
	tests := []struct {
		name, body, msg string
	}{
		{"not json", `{"model":`, "not valid JSON"},
		{"no model", `{"max_tokens":5,` + simpleUser + `}`, "model: Field required"},
		{"no max_tokens", `{"model":"m",` + simpleUser + `}`, "max_tokens: Field required"},
		{"no messages", `{"model":"m","max_tokens":5}`, "messages: Field required"},
		{"empty messages", `{"model":"m","max_tokens":5,"messages":[]}`, "at least one message"},
		{"assistant first", `{"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":"x"}]}`, "first message must use the user role"},
		{"orphan tool_result", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"nope","content":"x"}]}]}`, `unexpected tool_use_id "nope"`},
		{"unanswered tool_use", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"a"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"X","input":{}}]},{"role":"user","content":"b"}]}`, "without tool_result"},
		{"unknown block", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"video"}]}]}`, `messages.0.content.0.type: unknown content block type "video"`},
		{"tool without schema", `{"model":"m","max_tokens":5,"tools":[{"name":"X"}],` + simpleUser + `}`, "tools.0.input_schema: Field required"},
		{"system non-text", `{"model":"m","max_tokens":5,"system":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"x"}}],` + simpleUser + `}`, "system prompt takes text blocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, url := newAnthropicTestServer(t, `{"turns":[{"text":"never sent"}]}`)
			resp := postAnthropic(t, url, tt.body)
			checkAnthropicError(t, resp, 400, "invalid_request_error", tt.msg)
			if n := len(fs.Requests()); n != 1 {
				t.Errorf("%d requests recorded, want 1", n)
			}
		})
	}
}

func TestAnthropicScriptExhaustedAndExpectation(t *testing.T) {
	_, url := newAnthropicTestServer(t, `{"turns":[{"expect_contains":"magic word","text":"ok"}]}`)
	resp := postAnthropic(t, url, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"no such thing"}]}`)
	checkAnthropicError(t, resp, 400, "invalid_request_error", `expected the last message to contain "magic word"`)
	resp = postAnthropic(t, url, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"magic word"}]}`)
	checkAnthropicError(t, resp, 400, "invalid_request_error", "no turn left")
}

func TestAnthropicFaults(t *testing.T) {
	tests := []struct {
		fault      string
		status     int
		errType    string
		msg        string
		retryAfter string
	}{
		{`{"status":429,"message":"slow down","retry_after":2}`, 429, "rate_limit_error", "slow down", "2"},
		{`{"status":529}`, 529, "overloaded_error", "scripted fault 529", ""},
		{`{"status":500,"message":"boom"}`, 500, "api_error", "boom", ""},
		{`{"status":503}`, 503, "api_error", "503", ""},
		{`{"status":401,"message":"invalid x-api-key"}`, 401, "authentication_error", "invalid x-api-key", ""},
		{`{"status":400,"message":"bad"}`, 400, "invalid_request_error", "bad", ""},
		{`{"status":422}`, 422, "invalid_request_error", "422", ""},
		{`{"prompt_too_long":true}`, 400, "invalid_request_error", "prompt is too long: ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			for _, stream := range []string{"false", "true"} {
				_, url := newAnthropicTestServer(t, `{"turns":[{"fault":`+tt.fault+`}]}`)
				resp := postAnthropic(t, url, `{"model":"m","max_tokens":5,"stream":`+stream+`,`+simpleUser+`}`)
				if got := resp.Header.Get("retry-after"); got != tt.retryAfter {
					t.Errorf("retry-after %q, want %q", got, tt.retryAfter)
				}
				checkAnthropicError(t, resp, tt.status, tt.errType, tt.msg)
			}
		})
	}
}

func TestAnthropicPromptTooLongMessage(t *testing.T) {
	_, url := newAnthropicTestServer(t, `{"turns":[{"fault":{"prompt_too_long":true}}]}`)
	resp := postAnthropic(t, url, `{"model":"m","max_tokens":5,`+simpleUser+`}`)
	b, _ := io.ReadAll(resp.Body)
	if !regexp.MustCompile(`prompt is too long: \d+ tokens > 200000 maximum`).Match(b) {
		t.Errorf("body %s", b)
	}
}

func TestAnthropicCutStream(t *testing.T) {
	fs, url := newAnthropicTestServer(t, `{"turns":[{"fault":{"cut_stream":true},"times":2}]}`)
	resp := postAnthropic(t, url, `{"model":"m","max_tokens":2048,"stream":true,`+simpleUser+`}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	evs, err := readSSE(t, resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("stream ended with %v, want an unexpected EOF", err)
	}
	got := eventNames(evs)
	if !strings.HasPrefix(got, "message_start ping content_block_start content_block_delta") || strings.Contains(got, "stop") {
		t.Errorf("events before the cut: %s", got)
	}

	resp = postAnthropic(t, url, `{"model":"m","max_tokens":5,`+simpleUser+`}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || json.Valid(b) || len(b) == 0 {
		t.Errorf("non-stream cut: read %q, %v", b, err)
	}
	if fs.Remaining() != 0 {
		t.Errorf("%d steps left", fs.Remaining())
	}
}

func TestAnthropicPartialToolInput(t *testing.T) {
	script := `{"turns":[{"text":"Writing.","tool_calls":[{"name":"Write","partial_input":"{\"path\":\"a.txt\",\"content\":\"hel"}],"stop_reason":"max_tokens"}]}`
	t.Run("stream", func(t *testing.T) {
		_, url := newAnthropicTestServer(t, script)
		resp := postAnthropic(t, url, `{"model":"m","max_tokens":2048,"stream":true,`+simpleUser+`}`)
		evs, err := readSSE(t, resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var input strings.Builder
		for _, e := range evs {
			if d, ok := e.data["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
				input.WriteString(d["partial_json"].(string))
			}
		}
		if input.String() != `{"path":"a.txt","content":"hel` {
			t.Errorf("partial input %q", input.String())
		}
		if sr := evs[len(evs)-2].data["delta"].(map[string]any)["stop_reason"]; sr != "max_tokens" {
			t.Errorf("stop_reason %v", sr)
		}
	})
	t.Run("json", func(t *testing.T) {
		_, url := newAnthropicTestServer(t, script)
		resp := postAnthropic(t, url, `{"model":"m","max_tokens":5,`+simpleUser+`}`)
		var body struct {
			Content    []llm.Block `json:"content"`
			StopReason string      `json:"stop_reason"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if body.StopReason != "max_tokens" || len(body.Content) != 2 || string(body.Content[1].Input) != "{}" {
			t.Errorf("body %+v", body)
		}
	})
}

func TestAnthropicRefusalHasNoBlocks(t *testing.T) {
	_, url := newAnthropicTestServer(t, `{"turns":[{"stop_reason":"refusal"}]}`)
	resp := postAnthropic(t, url, `{"model":"m","max_tokens":2048,"stream":true,`+simpleUser+`}`)
	evs, err := readSSE(t, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := eventNames(evs); got != "message_start ping message_delta message_stop" {
		t.Errorf("events %s", got)
	}
	if sr := evs[2].data["delta"].(map[string]any)["stop_reason"]; sr != "refusal" {
		t.Errorf("stop_reason %v", sr)
	}
}
