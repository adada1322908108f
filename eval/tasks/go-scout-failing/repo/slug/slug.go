// Package slug turns titles into URL path segments.
package slug

import (
	"strings"
	"unicode"
)

// Slugify lowercases title and joins its runs of letters and digits with single hyphens.
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return b.String()
}
