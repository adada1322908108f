package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// openaiTestServer serves the script and returns the server and its base URL.
func openaiTestServer(t *testing.T, script string) (*Server, string) {
	t.Helper()
	sc, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatalf("parse script: %v", err)
	}
	s, err := New(sc)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL
}

// openaiPost sends a Chat Completions request and reads the whole answer; readErr is
// what reading the body failed with (a cut connection).
func openaiPost(t *testing.T, url string, body any) (resp *http.Response, data []byte, readErr error) {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			t.Fatalf("encode request: %v", err)
		}
	}
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer resp.Body.Close()
	data, readErr = io.ReadAll(resp.Body)
	return resp, data, readErr
}

// openaiEvents splits an SSE body into its data payloads, decoding every one but the
// final [DONE], which is reported separately.
func openaiEvents(t *testing.T, body []byte) (chunks []map[string]any, done bool) {
	t.Helper()
	for _, ev := range strings.Split(string(body), "\n\n") {
		if ev == "" {
			continue
		}
		payload, ok := strings.CutPrefix(ev, "data: ")
		if !ok {
			t.Fatalf("event without data prefix: %q", ev)
		}
		if done {
			t.Fatalf("event after [DONE]: %q", ev)
		}
		if payload == "[DONE]" {
			done = true
			continue
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			t.Fatalf("chunk is not JSON: %v: %q", err, payload)
		}
		chunks = append(chunks, c)
	}
	return chunks, done
}

// openaiDeltaOf returns the delta and finish_reason of the chunk's only choice.
func openaiDeltaOf(t *testing.T, c map[string]any) (delta map[string]any, finish any) {
	t.Helper()
	choices, _ := c["choices"].([]any)
	if len(choices) != 1 {
		t.Fatalf("chunk has %d choices, want 1: %v", len(choices), c)
	}
	ch := choices[0].(map[string]any)
	return ch["delta"].(map[string]any), ch["finish_reason"]
}

func openaiUserRequest(stream bool, text string) map[string]any {
	req := map[string]any{
		"model":    "gpt-4o",
		"messages": []any{map[string]any{"role": "user", "content": text}},
	}
	if stream {
		req["stream"] = true
	}
	return req
}

func TestOpenAIStreamsTextInChunksWithUsage(t *testing.T) {
	text := "Hello from a streamed answer that spans several chunks."
	srv, url := openaiTestServer(t, `{"turns":[{"text":"`+text+`","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":3,"cache_creation_input_tokens":0}}]}`)
	req := openaiUserRequest(true, "hi")
	req["stream_options"] = map[string]any{"include_usage": true}
	resp, body, err := openaiPost(t, url, req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, read error %v: %s", resp.StatusCode, err, body)
	}
	if ct := resp.Header.Get("content-type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("content-type = %q", ct)
	}
	chunks, done := openaiEvents(t, body)
	if !done {
		t.Fatal("stream did not end with [DONE]")
	}
	if len(chunks) < 4 {
		t.Fatalf("got %d chunks, want role, several content pieces, finish and usage", len(chunks))
	}
	for i, c := range chunks {
		if c["id"] != chunks[0]["id"] || c["object"] != "chat.completion.chunk" || c["model"] != "gpt-4o" {
			t.Errorf("chunk %d: id %v object %v model %v, want the first chunk's id, chat.completion.chunk, gpt-4o", i, c["id"], c["object"], c["model"])
		}
		if _, ok := c["usage"]; !ok {
			t.Errorf("chunk %d has no usage key although include_usage was asked", i)
		}
	}
	first, _ := openaiDeltaOf(t, chunks[0])
	if first["role"] != "assistant" {
		t.Errorf("first delta = %v, want the assistant role", first)
	}
	var content strings.Builder
	pieces := 0
	for _, c := range chunks[:len(chunks)-2] {
		d, finish := openaiDeltaOf(t, c)
		if finish != nil {
			t.Errorf("finish_reason %v before the final chunk", finish)
		}
		if s, ok := d["content"].(string); ok && s != "" {
			content.WriteString(s)
			pieces++
		}
	}
	if content.String() != text || pieces < 2 {
		t.Errorf("content = %q in %d pieces, want %q in several", content.String(), pieces, text)
	}
	_, finish := openaiDeltaOf(t, chunks[len(chunks)-2])
	if finish != "stop" {
		t.Errorf("finish_reason = %v, want stop", finish)
	}
	last := chunks[len(chunks)-1]
	if choices, ok := last["choices"].([]any); !ok || len(choices) != 0 {
		t.Errorf("usage chunk choices = %v, want an empty array", last["choices"])
	}
	usage, _ := last["usage"].(map[string]any)
	details, _ := usage["prompt_tokens_details"].(map[string]any)
	if usage["prompt_tokens"] != 13.0 || usage["completion_tokens"] != 5.0 || usage["total_tokens"] != 18.0 || details["cached_tokens"] != 3.0 {
		t.Errorf("usage = %v, want prompt 13 (cached 3), completion 5, total 18", usage)
	}
	if recs := srv.Requests(); len(recs) != 1 || recs[0].Protocol != "openai" || !recs[0].Stream || recs[0].Step != 0 {
		t.Errorf("recorded %+v", recs)
	}
}

func TestOpenAIStreamWithoutUsageOption(t *testing.T) {
	_, url := openaiTestServer(t, `{"turns":[{"text":"Short."}]}`)
	_, body, err := openaiPost(t, url, openaiUserRequest(true, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, done := openaiEvents(t, body)
	if !done {
		t.Fatal("no [DONE]")
	}
	for i, c := range chunks {
		if _, ok := c["usage"]; ok {
			t.Errorf("chunk %d carries usage although include_usage was not asked: %v", i, c)
		}
	}
	if _, finish := openaiDeltaOf(t, chunks[len(chunks)-1]); finish != "stop" {
		t.Errorf("last chunk finish_reason = %v, want stop", finish)
	}
}

// openaiStreamedCalls reassembles streamed tool calls by index, checking that the first
// piece of each carries id, type and name and that arguments come in several pieces.
func openaiStreamedCalls(t *testing.T, chunks []map[string]any) (calls []map[string]string, finish any) {
	t.Helper()
	pieces := map[int]int{}
	for _, c := range chunks {
		d, f := openaiDeltaOf(t, c)
		if f != nil {
			finish = f
		}
		tcs, _ := d["tool_calls"].([]any)
		for _, x := range tcs {
			tc := x.(map[string]any)
			idx := int(tc["index"].(float64))
			fn := tc["function"].(map[string]any)
			if idx == len(calls) {
				if tc["id"] == nil || tc["type"] != "function" || fn["name"] == nil {
					t.Errorf("first piece of call %d lacks id, type or name: %v", idx, tc)
				}
				calls = append(calls, map[string]string{"id": tc["id"].(string), "name": fn["name"].(string)})
			} else if idx != len(calls)-1 {
				t.Fatalf("tool call index %d out of order", idx)
			} else if tc["id"] != nil || fn["name"] != nil {
				t.Errorf("a later piece of call %d repeats id or name: %v", idx, tc)
			}
			if a, _ := fn["arguments"].(string); a != "" {
				calls[idx]["arguments"] += a
				pieces[idx]++
			}
		}
	}
	for i := range calls {
		if pieces[i] < 2 {
			t.Errorf("call %d arguments came in %d pieces, want several", i, pieces[i])
		}
	}
	return calls, finish
}

func TestOpenAIStreamsToolCallsAsIndexedDeltas(t *testing.T) {
	_, url := openaiTestServer(t, `{"turns":[{"text":"Looking.","tool_calls":[
		{"id":"call_a","name":"Bash","input":{"command":"ls -la"}},
		{"name":"Read","input":{"file_path":"/tmp/x.go"}}]}]}`)
	_, body, err := openaiPost(t, url, openaiUserRequest(true, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, _ := openaiEvents(t, body)
	calls, finish := openaiStreamedCalls(t, chunks)
	want := []map[string]string{
		{"id": "call_a", "name": "Bash", "arguments": `{"command":"ls -la"}`},
		{"id": "toolu_01_02", "name": "Read", "arguments": `{"file_path":"/tmp/x.go"}`},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls = %v, want %v", calls, want)
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason = %v, want tool_calls", finish)
	}
}

func TestOpenAIStreamsPartialToolInputWithLength(t *testing.T) {
	partial := `{"file_path":"a.go","content":"package ma`
	_, url := openaiTestServer(t, `{"turns":[{"tool_calls":[{"id":"call_w","name":"Write","partial_input":`+openaiJSON(t, partial)+`}],"stop_reason":"max_tokens"}]}`)
	_, body, err := openaiPost(t, url, openaiUserRequest(true, "write it"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, _ := openaiEvents(t, body)
	calls, finish := openaiStreamedCalls(t, chunks)
	if len(calls) != 1 || calls[0]["arguments"] != partial {
		t.Errorf("calls = %v, want the raw partial input %q", calls, partial)
	}
	if finish != "length" {
		t.Errorf("finish_reason = %v, want length", finish)
	}
}

func openaiJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenAIStreamsReasoningAndRefusal(t *testing.T) {
	_, url := openaiTestServer(t, `{"turns":[
		{"thinking":"The user wants a greeting; keep it short.","text":"Hi!"},
		{"text":"I can't help with that.","stop_reason":"refusal"}]}`)
	_, body, err := openaiPost(t, url, openaiUserRequest(true, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, _ := openaiEvents(t, body)
	var reasoning, content string
	for _, c := range chunks {
		d, _ := openaiDeltaOf(t, c)
		r, _ := d["reasoning_content"].(string)
		s, _ := d["content"].(string)
		if s != "" && reasoning == "" {
			t.Error("content arrived before the reasoning")
		}
		reasoning += r
		content += s
	}
	if reasoning != "The user wants a greeting; keep it short." || content != "Hi!" {
		t.Errorf("reasoning %q, content %q", reasoning, content)
	}

	_, body, err = openaiPost(t, url, openaiUserRequest(true, "do the bad thing"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, _ = openaiEvents(t, body)
	var refusal string
	var finish any
	for _, c := range chunks {
		d, f := openaiDeltaOf(t, c)
		if s, _ := d["content"].(string); s != "" {
			t.Errorf("refusal text sent as content: %v", d)
		}
		r, _ := d["refusal"].(string)
		refusal += r
		if f != nil {
			finish = f
		}
	}
	if refusal != "I can't help with that." || finish != "content_filter" {
		t.Errorf("refusal %q, finish %v; want the text and content_filter", refusal, finish)
	}
}

func TestOpenAINonStreamingCompletion(t *testing.T) {
	_, url := openaiTestServer(t, `{"turns":[
		{"text":"Running it.","tool_calls":[{"id":"call_1","name":"Bash","input":{"command":"go test"}}],
		 "usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":40,"cache_creation_input_tokens":0}},
		{"text":"Not that.","stop_reason":"refusal"},
		{"thinking":"hmm","text":"Done."}]}`)
	resp, body, err := openaiPost(t, url, openaiUserRequest(false, "run the tests"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
	}
	var got struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Index        int            `json:"index"`
			FinishReason string         `json:"finish_reason"`
			Message      map[string]any `json:"message"`
		} `json:"choices"`
		Usage map[string]any `json:"usage"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("decode: %v: %s", err, body)
	}
	if got.Object != "chat.completion" || got.Model != "gpt-4o" || got.ID == "" || len(got.Choices) != 1 {
		t.Fatalf("completion = %s", body)
	}
	m := got.Choices[0].Message
	if m["role"] != "assistant" || m["content"] != "Running it." || got.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("message %v, finish %q", m, got.Choices[0].FinishReason)
	}
	calls, _ := m["tool_calls"].([]any)
	wantCall := map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "Bash", "arguments": `{"command":"go test"}`}}
	if len(calls) != 1 || !reflect.DeepEqual(calls[0], wantCall) {
		t.Errorf("tool_calls = %v, want [%v]", calls, wantCall)
	}
	details, _ := got.Usage["prompt_tokens_details"].(map[string]any)
	if got.Usage["prompt_tokens"] != 140.0 || got.Usage["completion_tokens"] != 20.0 || got.Usage["total_tokens"] != 160.0 || details["cached_tokens"] != 40.0 {
		t.Errorf("usage = %v", got.Usage)
	}

	_, body, _ = openaiPost(t, url, openaiUserRequest(false, "bad"))
	var refused struct {
		Choices []struct {
			FinishReason string         `json:"finish_reason"`
			Message      map[string]any `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &refused); err != nil || len(refused.Choices) != 1 {
		t.Fatalf("decode refusal: %v: %s", err, body)
	}
	rm := refused.Choices[0].Message
	if rm["refusal"] != "Not that." || rm["content"] != nil || refused.Choices[0].FinishReason != "content_filter" {
		t.Errorf("refusal message %v, finish %q", rm, refused.Choices[0].FinishReason)
	}

	_, body, _ = openaiPost(t, url, openaiUserRequest(false, "again"))
	if !strings.Contains(string(body), `"reasoning_content":"hmm"`) || !strings.Contains(string(body), `"finish_reason":"stop"`) {
		t.Errorf("thinking turn = %s, want reasoning_content and stop", body)
	}
}

func TestOpenAIConvertsTheConversation(t *testing.T) {
	srv, url := openaiTestServer(t, `{"turns":[{"expect_contains":"main.go","text":"Both done."}]}`)
	req := map[string]any{
		"model": "gpt-4o",
		"messages": []any{
			map[string]any{"role": "system", "content": "You are terse."},
			map[string]any{"role": "developer", "content": []any{map[string]any{"type": "text", "text": "Use tools."}}},
			map[string]any{"role": "user", "content": "list and read"},
			map[string]any{"role": "assistant", "content": "Sure.", "tool_calls": []any{
				map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "Bash", "arguments": `{"command":"ls"}`}},
				map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "Read", "arguments": `{"file_path":"go.mod"}`}},
			}},
			map[string]any{"role": "tool", "tool_call_id": "c1", "content": "main.go"},
			map[string]any{"role": "tool", "tool_call_id": "c2", "content": []any{map[string]any{"type": "text", "text": "module x"}}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "and this picture"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw0K"}},
			}},
		},
		"tools":                 []any{map[string]any{"type": "function", "function": map[string]any{"name": "Bash", "parameters": map[string]any{"type": "object"}}}},
		"max_completion_tokens": 100,
	}
	resp, body, err := openaiPost(t, url, req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
	}
	want := []llm.Message{
		llm.UserText("list and read"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.TextBlock("Sure."),
			llm.ToolUseBlock("c1", "Bash", json.RawMessage(`{"command":"ls"}`)),
			llm.ToolUseBlock("c2", "Read", json.RawMessage(`{"file_path":"go.mod"}`)),
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResultBlock("c1", "main.go", false),
			llm.ToolResultBlock("c2", "module x", false),
			llm.TextBlock("and this picture"),
			{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0K"}},
		}},
	}
	recs := srv.Requests()
	if len(recs) != 1 {
		t.Fatalf("recorded %d requests", len(recs))
	}
	if !reflect.DeepEqual(recs[0].Messages, want) {
		g, _ := json.Marshal(recs[0].Messages)
		w, _ := json.Marshal(want)
		t.Errorf("messages\n got %s\nwant %s", g, w)
	}
}

func TestOpenAIRejectsBadRequests(t *testing.T) {
	user := map[string]any{"role": "user", "content": "hi"}
	callNoAnswer := map[string]any{"role": "assistant", "tool_calls": []any{
		map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "Bash", "arguments": "{}"}}}}
	tests := []struct {
		name  string
		body  any
		param any
		want  string
	}{
		{"not JSON", `{"model":`, nil, "parse the JSON body"},
		{"no model", map[string]any{"messages": []any{user}}, "model", "must provide a model"},
		{"no messages", map[string]any{"model": "gpt-4o"}, "messages", "'messages'"},
		{"tool call without answer", map[string]any{"model": "gpt-4o", "messages": []any{user, callNoAnswer, user}}, "messages", "without tool_result"},
		{"tool answer without call", map[string]any{"model": "gpt-4o", "messages": []any{user,
			map[string]any{"role": "tool", "tool_call_id": "nope", "content": "x"}}}, "messages", "unexpected tool_use_id"},
		{"tool message without id", map[string]any{"model": "gpt-4o", "messages": []any{user,
			map[string]any{"role": "tool", "content": "x"}}}, "messages[1].tool_call_id", "tool_call_id"},
		{"unknown role", map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": "robot", "content": "x"}}}, "messages[0].role", "robot"},
		{"unknown content part", map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "video"}}}}}, "messages[0].content[0].type", "video"},
		{"stream_options without stream", map[string]any{"model": "gpt-4o", "messages": []any{user}, "stream_options": map[string]any{"include_usage": true}}, "stream_options", "only allowed when 'stream' is enabled"},
		{"zero max_tokens", map[string]any{"model": "gpt-4o", "messages": []any{user}, "max_tokens": 0}, "max_tokens", "below minimum"},
		{"bad tool type", map[string]any{"model": "gpt-4o", "messages": []any{user}, "tools": []any{map[string]any{"type": "web_search"}}}, "tools[0].type", "web_search"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, url := openaiTestServer(t, `{"turns":[{"text":"unused"}]}`)
			resp, body, err := openaiPost(t, url, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			e := openaiErrorOf(t, resp, body, http.StatusBadRequest)
			if e["type"] != "invalid_request_error" || e["param"] != tc.param || !strings.Contains(e["message"].(string), tc.want) {
				t.Errorf("error = %v, want type invalid_request_error, param %v, message containing %q", e, tc.param, tc.want)
			}
		})
	}
}

// openaiErrorOf checks the status and the error envelope and returns the error object.
func openaiErrorOf(t *testing.T, resp *http.Response, body []byte, status int) map[string]any {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d: %s", resp.StatusCode, status, body)
	}
	var env map[string]map[string]any
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, body)
	}
	e, ok := env["error"]
	if !ok {
		t.Fatalf("no error object: %s", body)
	}
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := e[k]; !ok {
			t.Errorf("error object lacks %q: %s", k, body)
		}
	}
	return e
}

func TestOpenAIScriptExhaustedAndExpectations(t *testing.T) {
	srv, url := openaiTestServer(t, `{"turns":[{"expect_contains":"go.mod","text":"ok"}]}`)
	resp, body, _ := openaiPost(t, url, openaiUserRequest(false, "no match here"))
	if e := openaiErrorOf(t, resp, body, 400); !strings.Contains(e["message"].(string), `script expectation failed: expected the last message to contain "go.mod"`) {
		t.Errorf("expectation error = %v", e)
	}
	resp, body, _ = openaiPost(t, url, openaiUserRequest(false, "go.mod please"))
	if e := openaiErrorOf(t, resp, body, 400); !strings.Contains(e["message"].(string), "no turn left") {
		t.Errorf("exhausted error = %v", e)
	}
	recs := srv.Requests()
	if len(recs) != 2 || recs[0].Step != 0 || recs[1].Step != -1 {
		t.Errorf("recorded steps: %+v", recs)
	}
}

func TestOpenAIFaults(t *testing.T) {
	tests := []struct {
		name       string
		fault      string
		status     int
		typ, code  any
		message    string
		retryAfter string
	}{
		{"rate limit", `{"status":429,"retry_after":2.5}`, 429, "requests", "rate_limit_exceeded", "Rate limit reached", "2.5"},
		{"server error", `{"status":500,"message":"boom"}`, 500, "server_error", nil, "boom", ""},
		{"overloaded", `{"status":529}`, 529, "server_error", nil, "The server had an error", ""},
		{"bad key", `{"status":401}`, 401, "invalid_request_error", "invalid_api_key", "Incorrect API key", ""},
		{"context length", `{"prompt_too_long":true}`, 400, "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, url := openaiTestServer(t, `{"turns":[{"fault":`+tc.fault+`}]}`)
			for _, stream := range []bool{false, true} {
				resp, body, _ := openaiPost(t, url, openaiUserRequest(stream, "hi"))
				if stream {
					if resp.StatusCode != 400 {
						t.Errorf("second request: status %d, want 400 for a used-up script", resp.StatusCode)
					}
					continue
				}
				e := openaiErrorOf(t, resp, body, tc.status)
				if e["type"] != tc.typ || e["code"] != tc.code || !strings.HasPrefix(e["message"].(string), tc.message) {
					t.Errorf("error = %v, want type %v code %v message %q…", e, tc.typ, tc.code, tc.message)
				}
				if got := resp.Header.Get("retry-after"); got != tc.retryAfter {
					t.Errorf("retry-after = %q, want %q", got, tc.retryAfter)
				}
			}
		})
	}
}

func TestOpenAICutStreamDropsTheConnection(t *testing.T) {
	_, url := openaiTestServer(t, `{"turns":[{"fault":{"cut_stream":true}},{"fault":{"cut_stream":true}}]}`)
	resp, body, err := openaiPost(t, url, openaiUserRequest(true, "hi"))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error = %v, want an unexpected EOF from the dropped connection", err)
	}
	chunks, done := openaiEvents(t, body)
	if done || len(chunks) == 0 {
		t.Fatalf("got %d chunks, done=%v; want some chunks and no [DONE]", len(chunks), done)
	}
	for _, c := range chunks {
		if _, finish := openaiDeltaOf(t, c); finish != nil {
			t.Errorf("a cut stream sent finish_reason %v", finish)
		}
	}

	resp, body, err = openaiPost(t, url, openaiUserRequest(false, "hi"))
	if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("non-streaming cut: status %d, read error %v", resp.StatusCode, err)
	}
	if len(body) == 0 || json.Valid(body) {
		t.Errorf("body = %q, want a partial JSON document", body)
	}
}

func TestOpenAIServesPathWithoutV1(t *testing.T) {
	_, url := openaiTestServer(t, `{"turns":[{"text":"ok"}]}`)
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(openaiJSON(t, openaiUserRequest(false, "hi"))))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
}

func TestOpenAIAcceptsEmptyAndRefusalAssistantContent(t *testing.T) {
	srv, url := openaiTestServer(t, `{"turns":[{"text":"ok"},{"text":"unused"}]}`)
	req := map[string]any{
		"model": "gpt-4o",
		"messages": []any{
			map[string]any{"role": "user", "content": "a"},
			map[string]any{"role": "assistant", "content": ""},
			map[string]any{"role": "user", "content": "b"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "refusal", "refusal": "No."}}},
			map[string]any{"role": "user", "content": "c"},
		},
	}
	resp, body, err := openaiPost(t, url, req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
	}
	got := srv.Requests()[0].Messages
	if len(got) != 4 || got[1].Text() != "b" || got[2].Role != llm.RoleAssistant || got[2].Text() != "No." {
		t.Errorf("messages = %+v, want the empty answer left out and the refusal as text", got)
	}

	// null content without tool calls is what the real API rejects.
	req["messages"] = []any{
		map[string]any{"role": "user", "content": "a"},
		map[string]any{"role": "assistant", "content": nil},
		map[string]any{"role": "user", "content": "b"},
	}
	resp, body, _ = openaiPost(t, url, req)
	openaiErrorOf(t, resp, body, http.StatusBadRequest)
}
