package scripted

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// clip shortens s to at most n bytes, cutting at a rune boundary so the result stays
// valid UTF-8.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
