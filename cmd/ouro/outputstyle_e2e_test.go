//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// sentSystem is the system prompt of a recorded Anthropic request (a string or blocks).
func sentSystem(t *testing.T, rec fakeserver.Recorded) string {
	t.Helper()
	var body struct {
		System json.RawMessage `json:"system"`
	}
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		t.Fatal(err)
	}
	var s string
	if json.Unmarshal(body.System, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(body.System, &blocks); err != nil {
		t.Fatalf("system %s: %v", body.System, err)
	}
	var sb strings.Builder
	for _, b := range blocks {
		sb.WriteString(b.Text)
	}
	return sb.String()
}

func writeUserSettings(t *testing.T, e *env, json string) {
	t.Helper()
	p := filepath.Join(e.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 30, item 5: a real output style (testdata/claude-corpus/cc-foundry, from
// xobotyi/cc-foundry) chosen by the user's outputStyle reaches the system prompt; the
// REPL's /output-style lists it with the built-ins and saves another for the next
// session, which then has it; the SDK's initialize names them.
func TestOutputStyleEndToEnd(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "cc-foundry")
	writeUserSettings(t, e, `{"outputStyle":"AI Engineer"}`)
	srv := e.fake(scripted.Turn{Text: "first"}, scripted.Turn{Text: "second"})
	out, stderr, code := e.run("", "-p", "hi", "--output-format", "stream-json", "--verbose")
	if code != 0 || stderr != "" || !strings.Contains(out, "first") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, stderr)
	}
	// stream-json's system/init line names the style, as Claude Code's does.
	if init := parseLines(t, out)[0]; init["subtype"] != "init" || init["output_style"] != "AI Engineer" {
		t.Errorf("init line %v", init)
	}
	sys := sentSystem(t, srv.Requests()[0])
	for _, want := range []string{"# Output style: AI Engineer\n# AI Engineer\n", "designing and building AI artifacts", "Work in small verified steps"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "keep-coding-instructions") {
		t.Errorf("the front matter reached the prompt:\n%s", sys)
	}

	out, stderr, code = e.run("/output-style\n/output-style learning\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"  default  ouro's own prompt", "  Explanatory  ", "  Learning  ", "* AI Engineer  Collaborative peer persona",
		filepath.Join(".claude", "output-styles", "ai-engineer.md"), "output style learning saved to", "this one keeps AI Engineer"} {
		if !strings.Contains(out, want) {
			t.Errorf("REPL output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(e.dir, ".ouro", "settings.local.json"))
	if err != nil || !strings.Contains(string(data), `"outputStyle": "Learning"`) {
		t.Fatalf("saved settings %s (%v)", data, err)
	}
	// The project's local file is more binding than the user's: the next session has Learning.
	// Saved on the person's word: the next session takes it without a tamper warning.
	out, stderr, code = e.run("", "-p", "again")
	if code != 0 || stderr != "" || !strings.Contains(out, "second") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, stderr)
	}
	reqs := srv.Requests()
	sys = sentSystem(t, reqs[len(reqs)-1])
	if !strings.Contains(sys, "# Output style: Learning\n") || !strings.Contains(sys, "TODO(human)") || strings.Contains(sys, "AI Engineer") {
		t.Errorf("the next session's system prompt:\n%s", sys)
	}

	s := startSDK(t, e, nil)
	resp := s.initialize(nil)["response"].(map[string]any)
	avail, _ := json.Marshal(resp["available_output_styles"])
	if resp["output_style"] != "Learning" || string(avail) != `["default","Explanatory","Learning","AI Engineer"]` {
		t.Errorf("initialize: output_style %v, available_output_styles %s", resp["output_style"], avail)
	}
	s.finish()
}

// Issue 30, item 6: what the settings say commits and pull requests carry is what the
// system prompt sent to the model says; attribution "" says to add none.
func TestAttributionEndToEnd(t *testing.T) {
	for _, c := range []struct{ settings, want string }{
		{`{"attribution":{"commit":"Co-Authored-By: Review Bot <bot@example.org>","pr":"Reviewed by the bot"}}`,
			"End each commit message you write with a blank line and then exactly:\nCo-Authored-By: Review Bot <bot@example.org>\nEnd each pull request description you write with a blank line and then exactly:\nReviewed by the bot"},
		{`{"attribution":{"commit":"","pr":""}}`, "Commit messages and pull request descriptions you write carry no trailer or footer naming you, ouro or the model"},
		{`{"includeCoAuthoredBy":false}`, "carry no trailer or footer naming you"},
	} {
		e := newEnv(t)
		writeUserSettings(t, e, c.settings)
		srv := e.fake(scripted.Turn{Text: "done"})
		if _, stderr, code := e.run("", "-p", "commit it"); code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", c.settings, code, stderr)
		}
		if sys := sentSystem(t, srv.Requests()[0]); !strings.Contains(sys, c.want) {
			t.Errorf("%s: the system prompt lacks %q:\n%s", c.settings, c.want, sys)
		}
	}
}
