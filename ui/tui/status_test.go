package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The status line's text is drawn under the footer, cut to the screen's width, its
// colours reset after it; an empty text draws no row.
func TestStatusLineUnderFooter(t *testing.T) {
	m, _, _ := testModel(t, 40)
	before := strings.Count(m.render(), "\n")
	m.Update(statusMsg("\x1b[32mmain\x1b[0m | " + strings.Repeat("x", 60)))
	frame := m.render()
	lines := strings.Split(frame, "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(lines[len(lines)-2], "shift+tab") || !strings.HasPrefix(ansi.Strip(last), "main | xxx") || ansi.StringWidth(last) > 40 {
		t.Fatalf("the status line is not under the footer, within 40 columns:\n%q", lines[len(lines)-2:])
	}
	if !strings.Contains(last, "\x1b[32m") || !strings.HasSuffix(last, "\x1b[0m") {
		t.Fatalf("colours: %q", last)
	}
	m.Update(statusMsg(""))
	if n := strings.Count(m.render(), "\n"); n != before {
		t.Fatalf("an empty status line left a row (%d lines, %d before)", n, before)
	}
}
