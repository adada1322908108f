package permission

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// The pure half of Windows path rules, on every system: a `//` rule's pattern, and the
// slashed Windows path (filepath.ToSlash of C:\Users\me\secret\k there) it must match.
func TestWindowsAbsPatterns(t *testing.T) {
	cases := []struct {
		rest, want string
		path       string // a ToSlash'd Windows path, "" for none
		match      bool
	}{
		{"C:/Users/me/secret/**", "C:/Users/me/secret/**", "C:/Users/me/secret/k", true},
		{"c:/Users/me/secret/**", "C:/Users/me/secret/**", "C:/Users/me/secret/k", true},
		{"c/Users/me/secret/**", "C:/Users/me/secret/**", "C:/Users/me/secret/k", true}, // Git Bash's /c/...
		{"d/data", "D:/data", "D:/data", true},
		{"C:", "C:", "C:", true},
		{"c", "C:", "C:", true},
		{"C:/Users/me/secret/**", "C:/Users/me/secret/**", "D:/Users/me/secret/k", false},
		{"**/.env", "?:/**/.env", "E:/w/api/.env", true},
		{"Users/me/.ssh/**", "?:/Users/me/.ssh/**", "C:/Users/me/.ssh/id_rsa", true},
		{"cache/x", "?:/cache/x", "C:/cache/x", true}, // a name, not a drive
		{"**", "?:/**", "C:/Windows/x", true},
	}
	for _, c := range cases {
		got := windowsAbs(c.rest)
		if got != c.want {
			t.Errorf("windowsAbs(%q) = %q, want %q", c.rest, got, c.want)
			continue
		}
		if m, err := doublestar.Match(got, upperDrive(c.path)); err != nil || m != c.match {
			t.Errorf("%q against %q: %v, %v; want %v", got, c.path, m, err, c.match)
		}
	}
	for in, want := range map[string]string{"c:/x": "C:/x", "C:/x": "C:/x", "c:": "C:", "/c/x": "/c/x", "1:/x": "1:/x", "": ""} {
		if got := upperDrive(in); got != want {
			t.Errorf("upperDrive(%q) = %q, want %q", in, got, want)
		}
	}
}
