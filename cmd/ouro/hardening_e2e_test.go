package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
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

// Issue 12, item 11: two processes continuing one session must not interleave in its
// transcript. The second `ouro -c` forks a new session, says so, and the first session
// keeps its real tool results when resumed later.
func TestTwoProcessesContinuingOneSession(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "first done"},
		scripted.Turn{ToolCalls: bash("sleep 4; echo slow-done")},
		scripted.Turn{ExpectContains: "other", Text: "other done"},
		scripted.Turn{ExpectContains: "slow-done", Text: "long done"},
		scripted.Turn{ExpectContains: "check", Text: "checked"},
	)
	if out, errOut, code := e.run("", "-p", "first"); code != 0 {
		t.Fatalf("first run: exit %d %s %s", code, out, errOut)
	}
	sessions, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions: %v", sessions)
	}
	first := strings.TrimSuffix(filepath.Base(sessions[0]), ".jsonl")

	long := e.cmd("-c", "-p", "long", "--allowedTools", "Bash")
	var longErr bytes.Buffer
	long.Stderr = &longErr
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !transcriptHas(sessions[0], "sleep 4") {
		if time.Now().After(deadline) {
			long.Process.Kill()
			t.Fatalf("the long run never started its command\n%s", longErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, errOut, code := e.run("", "-c", "-p", "other")
	if code != 0 || out != "other done\n" || !strings.Contains(errOut, "session "+first+" is in use by another ouro process; continuing in a new session") {
		long.Process.Kill()
		t.Fatalf("second writer: exit %d, out %q\n%s", code, out, errOut)
	}
	if err := long.Wait(); err != nil {
		t.Fatalf("long run: %v\n%s", err, longErr.String())
	}
	if transcriptHas(sessions[0], "other") {
		t.Fatal("the second process wrote into the first session's transcript")
	}
	if out, errOut, code := e.run("", "--resume", first, "-p", "check"); code != 0 || out != "checked\n" {
		t.Fatalf("resume: exit %d, out %q\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if err := llm.ValidateConversation(msgs); err != nil {
		t.Fatal(err)
	}
	var real bool
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult && strings.Contains(b.ResultText(), "slow-done") && !b.IsError {
				real = true
			}
		}
	}
	if !real {
		t.Fatalf("the resumed session lost its real tool result: %s", llm.RenderMessages(msgs, 0))
	}
	forks, _ := filepath.Glob(filepath.Join(filepath.Dir(sessions[0]), "*.jsonl"))
	if len(forks) != 2 {
		t.Fatalf("want the original and one fork, got %v", forks)
	}
}
