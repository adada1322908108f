package ui

import "strings"

// stripEscapes removes the terminal escape sequences a line can carry when the terminal
// sends keys the plain line reader does not handle (arrows, Home, F-keys, Alt-letter,
// bracketed-paste markers): CSI (ESC [ … final byte), SS3 (ESC O x), OSC and other
// string sequences (up to BEL or ESC \), any other ESC x pair, and the 8-bit CSI. What
// is left is what was typed; none of it reaches the model as text.
func stripEscapes(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b") {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\u009b':
			i = skipCSI(rs, i+1)
		case c != 0x1b:
			b.WriteRune(c)
		case i+1 >= len(rs):
			// a lone ESC at the end
		default:
			switch rs[i+1] {
			case '[':
				i = skipCSI(rs, i+2)
			case 'O':
				i += 2 // SS3 and its one character
			case ']', 'P', 'X', '^', '_':
				i = skipString(rs, i+2)
			default:
				i++ // ESC x (Alt-x)
			}
		}
	}
	return b.String()
}

// skipCSI returns the index of the final byte of a CSI sequence whose parameters start
// at i (or the last index, for a sequence cut short).
func skipCSI(rs []rune, i int) int {
	for ; i < len(rs); i++ {
		if rs[i] >= 0x40 && rs[i] <= 0x7e {
			return i
		}
		if rs[i] < 0x20 || rs[i] > 0x7e {
			return i - 1 // not part of a CSI: keep it
		}
	}
	return len(rs) - 1
}

// skipString returns the index ending a string sequence (BEL, or the \ of ESC \).
func skipString(rs []rune, i int) int {
	for ; i < len(rs); i++ {
		if rs[i] == 0x07 {
			return i
		}
		if rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '\\' {
			return i + 1
		}
	}
	return len(rs) - 1
}
