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

// Another provider's model without its prefix (gpt-4o, o3, llama3), from --model, the
// settings or OURO_MODEL, is refused with the name it was meant as before any request is
// made, instead of a 404 from the Anthropic API.
func TestNonClaudeModelWithoutPrefixIsHinted(t *testing.T) {
	for _, c := range []struct {
		name, model string
		args        []string
		settings    string
		vars        []string
	}{
		{name: "flag", model: "gpt-4o", args: []string{"--model", "gpt-4o"}},
		{name: "settings", model: "o3", settings: `{"model": "o3"}`},
		{name: "env", model: "llama3", vars: []string{"OURO_MODEL=llama3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.vars = append(append(e.vars, "ANTHROPIC_API_KEY=test-key", "HTTPS_PROXY=http://127.0.0.1:9"), c.vars...)
			if c.settings != "" {
				writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), c.settings)
			}
			out, errOut, code := e.run("", append([]string{"-p", "hi"}, c.args...)...)
			if code == 0 || !strings.Contains(errOut, "did you mean openai:"+c.model+"?") || !strings.Contains(errOut, "PROVIDER:NAME") {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if strings.Contains(errOut, "404") || strings.Contains(errOut, "proxy") {
				t.Fatalf("a request was tried:\n%s", errOut)
			}
		})
	}
}
