package skill

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// argRE finds Claude Code's argument placeholders: $ARGUMENTS[N], $ARGUMENTS, and $N
// (shorthand for $ARGUMENTS[N], 0-based; "$1abc" is not one).
var argRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)\b`)
})

// substituteArgs puts args into body as Claude Code does: $ARGUMENTS is the whole text,
// $ARGUMENTS[N] and $N the N-th word (0-based, split as a shell splits words, quotes
// removed); a placeholder past the last word stays as written. When body holds no
// placeholder, non-empty args are appended as "ARGUMENTS: ...".
func substituteArgs(body, args string) string {
	var words []string
	parsed := false
	out := argRE().ReplaceAllStringFunc(body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		if !parsed {
			words, parsed = splitArgs(args), true
		}
		sub := argRE().FindStringSubmatch(m)
		idx := sub[1] + sub[2]
		n, err := strconv.Atoi(idx)
		if err != nil || n >= len(words) {
			return m
		}
		return words[n]
	})
	if out == body && args != "" && !argRE().MatchString(body) {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

// splitArgs splits s into words as a shell would: white space separates them, single
// quotes keep text as it is, double quotes keep spaces (a backslash escapes " and \),
// a backslash outside quotes escapes the next character. Unbalanced quotes: split on
// white space.
func splitArgs(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return strings.Fields(s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
