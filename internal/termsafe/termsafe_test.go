package termsafe

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\twith tabs":         "plain text\n\twith tabs",
		"héllo, 世界":                       "héllo, 世界",
		"\x1b]52;c;aGk=\x07copied":        `\x1b]52;c;aGk=\x07copied`,
		"\x1b]0;new title\x1b\\":          `\x1b]0;new title\x1b\`,
		"\x1b[2J\x1b[H\x1b[31mred":        `\x1b[2J\x1b[H\x1b[31mred`,
		"nul\x00 del\x7f bs\b cr\r":       `nul\x00 del\x7f bs\x08 cr\x0d`,
		"c1 \u009b2J and \u009d0;t\u009c": `c1 \u009b2J and \u009d0;t\u009c`,
		"bidi \u202eevil\u202c \u2028":    `bidi \u202eevil\u202c \u2028`,
		"raw \x9b byte and \xff":          `raw \x9b byte and \xff`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(Escape(in), "\x1b\x07\x00\u009b") {
			t.Errorf("Escape(%q) keeps a control", in)
		}
	}
}

func TestForModel(t *testing.T) {
	for in, want := range map[string]string{
		"line\r\nnext\ttab":         "line\r\nnext\ttab",
		"nul\x00 esc\x1b[31m bel\a": `nul\x00 esc\x1b[31m bel\x07`,
		"c1 \u009b, bidi \u202e":    `c1 \u009b, bidi ` + "\u202e",
	} {
		if got := ForModel(in); got != want {
			t.Errorf("ForModel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriterJoinsCutRunes(t *testing.T) {
	var sb strings.Builder
	w := NewWriter(&sb)
	s := "a\u009bb世\x1b]52;c;x\x07"
	for i := 0; i < len(s); i++ { // one byte a write: every rune is cut
		if n, err := w.Write([]byte{s[i]}); n != 1 || err != nil {
			t.Fatal(n, err)
		}
	}
	if got, want := sb.String(), `a\u009bb世\x1b]52;c;x\x07`; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
