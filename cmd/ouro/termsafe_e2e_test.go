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

// hostile is text that, printed raw, writes the clipboard (OSC 52), retitles the window,
// clears the screen and moves the cursor.
const hostile = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[H\u009b31m"

// rawControl reports the first raw control character (but newline and tab) in s.
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return r, true
		}
	}
	return 0, false
}

func noRawControl(t *testing.T, where, s string) {
	t.Helper()
	if r, ok := rawControl(s); ok {
		t.Fatalf("%s holds a raw control character %U: %q", where, r, s)
	}
}

// The model's answer and a tool's output that carry escape sequences reach neither the
// terminal (headless text, the line REPL) nor the model raw: both see them escaped.
func TestControlSequencesAreShownEscaped(t *testing.T) {
	e := newEnv(t)
	// The tool prints the sequences and a NUL; the model's answer carries them too.
	printf := `printf '\033]52;c;aGk=\007 nul\000 \033[2J done'`
	srv := e.fake(scripted.Turn{Text: "Running.", ToolCalls: bash(printf)},
		scripted.Turn{ExpectContains: "done", Text: "answer " + hostile + " end"})
	out, stderr, code := e.run("", "-p", "go", "--allowedTools", "Bash")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	noRawControl(t, "headless stdout", out)
	noRawControl(t, "headless stderr", stderr)
	if !strings.Contains(out, `answer \x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[H\u009b31m end`) {
		t.Fatalf("the answer is not shown escaped: %q", out)
	}
	// The model read the tool's output with its controls escaped: in the request's JSON,
	// a backslash escape, never \u001b or \u0000.
	body := string(srv.Requests()[1].Body)
	if !strings.Contains(body, `\\x1b]52;c;aGk=\\x07 nul\\x00 \\x1b[2J done`) || strings.Contains(body, `\u001b`) || strings.Contains(body, `\u0000`) {
		t.Fatalf("the tool result reached the model with raw controls: %s", body)
	}

	// The line REPL shows the same answer and tool output escaped.
	e.fake(scripted.Turn{Text: "Running.", ToolCalls: bash(printf)},
		scripted.Turn{Text: "answer " + hostile + " end"})
	out, stderr, code = e.run("go\n/exit\n", "--allowedTools", "Bash")
	if code != 0 {
		t.Fatalf("REPL: exit %d\n%s\n%s", code, out, stderr)
	}
	noRawControl(t, "REPL stdout", out)
	noRawControl(t, "REPL stderr", stderr)
	if !strings.Contains(out, `\x1b]0;pwned\x07`) {
		t.Fatalf("the REPL did not show the answer escaped: %q", out)
	}
}

// A workflow's log() lines and its agents' answers are shown escaped by `ouro workflow run`
// and `ouro workflow show`.
func TestWorkflowViewsShowControlsEscaped(t *testing.T) {
	e := newEnv(t)
	script := "export const meta = {name: 'esc', description: 'escapes'};\n" +
		"phase('P \\x1b]0;title\\x07');\nlog('log \\x1b]52;c;aGk=\\x07 \\x1b[2J');\n" +
		"const a = await agent('say it', {label: 'l \\x1b[H'});\nreturn a;"
	if err := os.WriteFile(filepath.Join(e.dir, "esc.js"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fake(scripted.Turn{Text: "agent " + hostile})
	out, stderr, code := e.run("", "workflow", "run", "esc.js")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	noRawControl(t, "workflow run stdout", out)
	noRawControl(t, "workflow run stderr", stderr)
	if !strings.Contains(stderr, `log \x1b]52;c;aGk=\x07 \x1b[2J`) {
		t.Fatalf("the log line is not shown escaped: %q", stderr)
	}
	id := wfRunID.FindStringSubmatch(stderr)
	if id == nil {
		t.Fatalf("no run id: %s", stderr)
	}
	show, stderr, code := e.run("", "workflow", "show", id[1])
	if code != 0 {
		t.Fatalf("show: exit %d %s", code, stderr)
	}
	noRawControl(t, "workflow show", show)
	if !strings.Contains(show, `P \x1b]0;title\x07`) || !strings.Contains(show, `l \x1b[H`) || !strings.Contains(show, "pwned") {
		t.Fatalf("show does not hold the answer escaped: %q", show)
	}
	var v string
	if err := json.Unmarshal([]byte(out), &v); err != nil || !strings.Contains(v, "\x1b]52") {
		t.Fatalf("the result (JSON) lost its value: %v %q", err, out)
	}
}
