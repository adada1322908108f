package hook

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher selects the occurrences of an event a hook runs for. The forms are Claude
// Code's: empty or "*" matches everything; a pattern made only of letters, digits, "_",
// "-", spaces, "," and "|" is a list of exact names; anything else is a regular
// expression that may match anywhere in the name.
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

func compileMatcher(p string) (matcher, error) {
	p = strings.TrimSpace(p)
	if p == "" || p == "*" {
		return matcher{all: true}, nil
	}
	if isNameList(p) {
		var names []string
		for _, n := range strings.FieldsFunc(p, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return matcher{names: names}, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return matcher{}, fmt.Errorf("invalid pattern %q: %w", p, err)
	}
	return matcher{re: re}, nil
}

func isNameList(p string) bool {
	for _, c := range p {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_ ,|-", c):
		default:
			return false
		}
	}
	return true
}

func (m matcher) matches(s string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(s)
	}
	for _, n := range m.names {
		if n == s {
			return true
		}
	}
	return false
}

// compileEventMatcher is compileMatcher, except for FileChanged, whose matcher is Claude
// Code's list of file names to watch (".envrc|.env"): literal base names separated by
// "|", each compared whole (a "." is a dot, not any character).
func compileEventMatcher(event, p string) (matcher, error) {
	if event != FileChanged {
		return compileMatcher(p)
	}
	p = strings.TrimSpace(p)
	if p == "" || p == "*" {
		return matcher{all: true}, nil
	}
	var names []string
	for _, n := range strings.Split(p, "|") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return matcher{names: names}, nil
}
