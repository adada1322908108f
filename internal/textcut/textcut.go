// Package textcut shortens text for a reader (a model, a judge, a terminal) without
// breaking it. Every cut falls between characters, never inside a UTF-8 sequence, and,
// where it is cheap to see, not inside a character built from several code points either:
// an emoji with a skin tone ("👍🏽"), a zero-width-joiner family ("👨‍👩‍👧"), a flag, a
// keycap, a letter followed by combining marks, or "\r\n". Such a cluster is kept whole or
// dropped whole.
//
// Limits bound the whole result: Bytes(s, 200, "…") is at most 200 bytes with the marker,
// and Runes(s, 40, "…") at most 40 runes. A marker that does not fit in the limit is left
// out. An empty marker makes a plain clean prefix.
//
// The package imports nothing of ouro's, so every package can use it.
package textcut

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bytes returns s when it is at most n bytes long. Otherwise it returns the longest clean
// start of s that leaves room for marker, followed by marker: at most n bytes in all.
func Bytes(s string, n int, marker string) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	if len(marker) > n {
		marker = ""
	}
	return s[:cleanHead(s, n-len(marker))] + marker
}

// Runes returns s when it has at most n runes. Otherwise it returns the longest clean start
// of s that leaves room for marker, followed by marker: at most n runes in all.
func Runes(s string, n int, marker string) string {
	marker, room, cut := runeRoom(s, n, marker)
	if !cut {
		return s
	}
	return s[:cleanHead(s, runeOffset(s, room))] + marker
}

// TailRunes returns s when it has at most n runes. Otherwise it returns marker followed by
// the longest clean end of s that leaves room for it: at most n runes in all (the end of
// an error output, where the last lines say most).
func TailRunes(s string, n int, marker string) string {
	marker, room, cut := runeRoom(s, n, marker)
	if !cut {
		return s
	}
	return marker + s[cleanTail(s, lastRunesOffset(s, room)):]
}

// runeRoom says how s is cut to n runes with marker: cut false keeps s whole (it fits);
// else room is how many runes of s stay beside the marker, which is left out when it
// does not fit in n. A limit of 0 or less cuts everything.
func runeRoom(s string, n int, marker string) (string, int, bool) {
	if n <= 0 {
		return "", 0, len(s) > 0
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return marker, 0, false
	}
	m := utf8.RuneCountInString(marker)
	if m > n {
		marker, m = "", 0
	}
	return marker, n - m, true
}

// OneLine is s on one line, each run of white space (newlines and tabs included) made one
// space and the ends trimmed, then cut as Runes cuts it: a title, a summary, a table cell.
func OneLine(s string, n int, marker string) string {
	return Runes(strings.Join(strings.Fields(s), " "), n, marker)
}

// HeadTailRunes splits a long s into its start and its end, leaving out the middle: head
// is at most h runes from the start of s and tail at most t runes from its end, both cut
// clean. When s has at most h+t runes nothing is left out: it returns s and "".
func HeadTailRunes(s string, h, t int) (head, tail string) {
	h, t = max(h, 0), max(t, 0)
	if utf8.RuneCountInString(s) <= h+t {
		return s, ""
	}
	head = s[:cleanHead(s, runeOffset(s, h))]
	if t == 0 {
		return head, ""
	}
	return head, s[cleanTail(s, lastRunesOffset(s, t)):]
}

// LastLines returns the last n lines of s, trailing newlines dropped first. It cuts only
// at newlines, so it never splits a character.
func LastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if n <= 0 {
		return ""
	}
	i := len(s)
	for ; n > 0; n-- {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	return s[i+1:]
}

// runeOffset returns the byte offset just after the first n runes of s (len(s) if s has
// fewer).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// lastRunesOffset returns the byte offset where the last n runes of s begin (0 if s has
// fewer).
func lastRunesOffset(s string, n int) int {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	return i
}

// maxCluster bounds how far a cut moves to keep a cluster whole. Real clusters are far
// shorter (a family emoji with skin tones is about 30 bytes); past this the text is one
// long run of joiners or combining marks, and a cut between runes keeps more of it.
const maxCluster = 64

// cleanHead returns the largest clean cut at most i bytes into s, for keeping s[:cut].
func cleanHead(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	for j := i; i-j <= maxCluster; {
		if !joined(s, j) {
			return j
		}
		_, w := utf8.DecodeLastRuneInString(s[:j])
		j -= w
	}
	return i
}

// cleanTail returns the smallest clean cut at least i bytes into s, for keeping s[cut:].
func cleanTail(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	for j := i; j-i <= maxCluster; {
		if !joined(s, j) {
			return j
		}
		_, w := utf8.DecodeRuneInString(s[j:])
		j += w
	}
	return i
}

const zwj = '\u200D'

// joined reports whether the rune boundary at byte i of s falls inside what a reader sees
// as one character. It is a cheap approximation of Unicode's grapheme cluster rules
// (UAX #29), covering the clusters common in chat and code: extenders, joiners, flags and
// CRLF.
func joined(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i:])
	switch {
	case extends(after):
		return true
	case before == zwj:
		return true
	case before == '\r' && after == '\n':
		return true
	case regional(before) && regional(after):
		// Flags are pairs of regional indicators: the boundary is inside one when an odd
		// number of them runs up to it.
		k := 0
		for j := i; j > 0; {
			r, w := utf8.DecodeLastRuneInString(s[:j])
			if !regional(r) {
				break
			}
			k++
			j -= w
		}
		return k%2 == 1
	}
	return false
}

// extends reports whether r attaches to the character before it.
func extends(r rune) bool {
	switch {
	case r < 0x300:
		return false // ASCII and Latin-1: nothing attaches (fast path)
	case r == zwj,
		r >= 0xFE00 && r <= 0xFE0F,   // variation selectors (emoji vs text style)
		r >= 0xE0100 && r <= 0xE01EF, // variation selectors supplement
		r >= 0x1F3FB && r <= 0x1F3FF, // emoji skin tone modifiers
		r >= 0xE0020 && r <= 0xE007F: // tags (subdivision flags)
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc)
}

func regional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }
