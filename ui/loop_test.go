package ui

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/cron"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/scripted"
)

func TestLoopInterval(t *testing.T) {
	for word, want := range map[string]string{
		"1m": "*/1 * * * *", "30s": "*/1 * * * *", "5m": "*/5 * * * *", "7m": "*/6 * * * *",
		"60m": "0 */1 * * *", "90m": "0 * * * *", "2h": "0 */2 * * *", "5h": "0 */4 * * *", "1d": "0 0 */1 * *",
	} {
		expr, _, _, ok, err := loopInterval(word)
		if !ok || err != nil || expr != want {
			t.Errorf("loopInterval(%q) = %q %v %v, want %q", word, expr, ok, err, want)
		}
		if _, err := cron.Parse(expr); err != nil {
			t.Errorf("%s: %v", word, err)
		}
	}
	if _, _, _, ok, _ := loopInterval("check"); ok {
		t.Error("a word taken for an interval")
	}
	if _, _, _, _, err := loopInterval("0m"); err == nil {
		t.Error("0m accepted")
	}
}

// /loop 1m runs the prompt now and again each minute of the (injected) clock, marked as
// scheduled; /loop stop ends it.
func TestREPLLoopWithInterval(t *testing.T) {
	clockFile := filepath.Join(t.TempDir(), "clock")
	setClock := func(tm time.Time) { os.WriteFile(clockFile, []byte(tm.Format(time.RFC3339)), 0o644) }
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local)
	setClock(start)
	t.Setenv(cron.ClockEnv, clockFile)
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ExpectContains: "count the files", Text: "answer one"},
		{ExpectContains: `<scheduled-task id="`, Text: "answer two"},
		{Text: "[]"}, // the memory extraction at exit
	}})
	inR, inW := io.Pipe()
	defer inW.Close()
	out, errOut := &syncBuf{}, &syncBuf{}
	r := &REPL{In: inR, Out: out, Err: errOut, Version: "test", Options: harness.Options{
		Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: t.TempDir(), Home: t.TempDir()},
	}}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), "") }()
	io.WriteString(inW, "/loop 1m count the files\n")
	waitFor(t, "the first answer", func() bool { return strings.Contains(out.String(), "answer one") })
	if !strings.Contains(out.String(), "every 1m (*/1 * * * *)") {
		t.Fatalf("no confirmation:\n%s", out)
	}
	waitFor(t, "the prompt", func() bool { return strings.HasSuffix(out.String(), "› ") })
	setClock(start.Add(70 * time.Second)) // past 10:01 and its jitter (under 6 s)
	waitFor(t, "the scheduled answer", func() bool { return strings.Contains(out.String(), "answer two") })
	waitFor(t, "the prompt", func() bool { return strings.HasSuffix(out.String(), "› ") })
	io.WriteString(inW, "/loop stop\n")
	waitFor(t, "the cancellation", func() bool { return strings.Contains(out.String(), "cancelled 1 session job") })
	io.WriteString(inW, "/exit\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if reqs := prov.Requests(); len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if e := errOut.String(); strings.Contains(e, "ouro:") {
		t.Errorf("stderr: %s", e)
	}
}

// /loop without an interval: the model paces itself with ScheduleWakeup; a turn that
// does not call it ends the loop.
func TestREPLLoopPacedByTheModel(t *testing.T) {
	clockFile := filepath.Join(t.TempDir(), "clock")
	setClock := func(tm time.Time) { os.WriteFile(clockFile, []byte(tm.Format(time.RFC3339)), 0o644) }
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local)
	setClock(start)
	t.Setenv(cron.ClockEnv, clockFile)
	wake := []scripted.ToolCall{{Name: cron.WakeupName, Input: []byte(`{"delaySeconds":5,"reason":"build runs","prompt":"is the build green?"}`)}}
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ExpectContains: "ScheduleWakeup", ToolCalls: wake},
		{ExpectContains: "clamped", Text: "waiting for the build"},
		{ExpectContains: `kind="wakeup"`, Text: "green; done"}, // no ScheduleWakeup: the loop ends
		{Text: "[]"},
	}})
	inR, inW := io.Pipe()
	defer inW.Close()
	out, errOut := &syncBuf{}, &syncBuf{}
	r := &REPL{In: inR, Out: out, Err: errOut, Version: "test", Options: harness.Options{
		Model: harness.ModelOptions{Name: "scripted", Provider: prov}, Dirs: harness.Dirs{CWD: t.TempDir(), Home: t.TempDir()},
	}}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), "") }()
	io.WriteString(inW, "/loop is the build green?\n")
	waitFor(t, "the first turn", func() bool { return strings.Contains(out.String(), "waiting for the build") })
	t.Log(out.String(), errOut.String())
	waitFor(t, "the prompt", func() bool { return strings.HasSuffix(out.String(), "› ") })
	// The first request offered ScheduleWakeup's schema (loaded by /loop).
	var offered bool
	for _, sp := range prov.Requests()[0].Tools {
		offered = offered || sp.Name == cron.WakeupName
	}
	if !offered {
		t.Fatal("/loop did not load ScheduleWakeup")
	}
	setClock(start.Add(30 * time.Second)) // before the clamped 60 s
	time.Sleep(100 * time.Millisecond)
	if strings.Contains(out.String(), "green; done") {
		t.Fatal("woke before the clamped delay")
	}
	setClock(start.Add(61 * time.Second))
	waitFor(t, "the woken turn", func() bool { return strings.Contains(out.String(), "green; done") })
	setClock(start.Add(2 * time.Hour))
	time.Sleep(100 * time.Millisecond)
	io.WriteString(inW, "/exit\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(prov.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4 (the loop must end without ScheduleWakeup)", n)
	}
}
