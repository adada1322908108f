//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/ouroagent/ouro/llm/scripted"
)

// tuiPTY is ouro running in a pseudo-terminal, as a person would use it. What it
// writes goes to a terminal emulator too, so a test can see the screen as a person
// would, not only the stream of text.
type tuiPTY struct {
	t    *testing.T
	f    *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	term *vt.Emulator
	done chan struct{}
}

func (e *env) startPTY(args ...string) *tuiPTY {
	e.t.Helper()
	return e.startPTYSize(80, 24, args...) // the smallest screen it must work in
}

func (e *env) startPTYSize(cols, rows int, args ...string) *tuiPTY {
	e.t.Helper()
	c := e.cmd(args...)
	c.Env = append(c.Env, "TERM=xterm-256color")
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		e.t.Fatal(err)
	}
	r := &tuiPTY{t: e.t, f: f, cmd: c, term: vt.NewEmulator(cols, rows), done: make(chan struct{})}
	go func() { _, _ = io.Copy(io.Discard, r.term) }() // the emulator's answers to queries: not sent
	go func() {
		defer close(r.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			_, _ = r.term.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	e.t.Cleanup(func() {
		_ = c.Process.Kill()
		_ = c.Wait()
		f.Close()
	})
	r.waitFor(0, "Do you trust the files in this folder?") // asked once per folder, before the screen
	r.send("1\r")
	return r
}

// text is everything shown so far, without escape sequences.
func (r *tuiPTY) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ansi.Strip(r.out.String())
}

func (r *tuiPTY) mark() int { return len(r.text()) }

// screen is what the terminal shows now, a string per row, without trailing spaces.
func (r *tuiPTY) screen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	rows := make([]string, r.term.Height())
	for y := range rows {
		var b strings.Builder
		for x := 0; x < r.term.Width(); x++ {
			c := r.term.CellAt(x, y)
			switch {
			case c == nil:
				b.WriteByte(' ')
			case c.Width == 0: // the rest of a wide character
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

// waitScreen waits until ok accepts the screen; what is the condition, for the failure.
func (r *tuiPTY) waitScreen(what string, ok func(rows []string) bool) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ok(r.screen()) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.t.Fatalf("the screen never showed %s; it shows:\n%s", what, strings.Join(r.screen(), "\n"))
}

// cleanFrame reports whether the screen ends with the whole live area: a rule, the input
// line, a rule and the footer, and nothing of the input or footer drawn anywhere else.
func cleanFrame(rows []string) bool {
	end := len(rows)
	for end > 0 && rows[end-1] == "" {
		end--
	}
	if end < 4 {
		return false
	}
	rule := func(s string) bool { return s != "" && strings.Trim(s, "─") == "" }
	foot, below, in, above := rows[end-1], rows[end-2], rows[end-3], rows[end-4]
	if !strings.Contains(foot, "shift+tab") || !rule(below) || !rule(above) || !strings.HasPrefix(in, "› ") {
		return false
	}
	for _, l := range rows[:end-4] {
		if strings.Contains(l, "shift+tab") || strings.HasPrefix(l, "› Ask ouro") {
			return false // an old frame left on the screen
		}
	}
	return true
}

// waitFor waits until want shows up after the mark.
func (r *tuiPTY) waitFor(from int, want string) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if s := r.text(); len(s) >= from && strings.Contains(s[from:], want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.t.Fatalf("%q never showed up; the screen showed:\n%s", want, r.text()[min(from, len(r.text())):])
}

func (r *tuiPTY) send(s string) {
	r.t.Helper()
	if _, err := r.f.Write([]byte(s)); err != nil {
		r.t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // keys arrive one read apart, as typed
}

func (r *tuiPTY) typeLine(s string) {
	r.send(s)
	r.send("\r")
}

func (r *tuiPTY) exit() {
	r.t.Helper()
	r.send("\x03")
	r.send("\x03")
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.t.Fatalf("ouro did not exit after Ctrl-C twice:\n%s", r.text())
	}
}

// A prompt in the terminal interface: the answer shows rendered (no Markdown markers
// left), and the up arrow brings the prompt back instead of sending an escape code.
func TestTUIPromptStreamsAndUpRecallsHistory(t *testing.T) {
	e := newRewindEnv(t)
	srv := e.fake(
		scripted.Turn{Text: "Here is **bold** news.\n\n```go\nfunc main() {}\n```\n\nDone."},
		scripted.Turn{Text: "second answer"},
	)
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("say something")
	r.waitFor(m, "Here is bold news.")
	r.waitFor(m, "func main() {}")
	r.waitFor(m, "Done.")
	if strings.Contains(r.text()[m:], "**bold**") {
		t.Fatalf("the Markdown was not rendered:\n%s", r.text()[m:])
	}
	m = r.mark()
	r.send("\x1b[A") // up
	r.waitFor(m, "say something")
	r.send("\r")
	r.waitFor(m, "second answer")
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content[0].Text; got != "say something" {
		t.Fatalf("the recalled prompt reached the model as %q", got)
	}
	r.exit()
}

// A permission dialog answered "no" with a reason: the reason reaches the model, and a
// key that is not an answer answers nothing.
func TestTUIPermissionNoWithReason(t *testing.T) {
	e := newRewindEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("touch made-by-bash")},
		scripted.Turn{ExpectContains: "use make instead", Text: "understood"},
	)
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("make the file")
	r.waitFor(m, "Bash wants to:")
	r.waitFor(m, "4. No, and tell the model why")
	r.waitFor(m, "settings.local.json") // "always" names the file it saves to
	r.send("x")
	r.waitFor(m, `"x" is not an answer`)
	r.send("4")
	r.waitFor(m, "Reason for the model")
	r.send("use make instead")
	r.send("\r")
	r.waitFor(m, "understood")
	if _, err := os.Stat(filepath.Join(e.dir, "made-by-bash")); err == nil {
		t.Fatal("the refused command ran")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests", n)
	}
	r.exit()
}

// An edit shows its diff: the removed and the added line, numbered as the file's lines,
// with the lines around them.
func TestTUIEditShowsDiff(t *testing.T) {
	e := newRewindEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "hello.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead("hello.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwEdit("hello.txt", "two", "TWO")}},
		scripted.Turn{Text: "edited"},
	)
	r := e.startPTY("--permission-mode", "acceptEdits")
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("change it")
	r.waitFor(m, "edited")
	s := r.text()[m:]
	for _, want := range []string{"Edit(", "1   one", "2 - two", "2 + TWO", "3   three"} {
		if !strings.Contains(s, want) {
			t.Fatalf("no %q in:\n%s", want, s)
		}
	}
	r.exit()
}

// Esc interrupts the turn: a long command stops and the session goes on.
func TestTUIEscInterrupts(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("sleep 30")},
		scripted.Turn{Text: "after the interrupt"},
	)
	r := e.startPTY("--permission-mode", "bypassPermissions")
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("wait a while")
	r.waitFor(m, "esc to interrupt")
	start := time.Now()
	r.send("\x1b")
	r.waitFor(m, "turn interrupted")
	if time.Since(start) > 10*time.Second {
		t.Fatal("the interrupt took too long")
	}
	m = r.mark()
	r.typeLine("go on")
	r.waitFor(m, "after the interrupt")
	r.exit()
}

// /rewind from the terminal interface restores the file an edit changed.
func TestTUIRewindRestoresFile(t *testing.T) {
	e := newRewindEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "hello.txt"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead("hello.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwEdit("hello.txt", "v1", "v2")}},
		scripted.Turn{Text: "edited"},
	)
	r := e.startPTY("--permission-mode", "acceptEdits")
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("change hello")
	r.waitFor(m, "edited")
	if got := e.readFile("hello.txt"); got != "v2\n" {
		t.Fatalf("hello.txt = %q before the rewind", got)
	}
	m = r.mark()
	r.send("\x1b")
	r.send("\x1b") // Esc Esc opens /rewind
	r.waitFor(m, "Rewind to before which prompt?")
	r.typeLine("1")
	r.waitFor(m, "both to before it?")
	r.typeLine("c")
	r.waitFor(m, "Code restored")
	if got := e.readFile("hello.txt"); got != "v1\n" {
		t.Fatalf("hello.txt = %q after the rewind", got)
	}
	r.exit()
}

// !cmd runs through the permission gate (here asked, and allowed once) and its output
// goes to the model with the next prompt; # saves a memory; NO_COLOR keeps colours off.
func TestTUIShellNoteAndNoColor(t *testing.T) {
	e := newRewindEnv(t)
	e.vars = append(e.vars, "NO_COLOR=1")
	srv := e.fake(scripted.Turn{ExpectContains: "bang-output-42", Text: "I see it"})
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("!touch shell-made && echo bang-output-$((40+2))")
	r.waitFor(m, "Bash wants to:")
	r.send("1")
	r.waitFor(m, "with your next prompt")
	if _, err := os.Stat(filepath.Join(e.dir, "shell-made")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	r.typeLine("what did it print?")
	r.waitFor(m, "I see it")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	m = r.mark()
	r.typeLine("# the tests need make gen first")
	r.waitFor(m, "remembered in")
	mems, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "memory", "note-*.md"))
	if len(mems) != 1 {
		t.Fatalf("memory files %v", mems)
	}
	if data, _ := os.ReadFile(mems[0]); !strings.Contains(string(data), "the tests need make gen first") {
		t.Fatalf("memory = %q", data)
	}
	r.mu.Lock()
	raw := r.out.String()
	r.mu.Unlock()
	if strings.Contains(raw, "\x1b[38;5;") || strings.Contains(raw, "\x1b[38;2;") {
		t.Fatal("NO_COLOR is set, yet colours were sent")
	}
	r.exit()
}

// The model's question (AskUserQuestion) is a picker: Down and Enter choose; the answer
// reaches the model.
func TestTUIAnswersAQuestion(t *testing.T) {
	e := newRewindEnv(t)
	ask, _ := json.Marshal(map[string]any{"questions": []map[string]any{{
		"question": "Which database?", "header": "DB", "multiSelect": false,
		"options": []map[string]string{{"label": "Postgres", "description": "server"}, {"label": "SQLite", "description": "file"}},
	}}})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "AskUserQuestion", Input: ask}}},
		scripted.Turn{ExpectContains: "SQLite", Text: "SQLite it is"},
	)
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("set up storage")
	r.waitFor(m, "Which database?")
	r.waitFor(m, "3. Type something else")
	m = r.mark()
	r.send("\x1b[B") // down
	r.waitFor(m, "❯ 2. SQLite")
	r.send("\r")
	r.waitFor(m, "SQLite it is")
	r.exit()
}

// A prompt given on the command line runs at once and shows as if typed.
func TestTUIFirstPromptFromArgs(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(scripted.Turn{ExpectContains: "from the command line", Text: "got it"})
	r := e.startPTY("from the command line")
	r.waitFor(0, "› from the command line")
	r.waitFor(0, "got it")
	r.exit()
}

// The permission dialog is answered with the arrow keys and Enter: Down then Enter
// allows the command for the session; Up (round to "No") then Enter refuses the next.
func TestTUIPermissionArrowsAndEnter(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("touch first.txt")},
		scripted.Turn{Text: "made the first"},
		scripted.Turn{ToolCalls: bash("rm first.txt")},
		scripted.Turn{ExpectContains: "the user said no", Text: "left it"},
	)
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("make the first file")
	r.waitFor(m, "Bash wants to:")
	r.waitFor(m, "4. No, and tell the model why")
	m = r.mark()
	r.send("\x1b[B") // down
	r.waitFor(m, "❯ 2. Yes, for this session")
	time.Sleep(500 * time.Millisecond) // an Enter just as the dialog opens does not choose
	r.send("\r")
	r.waitFor(m, "allowed for this session")
	r.waitFor(m, "made the first")
	if _, err := os.Stat(filepath.Join(e.dir, "first.txt")); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	m = r.mark()
	r.typeLine("remove it")
	r.waitFor(m, "Bash wants to:")
	r.waitFor(m, "4. No, and tell the model why")
	m = r.mark()
	r.send("\x1b[A") // up, round to the last choice
	r.waitFor(m, "❯ 4. No")
	time.Sleep(500 * time.Millisecond)
	r.send("\r")
	r.waitFor(m, "Reason for the model")
	r.send("\r")
	r.waitFor(m, "left it")
	if _, err := os.Stat(filepath.Join(e.dir, "first.txt")); err != nil {
		t.Fatalf("the refused command ran: %v", err)
	}
	r.exit()
}

// A command whose output is taller than the screen (/doctor, /help) leaves a clean frame
// under it, at 80x24 and at 120x40; Ctrl-L clears the screen and draws it again whole,
// whatever else wrote to the terminal.
func TestTUITallOutputAndCtrlLKeepTheFrame(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		e := newRewindEnv(t)
		e.fake(scripted.Turn{Text: "unused"})
		r := e.startPTYSize(size[0], size[1])
		r.waitFor(0, "shift+tab")
		for _, c := range []struct{ cmd, last string }{{"/doctor", "A run would start"}, {"/help", "Ctrl-D works too"}} {
			m := r.mark()
			r.typeLine(c.cmd)
			r.waitFor(m, c.last)
			r.waitScreen(fmt.Sprintf("a clean frame under %s at %dx%d", c.cmd, size[0], size[1]), cleanFrame)
		}
		// Something else writes over the screen; Ctrl-L repairs it.
		r.mu.Lock()
		_, _ = r.term.WriteString("\x1b[3;1Hstray output\x1b[1;1H")
		r.mu.Unlock()
		r.send("\x0c")
		r.waitScreen("the screen redrawn by Ctrl-L", func(rows []string) bool {
			return cleanFrame(rows) && !strings.Contains(strings.Join(rows, "\n"), "stray output")
		})
		r.exit()
	}
}

// /rewind from Esc Esc: the prompt sent with a !command's output is listed as typed
// ("! cmd", no tags), Enter alone cancels, and the next line typed is an ordinary prompt.
func TestTUIRewindListsShellPromptsAndEnterCancels(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ExpectContains: "shell-said-7", Text: "it said seven"},
		scripted.Turn{ExpectContains: "go on normally", Text: "an ordinary answer"},
	)
	r := e.startPTY("--permission-mode", "bypassPermissions")
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("!echo shell-said-$((3+4))")
	r.waitFor(m, "with your next prompt")
	r.typeLine("what did it say?")
	r.waitFor(m, "it said seven")
	m = r.mark()
	r.send("\x1b")
	r.send("\x1b")
	r.waitFor(m, "Rewind to before which prompt?")
	r.waitFor(m, `"! echo shell-said-$((3+4)) · what did it say?"`)
	if s := r.text()[m:]; strings.Contains(s, "bash-input") || strings.Contains(s, "bash-stdout") {
		t.Fatalf("the list shows the tags:\n%s", s)
	}
	r.send("\r") // Enter cancels
	m = r.mark()
	r.typeLine("go on normally")
	r.waitFor(m, "an ordinary answer")
	if s := r.text()[m:]; strings.Contains(s, "not a prompt number") {
		t.Fatalf("the prompt after the cancel was taken for the answer:\n%s", s)
	}
	r.exit()
}

// A resumed session shows its conversation again before the input: the prompts, the
// answers and the tool calls, in the terminal interface (ouro -c), the line mode and
// /resume.
func TestResumeShowsTheConversation(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("echo listed-it")},
		scripted.Turn{Text: "The answer of the first session."},
	)
	if _, stderr, code := e.run("show me the files\n/exit\n", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{"› show me the files", "Bash(echo listed-it)", "listed-it", "The answer of the first session."}
	out, stderr, code := e.run("/exit\n", "-c")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("ouro -c (line mode) does not show %q:\n%s", w, out)
		}
	}
	out, _, _ = e.run("/resume 1\n/exit\n")
	if !strings.Contains(out, "resumed session") || !strings.Contains(out, "The answer of the first session.") {
		t.Fatalf("/resume does not show the conversation:\n%s", out)
	}

	r := e.startPTY("-c")
	r.waitFor(0, "resumed here")
	r.waitScreen("the earlier conversation above a clean frame", func(rows []string) bool {
		if !cleanFrame(rows) {
			return false
		}
		screen := strings.Join(rows, "\n")
		for _, w := range want {
			if !strings.Contains(screen, w) {
				return false
			}
		}
		return true
	})
	r.exit()
}

// Esc interrupts without the Ctrl-C message and leaves no "interrupting…" once the turn
// stopped; the banner and /help say what the keys do; a prompt typed while a turn runs
// waits, shown as queued, and goes into the conversation after that turn's answer.
func TestTUIEscQueuedPromptAndKeysHelp(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(
		scripted.Turn{ToolCalls: bash("sleep 30")},
		scripted.Turn{Text: "after the interrupt"},
		scripted.Turn{ToolCalls: bash("sleep 2")},
		scripted.Turn{Text: "the first answer"},
		scripted.Turn{ExpectContains: "typed while it ran", Text: "the queued answer"},
	)
	r := e.startPTY("--permission-mode", "bypassPermissions")
	r.waitFor(0, "shift+tab")
	if s := r.text(); !strings.Contains(s, "Esc interrupts") || strings.Contains(s, "Ctrl-D exits") {
		t.Fatalf("the banner does not say what the keys do:\n%s", s)
	}
	m := r.mark()
	r.typeLine("/help")
	r.waitFor(m, "Esc or Ctrl-C: interrupt the turn")
	r.waitFor(m, "/exit")
	if s := r.text()[m:]; strings.Contains(s, "While the model works, Ctrl-C interrupts") {
		t.Fatalf("/help tells the line mode's keys:\n%s", s)
	}

	m = r.mark()
	r.typeLine("wait a while")
	r.waitFor(m, "esc to interrupt")
	r.send("\x1b")
	r.waitFor(m, "turn interrupted")
	r.waitScreen("no interrupting… left once the turn stopped", func(rows []string) bool {
		return cleanFrame(rows) && !strings.Contains(strings.Join(rows, "\n"), "interrupting")
	})
	if s := r.text()[m:]; strings.Contains(s, "Ctrl-C again") {
		t.Fatalf("Esc printed the Ctrl-C message:\n%s", s)
	}
	r.typeLine("go on")
	r.waitFor(m, "after the interrupt")

	m = r.mark()
	r.typeLine("take two seconds")
	r.waitFor(m, "esc to interrupt")
	r.typeLine("typed while it ran")
	r.waitFor(m, "queued › typed while it ran")
	r.waitFor(m, "the queued answer")
	r.waitScreen("the queued prompt after the first answer", func(rows []string) bool {
		first, echo := -1, -1
		for i, l := range rows {
			if strings.Contains(l, "the first answer") {
				first = i
			}
			if strings.HasPrefix(l, "› typed while it ran") {
				echo = i
			}
		}
		return first >= 0 && echo > first
	})
	r.exit()
}
