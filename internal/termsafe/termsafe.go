// Package termsafe keeps text that comes from outside ouro (the model, tools, hooks,
// workflow scripts, teammates, MCP servers) from driving the terminal it is shown on or
// hiding in what the model reads. A lying model or a hostile file could otherwise send the
// terminal its own control sequences: write the clipboard (OSC 52), retitle the window,
// clear the screen, move the cursor to paint a fake prompt. Every view shows such text
// through Escape (or a Writer); tool and hook output reaches the model through ForModel.
//
// Control characters are shown, never dropped, so a person sees that they were there: ESC
// reads \x1b (an OSC 52 write reads \x1b]52;c;…\x07 and does nothing).
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Escape returns s for a terminal: newline and tab are kept; every other C0 control, DEL
// and each byte that is not UTF-8 read \xNN; C1 controls (U+0080–U+009F, which some
// terminals obey as CSI and OSC), Unicode's bidirectional controls (which reorder what is
// shown, as in "Trojan source") and the line and paragraph separators read \uNNNN.
func Escape(s string) string { return escape(s, forTerminal) }

// ForModel returns s for the model: NUL and the other C0 controls but newline, tab and
// carriage return, DEL and the C1 controls read \xNN or \uNNNN, so that the model sees
// them for what they are and no escape sequence passes through it to a terminal.
func ForModel(s string) string { return escape(s, forModel) }

type policy int

const (
	forTerminal policy = iota
	forModel
)

func escape(s string, p policy) string {
	i := firstUnsafe(s, p)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			if p == forTerminal {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			} else {
				b.WriteByte(s[i])
			}
		} else if unsafe(r, p) {
			writeEscape(&b, r)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func writeEscape(b *strings.Builder, r rune) {
	if r < 0x80 {
		fmt.Fprintf(b, `\x%02x`, r)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}

// firstUnsafe is the index of the first byte Escape changes, or -1.
func firstUnsafe(s string, p policy) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafe(rune(c), p) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 && p == forTerminal || unsafe(r, p) {
			return i
		}
		i += size
	}
	return -1
}

func unsafe(r rune, p policy) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == '\r':
		return p == forTerminal
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case p == forModel:
		return false
	}
	return r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

// Writer escapes what is written through it (see Escape) before it reaches W. A rune cut
// across two writes is joined before it is judged. It is safe for concurrent use.
type Writer struct {
	W    io.Writer
	mu   sync.Mutex
	tail []byte // the start of a rune the last write cut off
}

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

// Write escapes p and writes it; it reports len(p) when the escaped text was written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := p
	if len(w.tail) > 0 {
		buf = append(w.tail, p...)
		w.tail = nil
	}
	// Keep back the start of a rune the write cut off (at most 3 bytes).
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(buf[i]) {
			if buf[i] >= utf8.RuneSelf && !utf8.FullRune(buf[i:]) {
				w.tail = append([]byte(nil), buf[i:]...)
				buf = buf[:i]
			}
			break
		}
	}
	if _, err := io.WriteString(w.W, Escape(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}
