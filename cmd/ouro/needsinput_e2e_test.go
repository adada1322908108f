//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A -p run whose final answer asks the person something ends needs_input, exit 3, with
// the question in the result, as an AskUserQuestion call does (issue 30, item 18); the
// answer continues the session. An offer of more after finished work ends completed, and
// so does a question in a streaming session, whose caller can simply answer.
func TestFinalQuestionEndsNeedsInputThroughBinary(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "Before I start: should the cache be per user or global?"},
		scripted.Turn{ExpectContains: "global", ToolCalls: bash("echo cached > cache.txt")},
		scripted.Turn{Text: "Added a global cache.\n\nWould you like me to add an eviction policy too?"},
	)
	out, stderr, code := e.run("", "-p", "add a cache", "--output-format", "json")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res["status"] != "needs_input" || res["subtype"] != "error_during_execution" || res["question"] != "Before I start: should the cache be per user or global?" {
		t.Fatalf("result = %v", res)
	}
	out, stderr, code = e.run("", "--continue", "-p", "global", "--allowedTools", "Bash(echo *)")
	if code != 0 || !strings.Contains(out, "Would you like me to add an eviction policy too?") {
		t.Fatalf("the answer's run: exit %d\n%s\n%s", code, out, stderr)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d steps left", srv.Remaining())
	}

	// Streaming input: the caller answers in its next message; the turn is a success.
	e2 := newEnv(t)
	e2.fake(scripted.Turn{Text: "Which file do you mean?"})
	in := `{"type":"user","message":{"role":"user","content":"fix the file"},"parent_tool_use_id":null}` + "\n"
	out, stderr, code = e2.run(in, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	if code != 0 || !strings.Contains(out, `"subtype":"success"`) {
		t.Fatalf("streaming: exit %d\n%s\n%s", code, out, stderr)
	}
}
