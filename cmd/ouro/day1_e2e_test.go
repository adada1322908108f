//go:build unix

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

// /model NAME refuses a name no provider knows, naming the close ones and how to force
// it, and keeps the model; /model --force NAME takes it; /model alone lists the models
// of the providers configured and switches to the number typed.
func TestModelRefusesTyposAndPicks(t *testing.T) {
	e := newRewindEnv(t)
	srv := e.fake(scripted.Turn{Text: "on the forced one"}, scripted.Turn{Text: "on the picked one"})
	out, errOut, code := e.run("/model claude-sonet-4-5\n/status\n/model --force claude-nova-9\nhi\n/model\n2\nagain\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{`"claude-sonet-4-5"`, "did you mean claude-sonnet-4-5", "/model --force claude-sonet-4-5"} {
		if !strings.Contains(errOut, want) {
			t.Fatalf("no %q in the refusal:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "model       claude-sonnet-5-5") {
		t.Fatalf("the refused name changed the model:\n%s", out)
	}
	for _, want := range []string{"model: claude-nova-9 (the conversation goes on)", " 1. claude-nova-9 (current)", " 2. claude-opus-5-5",
		"openai:gpt-5", "model: claude-opus-5-5 (the conversation goes on)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	var models []string
	for _, r := range srv.Requests() {
		var body struct{ Model string }
		_ = json.Unmarshal(r.Body, &body)
		models = append(models, body.Model)
	}
	if strings.Join(models, ",") != "claude-nova-9,claude-opus-5-5" {
		t.Fatalf("requests went to %v", models)
	}
}

// In the terminal interface /model alone opens a picker: Down and Enter switch to the
// model marked, Esc leaves the model as it is.
func TestTUIModelPicker(t *testing.T) {
	e := newRewindEnv(t)
	srv := e.fake(scripted.Turn{Text: "picked model answers"})
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("/model")
	r.waitFor(m, "Switch to which model?")
	r.waitFor(m, "claude-sonnet-5-5 (current)")
	r.send("\x1b") // Esc
	r.waitFor(m, "model: claude-sonnet-5-5 (unchanged)")
	m = r.mark()
	r.typeLine("/model")
	r.waitFor(m, "Esc cancels")
	r.send("\x1b[B") // Down
	r.send("\r")
	r.waitFor(m, "model: claude-opus-5-5 (the conversation goes on)")
	m = r.mark()
	r.typeLine("hello")
	r.waitFor(m, "picked model answers")
	reqs := srv.Requests()
	var body struct{ Model string }
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil || body.Model != "claude-opus-5-5" {
		t.Fatalf("the request went to %q (%v)", body.Model, err)
	}
	r.exit()
}

// ouro doctor exits 1 when no key is set (a run could not start) and says what to set;
// with one it says where requests go and where the key comes from (the variable, the
// environment or a settings file's env), never the key itself.
func TestDoctorShowsBaseURLAndKeySource(t *testing.T) {
	e := newEnv(t)
	out, errOut, code := e.run("", "doctor")
	if code != 1 || !strings.Contains(out, "base URL  https://api.anthropic.com (the default)") || !strings.Contains(out, "key       none: set ANTHROPIC_API_KEY") ||
		!strings.Contains(out, "ouro demo") {
		t.Fatalf("no key: exit %d\n%s\n%s", code, out, errOut)
	}

	const key = "sk-ant-test-0123456789-wxyz"
	e.vars = append(e.vars, "ANTHROPIC_API_KEY="+key, "ANTHROPIC_BASE_URL=http://127.0.0.1:9/gateway")
	out, errOut, code = e.run("", "doctor")
	if code != 0 || !strings.Contains(out, "base URL  http://127.0.0.1:9/gateway (ANTHROPIC_BASE_URL (environment))") ||
		!strings.Contains(out, "key       ANTHROPIC_API_KEY (environment), …wxyz") {
		t.Fatalf("a key in the environment: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, key) || strings.Contains(out+errOut, "0123456789") {
		t.Fatalf("doctor showed the key:\n%s", out)
	}

	e2 := newEnv(t)
	user := filepath.Join(e2.home, ".claude", "settings.json")
	writeFile(t, user, `{"env": {"ANTHROPIC_AUTH_TOKEN": "token-from-the-settings-9876"}}`)
	out, errOut, code = e2.run("", "doctor")
	if code != 0 || !strings.Contains(out, "key       ANTHROPIC_AUTH_TOKEN (env in "+user+"), …9876, sent as a bearer token") {
		t.Fatalf("a token from the settings: exit %d\n%s\n%s", code, out, errOut)
	}

	e3 := newEnv(t)
	writeFile(t, filepath.Join(e3.home, ".claude", "settings.json"), `{"apiKeyHelper": "~/bin/get-key.sh"}`)
	out, _, code = e3.run("", "doctor")
	// The user's apiKeyHelper is the key's source (issue 30 item 8); doctor does not run it
	// and does not show the command.
	if code != 0 || !strings.Contains(out, "key       apiKeyHelper ("+filepath.Join(e3.home, ".claude", "settings.json")+")") || strings.Contains(out, "get-key.sh") {
		t.Fatalf("apiKeyHelper: exit %d\n%s", code, out)
	}
}

// /status says where requests go and where the key comes from, as doctor does, without
// the key.
func TestStatusShowsBaseURLAndKeySource(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(scripted.Turn{Text: "hi"})
	const key = "sk-ant-status-0123456789-q7r8"
	e.vars = append(e.vars, "ANTHROPIC_API_KEY="+key) // after the fake's test-key: the last one wins
	out, errOut, code := e.run("/status\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"provider    Anthropic", "base URL    http://127.0.0.1:", "(ANTHROPIC_BASE_URL (environment))", "key         ANTHROPIC_API_KEY (environment), …q7r8"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out+errOut, key) {
		t.Fatalf("/status showed the key:\n%s", out)
	}
}

// With no key set, an interactive start says so (what to set, and that ouro demo needs
// none) before it asks whether the folder is trusted, and asks nothing.
func TestNoKeyIsSaidBeforeTheTrustQuestion(t *testing.T) {
	e := newEnv(t)
	screen, code := ptyRun(t, e, nil)
	if code == 0 || strings.Contains(screen, "Do you trust") {
		t.Fatalf("exit %d; the screen shows:\n%s", code, screen)
	}
	for _, want := range []string{"no API key", "ANTHROPIC_API_KEY", "ouro demo"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("no %q on the screen:\n%s", want, screen)
		}
	}
	// The same for the terminal interface's flags, and a model no provider serves.
	screen, code = ptyRun(t, e, nil, "--model", "gpt-4o")
	if code == 0 || strings.Contains(screen, "Do you trust") || !strings.Contains(screen, "did you mean openai:gpt-4o?") {
		t.Fatalf("gpt-4o: exit %d; the screen shows:\n%s", code, screen)
	}
}
