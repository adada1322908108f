package tools

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var omittedRE = regexp.MustCompile(`\[\.\.\. ([\d,]+) characters \(([\d,]+) lines\) omitted`)

// writeChunks writes s in chunks of pseudo-random size, so writes cross the head/ring
// boundary, wrap the ring, and split multi-byte characters.
func writeChunks(o *outputBuffer, s string, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed))
	for len(s) > 0 {
		n := min(len(s), 1+r.IntN(40))
		o.Write([]byte(s[:n]))
		s = s[n:]
	}
}

func TestOutputBufferFits(t *testing.T) {
	cases := []struct {
		name, in, want string
		max            int
	}{
		{"empty", "", "", 10},
		{"short", "hello\n", "hello\n", 10},
		{"exactly the limit", "0123456789", "0123456789", 10},
		{"multi-byte within the limit", "héllo wörld 世界", "héllo wörld 世界", 15},
		{"invalid UTF-8 replaced", "a\xff\xfeb", "a\uFFFDb", 10},
	}
	for _, tc := range cases {
		for seed := range uint64(5) {
			o := newOutputBuffer(tc.max)
			writeChunks(o, tc.in, seed)
			if got := o.String(); got != tc.want {
				t.Errorf("%s (seed %d): got %q, want %q", tc.name, seed, got, tc.want)
			}
		}
	}
}

func numberedLines(n int) string {
	var sb strings.Builder
	for i := range n {
		sb.WriteString(strings.Repeat("x", i%7) + "|" + strconv.Itoa(i) + "\n")
	}
	return sb.String()
}

func TestOutputBufferTruncates(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
	}{
		{"just over the limit", "0123456789A", 10},
		{"no newlines", strings.Repeat("abcdefghij", 1000), 100},
		{"lines", numberedLines(5000), 200},
		{"two-byte characters", strings.Repeat("é", 3000), 100},
		{"four-byte characters and lines", strings.Repeat("😀😀\n", 2000), 60},
		{"mixed widths", strings.Repeat("a世é😀\n", 777), 101},
		{"all of it in head and ring", numberedLines(40), 200},
		{"far longer than head and ring", numberedLines(100_000), 1000},
	}
	for _, tc := range cases {
		wantChars, wantLines := utf8.RuneCountInString(tc.in), strings.Count(tc.in, "\n")
		for seed := range uint64(5) {
			o := newOutputBuffer(tc.max)
			writeChunks(o, tc.in, seed)
			v := o.view()
			if !v.truncated {
				t.Fatalf("%s: %d characters over a limit of %d not truncated", tc.name, wantChars, tc.max)
			}
			head, tail := string(v.head), string(v.tail)
			if !utf8.ValidString(head) || !utf8.ValidString(tail) {
				t.Errorf("%s (seed %d): a character was split: %q ... %q", tc.name, seed, head, tail)
			}
			if !strings.HasPrefix(tc.in, head) || !strings.HasSuffix(tc.in, tail) || len(head) == 0 || len(tail) == 0 {
				t.Errorf("%s (seed %d): head %q / tail %q are not the input's beginning and end", tc.name, seed, head, tail)
			}
			shown := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
			if shown > tc.max {
				t.Errorf("%s: shows %d characters, limit %d", tc.name, shown, tc.max)
			}
			// What is shown and what is reported omitted must add up: nothing is cut silently.
			if got := shown + int(v.omittedChars); got != wantChars {
				t.Errorf("%s (seed %d): %d shown + %d omitted = %d characters, input has %d",
					tc.name, seed, shown, v.omittedChars, got, wantChars)
			}
			if got := strings.Count(head, "\n") + int(v.omittedLines) + strings.Count(tail, "\n"); got != wantLines {
				t.Errorf("%s (seed %d): lines add up to %d, input has %d", tc.name, seed, got, wantLines)
			}

			out := o.String()
			m := omittedRE.FindStringSubmatch(out)
			if m == nil || m[1] != groupDigits(v.omittedChars) || m[2] != groupDigits(v.omittedLines) {
				t.Fatalf("%s: marker %q does not report %d characters in %d lines", tc.name, m, v.omittedChars, v.omittedLines)
			}
			if !strings.HasPrefix(out, head) || !strings.HasSuffix(out, tail) {
				t.Errorf("%s: rendering does not start with the head and end with the tail", tc.name)
			}
		}
	}
}

func TestOutputBufferCutsAtLineEnds(t *testing.T) {
	in := numberedLines(1000)
	o := newOutputBuffer(300)
	writeChunks(o, in, 1)
	v := o.view()
	if h := string(v.head); !strings.HasSuffix(h, "\n") {
		t.Errorf("head ends mid-line: %q", h)
	}
	if tl := string(v.tail); !strings.HasSuffix(in, "\n"+tl) {
		t.Errorf("tail starts mid-line: %q", tl)
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -45000: "-45,000"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

func BenchmarkOutputBufferWrite(b *testing.B) {
	chunk := []byte(strings.Repeat("y\n", 16<<10))
	b.SetBytes(int64(len(chunk)))
	o := newOutputBuffer(30_000)
	for b.Loop() {
		o.Write(chunk)
	}
}
