//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 13, item 21: the flags scripts written for Claude Code pass.

// userLine is one --input-format stream-json line, as Claude Code's SDK writes it.
func userLine(content any) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": content}})
	return string(b) + "\n"
}

func TestStreamJSONInputRunsEachLineAsATurnOfOneSession(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ExpectContains: "first question", Text: "first answer"},
		scripted.Turn{ExpectContains: "second question", Text: "second answer"},
		scripted.Turn{ExpectContains: "third", Text: "third answer"},
	)
	in := userLine("first question") + "\n" + // a blank line is skipped
		userLine([]map[string]any{{"type": "text", "text": "second question"},
			{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}})
	out, stderr, code := e.run(in, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var results []map[string]any
	inits := 0
	for _, l := range parseLines(t, out) {
		switch l["type"] {
		case "system":
			if l["subtype"] == "init" {
				inits++
			}
		case "result":
			results = append(results, l)
		}
	}
	if inits != 1 || len(results) != 2 {
		t.Fatalf("%d init lines and %d results, want 1 and 2:\n%s", inits, len(results), out)
	}
	if results[0]["result"] != "first answer" || results[1]["result"] != "second answer" || results[0]["session_id"] != results[1]["session_id"] {
		t.Fatalf("results = %v", results)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	// The second turn carries the first (one session), and the image reached the model.
	second := reqs[1].Messages
	if len(second) != 3 || second[1].Text() != "first answer" {
		t.Fatalf("second request's history = %+v", second)
	}
	var image bool
	for _, b := range second[2].Content {
		image = image || (b.Type == llm.BlockImage && b.Source != nil && b.Source.MediaType == "image/png")
	}
	if !image {
		t.Fatalf("the image block did not reach the model: %+v", second[2].Content)
	}
	// The session is recorded like any other: --continue picks it up.
	out, stderr, code = e.run("", "--continue", "-p", "third")
	if code != 0 || !strings.Contains(out, "third answer") {
		t.Fatalf("continue: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := srv.Requests()[2].Messages; len(got) != 5 {
		t.Fatalf("the continued session has %d messages, want 5", len(got))
	}
}

func TestStreamJSONInputBadLinesNameTheLine(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"not json", "fix the tests\n", "line 2 is not a JSON object"},
		{"other type", `{"type":"assistant","message":{"role":"assistant","content":"x"}}` + "\n", `line 2: type "assistant" is not supported`},
		{"no type", `{"message":{"role":"user","content":"x"}}` + "\n", `line 2: no "type"`},
		{"no message", `{"type":"user"}` + "\n", `line 2: a user line needs "message"`},
		{"assistant role", `{"type":"user","message":{"role":"assistant","content":"x"}}` + "\n", `line 2: message role "assistant"`},
		{"number content", `{"type":"user","message":{"role":"user","content":42}}` + "\n", "line 2: content must be a string or a list"},
		{"empty content", userLine("  "), "line 2: the message's content is empty"},
		{"tool_result block", userLine([]map[string]any{{"type": "tool_result", "tool_use_id": "x"}}), `line 2: content block 1: type "tool_result" is not supported`},
		{"image without data", userLine([]map[string]any{{"type": "image", "source": map[string]any{"type": "url"}}}), "line 2: content block 1: an image needs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			srv := e.fake(scripted.Turn{Text: "done"})
			out, stderr, code := e.run(userLine("first")+tc.line+userLine("never sent"),
				"-p", "--input-format", "stream-json", "--output-format", "stream-json")
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
			// The turn before the bad line ran and reported; nothing after it was sent.
			if n := len(srv.Requests()); n != 1 || !strings.Contains(out, `"result":"done"`) {
				t.Fatalf("%d requests, output:\n%s", n, out)
			}
		})
	}
}

func TestStreamJSONInputHostileInput(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(scripted.Turn{Text: "done"})
	// No line at all, then a line longer than the cap: clear errors, no model call.
	_, stderr, code := e.run("\n\n", "-p", "--input-format", "stream-json", "--output-format", "stream-json")
	if code != 1 || !strings.Contains(stderr, "no user message on standard input") {
		t.Fatalf("empty input: exit %d, %s", code, stderr)
	}
	huge := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("a", maxInputLine) + `"}}` + "\n"
	_, stderr, code = e.run(huge, "-p", "--input-format", "stream-json", "--output-format", "stream-json")
	if code != 1 || !strings.Contains(stderr, "line 1 is longer than 16 MB") {
		t.Fatalf("huge line: exit %d, %s", code, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model requests for input that had no prompt", n)
	}
}

func TestFormatFlagsAreValidatedAsClaudeCodeDoes(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(scripted.Turn{Text: "done"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "--input-format", "stream-json", "--output-format", "json"}, "--input-format stream-json requires --output-format stream-json"},
		{[]string{"-p", "--input-format", "stream-json"}, "--input-format stream-json requires --output-format stream-json"},
		{[]string{"--input-format", "stream-json", "--output-format", "json"}, "only applies with -p"},
		{[]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "hello"}, "pass none on the command line"},
		{[]string{"-p", "hi", "--input-format", "xml"}, `unknown input format "xml"`},
		{[]string{"-p", "hi", "--include-partial-messages"}, "--include-partial-messages requires -p (--print) and --output-format stream-json"},
		{[]string{"-p", "hi", "--include-partial-messages", "--output-format", "json"}, "--include-partial-messages requires"},
		{[]string{"--include-partial-messages", "--output-format", "stream-json"}, "--include-partial-messages requires"},
		// Flags ouro does not implement are errors that name them, never ignored (only the
		// Agent SDK's own flags are accepted with a warning; see sdk_e2e_test.go).
		{[]string{"-p", "hi", "--replay-user-messages"}, "unknown flag: --replay-user-messages"},
		{[]string{"-p", "hi", "--permission-promt-tool", "stdio"}, "unknown flag: --permission-promt-tool"},
		{[]string{"--json-schemas", "{}", "-p", "hi"}, "unknown flag: --json-schemas"},
		{[]string{"--json-schema", `{"type":"object"}`, "hi"}, "--json-schema shapes the result of a headless run: use it with -p"},
		{[]string{"-p", "hi", "--fork-session"}, "--fork-session forks the session being resumed"},
		{[]string{"-p", "hi", "--permission-prompt-tool", "stdio"}, "--permission-prompt-tool stdio asks the Agent SDK over standard input"},
	} {
		out, stderr, code := e.run("", tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q\n%s", tc.args, code, stderr, tc.want, out)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model requests from refused command lines", n)
	}
}

func TestIncludePartialMessagesStreamsTheAnswer(t *testing.T) {
	e := newEnv(t)
	text := "The module is example.com/demo, as go.mod says."
	e.fake(
		scripted.Turn{Thinking: "I should read go.mod first to be sure.", Text: "Reading go.mod.", ToolCalls: bash("cat go.mod")},
		scripted.Turn{Text: text},
	)
	out, stderr, code := e.run("", "-p", "which module?", "--output-format", "stream-json", "--verbose", "--include-partial-messages")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	lines := parseLines(t, out)
	var seq []string
	var streamed strings.Builder
	starts := 0
	sid := lines[0]["session_id"]
	for _, l := range lines {
		if l["type"] != "stream_event" {
			seq = append(seq, l["type"].(string))
			continue
		}
		if l["session_id"] != sid || l["uuid"] == "" || l["parent_tool_use_id"] != nil {
			t.Fatalf("stream_event envelope = %v", l)
		}
		ev := l["event"].(map[string]any)
		name := ev["type"].(string)
		switch name {
		case "message_start":
			starts++
		case "content_block_start":
			name += ":" + ev["content_block"].(map[string]any)["type"].(string)
		case "content_block_delta":
			d := ev["delta"].(map[string]any)
			name += ":" + d["type"].(string)
			if d["type"] == "text_delta" && starts == 2 { // the second answer's text
				streamed.WriteString(d["text"].(string))
			}
		}
		if n := len(seq); n > 0 && seq[n-1] == name && strings.HasSuffix(name, "_delta") {
			continue // many deltas in a row count once
		}
		seq = append(seq, name)
	}
	want := "system,message_start,content_block_start:thinking,content_block_delta:thinking_delta,content_block_stop," +
		"content_block_start:text,content_block_delta:text_delta,content_block_stop," +
		"content_block_start:tool_use,content_block_delta:input_json_delta,content_block_stop,message_delta,message_stop,assistant,user," +
		"message_start,content_block_start:text,content_block_delta:text_delta,content_block_stop,message_delta,message_stop,assistant,result"
	if got := strings.Join(seq, ","); got != want {
		t.Fatalf("event sequence\n got %s\nwant %s", got, want)
	}
	if streamed.String() != text {
		t.Fatalf("the text deltas add up to %q, want %q", streamed.String(), text)
	}
	// Without the flag, no stream_event line.
	e.fake(scripted.Turn{Text: "plain"})
	out, _, _ = e.run("", "-p", "hi", "--output-format", "stream-json")
	if strings.Contains(out, "stream_event") {
		t.Fatalf("stream_event without --include-partial-messages:\n%s", out)
	}
}

func TestKebabToolFlagsAsClaudeCodeSpellsThem(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "done"})
	out, stderr, code := e.run("", "-p", "hi", "--output-format", "stream-json", "--disallowed-tools", "Bash,Write", "--allowed-tools", "Read")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	tools, _ := json.Marshal(parseLines(t, out)[0]["tools"])
	if strings.Contains(string(tools), `"Bash"`) || strings.Contains(string(tools), `"Write"`) || !strings.Contains(string(tools), `"Read"`) {
		t.Fatalf("--disallowed-tools Bash,Write left tools %s", tools)
	}
}

// startStreaming starts `ouro -p --input-format stream-json` with a pipe for stdin, and
// returns a reader of its output lines.
func startStreaming(t *testing.T, e *env) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	c := e.cmd("-p", "--input-format", "stream-json", "--output-format", "stream-json")
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	return c, in, sc
}

// waitResult reads output lines up to the next result line and returns it.
func waitResult(t *testing.T, sc *bufio.Scanner) map[string]any {
	t.Helper()
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["type"] == "result" {
			return m
		}
	}
	t.Fatalf("the output ended without a result line: %v", sc.Err())
	return nil
}

// A program drives ouro a turn at a time: each result arrives before the next prompt is
// sent. Killed (-9) while it waits for the next line, the turns it answered are in the
// session, which --continue picks up.
func TestStreamJSONInputIsReadAsItArrivesAndSurvivesKill(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ExpectContains: "remember 7431", Text: "noted 7431"},
		scripted.Turn{ExpectContains: "and 1992", Text: "noted 1992"},
		scripted.Turn{ExpectContains: "which numbers", Text: "7431 and 1992"},
	)
	c, in, sc := startStreaming(t, e)
	io.WriteString(in, userLine("remember 7431"))
	if r := waitResult(t, sc); r["result"] != "noted 7431" {
		t.Fatalf("first result = %v", r)
	}
	io.WriteString(in, userLine("and 1992"))
	if r := waitResult(t, sc); r["result"] != "noted 1992" {
		t.Fatalf("second result = %v", r)
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	out, stderr, code := e.run("", "--continue", "-p", "which numbers?")
	if code != 0 || out != "7431 and 1992\n" {
		t.Fatalf("continue after kill: exit %d %q\n%s", code, out, stderr)
	}
	if n := len(srv.Requests()[2].Messages); n != 5 {
		t.Errorf("the continued session has %d messages, want 5", n)
	}
}

// An interrupt while ouro waits for the next input line ends it at once (130), without
// waiting for input that may never come.
func TestStreamJSONInputInterruptWhileWaiting(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "first"})
	c, in, sc := startStreaming(t, e)
	io.WriteString(in, userLine("go"))
	if r := waitResult(t, sc); r["result"] != "first" {
		t.Fatalf("result = %v", r)
	}
	if err := c.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("exit: %v, want status 130", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ouro kept waiting for input after the interrupt")
	}
}
