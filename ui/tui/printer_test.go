package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A print taller than the screen beside the live area (a /doctor at 80x24) goes out in
// pieces that fit, in order, none lost; the renderer could not place a taller one.
func TestTallPrintGoesInPieces(t *testing.T) {
	m, _, _ := testModel(t, 80)
	var want []string
	for i := range 60 {
		want = append(want, fmt.Sprintf("line %d", i))
	}
	m.output(strings.Join(want, "\n") + "\n")
	live := strings.Count(m.render(), "\n") + 1
	var got []string
	for pieces := 0; ; pieces++ {
		text, redraw, ok := m.nextPrint()
		if !ok {
			if pieces < 2 {
				t.Fatalf("%d lines went out in %d print(s)", len(want), pieces)
			}
			break
		}
		if redraw {
			t.Fatal("a redraw nobody asked for")
		}
		lines := strings.Split(text, "\n")
		if len(lines)+live >= m.height {
			t.Fatalf("a print of %d lines beside a live area of %d, on a screen of %d", len(lines), live, m.height)
		}
		got = append(got, lines...)
		m.printing = false
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("printed:\n%s", strings.Join(got, "\n"))
	}
}

// Ctrl-L clears the screen and prints again the last lines that fit above the live area,
// after what is still queued; it works with a dialog open too.
func TestCtrlLRedraws(t *testing.T) {
	m, _, _ := testModel(t, 80)
	for i := range 40 {
		m.print(fmt.Sprintf("old %d", i))
	}
	for {
		if _, _, ok := m.nextPrint(); !ok {
			break
		}
		m.printing = false
	}
	m.print("queued")
	m.Update(key("ctrl+l")) // its update prints what is queued first
	if len(m.outbox) != 0 || m.recent[len(m.recent)-1] != "queued" || !m.redraw {
		t.Fatalf("outbox %q, redraw %v", m.outbox, m.redraw)
	}
	m.printing = false
	text, redraw, ok := m.nextPrint()
	if !ok || !redraw || !strings.HasPrefix(text, clearScreen) {
		t.Fatalf("Ctrl-L printed %q (redraw %v)", text, redraw)
	}
	lines := strings.Split(strings.TrimPrefix(text, clearScreen), "\n")
	if lines[len(lines)-1] != "queued" || lines[len(lines)-2] != "old 39" {
		t.Fatalf("the redraw ends with %q", lines[max(0, len(lines)-3):])
	}
	if live := strings.Count(m.render(), "\n") + 1; len(lines)+live >= m.height || len(lines) < m.height-live-2 {
		t.Fatalf("the redraw printed %d lines beside a live area of %d on a screen of %d", len(lines), live, m.height)
	}
	m.printing = false
	if _, _, ok := m.nextPrint(); ok {
		t.Fatal("Ctrl-L redrew twice")
	}
	m.Update(approveMsg{reply: nil})
	m.printing = true // a print in flight: the redraw waits for it
	m.Update(key("ctrl+l"))
	if !m.redraw || m.dialog == nil || m.dialog.hint != "" {
		t.Fatalf("Ctrl-L with a dialog open: redraw %v, hint %q", m.redraw, ansi.Strip(m.dialog.hint))
	}
}
