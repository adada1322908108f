package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// clean makes text from the model, a tool or a file safe to draw: a lying model or a
// hostile file could otherwise send the terminal its own escape sequences (clear the
// screen, retitle the window, fake a dialog, write to the clipboard). Escape sequences
// go, and so do control characters other than newline and tab.
func clean(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

func isControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f
}
