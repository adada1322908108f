package tool

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The output budget keeps a head and a tail of a long result; whatever the budget, neither
// may end or start inside a Chinese character or an emoji.
func TestHeadTailKeepsCharactersAndEmojiWhole(t *testing.T) {
	pieces := []string{"代", "理", "循", "环", "工", "具", " ", "👨‍👩‍👧", " ", "👍🏽", "\n"}
	line := strings.Join(pieces, "")
	clean := map[string]bool{} // every start and every end of line that cuts between pieces
	for i := range len(pieces) + 1 {
		clean[strings.Join(pieces[:i], "")] = true
		clean[strings.Join(pieces[i:], "")] = true
	}
	s := strings.Repeat(line, 50)
	for h := range 40 {
		for tl := range 40 {
			head, tail := headTail(s, h, tl)
			if !utf8.ValidString(head) || !utf8.ValidString(tail) || !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
				t.Fatalf("headTail(s, %d, %d) = %q, %q: not a clean start and end of s", h, tl, head, tail)
			}
			if last := head[strings.LastIndexByte(head, '\n')+1:]; !clean[last] {
				t.Errorf("headTail(s, %d, %d): the head ends inside a character: %q", h, tl, last)
			}
			if i := strings.IndexByte(tail, '\n'); i >= 0 && !clean[tail[:i+1]] || i < 0 && !clean[tail] {
				t.Errorf("headTail(s, %d, %d): the tail starts inside a character: %q", h, tl, tail)
			}
		}
	}
}
