package tui

import (
	"os"
	"testing"

	"github.com/ouroagent/ouro/agent"
)

// Esc pressed again and again as a run ends sends the REPL one interrupt: a second one
// reaching it while idle would make it exit the process with the terminal still raw.
func TestOneInterruptPerRun(t *testing.T) {
	e := &replEngine{sigs: make(chan os.Signal, 4)}
	e.stopped.Store(true) // no program to tell
	e.interrupt()
	if len(e.sigs) != 0 {
		t.Fatal("an interrupt with no run reached the REPL")
	}
	e.RunStarted("p")
	e.interrupt()
	e.interrupt()
	e.interrupt()
	e.RunEnded(agent.Outcome{}, agent.Outcome{})
	e.interrupt()
	if len(e.sigs) != 1 {
		t.Fatalf("%d interrupts reached the REPL", len(e.sigs))
	}
}

func TestNoteNames(t *testing.T) {
	for in, prefix := range map[string]string{"The tests need `make gen`!": "note-the-tests-need-make-gen-", "###": "note-note-"} {
		if got := noteName(in); len(got) < len(prefix) || got[:len(prefix)] != prefix {
			t.Fatalf("noteName(%q) = %q", in, got)
		}
	}
}
