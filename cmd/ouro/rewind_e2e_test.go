//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

func rwWrite(path, content string) scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
	return scripted.ToolCall{Name: "Write", Input: in}
}

func rwEdit(path, old, new string) scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"file_path": path, "old_string": old, "new_string": new})
	return scripted.ToolCall{Name: "Edit", Input: in}
}

func rwRead(path string) scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"file_path": path})
	return scripted.ToolCall{Name: "Read", Input: in}
}

func (e *env) readFile(rel string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// newRewindEnv is newEnv without the memory extraction an interactive session makes when
// it ends, which would take the scripted model's turns.
func newRewindEnv(t *testing.T) *env {
	e := newEnv(t)
	e.settings(".ouro/settings.json", `{"memory": {"extractOnExit": false}}`)
	return e
}

var sessionLine = regexp.MustCompile(`session ([0-9a-f-]{36})`)

// Two prompts edit and create files; /rewind to before the first restores the edited
// file, deletes the created one and empties the conversation, and a resumed session
// continues from the rewound state with the list of prompts kept on disk.
func TestRewindRestoresCodeAndConversation(t *testing.T) {
	e := newRewindEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "hello.txt"), []byte("v1\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead("hello.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwEdit("hello.txt", "v1", "v2")}},
		scripted.Turn{Text: "edited"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("notes/new.md", "new\n")}},
		scripted.Turn{Text: "written"},
		scripted.Turn{Text: "fresh start"},
	)
	out, errOut, code := e.run("change hello\nadd notes\n/rewind 1 both\nafter the rewind\n/exit\n", "--permission-mode", "acceptEdits")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{`1. "change hello" — changed hello.txt`, `2. "add notes" — changed notes/new.md (new)`,
		"changes made by Bash or outside ouro are not", "deleted", "restored", "Conversation rewound"} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in:\n%s\n%s", want, out, errOut)
		}
	}
	if got := e.readFile("hello.txt"); got != "v1\n" {
		t.Fatalf("hello.txt = %q after the rewind", got)
	}
	if info, _ := os.Stat(filepath.Join(e.dir, "hello.txt")); info.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v not restored", info.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(e.dir, "notes/new.md")); !os.IsNotExist(err) {
		t.Fatalf("the created file survived the rewind: %v", err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) != 1 || !strings.Contains(llm.RenderMessages(last.Messages, 0), "after the rewind") {
		t.Fatalf("the prompt after the rewind was sent with the old conversation: %s", llm.RenderMessages(last.Messages, 0))
	}

	// Resume: the transcript gives the rewound conversation and the prompts since.
	id := sessionLine.FindStringSubmatch(out)[1]
	out, errOut, code = e.run("/rewind\n\n/exit\n", "--resume", id)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "resumed: 2 messages") || !strings.Contains(out, `1. "after the rewind"`) || strings.Contains(out, "change hello") {
		t.Fatalf("the resumed session does not hold the rewound state:\n%s\n%s", out, errOut)
	}
}

// A file changed after ouro wrote it (here by Bash, which is not tracked) is not silently
// clobbered: the rewind says why and asks; "n" restores nothing, "y" does.
func TestRewindAsksBeforeOverwritingAnOutsideChange(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: append([]scripted.ToolCall{rwWrite("f.txt", "ouro\n")}, bash("echo mine >> f.txt")...)},
		scripted.Turn{Text: "done"},
	)
	out, errOut, _ := e.run("write f\n/rewind 1 code\nmaybe\nn\n", "--permission-mode", "bypassPermissions")
	if !strings.Contains(out, "after ouro last wrote it") || !strings.Contains(out, "Nothing was restored") {
		t.Fatalf("no conflict shown:\n%s\n%s", out, errOut)
	}
	if got := e.readFile("f.txt"); got != "ouro\nmine\n" {
		t.Fatalf("f.txt = %q: the outside change was lost", got)
	}
	if strings.Count(out, "Overwrite the 1 file(s)") != 2 {
		t.Fatalf("an unrecognised answer was not asked again:\n%s", out)
	}
	// Resumed, answering y: the file goes (it did not exist before the prompt).
	id := sessionLine.FindStringSubmatch(out)[1]
	out, errOut, _ = e.run("/rewind 1 code\ny\n/exit\n", "--resume", id)
	if _, err := os.Stat(filepath.Join(e.dir, "f.txt")); !os.IsNotExist(err) {
		t.Fatalf("f.txt not deleted after yes:\n%s\n%s", out, errOut)
	}
}

// A symbolic link swapped in for a file ouro wrote, or for its folder, is never written
// through: the rewind refuses and nothing outside the project changes.
func TestRewindRefusesASwappedInSymlink(t *testing.T) {
	e := newRewindEnv(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("a.txt", "a\n"), rwWrite("d/b.txt", "b\n")}},
		scripted.Turn{Text: "done"},
	)
	out, _, _ := e.run("write\n/exit\n", "--permission-mode", "acceptEdits")
	id := sessionLine.FindStringSubmatch(out)[1]
	// Swapped in after the session: a.txt now points at the secret, d at the outside folder.
	for _, err := range []error{os.Remove(filepath.Join(e.dir, "a.txt")), os.Symlink(secret, filepath.Join(e.dir, "a.txt")),
		os.RemoveAll(filepath.Join(e.dir, "d")), os.Symlink(outside, filepath.Join(e.dir, "d"))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "b.txt"), []byte("b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := e.run("/rewind 1 code\n/exit\n", "--resume", id)
	if !strings.Contains(out, "symbolic link") || !strings.Contains(errOut, "nothing was restored") {
		t.Fatalf("no refusal:\n%s\n%s", out, errOut)
	}
	if data, _ := os.ReadFile(secret); string(data) != "keep\n" {
		t.Fatalf("the secret was written through the link: %q", data)
	}
	if _, err := os.Stat(filepath.Join(outside, "b.txt")); err != nil {
		t.Fatalf("a file outside the project was deleted through the swapped folder: %v", err)
	}
}

// Two sessions change the same file: the first one's rewind sees the second's change
// and does not clobber it unasked.
func TestRewindAcrossTwoSessions(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("shared.txt", "A\n")}},
		scripted.Turn{Text: "A wrote"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead("shared.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("shared.txt", "B\n")}},
		scripted.Turn{Text: "B wrote"},
	)
	outA, _, _ := e.run("session A\n/exit\n", "--permission-mode", "acceptEdits")
	idA := sessionLine.FindStringSubmatch(outA)[1]
	if out, errOut, code := e.run("session B\n/exit\n", "--permission-mode", "acceptEdits"); code != 0 {
		t.Fatalf("session B: %s\n%s", out, errOut)
	}
	out, errOut, _ := e.run("/rewind 1 code\nn\n/exit\n", "--resume", idA)
	if !strings.Contains(out, "another session") || !strings.Contains(out, "Nothing was restored") {
		t.Fatalf("session A's rewind did not notice B's change:\n%s\n%s", out, errOut)
	}
	if got := e.readFile("shared.txt"); got != "B\n" {
		t.Fatalf("shared.txt = %q", got)
	}
}

// Arrow keys and other escape sequences typed at the plain prompt never reach the model;
// a line of nothing but escapes is no prompt at all.
func TestLineModeStripsEscapeSequences(t *testing.T) {
	e := newRewindEnv(t)
	srv := e.fake(scripted.Turn{Text: "hello"})
	out, errOut, code := e.run("\x1b[A\n\x1b[A\x1b[B\x1bOC\n\x1b[1;5Dhi\x1b[D there\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; the escape-only lines were sent as prompts", len(reqs))
	}
	if got := llm.RenderMessages(reqs[0].Messages, 0); strings.Contains(got, "\x1b") || strings.Contains(got, "[A") || !strings.Contains(got, "hi there") {
		t.Fatalf("the prompt sent was %q", got)
	}
}

// An approval answer that is not one of the choices asks again; "n: reason" refuses and
// tells the model why.
func TestApprovalReasksAndTakesNoWithAReason(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("x.txt", "x\n")}},
		scripted.Turn{ExpectContains: "not that file", Text: "understood"},
	)
	out, errOut, code := e.run("write x\nsure thing\n\x1b[A\nn: not that file\n/exit\n")
	if code != 0 || !strings.Contains(out, "understood") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Count(out, "is not an answer") != 2 {
		t.Fatalf("the unrecognised answers were not asked again:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "x.txt")); !os.IsNotExist(err) {
		t.Fatal("the refused write happened")
	}
}

// After /compact the conversation before it cannot be rewound (its messages were
// summarised away), and the list says so; its code still can be.
func TestRewindAfterCompactionIsCodeOnly(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwWrite("a.txt", "a\n")}},
		scripted.Turn{Text: "written"},
		scripted.Turn{Text: "The user asked for a.txt; it was written."},
	)
	out, errOut, code := e.run("write a\n/compact\n/rewind 1 both\n/rewind 1 conversation\n/rewind 1 code\n/exit\n", "--permission-mode", "acceptEdits")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "compacted:") || !strings.Contains(out, "[conversation compacted since: code only]") ||
		strings.Count(errOut, "compacted since that prompt") != 2 {
		t.Fatalf("the rewind did not refuse the conversation:\n%s\n%s", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("the code was not restored:\n%s\n%s", out, errOut)
	}
}
