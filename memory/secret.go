package memory

import (
	"math"
	"regexp"
	"sync"
)

// secretPattern is one well-known credential format.
type secretPattern struct {
	why string
	re  *regexp.Regexp
}

// secretPatterns are compiled when first needed (a memory is saved), not at start.
var secretPatterns = sync.OnceValue(func() []secretPattern {
	return []secretPattern{
		{"private key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`)},
		{"API key (sk-)", regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}`)},
		{"GitHub token", regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}`)},
		{"AWS access key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"Slack token", regexp.MustCompile(`\bxox[abpors]-[A-Za-z0-9\-]{10,}`)},
		{"Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}`)},
		{"JWT", regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`)},
		{"credentials in URL", regexp.MustCompile(`[a-z][a-z0-9+.\-]*://[^/\s:@]+:[^/\s:@]{6,}@`)},
	}
})

var assignRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:api[_-]?key|secret|token|passwd|password|pwd|key)["']?\s*[:=]\s*["']?([^\s"',;]+)`)
})

// Secret reports why text looks like it contains a credential, or "" when it does not:
// well-known key and token formats, private keys, and long high-entropy values after
// key=, token=, password= and the like.
func Secret(text string) string {
	for _, p := range secretPatterns() {
		if p.re.MatchString(text) {
			return p.why
		}
	}
	for _, m := range assignRe().FindAllStringSubmatch(text, -1) {
		v := m[1]
		if len(v) >= 8 && (len(v) >= 16 && entropy(v) >= 3.5 || looksPassword(m[0], v)) {
			return "credential assignment"
		}
	}
	return ""
}

// looksPassword: a password= value with mixed character classes.
func looksPassword(assign, v string) bool {
	re := regexp.MustCompile(`(?i)pass|pwd`)
	if !re.MatchString(assign) {
		return false
	}
	classes := 0
	for _, c := range []string{`[a-z]`, `[A-Z]`, `[0-9]`, `[^A-Za-z0-9]`} {
		if regexp.MustCompile(c).MatchString(v) {
			classes++
		}
	}
	return classes >= 2
}

// entropy is the Shannon entropy in bits per character.
func entropy(s string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}
