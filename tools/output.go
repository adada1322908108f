package tools

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// outputBuffer is the io.Writer a command's output goes to. It keeps the beginning and
// the end of a stream of any length in memory bounded by the character limit: a head
// filled once, a ring holding the most recent bytes, and running counts of everything
// that passed through, so what was dropped in the middle can be reported exactly.
//
// Characters are counted as UTF-8 lead bytes (every byte that is not 10xxxxxx); for valid
// UTF-8 that is the rune count, and the same measure is used for what is kept and what
// is left out, so the numbers always add up.
type outputBuffer struct {
	maxChars int

	mu      sync.Mutex
	head    []byte // the first headCap bytes
	headCap int
	ring    []byte // the most recent bytes after head; allocated on first use
	ringCap int
	ringPos int  // next write position in ring
	ringFul bool // ring has wrapped at least once
	total   int64
	chars   int64
	lines   int64
}

// newOutputBuffer returns a buffer for output shown up to maxChars characters. Head and
// ring hold 2*maxChars bytes each: a UTF-8 character is at most 4 bytes, so each holds
// at least the maxChars/2 characters it may have to show.
func newOutputBuffer(maxChars int) *outputBuffer {
	if maxChars < 2 {
		maxChars = 2
	}
	return &outputBuffer{maxChars: maxChars, headCap: 2 * maxChars, ringCap: 2 * maxChars}
}

// Write never fails and never blocks, so a command printing without end cannot stall
// on its pipe or grow memory.
func (o *outputBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(p)
	o.total += int64(n)
	o.lines += int64(bytes.Count(p, []byte{'\n'}))
	o.chars += int64(countChars(p))

	if room := o.headCap - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if o.ring == nil {
		o.ring = make([]byte, o.ringCap)
	}
	if len(p) >= o.ringCap {
		copy(o.ring, p[len(p)-o.ringCap:])
		o.ringPos, o.ringFul = 0, true
		return n, nil
	}
	k := copy(o.ring[o.ringPos:], p)
	if k < len(p) {
		copy(o.ring, p[k:])
		o.ringFul = true
	}
	o.ringPos = (o.ringPos + len(p)) % o.ringCap
	if o.ringPos == 0 && len(p) > 0 {
		o.ringFul = true
	}
	return n, nil
}

// outputView is what is shown of the output: all of it, or a head and a tail with the
// size of the part left out between them.
type outputView struct {
	head, tail   []byte // raw bytes; tail is nil unless truncated
	truncated    bool
	omittedChars int64
	omittedLines int64
	totalChars   int64
}

// view decides what to show: all of it when it fits in maxChars characters, otherwise
// the first and last halves, cut at line ends where that costs at most half of each.
func (o *outputBuffer) view() outputView {
	o.mu.Lock()
	defer o.mu.Unlock()
	tail := o.tailBytes()
	gap := o.total - int64(len(o.head)) - int64(len(tail))
	if gap == 0 && o.chars <= int64(o.maxChars) {
		whole := make([]byte, 0, len(o.head)+len(tail))
		return outputView{head: append(append(whole, o.head...), tail...), totalChars: o.chars}
	}

	first, last := o.head, tail
	if gap == 0 {
		// Everything is here but too long: split the whole at its middle.
		first = append(append(make([]byte, 0, len(o.head)+len(tail)), o.head...), tail...)
		last = first
	}
	keepHead := o.maxChars / 2
	keepTail := o.maxChars - keepHead
	h := snapHeadToLine(first[:prefixChars(first, keepHead)])
	t := snapTailToLine(last[len(last)-suffixBytes(last, keepTail):])
	return outputView{
		head:         h,
		tail:         t,
		truncated:    true,
		omittedChars: o.chars - int64(countChars(h)) - int64(countChars(t)),
		omittedLines: o.lines - int64(bytes.Count(h, []byte{'\n'})) - int64(bytes.Count(t, []byte{'\n'})),
		totalChars:   o.chars,
	}
}

// String renders the view for the model. Invalid UTF-8 is replaced; "" means nothing
// was written.
func (o *outputBuffer) String() string {
	s, _ := o.render()
	return s
}

// render is String, and how many characters of the output it leaves out.
func (o *outputBuffer) render() (string, int64) {
	v := o.view()
	if !v.truncated {
		return strings.ToValidUTF8(string(v.head), "\uFFFD"), 0
	}
	var sb strings.Builder
	sb.WriteString(strings.ToValidUTF8(string(v.head), "\uFFFD"))
	if len(v.head) > 0 && v.head[len(v.head)-1] != '\n' {
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "\n[... %s characters (%s lines) omitted: the output had %s characters in all and only the first and last %s are shown. To see the rest, rerun with the output redirected to a file and search or read that file in parts. ...]\n\n",
		groupDigits(v.omittedChars), groupDigits(v.omittedLines), groupDigits(v.totalChars), groupDigits(int64(o.maxChars)))
	sb.WriteString(strings.ToValidUTF8(string(v.tail), "\uFFFD"))
	return sb.String(), v.omittedChars
}

// tailBytes returns the ring's content in write order.
func (o *outputBuffer) tailBytes() []byte {
	if !o.ringFul {
		return o.ring[:o.ringPos]
	}
	out := make([]byte, 0, o.ringCap)
	return append(append(out, o.ring[o.ringPos:]...), o.ring[:o.ringPos]...)
}

func isLeadByte(c byte) bool { return c&0xC0 != 0x80 }

func countChars(p []byte) int {
	n := 0
	for _, c := range p {
		if isLeadByte(c) {
			n++
		}
	}
	return n
}

// prefixChars returns the length in bytes of p's first n characters; the cut always
// falls before a lead byte, so no character is split.
func prefixChars(p []byte, n int) int {
	seen := 0
	for i, c := range p {
		if isLeadByte(c) {
			if seen == n {
				return i
			}
			seen++
		}
	}
	return len(p)
}

// suffixBytes returns the length in bytes of p's last n characters, starting at a lead
// byte; stray continuation bytes before it are dropped with the omitted part.
func suffixBytes(p []byte, n int) int {
	if n == 0 {
		return 0
	}
	seen := 0
	for i := len(p) - 1; i >= 0; i-- {
		if isLeadByte(p[i]) {
			seen++
			if seen == n {
				return len(p) - i
			}
		}
	}
	// Fewer than n characters: keep from the first lead byte on.
	for i, c := range p {
		if isLeadByte(c) {
			return len(p) - i
		}
	}
	return 0
}

// snapHeadToLine ends the kept head after its last newline when that costs at most half
// of it, so the omission marker sits between whole lines.
func snapHeadToLine(h []byte) []byte {
	if i := bytes.LastIndexByte(h, '\n'); i >= 0 && i+1 >= len(h)/2 {
		return h[:i+1]
	}
	return h
}

// snapTailToLine starts the kept tail after its first newline when that costs at most
// half of it.
func snapTailToLine(t []byte) []byte {
	if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)/2 {
		return t[i+1:]
	}
	return t
}

// groupDigits formats n with comma thousands separators: 1234567 → "1,234,567".
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
