package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// field is one word after static expansion.
type field struct {
	s    string
	dyn  bool // holds an expansion only known at run time (its source text is in s)
	glob bool // holds an unquoted glob character, expanded by the shell at run time
	proc bool // holds a process substitution (a /dev/fd path at run time)
	// start: the word's first character is only known at run time (it begins with an
	// expansion, or with a glob character), so the word may begin with "-".
	start bool
	// split: the word holds an unquoted expansion (or "$@"), which bash may split into
	// several words, any of which may begin with "-".
	split bool
}

func (f field) cat(g field) field {
	return field{s: f.s + g.s, dyn: f.dyn || g.dyn, glob: f.glob || g.glob, proc: f.proc || g.proc,
		start: f.start || (f.s == "" && !f.dyn && !f.glob && g.start), split: f.split || g.split}
}

// optionLike reports a word that may be, or become, an option at run time: one that
// begins (or may begin, after splitting) with a part only known then, or a literal "-"
// followed by such a part (`-*`, `-$X`).
func (f field) optionLike() bool {
	return f.start || f.split || (strings.HasPrefix(f.s, "-") && (f.dyn || f.glob))
}

// joinFields turns the fields of one word back into one, for places where bash does
// not split (redirect targets, assignment values).
func (w *walker) joinFields(fs []field) field {
	var out field
	for i, f := range fs {
		if i > 0 {
			f.s = " " + f.s
		}
		out = out.cat(f)
	}
	return out
}

// expand statically expands a word into the fields bash would make of it: quotes
// removed, escapes resolved, brace expansion applied; parameter, command and
// arithmetic expansions keep their source text and mark the field dynamic. Word
// splitting of expansions is not done: it depends on run-time values.
func (w *walker) expand(word *syntax.Word, sc *scope) []field {
	if word == nil {
		return []field{{}}
	}
	orig := word
	if braceCandidate(word) {
		if n := braceCount(word); n > maxBraces {
			// SplitBraces takes time quadratic in the braces of a word.
			w.ask("a word with %d braces is not expanded", n)
		} else if bracesWithEscapes(word) {
			w.ask("brace expansion mixed with backslash escapes is not analysed: %s", nodeText(word, sc.src))
		} else {
			// SplitBraces rewrites the word in place; work on a copy of its part list so
			// the tree stays as parsed.
			cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), word.Parts...)}
			if syntax.SplitBraces(cp) {
				word = cp
			}
		}
	}
	fs, over := w.expandParts(word.Parts, false, sc)
	if over {
		w.ask("a brace expansion makes more than %d words: %s", maxFields, nodeText(orig, sc.src))
		return []field{{s: nodeText(orig, sc.src), dyn: true}}
	}
	return fs
}

func braceCandidate(word *syntax.Word) bool {
	for _, p := range word.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// maxBraces bounds the braces of a word that brace expansion is applied to.
const maxBraces = 64

func braceCount(word *syntax.Word) int {
	n := 0
	for _, p := range word.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			n += strings.Count(l.Value, "{")
		}
	}
	return n
}

// bracesWithEscapes reports a literal with both a brace expansion and a backslash:
// SplitBraces does not know about escapes, so `\{a,b\}` would be expanded wrongly.
func bracesWithEscapes(word *syntax.Word) bool {
	for _, p := range word.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "\\") &&
			strings.Contains(l.Value, "{") && (strings.Contains(l.Value, ",") || strings.Contains(l.Value, "..")) {
			return true
		}
	}
	return false
}

// expandParts expands a list of word parts into the cartesian product of their
// alternatives (only brace expansions have more than one). over reports that the
// product passed maxFields.
func (w *walker) expandParts(parts []syntax.WordPart, quoted bool, sc *scope) (out []field, over bool) {
	out = []field{{}}
	for _, p := range parts {
		alts, o := w.expandPart(p, quoted, sc)
		if o {
			return nil, true
		}
		if len(alts) == 1 {
			for i := range out {
				out[i] = out[i].cat(alts[0])
			}
			continue
		}
		if len(out)*len(alts) > maxFields {
			return nil, true
		}
		next := make([]field, 0, len(out)*len(alts))
		for _, f := range out {
			for _, a := range alts {
				next = append(next, f.cat(a))
			}
		}
		out = next
	}
	return out, false
}

func (w *walker) expandPart(p syntax.WordPart, quoted bool, sc *scope) ([]field, bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		if quoted {
			return []field{{s: unescapeDouble(p.Value)}}, false
		}
		g := hasGlob(p.Value)
		return []field{{s: unescapeBare(p.Value), glob: g, start: g && p.Value != "" && strings.ContainsRune("*?[", rune(p.Value[0]))}}, false
	case *syntax.SglQuoted:
		if p.Dollar {
			return []field{{s: decodeANSIC(p.Value)}}, false
		}
		return []field{{s: p.Value}}, false
	case *syntax.DblQuoted:
		fs, over := w.expandParts(p.Parts, true, sc)
		if over || len(fs) != 1 {
			return fs, over
		}
		return fs, false
	case *syntax.ParamExp:
		t := paramText(p, sc.src)
		// "$@" and "${a[@]}" make one word per element, quoted or not.
		return []field{{s: t, dyn: true, start: true, split: !quoted || strings.Contains(t, "@")}}, false
	case *syntax.CmdSubst, *syntax.ArithmExp:
		return []field{{s: nodeText(p, sc.src), dyn: true, start: true, split: !quoted}}, false
	case *syntax.ProcSubst:
		return []field{{s: nodeText(p, sc.src), proc: true}}, false
	case *syntax.ExtGlob:
		t := nodeText(p, sc.src)
		if t == "" && p.Pattern != nil {
			t = p.Op.String() + p.Pattern.Value + ")"
		}
		return []field{{s: t, glob: true, start: true}}, false
	case *syntax.BraceExp:
		return w.braceAlternatives(p, sc)
	case nil:
		return []field{{}}, false
	default:
		return []field{{s: nodeText(p, sc.src), dyn: true, start: true, split: !quoted}}, false
	}
}

// braceAlternatives lists the words of {a,b,c} or {x..y[..incr]}.
func (w *walker) braceAlternatives(b *syntax.BraceExp, sc *scope) ([]field, bool) {
	if b.Sequence {
		var ends []string
		for _, e := range b.Elems {
			fs, over := w.expandParts(e.Parts, false, sc)
			if over || len(fs) != 1 || fs[0].dyn {
				return nil, true
			}
			ends = append(ends, fs[0].s)
		}
		seq, ok := braceSequence(ends)
		if !ok {
			return nil, true
		}
		out := make([]field, len(seq))
		for i, s := range seq {
			out[i] = field{s: s}
		}
		return out, false
	}
	var out []field
	for _, e := range b.Elems {
		if e == nil {
			out = append(out, field{})
			continue
		}
		fs, over := w.expandParts(e.Parts, false, sc)
		if over {
			return nil, true
		}
		out = append(out, fs...)
		if len(out) > maxFields {
			return nil, true
		}
	}
	if len(out) == 0 {
		out = []field{{}}
	}
	return out, false
}

// braceSequence expands {x..y[..incr]} for integers and single letters; ok is false
// when it would make more than maxFields words or the ends are not a valid sequence.
func braceSequence(ends []string) ([]string, bool) {
	if len(ends) < 2 || len(ends) > 3 {
		return nil, false
	}
	incr := 1
	if len(ends) == 3 {
		n, err := strconv.Atoi(ends[2])
		if err != nil {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		if n == 0 {
			n = 1
		}
		incr = n
	}
	a, errA := strconv.Atoi(ends[0])
	b, errB := strconv.Atoi(ends[1])
	letters := false
	if errA != nil || errB != nil {
		if len(ends[0]) != 1 || len(ends[1]) != 1 || !isASCIILetter(ends[0][0]) || !isASCIILetter(ends[1][0]) {
			return nil, false
		}
		a, b, letters = int(ends[0][0]), int(ends[1][0]), true
	}
	width := 0
	if !letters && (zeroPadded(ends[0]) || zeroPadded(ends[1])) {
		width = max(len(ends[0]), len(ends[1]))
	}
	span := b - a
	if span < 0 {
		span = -span
	}
	if span/incr+1 > maxFields {
		return nil, false
	}
	step := incr
	if b < a {
		step = -incr
	}
	var out []string
	for i := a; (step > 0 && i <= b) || (step < 0 && i >= b); i += step {
		switch {
		case letters:
			out = append(out, string(rune(i)))
		case width > 0:
			s := strconv.Itoa(abs(i))
			for len(s) < width-boolInt(i < 0) {
				s = "0" + s
			}
			if i < 0 {
				s = "-" + s
			}
			out = append(out, s)
		default:
			out = append(out, strconv.Itoa(i))
		}
	}
	return out, true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func zeroPadded(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// paramText is the text of a parameter expansion; a plain ${NAME} is written $NAME so
// that checks on $HOME do not depend on the spelling.
func paramText(p *syntax.ParamExp, src string) string {
	if p.Param != nil && !p.Excl && !p.Length && !p.Width && !p.IsSet && p.Index == nil &&
		p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0 && p.NestedParam == nil &&
		len(p.Modifiers) == 0 && p.Flags == nil {
		return "$" + p.Param.Value
	}
	if t := nodeText(p, src); t != "" {
		return t
	}
	return "${?}"
}

// hasGlob reports an unescaped glob character in an unquoted literal; "[" counts only
// with a "]" after it, so the test command `[` is not a pattern.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') > 0 {
				return true
			}
		}
	}
	return false
}

// unescapeBare removes the backslashes of an unquoted literal: `\x` is x and a
// backslash-newline disappears.
func unescapeBare(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble resolves the escapes bash honours inside double quotes (and in an
// unquoted here-document): \$ \` \" \\ and backslash-newline; other backslashes stay.
func unescapeDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of a $'...' string.
func decodeANSIC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString("\\c")
			}
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < maxDigits && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if r := rune(n); utf8.ValidRune(r) {
				b.WriteRune(r)
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
