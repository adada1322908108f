package ui

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/scripted"
)

// A turn a mechanism asks for while the REPL waits at its prompt starts at once, with
// the prompt shown to the user; asked for during a turn, it waits for that turn to end.
func TestREPLWakeStartsATurnWhenIdle(t *testing.T) {
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ExpectContains: "typed prompt", Text: "answer one"},
		{ExpectContains: "scheduled check", Text: "answer two"},
		{ExpectContains: "queued during a turn", Text: "answer three"},
		{Text: "[]"}, // the memory extraction at exit finds nothing
	}})
	inR, inW := io.Pipe()
	defer inW.Close()
	out, errOut := &syncBuf{}, &syncBuf{}
	r := &REPL{In: inR, Out: out, Err: errOut, Version: "test", Options: harness.Options{
		Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: t.TempDir(), Home: t.TempDir()},
	}}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), "") }()

	io.WriteString(inW, "typed prompt\n")
	waitFor(t, "the first answer", func() bool { return strings.Contains(out.String(), "answer one") })
	waitFor(t, "the prompt", func() bool { return strings.HasSuffix(out.String(), "› ") })
	// Two at once: the first starts a turn, the second waits for it to end (the
	// scripted model fails a request whose prompt it does not expect).
	r.wakes.push(harness.Wake{Source: "cron", Prompt: "scheduled check"})
	r.wakes.push(harness.Wake{Source: "background", Prompt: "queued during a turn"})
	waitFor(t, "the third answer", func() bool { return strings.Contains(out.String(), "answer three") })
	o := out.String()
	if !strings.Contains(o, "[cron] scheduled check") || strings.Index(o, "answer two") > strings.Index(o, "[background]") {
		t.Errorf("woken turns not shown, or not one after the other:\n%s", o)
	}
	io.WriteString(inW, "/exit\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if e := errOut.String(); strings.Contains(e, "ouro:") {
		t.Errorf("stderr: %s", e)
	}
}

func TestWakeQueueKeepsOrderAndSignalsEachPending(t *testing.T) {
	var q wakeQueue
	q.init()
	q.push(harness.Wake{Prompt: ""}) // nothing to run: ignored
	q.push(harness.Wake{Prompt: "a"})
	q.push(harness.Wake{Prompt: "b"})
	for _, want := range []string{"a", "b"} {
		<-q.ready
		w, ok := q.pop()
		if !ok || w.Prompt != want {
			t.Fatalf("pop = %+v %v, want %q", w, ok, want)
		}
	}
	if _, ok := q.pop(); ok {
		t.Fatal("queue not empty")
	}
}
