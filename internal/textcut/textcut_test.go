package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	zh     = "代理循环工具"        // 6 runes, 3 bytes each
	thumb  = "👍🏽"            // thumbs up + skin tone: 2 runes, 8 bytes
	family = "👨‍👩‍👧"         // man ZWJ woman ZWJ girl: 5 runes, 18 bytes
	flags  = "🇨🇳🇯🇵"          // two flags, four regional indicators, 16 bytes
	keycap = "1\uFE0F\u20E3" // keycap one: 3 runes, 7 bytes
	accent = "e\u0301"       // e + combining acute: 2 runes, 3 bytes
)

func TestBytes(t *testing.T) {
	tests := []struct {
		name   string
		s      string
		n      int
		marker string
		want   string
	}{
		{"fits", "hello", 5, "…", "hello"},
		{"ascii", "hello world", 8, "…", "hello…"},
		{"ascii no marker", "hello world", 5, "", "hello"},
		{"zero", "hello", 0, "…", ""},
		{"negative", "hello", -3, "…", ""},
		{"marker larger than limit is left out", "hello", 2, "…", "he"},
		{"marker exactly the limit", "hello", 3, "…", "…"},
		{"chinese on a boundary", zh, 9 + 3, "…", "代理循…"},
		{"chinese mid rune", zh, 10 + 3, "…", "代理循…"},
		{"chinese one byte short", zh, 17, "", "代理循环工"},
		{"chinese one byte in", zh, 1, "", ""},
		{"skin tone stays with its thumb", "ok " + thumb + " done", 3 + 4 + 3, "…", "ok …"},
		{"whole thumb fits", "ok " + thumb + " done", 3 + 8 + 3, "…", "ok " + thumb + "…"},
		{"family kept whole or not at all", "ab" + family + "cdef", 2 + 17 + 3, "…", "ab…"},
		{"family whole", "ab" + family + "cdef", 2 + 18 + 3, "…", "ab" + family + "…"},
		{"cut right after a joiner", "ab" + family, 2 + 4 + 3 + 3, "…", "ab…"},
		{"flags are pairs", flags + "x", 12 + 3, "…", "🇨🇳…"},
		{"keycap", "a" + keycap + "b", 1 + 4 + 3, "…", "a…"},
		{"combining accent", "caf" + accent + "!!!", 4 + 3, "…", "caf…"},
		{"crlf", "line\r\nnext", 5 + 3, "…", "line…"},
		{"a cluster that does not fit is dropped", "a" + strings.Repeat("\u0301", 10), 7 + 3, "…", "…"},
		{"an endless cluster is cut between runes", "a" + strings.Repeat("\u0301", 60), 71 + 3, "…", "a" + strings.Repeat("\u0301", 35) + "…"},
		{"invalid input is not made worse", "ab\xffcdefg", 4 + 3, "…", "ab\xffc…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Bytes(tc.s, tc.n, tc.marker)
			if got != tc.want {
				t.Errorf("Bytes(%q, %d, %q) = %q, want %q", tc.s, tc.n, tc.marker, got, tc.want)
			}
			if len(got) > max(tc.n, 0) && got != tc.s {
				t.Errorf("Bytes(%q, %d, %q) = %q: %d bytes, over the limit", tc.s, tc.n, tc.marker, got, len(got))
			}
		})
	}
}

func TestRunes(t *testing.T) {
	checkCuts(t, "Runes", Runes, []cutCase{
		{"fits", zh, 6, "…", zh},
		{"chinese", zh, 4, "…", "代理循…"},
		{"chinese no marker", zh, 4, "", "代理循环"},
		{"counts runes not bytes", "ab" + zh, 3, "", "ab代"},
		{"zero", zh, 0, "…", ""},
		{"marker larger than limit is left out", zh, 2, "[cut]", "代理"},
		{"skin tone", "ok" + thumb + "!", 4, "…", "ok…"},
		{"skin tone whole", "ok" + thumb + "!!", 5, "…", "ok" + thumb + "…"},
		{"family", "我们" + family + "好", 6, "…", "我们…"},
		{"family whole", "我们" + family + "好好", 8, "…", "我们" + family + "…"},
		{"flags", flags + "!", 4, "…", "🇨🇳…"},
		{"multi-rune marker", "abcdefghij", 9, " [cut]", "abc [cut]"},
	})
}

// cutCase is a cut of s to n with marker, and what it must give.
type cutCase struct {
	name   string
	s      string
	n      int
	marker string
	want   string
}

// checkCuts runs cut over tests: each gives its want, within its limit, as valid UTF-8.
func checkCuts(t *testing.T, name string, cut func(string, int, string) string, tests []cutCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := cut(tc.s, tc.n, tc.marker)
			if got != tc.want {
				t.Errorf("%s(%q, %d, %q) = %q, want %q", name, tc.s, tc.n, tc.marker, got, tc.want)
			}
			if !utf8.ValidString(got) || (utf8.RuneCountInString(got) > max(tc.n, 0) && got != tc.s) {
				t.Errorf("%s(%q, %d, %q) = %q: over the limit or broken", name, tc.s, tc.n, tc.marker, got)
			}
		})
	}
}

func TestHeadTailRunes(t *testing.T) {
	tests := []struct {
		name       string
		s          string
		h, t       int
		head, tail string
	}{
		{"fits", zh, 3, 3, zh, ""},
		{"chinese", zh + zh, 2, 3, "代理", "环工具"},
		{"emoji at both cuts", thumb + "abcdef" + family, 1, 2, "", ""},
		{"emoji whole at both ends", thumb + "abcdef" + family, 3, 6, thumb + "a", "f" + family},
		{"tail starts after a joiner", "abcdef" + family, 1, 3, "a", ""},
		{"no tail", zh, 2, 0, "代理", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			head, tail := HeadTailRunes(tc.s, tc.h, tc.t)
			if head != tc.head || tail != tc.tail {
				t.Errorf("HeadTailRunes(%q, %d, %d) = %q, %q; want %q, %q", tc.s, tc.h, tc.t, head, tail, tc.head, tc.tail)
			}
		})
	}
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\nc", 3, "a\nb\nc"},
		{"a\nb\nc", 5, "a\nb\nc"},
		{"代理\n循环\n工具\n\n", 1, "工具"},
		{"a\nb", 0, ""},
		{"", 3, ""},
	}
	for _, tc := range tests {
		if got := LastLines(tc.s, tc.n); got != tc.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// FuzzCut checks the promises for any valid UTF-8 input: the result is valid UTF-8, within
// the limit, s itself when s fits, and otherwise a start (or end) of s plus the marker.
func FuzzCut(f *testing.F) {
	for _, s := range []string{"", "hello world", zh, thumb + family + flags, keycap + accent + "\r\n", "a" + strings.Repeat("\u0301", 9), "🇨🇳🇯🇵🇺🇸"} {
		f.Add(s, 5, 3, "…")
		f.Add(s, 12, 7, "")
	}
	f.Fuzz(func(t *testing.T, s string, n, m int, marker string) {
		if !utf8.ValidString(s) || !utf8.ValidString(marker) {
			t.Skip()
		}
		n, m = n%64, m%64

		b := Bytes(s, n, marker)
		if !utf8.ValidString(b) {
			t.Fatalf("Bytes(%q, %d, %q) = %q: invalid UTF-8", s, n, marker, b)
		}
		if len(s) <= n {
			if b != s {
				t.Fatalf("Bytes(%q, %d, %q) = %q: changed a string that fits", s, n, marker, b)
			}
		} else {
			if len(b) > max(n, 0) {
				t.Fatalf("Bytes(%q, %d, %q) = %q: %d bytes, over the limit", s, n, marker, b, len(b))
			}
			if !strings.HasPrefix(s, strings.TrimSuffix(b, marker)) {
				t.Fatalf("Bytes(%q, %d, %q) = %q: not a start of s plus the marker", s, n, marker, b)
			}
		}

		r := Runes(s, n, marker)
		if !utf8.ValidString(r) {
			t.Fatalf("Runes(%q, %d, %q) = %q: invalid UTF-8", s, n, marker, r)
		}
		if utf8.RuneCountInString(s) <= n {
			if r != s {
				t.Fatalf("Runes(%q, %d, %q) = %q: changed a string that fits", s, n, marker, r)
			}
		} else {
			if utf8.RuneCountInString(r) > max(n, 0) {
				t.Fatalf("Runes(%q, %d, %q) = %q: over the limit", s, n, marker, r)
			}
			if !strings.HasPrefix(s, strings.TrimSuffix(r, marker)) {
				t.Fatalf("Runes(%q, %d, %q) = %q: not a start of s plus the marker", s, n, marker, r)
			}
		}

		head, tail := HeadTailRunes(s, n, m)
		if !utf8.ValidString(head) || !utf8.ValidString(tail) {
			t.Fatalf("HeadTailRunes(%q, %d, %d) = %q, %q: invalid UTF-8", s, n, m, head, tail)
		}
		if utf8.RuneCountInString(s) <= max(n, 0)+max(m, 0) {
			if head != s || tail != "" {
				t.Fatalf("HeadTailRunes(%q, %d, %d) = %q, %q: cut a string that fits", s, n, m, head, tail)
			}
			return
		}
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) || len(head)+len(tail) > len(s) {
			t.Fatalf("HeadTailRunes(%q, %d, %d) = %q, %q: not a start and an end of s", s, n, m, head, tail)
		}
		if utf8.RuneCountInString(head) > max(n, 0) || utf8.RuneCountInString(tail) > max(m, 0) {
			t.Fatalf("HeadTailRunes(%q, %d, %d) = %q, %q: over the limits", s, n, m, head, tail)
		}
	})
}

func TestTailRunes(t *testing.T) {
	checkCuts(t, "TailRunes", TailRunes, []cutCase{
		{"fits", zh, 6, "…", zh},
		{"chinese", zh, 4, "…", "…环工具"},
		{"chinese no marker", zh, 4, "", "循环工具"},
		{"zero", zh, 0, "…", ""},
		{"marker larger than limit is left out", zh, 2, "[cut]", "工具"},
		{"skin tone whole", "!!" + thumb + "ok", 5, "…", "…" + thumb + "ok"},
		{"skin tone dropped", "!" + thumb + "ok", 4, "…", "…ok"},
		{"family dropped", "好" + family + "我们", 6, "…", "…我们"},
		{"multi-rune marker", "abcdefghij", 9, "[cut] ", "[cut] hij"},
	})
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"  a\n\tb  c ", 10, "a b c"},
		{"first line\nsecond line", 12, "first line …"},
		{"代理\n循环工具", 4, "代理 …"},
		{"ok " + thumb + "\n!", 5, "ok …"},
	}
	for _, tc := range tests {
		if got := OneLine(tc.s, tc.n, "…"); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
