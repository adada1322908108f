package workspace

import "testing"

// within is Within with the separator given, so that the Windows spellings (drive
// letters, backslashes, a drive's root) are tested on every system.
func TestWithinSeparators(t *testing.T) {
	cases := []struct {
		root, path string
		sep        byte
		want       bool
	}{
		{"/", "/etc/passwd", '/', true},
		{"/home/me", "/home/me", '/', true},
		{"/home/me", "/home/me/x", '/', true},
		{"/home/me", "/home/me2/x", '/', false},
		{"/home/me", "/home", '/', false},
		{`C:\`, `C:\Users\me`, '\\', true},
		{`C:\`, `C:\`, '\\', true},
		{`C:\`, `D:\Users`, '\\', false},
		{`C:\Users\me`, `C:\Users\me\src\main.go`, '\\', true},
		{`C:\Users\me`, `C:\Users\me`, '\\', true},
		{`C:\Users\me`, `C:\Users\me2\x`, '\\', false},
		{`C:\Users\me`, `C:\Users`, '\\', false},
		{`C:\Users\me`, `D:\Users\me\x`, '\\', false},
		{`C:\Users\me`, `C:/Users/me/x`, '\\', false}, // paths are compared clean, in one spelling
		{`\\server\share\`, `\\server\share\proj\x`, '\\', true},
		{`\\server\share\proj`, `\\server\share\project`, '\\', false},
	}
	for _, c := range cases {
		if got := within(c.root, c.path, c.sep); got != c.want {
			t.Errorf("within(%q, %q, %q) = %v, want %v", c.root, c.path, c.sep, got, c.want)
		}
	}
}
