package tui

import (
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
)

var update = flag.Bool("update", false, "rewrite the golden frames")

type fakeEngine struct {
	lines      []string
	interrupts int
	mode       permission.Mode
	notes      []string
	shells     []string
	stops      int
}

func (f *fakeEngine) submit(l string)                 { f.lines = append(f.lines, l) }
func (f *fakeEngine) interrupt()                      { f.interrupts++ }
func (f *fakeEngine) setMode(m permission.Mode) error { f.mode = m; return nil }
func (f *fakeEngine) note(t string) (string, error) {
	f.notes = append(f.notes, t)
	return "memory/note.md", nil
}
func (f *fakeEngine) shell(c string) { f.shells = append(f.shells, c) }
func (f *fakeEngine) stopShell()     { f.stops++ }

// testModel is a model 80x24 without colour, at a fixed time, recording what it prints.
func testModel(t *testing.T, width int) (*model, *fakeEngine, *[]string) {
	eng := &fakeEngine{}
	m := newModel(eng, width, 24, true, false, &history{})
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.now = func() time.Time { return t0 }
	var printed []string
	m.printed = func(s string) { printed = append(printed, s) }
	m.Update(sessionMsg{model: "claude-sonnet-4-5", id: "s1", mode: permission.ModeDefault, window: 200_000})
	return m, eng, &printed
}

func key(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func typeText(m *model, s string) {
	for _, r := range s {
		m.Update(key(string(r)))
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(ansi.Strip(got)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	got = ansi.Strip(got)
	if got != string(want) {
		t.Fatalf("frame %s differs from the golden one:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func delta(d string) eventMsg {
	return eventMsg{e: agent.Event{Type: agent.EventDelta, Delta: llm.Delta{Kind: "text", Text: d}}}
}

// The frame while an answer streams and a tool runs, 80x24: finished blocks were printed
// above, the block being written and the running tool are live.
func TestFrameStreaming(t *testing.T) {
	m, _, printed := testModel(t, 80)
	m.Update(runStartMsg{})
	m.Update(delta("# Plan\n\nFirst I read the **file**.\n\nThen I run `go test` and"))
	if p := strings.Join(*printed, "\n"); !strings.Contains(p, "# Plan") || !strings.Contains(p, "First I read the") || strings.Contains(p, "**") {
		t.Fatalf("printed %q", *printed)
	}
	golden(t, "streaming", m.render())
	in, _ := json.Marshal(map[string]string{"command": "go test ./..."})
	m.Update(eventMsg{e: agent.Event{Type: agent.EventToolStart, Call: &tool.Call{ID: "t1", Name: "Bash", Input: in}}})
	m.Update(todosMsg{title: "Todos", items: []todo.Item{{Content: "read", Status: todo.Completed}, {Content: "test", ActiveForm: "testing", Status: todo.InProgress}}})
	golden(t, "tool-running", m.render())
	res := llm.Block{Type: llm.BlockToolResult, Content: []llm.Block{{Type: llm.BlockText, Text: "ok a\nok b\nok c\nok d\nok e"}}}
	t0 := m.now()
	m.Update(eventMsg{e: agent.Event{Type: agent.EventToolEnd, Call: &tool.Call{ID: "t1", Name: "Bash", Input: in}, Result: &res, Start: t0, End: t0.Add(1500 * time.Millisecond)}})
	last := ansi.Strip((*printed)[len(*printed)-1])
	for _, want := range []string{"✓ Bash(go test ./...) · 1.5s", "ok c", "+2 lines (ctrl+o to expand)"} {
		if !strings.Contains(last, want) {
			t.Fatalf("the tool block lacks %q:\n%s", want, last)
		}
	}
	if strings.Contains(last, "ok d") {
		t.Fatalf("the result was not collapsed:\n%s", last)
	}
	m.Update(key("ctrl+o"))
}

// The permission dialog for an edit shows the path, the diff and the choices; keys that
// are not answers answer nothing (an Enter as the dialog opens neither), and "no" takes
// a reason.
func TestFrameDialog(t *testing.T) {
	m, _, _ := testModel(t, 80)
	in, _ := json.Marshal(map[string]string{"file_path": "/p/a.go", "old_string": "x := 1", "new_string": "x := 2"})
	call := tool.Call{ID: "t1", Name: "Edit", Input: in}
	reply := make(chan permission.Answer, 1)
	m.Update(approveMsg{p: permission.Prompt{Call: call, Summary: "Edit /p/a.go", Reach: "writes /p/a.go", SuggestedRule: "Edit(/p/**)"}, diff: callDiff(&call), reply: reply})
	golden(t, "dialog", m.render())
	for _, k := range []string{"enter", "x", " "} {
		m.Update(key(k))
		select {
		case a := <-reply:
			t.Fatalf("%q answered %v", k, a)
		default:
		}
	}
	if !strings.Contains(m.render(), "is not an answer") {
		t.Fatal("no hint after a stray key")
	}
	m.Update(key("4"))
	typeText(m, "use sed")
	m.Update(key("enter"))
	a := <-reply
	if a.Choice != permission.No || a.Reason != "use sed" {
		t.Fatalf("answer %+v", a)
	}
	if m.dialog != nil {
		t.Fatal("the dialog stayed")
	}
}

// The arrow keys (and j/k) move the highlight over the dialog's choices, shown by a
// marker; Enter takes the highlighted one, digits still answer at once.
func TestDialogArrowsAndEnter(t *testing.T) {
	open := func(rule string) (*model, chan permission.Answer) {
		m, _, _ := testModel(t, 80)
		in, _ := json.Marshal(map[string]string{"command": "python3 -m unittest -q"})
		reply := make(chan permission.Answer, 1)
		m.Update(approveMsg{p: permission.Prompt{Call: tool.Call{ID: "t1", Name: "Bash", Input: in},
			Summary: "python3 -m unittest -q", SuggestedRule: rule}, reply: reply})
		t0 := m.now()
		m.now = func() time.Time { return t0.Add(time.Second) }
		return m, reply
	}
	highlighted := func(m *model) string {
		for _, l := range strings.Split(ansi.Strip(m.render()), "\n") {
			if _, after, ok := strings.Cut(l, "❯ "); ok {
				return strings.TrimRight(strings.TrimSuffix(strings.TrimSpace(after), "│"), " ")
			}
		}
		return ""
	}
	answered := func(reply chan permission.Answer) (permission.Answer, bool) {
		select {
		case a := <-reply:
			return a, true
		default:
			return permission.Answer{}, false
		}
	}

	m, reply := open("Bash(python3 -m unittest *)")
	if h := highlighted(m); h != "1. Yes, once" {
		t.Fatalf("highlighted at first: %q", h)
	}
	for _, step := range []struct{ key, want string }{
		{"down", "2. Yes, for this session: allow Bash(python3 -m unittest *)"},
		{"down", "3. Always: save Bash(python3 -m unittest *) to .ouro/settings.local.json"},
		{"down", "4. No, and tell the model why"},
		{"down", "1. Yes, once"}, // round again
		{"up", "4. No, and tell the model why"},
		{"k", "3. Always: save Bash(python3 -m unittest *) to .ouro/settings.local.json"},
		{"k", "2. Yes, for this session: allow Bash(python3 -m unittest *)"},
		{"j", "3. Always: save Bash(python3 -m unittest *) to .ouro/settings.local.json"},
		{"up", "2. Yes, for this session: allow Bash(python3 -m unittest *)"},
	} {
		m.Update(key(step.key))
		if h := highlighted(m); h != step.want {
			t.Fatalf("after %s the highlight is on %q, want %q", step.key, h, step.want)
		}
		if a, ok := answered(reply); ok {
			t.Fatalf("%s answered %v", step.key, a)
		}
	}
	m.Update(key("enter"))
	if a, ok := answered(reply); !ok || a.Choice != permission.Session {
		t.Fatalf("Enter on the session choice answered %v (%v)", a, ok)
	}
	if m.dialog != nil {
		t.Fatal("the dialog stayed")
	}

	// Without a rule to offer there are two choices; Enter on "No" asks for the reason.
	m, reply = open("")
	m.Update(key("down"))
	if h := highlighted(m); h != "4. No, and tell the model why" {
		t.Fatalf("highlighted: %q", h)
	}
	m.Update(key("enter"))
	if _, ok := answered(reply); ok || !strings.Contains(m.render(), "Reason for the model") {
		t.Fatalf("Enter on No did not ask for a reason:\n%s", ansi.Strip(m.render()))
	}
	m.Update(key("enter"))
	if a, ok := answered(reply); !ok || a.Choice != permission.No {
		t.Fatalf("answered %v (%v)", a, ok)
	}

	// Digits still answer at once, wherever the highlight is.
	m, reply = open("Bash(python3 -m unittest *)")
	m.Update(key("down"))
	m.Update(key("3"))
	if a, ok := answered(reply); !ok || a.Choice != permission.Always {
		t.Fatalf("3 answered %v (%v)", a, ok)
	}
}

// Footer at 120 columns with the todo panel beside the input; Shift-Tab cycles the mode.
func TestFrameWideFooterAndModes(t *testing.T) {
	m, eng, _ := testModel(t, 120)
	m.Update(todosMsg{title: "Todos", items: []todo.Item{{Content: "write the parser", Status: todo.Pending}}})
	m.Update(runEndMsg{totals: agent.Outcome{CostUSD: 0.0123}})
	m.ctxUsed = 50_000
	golden(t, "wide", m.render())
	m.Update(key("shift+tab"))
	if eng.mode != permission.ModeAcceptEdits || !strings.Contains(m.footer(), "acceptEdits") {
		t.Fatalf("mode %q, footer %q", eng.mode, m.footer())
	}
	m.Update(key("shift+tab"))
	m.Update(key("shift+tab"))
	if eng.mode != permission.ModeDefault {
		t.Fatalf("mode %q after a full cycle", eng.mode)
	}
}

// Input: a prompt of several lines reaches the REPL as one (continued with \), the up
// arrow recalls it, slash commands complete with descriptions, Esc interrupts a turn,
// Esc Esc at an empty input opens /rewind, #note and !cmd go to their engines.
func TestInput(t *testing.T) {
	m, eng, _ := testModel(t, 80)
	typeText(m, "line one")
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt})
	typeText(m, `ends in \`)
	m.Update(key("enter"))
	if len(eng.lines) != 1 || eng.lines[0] != "line one\\\nends in \\" {
		t.Fatalf("lines %q", eng.lines)
	}
	m.Update(key("up"))
	if m.input.Value() != "line one\nends in \\" {
		t.Fatalf("up recalled %q", m.input.Value())
	}
	m.input.Reset()
	typeText(m, "/rew")
	if len(m.comp) != 1 || m.comp[0].name != "/rewind" || !strings.Contains(m.render(), "put code") {
		t.Fatalf("completion %v", m.comp)
	}
	m.Update(key("tab"))
	if m.input.Value() != "/rewind " {
		t.Fatalf("completed to %q", m.input.Value())
	}
	m.input.Reset()
	m.running = true
	m.Update(key("esc"))
	if eng.interrupts != 1 {
		t.Fatal("Esc did not interrupt")
	}
	m.running = false
	m.Update(key("esc"))
	m.Update(key("esc"))
	if eng.lines[len(eng.lines)-1] != "/rewind" {
		t.Fatalf("Esc Esc sent %q", eng.lines)
	}
	typeText(m, "# tests need make gen")
	m.Update(key("enter"))
	typeText(m, "!ls")
	m.Update(key("enter"))
	if len(eng.notes) != 1 || eng.notes[0] != "tests need make gen" || len(eng.shells) != 1 || eng.shells[0] != "ls" {
		t.Fatalf("notes %q shells %q", eng.notes, eng.shells)
	}
	// A !command runs: a second waits, Esc stops the first (not the turn: none runs).
	typeText(m, "!sleep 100")
	m.Update(key("enter"))
	if len(eng.shells) != 1 || m.input.Value() != "!sleep 100" {
		t.Fatalf("a second !command started while one runs: %q (input %q)", eng.shells, m.input.Value())
	}
	m.input.Reset()
	m.Update(key("esc"))
	if eng.stops != 1 || eng.interrupts != 1 {
		t.Fatalf("Esc should stop the command: stops %d interrupts %d", eng.stops, eng.interrupts)
	}
	m.Update(shellDoneMsg{cmd: "ls", out: "a.go"})
	if m.shelling {
		t.Fatal("still shelling after the command ended")
	}
	typeText(m, "what is here")
	m.Update(key("enter"))
	if last := eng.lines[len(eng.lines)-1]; !strings.Contains(last, "<bash-stdout>a.go</bash-stdout>") || !strings.HasSuffix(last, "what is here") {
		t.Fatalf("the shell output did not go with the prompt: %q", last)
	}
	// Ctrl-C twice quits; once only warns.
	if _, c := m.Update(key("ctrl+c")); c != nil && isQuit(c) {
		t.Fatal("one Ctrl-C quit")
	}
	if _, c := m.Update(key("ctrl+c")); c == nil || !isQuit(c) {
		t.Fatal("two Ctrl-C did not quit")
	}
}

func isQuit(c tea.Cmd) bool {
	msg := c()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if c != nil && isQuit(c) {
				return true
			}
		}
		return false
	}
	_, ok := msg.(tea.QuitMsg)
	return ok
}

// History survives: a second model in the same project recalls the first one's prompts,
// and a hostile file (huge lines, garbage) does not break loading.
func TestHistoryPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	h := loadHistory(path)
	if err := h.add("first"); err != nil {
		t.Fatal(err)
	}
	_ = h.add("two\nlines")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n" + strings.Repeat("x", 100_000) + "\n")
	f.Close()
	h2 := loadHistory(path)
	if len(h2.entries) != 2 || h2.entries[1] != "two\nlines" {
		t.Fatalf("entries %q", h2.entries)
	}
	if s, _ := h2.prev(""); s != "two\nlines" {
		t.Fatalf("prev %q", s)
	}
	if i := h2.search("fir", len(h2.entries)); i != 0 {
		t.Fatalf("search %d", i)
	}
}

// A resize re-flows the block being written.
func TestResizeReflows(t *testing.T) {
	m, _, _ := testModel(t, 80)
	m.Update(delta(strings.Repeat("word ", 30)))
	wide := m.render()
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 24})
	narrow := m.render()
	for _, l := range strings.Split(narrow, "\n") {
		if w := ansi.StringWidth(l); w > 40 {
			t.Fatalf("a line of %d columns after the resize to 40: %q", w, l)
		}
	}
	if strings.Count(narrow, "\n") <= strings.Count(wide, "\n") {
		t.Fatal("the text did not re-flow")
	}
}

// Streaming a long answer keeps the live block small: only the block being written is
// redrawn per token, whatever was streamed before it.
func TestStreamWorkDoesNotGrow(t *testing.T) {
	m, _, _ := testModel(t, 80)
	for i := 0; i < 2000; i++ {
		m.Update(delta("token "))
		if i%50 == 49 {
			m.Update(delta("\n\n"))
		}
		m.render()
		if len(m.tailSrc) > 400 {
			t.Fatalf("after %d tokens the live block holds %d bytes", i, len(m.tailSrc))
		}
	}
}

func benchStream(b *testing.B, before int) {
	m := newModel(&fakeEngine{}, 80, 24, true, true, &history{})
	m.printed = func(string) {}
	for i := 0; i < before; i++ {
		m.Update(delta("token "))
		if i%50 == 49 {
			m.Update(delta("\n\n"))
		}
		m.outbox, m.printing = nil, false
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(delta("token "))
		if i%50 == 49 {
			m.Update(delta("\n\n"))
		}
		m.outbox, m.printing = nil, false
		m.render()
	}
}

// The cost of one streamed token after 1,000 and after 50,000 tokens of answer: they
// should be about the same (compare the ns/op).
func BenchmarkStreamToken(b *testing.B) {
	b.Run("after-1k", func(b *testing.B) { benchStream(b, 1_000) })
	b.Run("after-50k", func(b *testing.B) { benchStream(b, 50_000) })
}

// A lying model's escape sequences never reach the terminal: not in the answer, a tool's
// summary or result, nor a permission dialog. They are shown escaped instead.
func TestHostileEscapesAreShownEscaped(t *testing.T) {
	m, _, printed := testModel(t, 80)
	evil := "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZWNobyBoaQ==\x07\x9b31m\x07"
	m.Update(delta("safe " + evil + "text\n\n"))
	in, _ := json.Marshal(map[string]string{"command": "ls " + evil})
	call := &tool.Call{ID: "t1", Name: "Bash", Input: in}
	m.Update(eventMsg{e: agent.Event{Type: agent.EventToolStart, Call: call}})
	res := llm.Block{Type: llm.BlockToolResult, Content: []llm.Block{{Type: llm.BlockText, Text: "out " + evil}}}
	m.Update(eventMsg{e: agent.Event{Type: agent.EventToolEnd, Call: call, Result: &res}})
	m.Update(outputMsg("question " + evil))
	reply := make(chan permission.Answer, 1)
	m.Update(approveMsg{p: permission.Prompt{Call: *call, Summary: "ls " + evil, Reach: evil}, reply: reply})
	all := strings.Join(*printed, "\n") + m.render()
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x07", "\x9b"} {
		if strings.Contains(all, bad) {
			t.Fatalf("%q reached the screen: %q", bad, all)
		}
	}
	plain := ansi.Strip(all)
	if !strings.Contains(plain, "safe") || !strings.Contains(plain, "text") || !strings.Contains(plain, `52;c;ZWNobyBoaQ==`) ||
		!strings.Contains(plain, `\x1b[2J`) {
		t.Fatalf("the text itself was lost, or its escapes were not shown: %q", plain)
	}
}

// Ctrl-R finds an older prompt; @ completes paths; background tasks show in the panel.
func TestSearchPathsAndBackground(t *testing.T) {
	m, _, _ := testModel(t, 80)
	m.hist.entries = []string{"run the tests", "fix the parser", "deploy"}
	m.hist.pos = 3
	m.Update(key("ctrl+r"))
	typeText(m, "pars")
	if !strings.Contains(ansi.Strip(m.render()), "(reverse-i-search)`pars': fix the parser") {
		t.Fatalf("search frame:\n%s", ansi.Strip(m.render()))
	}
	m.Update(key("enter"))
	if m.input.Value() != "fix the parser" {
		t.Fatalf("input %q", m.input.Value())
	}
	m.input.Reset()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "makefile"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "docs"), 0o755)
	m.cwd = dir
	typeText(m, "look at @ma")
	if len(m.comp) != 2 || m.comp[0].name != "@main.go" {
		t.Fatalf("completions %v", m.comp)
	}
	m.Update(key("tab"))
	if m.input.Value() != "look at @main.go " {
		t.Fatalf("input %q", m.input.Value())
	}
	m.Update(bgMsg{{desc: "npm run dev", started: m.now().Add(-3 * time.Second)}})
	if f := ansi.Strip(m.render()); !strings.Contains(f, "Background (1 running)") || !strings.Contains(f, "npm run dev · 3.0s") {
		t.Fatalf("no background panel:\n%s", f)
	}
}

// The terminal's background picks the palette: a light one gets the light styles.
func TestLightBackground(t *testing.T) {
	eng := &fakeEngine{}
	m := newModel(eng, 80, 24, true, true, &history{})
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.th.dark {
		t.Fatal("a white background kept the dark palette")
	}
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if !m.th.dark {
		t.Fatal("a black background kept the light palette")
	}
}

// At 80x24 a dialog for a large edit still fits, its choices included.
func TestDialogFits80x24(t *testing.T) {
	m, _, _ := testModel(t, 80)
	in, _ := json.Marshal(map[string]string{"file_path": "/p/a.go", "old_string": strings.Repeat("old line\n", 40), "new_string": strings.Repeat("new line\n", 40)})
	call := tool.Call{ID: "t1", Name: "Edit", Input: in}
	m.Update(runStartMsg{})
	m.Update(approveMsg{p: permission.Prompt{Call: call, Summary: "Edit /p/a.go", Reach: "writes /p/a.go", SuggestedRule: "Edit(/p/**)"}, diff: callDiff(&call), reply: make(chan permission.Answer, 1)})
	f := m.render()
	if n := strings.Count(f, "\n") + 1; n > 24 {
		t.Fatalf("the frame is %d lines high:\n%s", n, ansi.Strip(f))
	}
	if !strings.Contains(f, "4. No, and tell the model why") {
		t.Fatalf("the choices do not show:\n%s", ansi.Strip(f))
	}
}

// An answer's usage sets the context meter and the token count.
func TestContextMeter(t *testing.T) {
	m, _, _ := testModel(t, 80)
	m.Update(runStartMsg{})
	m.Update(delta("some text"))
	resp := &llm.Response{Usage: llm.Usage{InputTokens: 1000, CacheReadInputTokens: 49_000, OutputTokens: 120}}
	m.Update(eventMsg{e: agent.Event{Type: agent.EventMessage, Message: &llm.Message{Role: llm.RoleAssistant}, Response: resp}})
	if f := ansi.Strip(m.render()); !strings.Contains(f, "ctx 25%") || !strings.Contains(f, "↓ 120 tokens") {
		t.Fatalf("frame:\n%s", f)
	}
}

// An answer without blank lines (one long code block) still costs the same per token: it
// is handed out in pieces, each code piece still a code block.
func TestLongBlockIsCut(t *testing.T) {
	var s mdStream
	var out strings.Builder
	out.WriteString(s.push("```go\n"))
	for i := 0; i < 5000; i++ {
		out.WriteString(s.push(fmt.Sprintf("x := %d // a line of code\n", i)))
		if len(s.tail()) > maxTail+200 {
			t.Fatalf("after %d lines the live block holds %d bytes", i, len(s.tail()))
		}
	}
	out.WriteString(s.push("```\n\nafter"))
	out.WriteString(s.flush())
	all := out.String()
	if !strings.Contains(all, "x := 0 //") || !strings.Contains(all, "x := 4999 //") || !strings.HasSuffix(all, "after") {
		t.Fatal("lines were lost")
	}
	if strings.Count(all, "```go\n") < 2 || strings.Count(all, "```go\n") != strings.Count(all, "```\n") {
		t.Fatalf("the pieces are not whole code blocks: %d openers, %d closers", strings.Count(all, "```go\n"), strings.Count(all, "```\n"))
	}
}

// Teammates appear in the side panel once there are any: name, status and task.
func TestFrameTeamPanel(t *testing.T) {
	m, _, _ := testModel(t, 120)
	if strings.Contains(m.render(), "Team (") {
		t.Fatal("a team section without a team")
	}
	m.Update(teamMsg{{name: "reviewer-1a2b", status: "working", task: "#3 check the parser"}, {name: "tester-9f", status: "idle"}})
	golden(t, "team", m.render())
	frame := m.render()
	for _, want := range []string{"Team (2)", "reviewer-1a2b", "working", "#3 chec", "tester-9f", "idle"} {
		if !strings.Contains(frame, want) {
			t.Errorf("no %q in the frame:\n%s", want, frame)
		}
	}
}

// The model picker (/model alone): Down and Enter take the next one, a digit takes its
// option at once, Esc takes none; while it shows, keys go to it, not to the input.
func TestPickerKeys(t *testing.T) {
	m, eng, printed := testModel(t, 80)
	opts := []string{"claude-sonnet-5-5 (current)", "claude-haiku-4-5", "openai:gpt-5"}
	pick := func(keys ...string) int {
		reply := make(chan int, 1)
		m.Update(pickMsg{title: "Switch to which model?", options: opts, reply: reply})
		if m.picker == nil {
			t.Fatal("no picker shown")
		}
		if f := ansi.Strip(m.render()); !strings.Contains(f, "Switch to which model?") || !strings.Contains(f, "› 1. claude-sonnet-5-5 (current)") || !strings.Contains(f, "Esc cancels") {
			t.Fatalf("the picker shows:\n%s", f)
		}
		for _, k := range keys {
			m.Update(key(k))
		}
		select {
		case i := <-reply:
			if m.picker != nil {
				t.Error("the picker stayed after its answer")
			}
			return i
		default:
			t.Fatalf("no answer after %v", keys)
			return 0
		}
	}
	if i := pick("down", "enter"); i != 1 {
		t.Errorf("down, enter: %d", i)
	}
	if i := pick("3"); i != 2 {
		t.Errorf("3: %d", i)
	}
	if i := pick("down", "up", "up", "enter"); i != 2 {
		t.Errorf("up wraps around: %d", i)
	}
	if i := pick("x", "esc"); i != -1 {
		t.Errorf("esc: %d", i)
	}
	if m.input.Value() != "" || len(eng.lines) != 0 {
		t.Errorf("keys reached the input: %q %v", m.input.Value(), eng.lines)
	}
	if p := strings.Join(*printed, "\n"); !strings.Contains(ansi.Strip(p), "picked openai:gpt-5") {
		t.Errorf("the choice is not shown: %q", p)
	}
}

// The model's question is a picker: arrows and Enter, digits at once, the user's own
// words on the last line, Space marking options of a multiSelect question.
func TestQuestionPicker(t *testing.T) {
	db := tools.Question{Question: "Which database?", Header: "DB", Options: []tools.Option{
		{Label: "Postgres", Description: "server"}, {Label: "SQLite", Description: "file"}}}
	langs := tools.Question{Question: "Which languages?", MultiSelect: true, Options: []tools.Option{
		{Label: "Go"}, {Label: "Rust"}, {Label: "Zig"}}}
	ask := func(qs ...tools.Question) (*model, *fakeEngine, chan []tools.Answer) {
		m, eng, _ := testModel(t, 80)
		reply := make(chan []tools.Answer, 1)
		m.Update(askMsg{qs: qs, reply: reply})
		return m, eng, reply
	}
	press := func(m *model, keys ...string) {
		for _, k := range keys {
			m.Update(key(k))
		}
	}
	got := func(reply chan []tools.Answer) []tools.Answer {
		select {
		case a := <-reply:
			return a
		default:
			return nil
		}
	}

	m, _, reply := ask(db, langs)
	f := ansi.Strip(m.render())
	for _, want := range []string{"[DB] Which database? (1 of 2)", "❯ 1. Postgres — server", "  2. SQLite — file", "  3. Type something else"} {
		if !strings.Contains(f, want) {
			t.Fatalf("no %q in:\n%s", want, f)
		}
	}
	press(m, "down", "down", "down", "up", "up") // round and back: SQLite
	if f := ansi.Strip(m.render()); !strings.Contains(f, "❯ 2. SQLite") {
		t.Fatalf("the highlight is not on SQLite:\n%s", f)
	}
	press(m, "enter")
	if f := ansi.Strip(m.render()); !strings.Contains(f, "Which languages? (2 of 2)") || !strings.Contains(f, "❯ 1. [ ] Go") {
		t.Fatalf("the second question does not show:\n%s", f)
	}
	press(m, "j", " ", "3", "enter") // Rust marked with Space, Zig with its digit
	want := []tools.Answer{{Question: "Which database?", Labels: []string{"SQLite"}}, {Question: "Which languages?", Labels: []string{"Rust", "Zig"}}}
	if a := got(reply); !reflect.DeepEqual(a, want) {
		t.Fatalf("answers %+v, want %+v", a, want)
	}
	if m.question != nil {
		t.Fatal("the picker stayed")
	}

	// A digit answers at once; the last line takes the user's own words.
	m, _, reply = ask(db)
	press(m, "2")
	if a := got(reply); len(a) != 1 || !reflect.DeepEqual(a[0].Labels, []string{"SQLite"}) {
		t.Fatalf("2 answered %+v", a)
	}
	m, _, reply = ask(db)
	press(m, "up", "enter")
	typeText(m, "DuckDB")
	press(m, "enter")
	if a := got(reply); len(a) != 1 || a[0].Text != "DuckDB" || a[0].Labels != nil {
		t.Fatalf("own words answered %+v", a)
	}

	// Esc interrupts the turn, which ends the question.
	m, eng, reply := ask(db)
	press(m, "x")
	if !strings.Contains(m.render(), "is not an answer") || got(reply) != nil {
		t.Fatal("a stray key answered, or said nothing")
	}
	press(m, "esc")
	if eng.interrupts != 1 || got(reply) != nil {
		t.Fatalf("Esc: %d interrupts", eng.interrupts)
	}
	m.Update(askDoneMsg{reply: reply})
	if m.question != nil {
		t.Fatal("the picker stayed after the interrupt")
	}
}

// A tool block shows a path inside the workspace relative to it, one outside as it is.
func TestToolBlockPathRelativeToWorkspace(t *testing.T) {
	m, _, printed := testModel(t, 80)
	m.Update(sessionMsg{model: "claude-sonnet-4-5", id: "s1", cwd: "/abs/path/to/ws", mode: permission.ModeDefault, window: 200_000})
	m.Update(runStartMsg{})
	for i, p := range []string{"/abs/path/to/ws/pkg/foo.go", "/abs/elsewhere/bar.go"} {
		in, _ := json.Marshal(map[string]string{"file_path": p})
		call := &tool.Call{ID: fmt.Sprint("t", i), Name: "Read", Input: in}
		m.Update(eventMsg{e: agent.Event{Type: agent.EventToolStart, Call: call}})
		res := llm.Block{Type: llm.BlockToolResult, Content: []llm.Block{{Type: llm.BlockText, Text: "package foo"}}}
		m.Update(eventMsg{e: agent.Event{Type: agent.EventToolEnd, Call: call, Result: &res}})
	}
	all := ansi.Strip(strings.Join(*printed, "\n"))
	if !strings.Contains(all, "Read(pkg/foo.go)") || !strings.Contains(all, "Read(/abs/elsewhere/bar.go)") || strings.Contains(all, "/abs/path/to/ws") {
		t.Fatalf("tool blocks:\n%s", all)
	}
}
