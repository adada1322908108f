package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 25, "day one with a real key".

// /model keeps what the user decided in the session: the mode chosen with Shift-Tab
// (acceptEdits stays acceptEdits) and the "yes, for this session" answers (the same
// command is not asked about again), on the new model.
func TestTUIModelSwitchKeepsModeAndSessionRules(t *testing.T) {
	e := newRewindEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "hello.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("chmod 600 hello.txt")},
		scripted.Turn{Text: "first done"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead("hello.txt")}},
		scripted.Turn{ToolCalls: append(bash("chmod 600 hello.txt"), rwEdit("hello.txt", "one", "two"))},
		scripted.Turn{Text: "second done"},
	)
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	r.send("\x1b[Z") // Shift-Tab: default → acceptEdits
	m := r.mark()
	r.typeLine("/status")
	r.waitFor(m, "mode        acceptEdits")
	m = r.mark()
	r.typeLine("lock the file")
	r.waitFor(m, "Bash wants to:")
	r.waitFor(m, "2. Yes, for this session")
	r.send("2")
	r.waitFor(m, "first done")
	m = r.mark()
	r.typeLine("/model claude-haiku-4-5")
	r.waitFor(m, "model: claude-haiku-4-5")
	m = r.mark()
	r.typeLine("/status")
	r.waitFor(m, "mode        acceptEdits")
	m = r.mark()
	r.typeLine("edit it")
	r.waitFor(m, "second done")
	if s := r.text()[m:]; strings.Contains(s, "wants to:") {
		t.Fatalf("after /model ouro asked again:\n%s", s)
	}
	if got := e.readFile("hello.txt"); got != "two\n" {
		t.Fatalf("hello.txt = %q", got)
	}
	reqs := srv.Requests()
	var body struct{ Model string }
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil || body.Model != "claude-haiku-4-5" {
		t.Fatalf("the last request went to %q (%v)", body.Model, err)
	}
	r.exit()
}
