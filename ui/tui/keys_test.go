package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/agent"
)

// Esc interrupts with its own notice, gone once the turn ended; Ctrl-C's says a second
// one leaves. The keys /help lists are the ones handled.
func TestEscNoticeAndKeysHelp(t *testing.T) {
	m, eng, _ := testModel(t, 80)
	m.Update(runStartMsg{})
	m.Update(key("esc"))
	if eng.interrupts != 1 || strings.Contains(m.notice, "Ctrl-C") || !strings.Contains(m.notice, "interrupting") {
		t.Fatalf("interrupts %d, notice %q", eng.interrupts, m.notice)
	}
	m.Update(runEndMsg{})
	if strings.Contains(ansi.Strip(m.render()), "interrupting") {
		t.Fatalf("the notice stayed after the turn ended:\n%s", ansi.Strip(m.render()))
	}
	m.Update(runStartMsg{})
	m.Update(key("ctrl+c"))
	if eng.interrupts != 2 || !strings.Contains(m.notice, "Ctrl-C again to leave") {
		t.Fatalf("interrupts %d, notice %q", eng.interrupts, m.notice)
	}
	for _, k := range []string{"Esc or Ctrl-C: interrupt", "Esc Esc on an empty input: /rewind", "Ctrl-C twice, or Ctrl-D on an empty input: leave", "Ctrl-L"} {
		if !strings.Contains(keysHelp, k) {
			t.Errorf("the keys help lacks %q", k)
		}
	}
}

// A prompt typed while a turn runs is sent at once (the REPL reads it when the turn
// ends) but shows as queued, and goes into the conversation when the REPL reads it:
// after the turn's answer. A prompt of several lines is read as several lines.
func TestQueuedPromptShowsWhenRead(t *testing.T) {
	m, eng, printed := testModel(t, 80)
	m.Update(runStartMsg{})
	typeText(m, "next one")
	m.Update(key("enter"))
	if len(eng.lines) != 1 || strings.Contains(strings.Join(*printed, "\n"), "next one") {
		t.Fatalf("lines %q, printed %q", eng.lines, *printed)
	}
	if !strings.Contains(ansi.Strip(m.render()), "queued › next one") {
		t.Fatalf("not shown as queued:\n%s", ansi.Strip(m.render()))
	}
	m.Update(delta("the answer\n\n"))
	m.Update(runEndMsg{totals: agent.Outcome{}})
	m.Update(lineReadMsg{})
	all := ansi.Strip(strings.Join(*printed, "\n"))
	if a, e := strings.Index(all, "the answer"), strings.Index(all, "› next one"); a < 0 || e < a {
		t.Fatalf("the queued prompt is not after the answer:\n%s", all)
	}
	if strings.Contains(ansi.Strip(m.render()), "queued") {
		t.Fatal("still shown as queued")
	}
	// Idle: echoed at once; its line read later prints nothing more.
	n := len(*printed)
	typeText(m, "now")
	m.Update(key("enter"))
	m.Update(lineReadMsg{})
	if got := ansi.Strip(strings.Join((*printed)[n:], "\n")); strings.Count(got, "› now") != 1 {
		t.Fatalf("printed %q", got)
	}
}
