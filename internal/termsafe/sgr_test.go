package termsafe

import "testing"

func TestKeepColour(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[0;32mdir\x1b[0m | m", "\x1b[0;32mdir\x1b[0m | m\x1b[0m"},
		{"\x1b[38;2;1;2;3mx", "\x1b[38;2;1;2;3mx\x1b[0m"},
		// Everything that is not a colour is shown, and does nothing.
		{"\x1b[2Jclear", `\x1b[2Jclear`},
		{"\x1b[?1049h", `\x1b[?1049h`},
		{"\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`},
		{"\x1b]0;title\x1b\\", `\x1b]0;title\x1b\`},
		{"a\x1b[1Ab", `a\x1b[1Ab`},
		{"\x1b[31mred\x1b[H", "\x1b[31mred\\x1b[H\x1b[0m"},
		{"bell\x07 \u202e", `bell\x07 \u202e`},
		{"\x1b[", `\x1b[`},
		{"\x9b2J", `\x9b2J`},
		{"\u009b2J", `\u009b2J`},
	} {
		if got := KeepColour(c.in); got != c.want {
			t.Errorf("KeepColour(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
