package scripted_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// docExample is the script in the package documentation.
const docExample = `{"turns": [
  {"text": "Let me look.", "tool_calls": [{"name": "Bash", "input": {"command": "ls"}}]},
  {"fault": {"status": 529, "message": "Overloaded"}, "times": 2},
  {"expect_contains": "go.mod", "text": "Done."}
]}`

func TestParseDocExample(t *testing.T) {
	s, err := scripted.Parse([]byte(docExample))
	if err != nil {
		t.Fatal(err)
	}
	want := &scripted.Script{Turns: []scripted.Turn{
		{Text: "Let me look.", ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: json.RawMessage(`{"command": "ls"}`)}}},
		{Fault: &scripted.Fault{Status: 529, Message: "Overloaded"}, Times: 2},
		{ExpectContains: "go.mod", Text: "Done."},
	}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Parse =\n  %+v\nwant\n  %+v", s, want)
	}
}

func TestParseAllFields(t *testing.T) {
	s, err := scripted.Parse([]byte(`{"turns": [
	  {"thinking": "hmm", "text": "t", "stop_reason": "max_tokens", "usage": {"input_tokens": 5, "output_tokens": 7},
	   "tool_calls": [{"id": "call_x", "name": "Write", "partial_input": "{\"path\": \"a"}]},
	  {"fault": {"status": 429, "message": "slow", "retry_after": 1.5}},
	  {"fault": {"cut_stream": true}},
	  {"fault": {"prompt_too_long": true}, "times": 1},
	  {"stop_reason": "refusal"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	t0 := s.Turns[0]
	if t0.Thinking != "hmm" || t0.StopReason != llm.StopMaxTokens || t0.Usage == nil || *t0.Usage != (llm.Usage{InputTokens: 5, OutputTokens: 7}) {
		t.Errorf("turn 1 = %+v", t0)
	}
	if c := t0.ToolCalls[0]; c.ID != "call_x" || c.PartialInput != `{"path": "a` || c.Input != nil {
		t.Errorf("turn 1 call = %+v", c)
	}
	if f := s.Turns[1].Fault; *f != (scripted.Fault{Status: 429, Message: "slow", RetryAfter: 1.5}) {
		t.Errorf("turn 2 fault = %+v", f)
	}
	if !s.Turns[2].Fault.CutStream || !s.Turns[3].Fault.PromptTooLong {
		t.Errorf("turns 3 and 4 = %+v, %+v", s.Turns[2].Fault, s.Turns[3].Fault)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"not JSON", `turns: []`, "parse: "},
		{"empty document", ``, "parse: "},
		{"no turns field", `{}`, "the script has no turns"},
		{"empty turns", `{"turns": []}`, "the script has no turns"},
		{"unknown top-level field", `{"turns": [{"text": "hi"}], "model": "x"}`, `unknown field "model"`},
		{"unknown turn field", `{"turns": [{"txt": "hi"}]}`, `unknown field "txt"`},
		{"unknown tool call field", `{"turns": [{"tool_calls": [{"name": "Bash", "args": {}}]}]}`, `unknown field "args"`},
		{"unknown fault field", `{"turns": [{"fault": {"code": 500}}]}`, `unknown field "code"`},
		{"trailing data", `{"turns": [{"text": "hi"}]} {"turns": [{"text": "again"}]}`, "parse: "},
		{"trailing bracket", `{"turns": [{"text": "hi"}]}]`, "parse: "},
		{"bad tool input JSON", `{"turns": [{"tool_calls": [{"name": "Bash", "input": {"command": }}]}]}`, "parse: "},
		{"fault with text", `{"turns": [{"fault": {"status": 500}, "text": "hi"}]}`,
			"turn 1: a fault turn cannot also have text or tool calls"},
		{"fault with tool calls", `{"turns": [{"text": "a"}, {"fault": {"status": 500}, "tool_calls": [{"name": "Bash"}]}]}`,
			"turn 2: a fault turn cannot also have text or tool calls"},
		{"fault with thinking", `{"turns": [{"fault": {"status": 500}, "thinking": "hmm"}]}`,
			"turn 1: a fault turn cannot also have text or tool calls"},
		{"fault with nothing to do", `{"turns": [{"text": "a"}, {"fault": {"message": "x"}}]}`,
			"turn 2: fault needs status, cut_stream, bad_frame, stall or prompt_too_long"},
		{"unknown stop_reason", `{"turns": [{"text": "hi", "stop_reason": "done"}]}`,
			`turn 1: unknown stop_reason "done"`},
		{"empty turn", `{"turns": [{"text": "a"}, {}]}`,
			"turn 2: needs text, tool_calls, thinking, web_search or a fault"},
		{"empty turn with only a stop reason", `{"turns": [{"stop_reason": "end_turn"}]}`,
			"turn 1: needs text, tool_calls, thinking, web_search or a fault"},
		{"missing tool name", `{"turns": [{"tool_calls": [{"name": "Read"}, {"input": {}}]}]}`,
			"turn 1, tool call 2: name is required"},
		{"input and partial_input", `{"turns": [{"tool_calls": [{"name": "Bash", "input": {}, "partial_input": "{\"a"}]}]}`,
			"turn 1, tool call 1: input and partial_input are exclusive"},
		{"times on a text turn", `{"turns": [{"text": "hi", "times": 2}]}`,
			"turn 1: times only applies to fault turns"},
		{"times 1 on a text turn", `{"turns": [{"text": "a"}, {"text": "hi", "times": 1}]}`,
			"turn 2: times only applies to fault turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := scripted.Parse([]byte(tt.script))
			if err == nil {
				t.Fatalf("Parse = %+v, nil; want an error containing %q", s, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %q\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseAcceptsEveryStopReason(t *testing.T) {
	for _, r := range []string{"", llm.StopEndTurn, llm.StopToolUse, llm.StopMaxTokens, llm.StopSequence,
		llm.StopPauseTurn, llm.StopRefusal, llm.StopContextLimit} {
		s := &scripted.Script{Turns: []scripted.Turn{{Text: "x", StopReason: r}}}
		if err := s.Validate(); err != nil {
			t.Errorf("stop_reason %q: %v", r, err)
		}
	}
	// A refusal may come with no content at all.
	if err := (&scripted.Script{Turns: []scripted.Turn{{StopReason: llm.StopRefusal}}}).Validate(); err != nil {
		t.Errorf("an empty refusal turn: %v", err)
	}
	// Whitespace after the script is fine.
	if _, err := scripted.Parse([]byte("{\"turns\": [{\"text\": \"hi\"}]}\n\n")); err != nil {
		t.Errorf("trailing newline: %v", err)
	}
}

// Go-value scripts skip the JSON decoder, so Validate must catch what the decoder would.
func TestValidateGoValues(t *testing.T) {
	tests := []struct {
		name string
		s    scripted.Script
		want string
	}{
		{"no turns", scripted.Script{}, "the script has no turns"},
		{"bad input JSON", scripted.Script{Turns: []scripted.Turn{
			{Text: "a"},
			{ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: json.RawMessage(`{}`)}, {Name: "Bash", Input: json.RawMessage(`{"command": "ls`)}}},
		}}, "turn 2, tool call 2: input is not valid JSON"},
		{"times on a tool turn", scripted.Script{Turns: []scripted.Turn{{ToolCalls: []scripted.ToolCall{{Name: "Bash"}}, Times: 3}}},
			"turn 1: times only applies to fault turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()

	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(docExample), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scripted.Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 3 {
		t.Errorf("Load: %d turns, want 3", len(s.Turns))
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"turns": [{"text": "x", "stop_reason": "nope"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = scripted.Load(bad)
	if err == nil || !strings.Contains(err.Error(), "script "+bad+": ") || !strings.Contains(err.Error(), `unknown stop_reason "nope"`) {
		t.Errorf("Load(bad) = %v, want the path and the reason", err)
	}

	_, err = scripted.Load(filepath.Join(dir, "missing.json"))
	if err == nil || !strings.HasPrefix(err.Error(), "read script: ") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want a read error wrapping not-exist", err)
	}
}

func TestSteps(t *testing.T) {
	s := &scripted.Script{Turns: []scripted.Turn{
		{Text: "a"},
		{Fault: &scripted.Fault{Status: 529}, Times: 3},
		{Fault: &scripted.Fault{Status: 500}}, // times 0: once
		{Fault: &scripted.Fault{Status: 500}, Times: 1},
		{Text: "b"},
		{Fault: &scripted.Fault{CutStream: true}, Times: 2},
	}}
	if got, want := s.Steps(), []int{0, 1, 1, 1, 2, 3, 4, 5, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("Steps() = %v, want %v", got, want)
	}
}

func TestCallIDs(t *testing.T) {
	s := &scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "A"}, {Name: "B", ID: "mine"}, {Name: "C"}}},
		{Fault: &scripted.Fault{Status: 500}, Times: 2},
		{ToolCalls: []scripted.ToolCall{{Name: "D"}}},
	}}
	tests := []struct {
		i, j int
		want string
	}{
		{0, 0, "toolu_01_01"},
		{0, 1, "mine"},
		{0, 2, "toolu_01_03"},
		{2, 0, "toolu_03_01"}, // numbered by turn, not by request
	}
	for _, tt := range tests {
		if got := s.CallID(tt.i, tt.j); got != tt.want {
			t.Errorf("CallID(%d, %d) = %q, want %q", tt.i, tt.j, got, tt.want)
		}
	}
}

func TestStopReasonOf(t *testing.T) {
	calls := []scripted.ToolCall{{Name: "Bash"}}
	tests := []struct {
		name string
		turn scripted.Turn
		want string
	}{
		{"text only", scripted.Turn{Text: "hi"}, llm.StopEndTurn},
		{"thinking only", scripted.Turn{Thinking: "hm"}, llm.StopEndTurn},
		{"tool calls", scripted.Turn{Text: "hi", ToolCalls: calls}, llm.StopToolUse},
		{"explicit wins over text", scripted.Turn{Text: "hi", StopReason: llm.StopMaxTokens}, llm.StopMaxTokens},
		{"explicit wins over tool calls", scripted.Turn{ToolCalls: calls, StopReason: llm.StopMaxTokens}, llm.StopMaxTokens},
		{"refusal", scripted.Turn{StopReason: llm.StopRefusal}, llm.StopRefusal},
	}
	for _, tt := range tests {
		if got := tt.turn.StopReasonOf(); got != tt.want {
			t.Errorf("%s: StopReasonOf() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestMessage(t *testing.T) {
	s := &scripted.Script{Turns: []scripted.Turn{
		{Text: "only text"},
		{Thinking: "let me think", Text: "calling", ToolCalls: []scripted.ToolCall{
			{Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
			{Name: "Read"},
			{Name: "Write", ID: "w1", PartialInput: `{"path": "a.go", "content": "pack`},
		}},
	}}

	m := s.Message(0)
	if want := (llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("only text")}}); !reflect.DeepEqual(m, want) {
		t.Errorf("Message(0) = %+v, want %+v", m, want)
	}

	m = s.Message(1)
	if m.Role != llm.RoleAssistant || len(m.Content) != 5 {
		t.Fatalf("Message(1) = %+v, want thinking, text and three tool calls", m)
	}
	if b := m.Content[0]; b.Type != llm.BlockThinking || b.Thinking != "let me think" || b.Signature == "" {
		t.Errorf("block 0 = %+v, want signed thinking", b)
	}
	if b := m.Content[1]; b.Type != llm.BlockText || b.Text != "calling" {
		t.Errorf("block 1 = %+v, want the text", b)
	}
	wantCalls := []llm.Block{
		llm.ToolUseBlock("toolu_02_01", "Bash", json.RawMessage(`{"command":"ls"}`)),
		llm.ToolUseBlock("toolu_02_02", "Read", json.RawMessage(`{}`)),
		llm.ToolUseBlock("w1", "Write", json.RawMessage(`{"path": "a.go", "content": "pack`)),
	}
	if !reflect.DeepEqual(m.Content[2:], wantCalls) {
		t.Errorf("tool calls = %+v\nwant %+v", m.Content[2:], wantCalls)
	}
}

func TestCheckExpect(t *testing.T) {
	turn := scripted.Turn{Text: "ok", ExpectContains: "Go.Mod"}
	asst := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock("a", "Bash", json.RawMessage(`{}`))}}
	tests := []struct {
		name string
		turn scripted.Turn
		msgs []llm.Message
		want string // "" for no error, else a substring of the error
	}{
		{"no expectation, no messages", scripted.Turn{Text: "ok"}, nil, ""},
		{"no expectation", scripted.Turn{Text: "ok"}, []llm.Message{llm.UserText("anything")}, ""},
		{"no messages", turn, nil, `script expectation failed: expected the last message to contain "Go.Mod", but there are no messages`},
		{"in user text, case-insensitively", turn, []llm.Message{llm.UserText("see go.mod please")}, ""},
		{"in a tool result", turn, []llm.Message{llm.UserText("x"), asst,
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock("a", "README.md\ngo.mod\nmain.go", false)}}}, ""},
		{"in a later text block", turn, []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			llm.TextBlock("first"), llm.TextBlock("GO.MOD")}}}, ""},
		{"only in an earlier message", turn, []llm.Message{llm.UserText("go.mod"), {Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("hm")}}, llm.UserText("and now?")},
			`expected the last message to contain "Go.Mod"; it was: and now?`},
		{"only in the tool input", turn, []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.ToolUseBlock("a", "Read", json.RawMessage(`{"path":"go.mod"}`))}}},
			`expected the last message to contain "Go.Mod"`},
		{"split across blocks does not count", scripted.Turn{Text: "ok", ExpectContains: "go.mod"},
			[]llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("go."), llm.TextBlock("mod")}}},
			`expected the last message to contain "go.mod"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.turn.CheckExpect(tt.msgs)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckExpect = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Errorf("CheckExpect = nil, want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("CheckExpect = %q\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// The failure message quotes the last message, clipped, and stays valid UTF-8 when the
// clip falls inside a multi-byte character.
func TestCheckExpectClipsLongMessages(t *testing.T) {
	turn := scripted.Turn{Text: "ok", ExpectContains: "needle"}
	for _, long := range []string{
		strings.Repeat("x", 2000),
		strings.Repeat("é", 1000),
		"a" + strings.Repeat("é", 1000),
		"ab" + strings.Repeat("日本語", 300),
		"abc" + strings.Repeat("🎉", 300),
	} {
		err := turn.CheckExpect([]llm.Message{llm.UserText(long)})
		if err == nil {
			t.Fatal("CheckExpect found a needle that is not there")
		}
		msg := err.Error()
		if len(msg) > 600 {
			t.Errorf("the error is %d bytes long; the quoted message should be clipped", len(msg))
		}
		if !strings.HasSuffix(msg, "…") {
			t.Errorf("a clipped quote should end with an ellipsis: %q", tail(msg))
		}
		if !utf8.ValidString(msg) {
			t.Errorf("the error is not valid UTF-8: %q", tail(msg))
		}
	}
}

// tail is the end of s, for failure messages.
func tail(s string) string {
	if len(s) > 24 {
		return "..." + s[len(s)-24:]
	}
	return s
}

// A web_search entry needs a query, a known error code, and results with a url and a
// title; a fault turn cannot search.
func TestParseWebSearchErrors(t *testing.T) {
	for script, want := range map[string]string{
		`{"turns":[{"web_search":[{"results":[{"url":"https://go.dev","title":"Go"}]}]}]}`:                           "query is required",
		`{"turns":[{"web_search":[{"query":"go","error_code":"boom"}]}]}`:                                            `unknown error_code "boom"`,
		`{"turns":[{"web_search":[{"query":"go","results":[{"url":"https://go.dev"}]}]}]}`:                           "needs a url and a title",
		`{"turns":[{"web_search":[{"query":"go","error_code":"unavailable","results":[{"url":"u","title":"t"}]}]}]}`: "exclusive",
		`{"turns":[{"fault":{"status":500},"web_search":[{"query":"go"}]}]}`:                                         "a fault turn cannot",
	} {
		if _, err := scripted.Parse([]byte(script)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", script, err, want)
		}
	}
}
