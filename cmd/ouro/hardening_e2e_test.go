package main

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 12, item 10: one malformed tool call must not end a live run. The model's broken
// input is answered with an error and enters the history as {}, so the next request is
// accepted by the (fake) API and stream-json can still write the message.
func TestMalformedToolInputDoesNotEndTheRun(t *testing.T) {
	e := newEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Bash", PartialInput: `{"command": "echo hi`}}},
		scripted.Turn{ExpectContains: "is not valid JSON", Text: "the call was broken; giving up politely"},
	)
	out, stderr, code := e.run("", "-p", "run it", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	lines := parseLines(t, out)
	last := lines[len(lines)-1]
	if last["subtype"] != "success" || !strings.Contains(last["result"].(string), "giving up politely") {
		t.Fatalf("result line: %v", last)
	}
	if strings.Contains(stderr, "MarshalJSON") {
		t.Fatalf("stream-json could not write a message:\n%s", stderr)
	}
}
