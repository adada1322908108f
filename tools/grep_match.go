package tools

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// grepMatcher finds the lines of a file that match a pattern. It avoids the regexp
// engine where it can: a pattern that is a plain literal is found with bytes.Index
// alone, and any other pattern is run only on the lines holding a literal every match
// must contain (the "required" literal), found the same way. Lines are never split into
// separate slices; matches are found in the whole file and mapped back to lines.
type grepMatcher struct {
	re        *regexp.Regexp
	needle    []byte // literal to look for; lower case when fold
	fold      bool   // needle is ASCII and compared ignoring case
	rare      int    // index in needle of the byte scanned for when fold
	exact     bool   // the needle is the whole pattern: no regexp needed
	multiline bool
}

// compileGrep compiles pattern (RE2 syntax). Without multiline, matches never span a
// newline: "." and classes like [^a] or \s do not match one, and ^ and $ match at line
// boundaries, as in ripgrep. With multiline, "." matches newlines too.
func compileGrep(pattern string, ignoreCase, multiline bool) (*grepMatcher, error) {
	flags := syntax.Perl &^ syntax.OneLine // ^ and $ at line boundaries
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	if multiline {
		flags |= syntax.DotNL
	}
	ast, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %s. The syntax is Go's RE2: no lookahead, lookbehind or backreferences; escape literal characters such as ( [ { . * + ? with a backslash", pattern, syntaxProblem(err))
	}
	if !multiline {
		if hasNewline(ast) {
			return nil, fmt.Errorf("the pattern %q matches a newline (\\n), which never happens within one line; set multiline to true to match across lines", pattern)
		}
		ast = withoutNewlines(ast)
	}
	m := &grepMatcher{multiline: multiline}
	lit, fold, whole := requiredLiteral(ast)
	if lit != "" && (!fold || isASCII(lit)) {
		m.exact = whole && !multiline
		m.needle = []byte(lit)
		m.fold = fold
		if fold {
			m.needle = bytes.ToLower(m.needle)
			m.rare = rarestByte(m.needle)
		}
	}
	if !m.exact || multiline {
		if m.re, err = regexp.Compile(ast.String()); err != nil {
			return nil, fmt.Errorf("invalid regular expression %q: %s", pattern, syntaxProblem(err))
		}
	}
	return m, nil
}

func syntaxProblem(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s in `%s`", se.Code, se.Expr)
	}
	return err.Error()
}

// hasNewline reports whether the pattern contains a literal newline.
func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && slices.Contains(re.Rune, '\n') {
		return true
	}
	return slices.ContainsFunc(re.Sub, hasNewline)
}

// withoutNewlines rewrites re so that nothing in it matches a newline.
func withoutNewlines(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		if len(out) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
		re.Rune = out
	}
	for i, s := range re.Sub {
		re.Sub[i] = withoutNewlines(s)
	}
	return re
}

// requiredLiteral returns the longest literal every match of re contains, whether it is
// case-folded, and whether it is all of re.
func requiredLiteral(re *syntax.Regexp) (lit string, fold, whole bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		l, f, _ := requiredLiteral(re.Sub[0])
		return l, f, false
	case syntax.OpRepeat:
		if re.Min >= 1 {
			l, f, _ := requiredLiteral(re.Sub[0])
			return l, f, false
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if l, f, _ := requiredLiteral(s); len(l) > len(lit) {
				lit, fold = l, f
			}
		}
		// Two bytes or more pay for the prefilter; one would stop at almost every line.
		if len(lit) < 2 {
			lit = ""
		}
		return lit, fold, false
	}
	return "", false, false
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// rarestByte picks the byte of a lower-case needle that is likely rarest in source
// text: anything but a letter or a space first, then letters from the least common.
func rarestByte(needle []byte) int {
	const byFrequency = " etaoinsrlcdhupmfgbywvkxzjq" // most to least common
	best, bestRank := 0, -1
	for i, c := range needle {
		rank := len(byFrequency) + 1
		if j := strings.IndexByte(byFrequency, c); j >= 0 {
			rank = j
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// index returns the offset of the first occurrence of the needle in data, or -1.
func (m *grepMatcher) index(data []byte) int {
	if !m.fold {
		return bytes.Index(data, m.needle)
	}
	// Scan for the rare byte in both cases with the vectorised IndexByte, then compare
	// the whole needle around it.
	c := m.needle[m.rare]
	u := c
	if 'a' <= c && c <= 'z' {
		u = c - 'a' + 'A'
	}
	n := len(m.needle)
	nextC, nextU := -2, -2 // next offsets of c and u at or after pos; -2: not yet looked
	for pos := m.rare; pos < len(data); {
		if nextC != -1 && nextC < pos {
			nextC = indexFrom(data, c, pos)
		}
		if c == u {
			nextU = nextC
		} else if nextU != -1 && nextU < pos {
			nextU = indexFrom(data, u, pos)
		}
		at := nextC
		if at == -1 || (nextU != -1 && nextU < at) {
			at = nextU
		}
		if at == -1 {
			return -1
		}
		start := at - m.rare
		if start+n <= len(data) && asciiEqualFold(data[start:start+n], m.needle) {
			return start
		}
		pos = at + 1
	}
	return -1
}

func indexFrom(data []byte, c byte, from int) int {
	i := bytes.IndexByte(data[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}

// asciiEqualFold compares s with lower-case ASCII t, ignoring the case of s.
func asciiEqualFold(s, t []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != t[i] {
			return false
		}
	}
	return true
}

// eachMatch calls fn with the bounds [start, end) of every line holding a match, in
// order and without the newline; in multiline mode one call may cover several lines,
// and no line is reported twice. fn returns false to stop.
func (m *grepMatcher) eachMatch(data []byte, fn func(start, end int) bool) {
	if m.multiline {
		m.eachMultiline(data, fn)
		return
	}
	for pos := 0; pos < len(data); {
		var at int
		switch {
		case m.needle != nil:
			i := m.index(data[pos:])
			if i < 0 {
				return
			}
			at = pos + i
			if !m.exact {
				ls, le := lineBounds(data, at)
				if !m.re.Match(data[ls:le]) {
					pos = le + 1
					continue
				}
			}
		default:
			loc := m.re.FindIndex(data[pos:])
			if loc == nil {
				return
			}
			at = pos + loc[0]
		}
		ls, le := lineBounds(data, at)
		if !fn(ls, le) {
			return
		}
		pos = le + 1
	}
}

func (m *grepMatcher) eachMultiline(data []byte, fn func(start, end int) bool) {
	if m.needle != nil && m.index(data) < 0 {
		return
	}
	reported := -1 // end of the last line reported
	for pos := 0; pos <= len(data); {
		loc := m.re.FindIndex(data[pos:])
		if loc == nil {
			return
		}
		ms, me := pos+loc[0], pos+loc[1]
		last := me
		if me > ms {
			last = me - 1 // the match's last byte: a newline it ends with belongs to its line
		}
		ls, _ := lineBounds(data, ms)
		_, le := lineBounds(data, last)
		ls = max(ls, reported+1)
		if ls <= le && ls < len(data) { // lines not reported yet, and not the empty end
			if !fn(ls, le) {
				return
			}
			reported = le
		}
		if me > ms {
			pos = me
		} else {
			pos = me + 1
		}
	}
}

// lineBounds returns the line holding data[at]: [start, end) without the newline.
func lineBounds(data []byte, at int) (int, int) {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	end := bytes.IndexByte(data[at:], '\n')
	if end < 0 {
		return start, len(data)
	}
	return start, at + end
}

// grepReader reads whole files into one reusable buffer per searcher, so a search
// allocates per file only when a file is larger than any before it.
type grepReader struct {
	buf   []byte
	limit int64
}

var errGrepTooLarge = errors.New("file too large")

// grow makes room for a file of size bytes (and one more, to see the end of a file
// that grew since it was measured).
func (r *grepReader) grow(size int64) {
	if need := int(size) + 1; cap(r.buf) < need {
		r.buf = make([]byte, 0, max(need, 64<<10))
	}
}

// grepLineWriter renders the matching lines of one file with their context, as
// ripgrep does: "path:12:text" for a match, "path-11-text" for context, "--" between
// groups that are not adjacent.
type grepLineWriter struct {
	data          []byte
	prefix        string // display path
	numbers       bool
	before, after int

	out      []byte
	shown    int  // lines written to out
	lines    int  // lines produced, shown or not
	full     bool // out reached its budget; further lines are only counted
	maxBytes int
	maxLines int

	next     int // offset of the first line not yet written
	nextNo   int // its line number (1-based)
	pending  int // context lines still owed after the last match
	wroteAny bool
}

// match writes the lines of a match, [start, end) without the last newline, preceded
// by the context before it.
func (w *grepLineWriter) match(start, end int) {
	w.flushAfter(start)
	from := start
	for k := 0; k < w.before && from > w.next; k++ {
		from = bytes.LastIndexByte(w.data[:from-1], '\n') + 1
	}
	if w.wroteAny && from > w.next && (w.before > 0 || w.after > 0) {
		w.emitRaw("--")
	}
	w.advanceTo(from)
	for w.next < start {
		w.emitLine('-')
	}
	for w.next <= end {
		w.emitLine(':')
	}
	w.pending = w.after
}

// finish writes the context owed after the last match.
func (w *grepLineWriter) finish() { w.flushAfter(len(w.data)) }

func (w *grepLineWriter) flushAfter(limit int) {
	for ; w.pending > 0 && w.next < limit && w.next < len(w.data); w.pending-- {
		w.emitLine('-')
	}
}

// advanceTo moves the cursor to offset to (a line start at or after next), keeping the
// line number in step.
func (w *grepLineWriter) advanceTo(to int) {
	if to > w.next {
		w.nextNo += bytes.Count(w.data[w.next:to], []byte{'\n'})
		w.next = to
	}
}

// emitLine writes the line at the cursor and moves past it.
func (w *grepLineWriter) emitLine(sep byte) {
	end := bytes.IndexByte(w.data[w.next:], '\n')
	if end < 0 {
		end = len(w.data)
	} else {
		end += w.next
	}
	line := w.data[w.next:end]
	if !w.full {
		b := append(w.out, w.prefix...)
		b = append(b, sep)
		if w.numbers {
			b = strconv.AppendInt(b, int64(w.nextNo), 10)
			b = append(b, sep)
		}
		b = appendClipped(b, bytes.TrimSuffix(line, []byte{'\r'}))
		w.out = append(b, '\n')
		w.shown++
	}
	w.count()
	w.wroteAny = true
	w.next, w.nextNo = end+1, w.nextNo+1
}

func (w *grepLineWriter) emitRaw(s string) {
	if !w.full {
		w.out = append(append(w.out, s...), '\n')
		w.shown++
	}
	w.count()
}

func (w *grepLineWriter) count() {
	w.lines++
	if (w.maxLines > 0 && w.shown >= w.maxLines) || len(w.out) >= w.maxBytes {
		w.full = true
	}
}

// grepMaxLineChars is where a long line (minified code, data) is cut.
const grepMaxLineChars = 500

// appendClipped appends line as valid UTF-8, cut after grepMaxLineChars characters.
func appendClipped(b, line []byte) []byte {
	cut := 0
	chars := 0
	for cut < len(line) && chars < grepMaxLineChars {
		_, size := utf8.DecodeRune(line[cut:])
		cut += size
		chars++
	}
	if cut == len(line) {
		if utf8.Valid(line) {
			return append(b, line...)
		}
		return append(b, strings.ToValidUTF8(string(line), "\uFFFD")...)
	}
	b = append(b, strings.ToValidUTF8(string(line[:cut]), "\uFFFD")...)
	return fmt.Appendf(b, " [… %d more characters]", utf8.RuneCount(line[cut:]))
}
