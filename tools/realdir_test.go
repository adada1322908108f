package tools

import (
	"path/filepath"
	"testing"
)

// realDir resolves symlinks (macOS's /var → /private/var) so it compares with pwd -P.
func realDir(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
