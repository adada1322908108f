package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

func mustParse(t *testing.T, script string) *scripted.Script {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func complete(t *testing.T, p *scripted.Provider, msgs []llm.Message) *llm.Response {
	t.Helper()
	resp, err := p.Complete(context.Background(), &llm.Request{Model: "scripted-1", Messages: msgs}, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return resp
}

// llmError asserts err is an *llm.Error of the kind and status given.
func llmError(t *testing.T, err error, kind string, status int) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want an *llm.Error", err, err)
	}
	if e.Kind != kind || e.Status != status {
		t.Fatalf("error = %v (kind %q, status %d), want kind %q, status %d", e, e.Kind, e.Status, kind, status)
	}
	return e
}

func TestNewPanicsOnInvalidScript(t *testing.T) {
	defer func() {
		p := recover()
		if p == nil {
			t.Fatal("New accepted a script with no turns")
		}
		if s := fmt.Sprint(p); !strings.HasPrefix(s, "scripted: ") || !strings.Contains(s, "no turns") {
			t.Errorf("panic = %q", s)
		}
	}()
	scripted.New(&scripted.Script{})
}

func TestProviderPlaysTurnsInOrder(t *testing.T) {
	p := scripted.New(mustParse(t, `{"turns": [
	  {"text": "Let me look.", "tool_calls": [{"name": "Bash", "input": {"command": "ls"}}, {"name": "Read", "input": {"path": "go.mod"}}]},
	  {"expect_contains": "module ouro", "thinking": "found it", "text": "It is ouro."},
	  {"text": "Bye.", "usage": {"input_tokens": 11, "output_tokens": 3}}
	]}`))
	if p.Name() != "scripted" {
		t.Errorf("Name() = %q", p.Name())
	}
	if p.Remaining() != 3 {
		t.Errorf("Remaining() = %d before any request, want 3", p.Remaining())
	}

	msgs := []llm.Message{llm.UserText("what is this repo?")}
	r1 := complete(t, p, msgs)
	if r1.ID != "msg_scripted_001" || r1.Model != "scripted-1" || r1.StopReason != llm.StopToolUse {
		t.Errorf("response 1 = id %q model %q stop %q", r1.ID, r1.Model, r1.StopReason)
	}
	uses := r1.Message.ToolUses()
	if r1.Message.Role != llm.RoleAssistant || r1.Message.Text() != "Let me look." || len(uses) != 2 ||
		uses[0].ID != "toolu_01_01" || uses[0].Name != "Bash" || string(uses[0].Input) != `{"command": "ls"}` ||
		uses[1].ID != "toolu_01_02" || uses[1].Name != "Read" {
		t.Errorf("response 1 message = %+v", r1.Message)
	}
	if r1.Usage.InputTokens <= 0 || r1.Usage.OutputTokens <= 0 {
		t.Errorf("response 1 usage = %+v, want an estimate", r1.Usage)
	}
	if p.Remaining() != 2 {
		t.Errorf("Remaining() = %d after one request, want 2", p.Remaining())
	}

	msgs = append(msgs, r1.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.ToolResultBlock("toolu_01_01", "go.mod\nmain.go", false),
		llm.ToolResultBlock("toolu_01_02", "module ouro\n", false),
	}})
	r2 := complete(t, p, msgs)
	if r2.ID != "msg_scripted_002" || r2.StopReason != llm.StopEndTurn || r2.Message.Text() != "It is ouro." {
		t.Errorf("response 2 = %+v", r2)
	}
	if b := r2.Message.Content[0]; b.Type != llm.BlockThinking || b.Thinking != "found it" {
		t.Errorf("response 2 first block = %+v, want the thinking", b)
	}

	msgs = append(msgs, r2.Message, llm.UserText("thanks"))
	r3 := complete(t, p, msgs)
	if r3.Message.Text() != "Bye." || r3.Usage != (llm.Usage{InputTokens: 11, OutputTokens: 3}) {
		t.Errorf("response 3 = %+v, want the scripted text and usage", r3)
	}
	if p.Remaining() != 0 {
		t.Errorf("Remaining() = %d at the end, want 0", p.Remaining())
	}
}

func TestProviderStreamsDeltas(t *testing.T) {
	long := "Streaming answers arrive in pieces: ünïcödé, 日本語 and emoji 🎉🎉 must never be split mid-character."
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{Thinking: "pondering", Text: long, ToolCalls: []scripted.ToolCall{{Name: "Bash"}}},
	}})
	var deltas []llm.Delta
	resp, err := p.Complete(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("go")}},
		func(d llm.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) < 3 {
		t.Fatalf("got %d deltas, want the thinking and the text in several pieces", len(deltas))
	}
	if deltas[0] != (llm.Delta{Kind: "thinking", Text: "pondering"}) {
		t.Errorf("first delta = %+v, want the thinking", deltas[0])
	}
	var text strings.Builder
	for _, d := range deltas[1:] {
		if d.Kind != "text" {
			t.Errorf("delta %+v: want only text after the thinking", d)
		}
		if d.Text == "" || !utf8.ValidString(d.Text) {
			t.Errorf("delta %q is empty or splits a character", d.Text)
		}
		text.WriteString(d.Text)
	}
	if text.String() != long || resp.Message.Text() != long {
		t.Errorf("text deltas concatenate to %q, message text %q; want %q", text.String(), resp.Message.Text(), long)
	}
}

func TestProviderWithoutStreamFunc(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Thinking: "x", Text: "hello"}}})
	if r := complete(t, p, []llm.Message{llm.UserText("hi")}); r.Message.Text() != "hello" {
		t.Errorf("text = %q", r.Message.Text())
	}
}

func TestProviderFaults(t *testing.T) {
	tests := []struct {
		fault   string
		kind    string
		status  int
		message string
	}{
		{`{"status": 529, "message": "Overloaded"}`, llm.ErrKindOverloaded, 529, "Overloaded"},
		{`{"status": 429, "message": "Too many", "retry_after": 2}`, llm.ErrKindRateLimit, 429, "Too many"},
		{`{"status": 500}`, llm.ErrKindServer, 500, "scripted fault 500"},
		{`{"status": 503, "message": "unavailable"}`, llm.ErrKindServer, 503, "unavailable"},
		{`{"status": 401, "message": "bad key"}`, llm.ErrKindAuth, 401, "bad key"},
		{`{"status": 403}`, llm.ErrKindAuth, 403, "scripted fault 403"},
		{`{"status": 400, "message": "nope"}`, llm.ErrKindInvalid, 400, "nope"},
		{`{"cut_stream": true}`, llm.ErrKindConnection, 0, "stream cut"},
		{`{"prompt_too_long": true}`, llm.ErrKindPromptTooLong, 400, "prompt is too long"},
		{`{"status": 500, "prompt_too_long": true}`, llm.ErrKindPromptTooLong, 400, "prompt is too long"},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			p := scripted.New(mustParse(t, `{"turns": [{"fault": `+tt.fault+`}, {"text": "recovered"}]}`))
			var streamed []llm.Delta
			resp, err := p.Complete(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}},
				func(d llm.Delta) { streamed = append(streamed, d) })
			if resp != nil {
				t.Errorf("a fault returned a response too: %+v", resp)
			}
			e := llmError(t, err, tt.kind, tt.status)
			if !strings.Contains(e.Message, tt.message) {
				t.Errorf("message = %q, want it to contain %q", e.Message, tt.message)
			}
			if len(streamed) != 0 {
				t.Errorf("a fault streamed %+v", streamed)
			}
			// The next request gets the next turn.
			if r := complete(t, p, []llm.Message{llm.UserText("hi")}); r.Message.Text() != "recovered" {
				t.Errorf("after the fault: %q", r.Message.Text())
			}
		})
	}
}

func TestFaultErrorRetryable(t *testing.T) {
	for _, tt := range []struct {
		f    scripted.Fault
		want bool
	}{
		{scripted.Fault{Status: 529}, true},
		{scripted.Fault{Status: 429}, true},
		{scripted.Fault{Status: 502}, true},
		{scripted.Fault{CutStream: true}, true},
		{scripted.Fault{Status: 400}, false},
		{scripted.Fault{PromptTooLong: true}, false},
	} {
		var e *llm.Error
		if err := scripted.FaultError(&tt.f); !errors.As(err, &e) || e.Retryable() != tt.want {
			t.Errorf("FaultError(%+v) = %v, want retryable=%v", tt.f, err, tt.want)
		}
	}
}

func TestProviderRepeatsFaults(t *testing.T) {
	p := scripted.New(mustParse(t, `{"turns": [{"fault": {"status": 529}, "times": 3}, {"text": "finally"}]}`))
	if p.Remaining() != 4 {
		t.Errorf("Remaining() = %d, want 4 (three faults and a text)", p.Remaining())
	}
	msgs := []llm.Message{llm.UserText("hi")}
	for i := range 3 {
		_, err := p.Complete(context.Background(), &llm.Request{Messages: msgs}, nil)
		if !llm.IsKind(err, llm.ErrKindOverloaded) {
			t.Fatalf("request %d: %v, want overloaded", i+1, err)
		}
	}
	if r := complete(t, p, msgs); r.Message.Text() != "finally" || r.ID != "msg_scripted_004" {
		t.Errorf("request 4 = %q (%s)", r.Message.Text(), r.ID)
	}
}

func TestProviderScriptExhausted(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "only"}}})
	msgs := []llm.Message{llm.UserText("hi")}
	complete(t, p, msgs)
	for range 2 {
		resp, err := p.Complete(context.Background(), &llm.Request{Messages: msgs}, nil)
		if resp != nil {
			t.Errorf("response past the end: %+v", resp)
		}
		e := llmError(t, err, llm.ErrKindInvalid, 400)
		if !strings.Contains(e.Message, "no turn left") || !strings.Contains(e.Message, "1 steps") {
			t.Errorf("message = %q", e.Message)
		}
		if e.Retryable() {
			t.Errorf("an exhausted script must not be retried")
		}
	}
	if n := len(p.Requests()); n != 3 {
		t.Errorf("Requests() has %d entries, want 3: requests past the end are recorded too", n)
	}
	if p.Remaining() != 0 {
		t.Errorf("Remaining() = %d", p.Remaining())
	}
}

func TestProviderRefusesProtocolViolations(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "a"}, {Text: "b"}}})
	bad := []llm.Message{
		llm.UserText("hi"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock("t1", "Bash", json.RawMessage(`{}`))}},
		llm.UserText("I forgot to answer the call"),
	}
	resp, err := p.Complete(context.Background(), &llm.Request{Messages: bad}, nil)
	if resp != nil {
		t.Errorf("a broken conversation got a response: %+v", resp)
	}
	e := llmError(t, err, llm.ErrKindInvalid, 400)
	if !strings.Contains(e.Message, "tool_use ids were found without tool_result blocks immediately after: t1") {
		t.Errorf("message = %q, want the protocol rule broken", e.Message)
	}

	_, err = p.Complete(context.Background(), &llm.Request{}, nil)
	if e := llmError(t, err, llm.ErrKindInvalid, 400); !strings.Contains(e.Message, "at least one message") {
		t.Errorf("empty request: %q", e.Message)
	}
}

func TestProviderExpectationFailure(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "a"}, {Text: "b", ExpectContains: "PASS"}}})
	complete(t, p, []llm.Message{llm.UserText("hi")})
	_, err := p.Complete(context.Background(), &llm.Request{Messages: []llm.Message{
		llm.UserText("hi"), {Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("a")}}, llm.UserText("FAIL: 3 tests"),
	}}, nil)
	e := llmError(t, err, llm.ErrKindInvalid, 400)
	if !strings.HasPrefix(e.Message, "turn 2: script expectation failed") || !strings.Contains(e.Message, "FAIL: 3 tests") {
		t.Errorf("message = %q", e.Message)
	}
}

func TestProviderCancelledContext(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "a"}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	resp, err := p.Complete(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}, func(llm.Delta) { called = true })
	if resp != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Complete on a cancelled ctx = %v, %v; want context.Canceled", resp, err)
	}
	if called {
		t.Errorf("a cancelled request streamed")
	}
	if p.Remaining() != 1 {
		t.Errorf("a cancelled request used up a turn: Remaining() = %d", p.Remaining())
	}
	if r := complete(t, p, []llm.Message{llm.UserText("hi")}); r.Message.Text() != "a" {
		t.Errorf("after the cancelled request: %q", r.Message.Text())
	}
}

func TestProviderRecordsRequests(t *testing.T) {
	p := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "a"}, {Text: "b"}}})
	tools := []llm.ToolSpec{{Name: "Bash", Description: "run", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	req := &llm.Request{Model: "m1", System: "be brief", MaxTokens: 100, Tools: tools,
		Messages: []llm.Message{llm.UserText("first")}}
	r1, err := p.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The caller reuses its request and slices: the record must not change with them.
	req.Messages[0] = llm.UserText("overwritten")
	req.Tools[0].Name = "Changed"
	req.Messages = append(req.Messages, r1.Message, llm.UserText("second"))
	req.Model = "m2"
	if _, err := p.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}

	got := p.Requests()
	if len(got) != 2 {
		t.Fatalf("Requests() = %d entries, want 2", len(got))
	}
	if got[0].Model != "m1" || got[0].System != "be brief" || got[0].MaxTokens != 100 ||
		len(got[0].Messages) != 1 || got[0].Messages[0].Text() != "first" ||
		len(got[0].Tools) != 1 || got[0].Tools[0].Name != "Bash" {
		t.Errorf("request 1 = %+v", got[0])
	}
	if got[1].Model != "m2" || len(got[1].Messages) != 3 || got[1].Messages[2].Text() != "second" {
		t.Errorf("request 2 = %+v", got[1])
	}

	// Requests returns a copy.
	got[0].Model = "tampered"
	if p.Requests()[0].Model != "m1" {
		t.Errorf("changing the result of Requests() changed the record")
	}
}

func TestProviderConcurrentUse(t *testing.T) {
	const n = 32
	s := &scripted.Script{}
	for i := range n {
		s.Turns = append(s.Turns, scripted.Turn{Text: fmt.Sprintf("answer %d", i+1)})
	}
	p := scripted.New(s)

	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[string]bool{}
	texts := map[string]bool{}
	for range n {
		wg.Go(func() {
			var streamed strings.Builder
			resp, err := p.Complete(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}},
				func(d llm.Delta) { streamed.WriteString(d.Text) })
			if err != nil {
				t.Error(err)
				return
			}
			if streamed.String() != resp.Message.Text() {
				t.Errorf("streamed %q, answered %q", streamed.String(), resp.Message.Text())
			}
			_ = p.Requests()
			_ = p.Remaining()
			mu.Lock()
			ids[resp.ID] = true
			texts[resp.Message.Text()] = true
			mu.Unlock()
		})
	}
	wg.Wait()

	if len(ids) != n || len(texts) != n {
		t.Errorf("%d distinct ids and %d distinct answers for %d requests; each step must be played once", len(ids), len(texts), n)
	}
	for i := range n {
		if !ids[fmt.Sprintf("msg_scripted_%03d", i+1)] || !texts[fmt.Sprintf("answer %d", i+1)] {
			t.Errorf("step %d was not played", i+1)
		}
	}
	if len(p.Requests()) != n || p.Remaining() != 0 {
		t.Errorf("Requests() = %d, Remaining() = %d", len(p.Requests()), p.Remaining())
	}
	if _, err := p.Complete(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}, nil); err == nil {
		t.Errorf("a request past the end succeeded")
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want []string
	}{
		{"", 4, nil},
		{"abc", 4, []string{"abc"}},
		{"abcd", 4, []string{"abcd"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"日本語", 1, []string{"日", "本", "語"}},
		{"日本語", 3, []string{"日", "本", "語"}},
		{"日本語", 4, []string{"日本", "語"}}, // a chunk grows to the end of the character it cut
		{"aé", 2, []string{"aé"}},
		{"🎉x", 1, []string{"🎉", "x"}},
		{"abc", 1, []string{"a", "b", "c"}},
		// n below one is taken as one rather than looping forever.
		{"ab", 0, []string{"a", "b"}},
		{"ab", -5, []string{"a", "b"}},
	}
	for _, tt := range tests {
		if got := scripted.Chunks(tt.s, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Chunks(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestChunksMultiByteProperties(t *testing.T) {
	texts := []string{
		"plain ascii text that goes on for a while",
		"héllo wörld, ça va? naïve café",
		"日本語のテキストを分割します",
		"mixed: a🎉b日c é 👩‍👩‍👧 end",
		strings.Repeat("€", 50),
	}
	for _, s := range texts {
		for n := 1; n <= 20; n++ {
			chunks := scripted.Chunks(s, n)
			if strings.Join(chunks, "") != s {
				t.Fatalf("Chunks(%q, %d) does not join back: %q", s, n, chunks)
			}
			for i, c := range chunks {
				if c == "" || !utf8.ValidString(c) {
					t.Fatalf("Chunks(%q, %d)[%d] = %q: empty or split inside a character", s, n, i, c)
				}
				// About n bytes: at least n unless last, at most n plus the rest of one character.
				if len(c) > n+utf8.UTFMax-1 || (i < len(chunks)-1 && len(c) < n) {
					t.Fatalf("Chunks(%q, %d)[%d] = %q is %d bytes", s, n, i, c, len(c))
				}
			}
		}
	}
}

func TestEstimateUsage(t *testing.T) {
	msg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("short answer")}}
	small := scripted.EstimateUsage(&llm.Request{Messages: []llm.Message{llm.UserText("hi")}}, msg)
	big := scripted.EstimateUsage(&llm.Request{System: strings.Repeat("s", 4000), Messages: []llm.Message{llm.UserText(strings.Repeat("x", 4000))},
		Tools: []llm.ToolSpec{{Name: "Bash", InputSchema: json.RawMessage(`{}`)}}}, msg)
	if small.InputTokens <= 0 || small.OutputTokens <= 0 {
		t.Errorf("small estimate = %+v, want positive counts", small)
	}
	if big.InputTokens < 2000 || big.InputTokens > 2500 {
		t.Errorf("8000+ bytes of input estimated at %d tokens, want about a quarter", big.InputTokens)
	}
	if big.OutputTokens != small.OutputTokens {
		t.Errorf("the same answer was estimated at %d and %d output tokens", small.OutputTokens, big.OutputTokens)
	}
	if small.CacheCreationInputTokens != 0 || small.CacheReadInputTokens != 0 {
		t.Errorf("estimate claims cache use: %+v", small)
	}
}
