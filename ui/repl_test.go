package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/tools"
)

// syncBuf is a bytes.Buffer safe to read while the REPL writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestREPLCtrlCInterruptsTheTurnAndKeepsGoing(t *testing.T) {
	bash := func(cmd string) []scripted.ToolCall {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return []scripted.ToolCall{{Name: "Bash", Input: in}}
	}
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{Text: "Running it.", ToolCalls: bash("sleep 60")},
		{ExpectContains: "second prompt", Text: "Still here after the interruption."},
	}})
	inR, inW := io.Pipe()
	out, errOut := &syncBuf{}, &syncBuf{}
	sigs := make(chan os.Signal, 1)
	var started sync.WaitGroup
	started.Add(1)
	var once sync.Once
	r := &REPL{In: inR, Out: out, Err: errOut, Version: "test", Signals: sigs, Options: harness.Options{
		Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: t.TempDir(), Home: t.TempDir()},
		UI: harness.UI{Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolStart {
				once.Do(started.Done)
			}
		}}},
	}}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), "") }()

	io.WriteString(inW, "run the long command\n")
	started.Wait()
	sigs <- os.Interrupt
	waitFor(t, "the interrupted notice", func() bool { return strings.Contains(errOut.String(), "turn interrupted") })

	io.WriteString(inW, "second prompt\n")
	waitFor(t, "the second answer", func() bool { return strings.Contains(out.String(), "Still here after the interruption.") })
	io.WriteString(inW, "/exit\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "⎿ error: Interrupted") {
		t.Fatalf("the interrupted call's result is not shown:\n%s", out.String())
	}
	if prov.Remaining() != 0 {
		t.Fatal("the second turn did not reach the model")
	}
}

func TestREPLAsksQuestionsAtTheTerminal(t *testing.T) {
	in, _ := json.Marshal(map[string]any{"questions": []map[string]any{{
		"question": "Which database?", "header": "DB", "multiSelect": false,
		"options": []map[string]string{{"label": "Postgres", "description": "a server"}, {"label": "SQLite", "description": "a file"}},
	}}})
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "AskUserQuestion", Input: in}}},
		{ExpectContains: `"Which database?"="SQLite"`, Text: "SQLite it is."},
	}})
	out, errOut := &syncBuf{}, &syncBuf{}
	r := &REPL{In: strings.NewReader("pick a database\n2\n/exit\n"), Out: out, Err: errOut, Version: "test",
		Signals: make(chan os.Signal), Options: harness.Options{Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: t.TempDir(), Home: t.TempDir()}}}
	if err := r.Run(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "SQLite it is.") || !strings.Contains(out.String(), "2. SQLite — a file") {
		t.Fatalf("output:\n%s\nerrors:\n%s", out.String(), errOut.String())
	}
}

func TestParseAnswer(t *testing.T) {
	q := tools.Question{Question: "Q", Options: []tools.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}}
	if a := parseAnswer(q, "2"); len(a.Labels) != 1 || a.Labels[0] != "b" {
		t.Fatalf("%+v", a)
	}
	if a := parseAnswer(q, "1,3"); a.Text != "1,3" {
		t.Fatalf("single select took two options: %+v", a)
	}
	q.MultiSelect = true
	if a := parseAnswer(q, "1, 3"); len(a.Labels) != 2 || a.Labels[1] != "c" {
		t.Fatalf("%+v", a)
	}
	if a := parseAnswer(q, "something else"); a.Text != "something else" || a.Labels != nil {
		t.Fatalf("%+v", a)
	}
	if a := parseAnswer(q, "9"); a.Text != "9" {
		t.Fatalf("out of range: %+v", a)
	}
}

func TestREPLCtrlCWhileAQuestionWaits(t *testing.T) {
	in, _ := json.Marshal(map[string]any{"questions": []map[string]any{{
		"question": "Which?", "header": "Q", "multiSelect": false,
		"options": []map[string]string{{"label": "a", "description": "A"}, {"label": "b", "description": "B"}},
	}}})
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "AskUserQuestion", Input: in}}},
		{Text: "after"},
	}})
	inR, inW := io.Pipe()
	out, errOut := &syncBuf{}, &syncBuf{}
	sigs := make(chan os.Signal, 1)
	r := &REPL{In: inR, Out: out, Err: errOut, Version: "test", Signals: sigs,
		Options: harness.Options{Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: t.TempDir(), Home: t.TempDir()}}}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), "") }()
	io.WriteString(inW, "ask me\n")
	waitFor(t, "the question", func() bool { return strings.Contains(out.String(), "answer (number") })
	sigs <- os.Interrupt
	waitFor(t, "the interruption", func() bool { return strings.Contains(errOut.String(), "turn interrupted") })
	io.WriteString(inW, "/exit\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestREPLApprovesAtTheTerminal(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) []scripted.ToolCall {
		in, _ := json.Marshal(map[string]string{"file_path": dir + "/" + name, "content": "x\n"})
		return []scripted.ToolCall{{Name: "Write", Input: in}}
	}
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: write("a.txt")},
		{ExpectContains: "File created", ToolCalls: write("b.txt")},
		{ExpectContains: "use the other folder", Text: "understood"},
	}})
	out, errOut := &syncBuf{}, &syncBuf{}
	r := &REPL{In: strings.NewReader("write two files\ny\nn use the other folder\n/exit\n"), Out: out, Err: errOut, Version: "test",
		Signals: make(chan os.Signal), Options: harness.Options{Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: dir, Home: t.TempDir()}}}
	if err := r.Run(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Write wants to:") || !strings.Contains(out.String(), "understood") {
		t.Fatalf("output:\n%s\nerrors:\n%s", out.String(), errOut.String())
	}
	if _, err := os.Stat(dir + "/a.txt"); err != nil {
		t.Fatal("the approved write did not happen")
	}
	if _, err := os.Stat(dir + "/b.txt"); err == nil {
		t.Fatal("the refused write happened")
	}
}

func TestParseApproval(t *testing.T) {
	cases := []struct {
		line   string
		choice permission.Choice
		reason string
	}{
		{"y", permission.Once, ""}, {"yes", permission.Once, ""}, {"s", permission.Session, ""},
		{"a", permission.Always, ""}, {"n", permission.No, "the user said no"}, {"NO", permission.No, "the user said no"},
		{"n use make instead", permission.No, "use make instead"}, {"n: use make instead", permission.No, "use make instead"},
		{"no, not now", permission.No, "not now"},
	}
	for _, c := range cases {
		got, ok := parseApproval(c.line, true)
		if !ok || got.Choice != c.choice || (c.reason != "" && got.Reason != c.reason) {
			t.Errorf("%q → %+v, %v", c.line, got, ok)
		}
	}
	// Anything else is not an answer (the approver asks again), a refusal included.
	for _, line := range []string{"", "please don't", "yes please", "maybe", "nope", "\x1b[A"} {
		if got, ok := parseApproval(line, true); ok {
			t.Errorf("%q was taken as %+v", line, got)
		}
	}
	if got, ok := parseApproval("a", false); ok {
		t.Errorf("always without a rule to save: %+v", got)
	}
}

func TestStripEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[A": "", "\x1b[A\x1b[B\x1b[C\x1b[D": "", "\x1bOA": "", "fix\x1b[D\x1b[Dit": "fixit",
		"\x1b[1;5C word": " word", "\x1b[200~pasted\x1b[201~": "pasted", "\x1b]0;title\x07hi": "hi",
		"\x1bb back": " back", "plain [A text": "plain [A text", "\x1b[3~": "", "é\x1b[Aà": "éà", "\x1b": "",
	} {
		if got := stripEscapes(in); got != want {
			t.Errorf("stripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestREPLRemembersWhenTheSessionEnds(t *testing.T) {
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{Text: "We use SQLite for everything here."},
		// The extraction call at the end of the session proposes one durable fact.
		{Text: `[{"name":"storage","description":"The project stores data in SQLite","type":"project","body":"Decided in the first session."}]`},
	}})
	out, errOut := &syncBuf{}, &syncBuf{}
	home := t.TempDir()
	r := &REPL{In: strings.NewReader("what do we store data in?\n/exit\n"), Out: out, Err: errOut, Version: "test",
		Signals: make(chan os.Signal), Options: harness.Options{Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: t.TempDir(), Home: home}}}
	if err := r.Run(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "remembered storage") {
		t.Fatalf("output:\n%s\nerrors:\n%s", out.String(), errOut.String())
	}
}
