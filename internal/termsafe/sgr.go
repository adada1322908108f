package termsafe

import "strings"

// KeepColour returns s for a terminal as Escape does, except that Select Graphic
// Rendition sequences (ESC [ digits, ';' and ':' m: colours, bold, underline, reset) are
// kept as they are. A status line script colours its text with them; every other
// sequence (cursor moves, screen clears, OSC titles and clipboard writes, private modes)
// is shown escaped and does nothing. A reset is added at the end when a colour was kept,
// so the rest of the screen is not painted with it.
func KeepColour(s string) string {
	var b strings.Builder
	kept := false
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			break
		}
		n := sgrLen(s[i:])
		if n == 0 {
			b.WriteString(Escape(s[:i+1])) // the ESC, escaped; what follows is text
			s = s[i+1:]
			continue
		}
		b.WriteString(Escape(s[:i]))
		b.WriteString(s[i : i+n])
		kept = true
		s = s[i+n:]
	}
	b.WriteString(Escape(s))
	if kept {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// sgrLen is the length of the SGR sequence s starts with ("\x1b[" params "m"), or 0.
// Parameters are bounded so that a line cannot hide a long sequence.
func sgrLen(s string) int {
	for i := 2; i < len(s) && i < 64; i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}
