package permission

import (
	"runtime"
	"strings"
)

// Windows paths in path rules. A file tool's path is matched in the form
// filepath.ToSlash gives it there (C:/Users/me/x); these put a rule's pattern in the
// same form. The functions are pure, so they are tested on every system; matchPath and
// absPattern apply them only on Windows.

// onWindows is whether paths are Windows paths here.
const onWindows = runtime.GOOS == "windows"

// windowsAbs turns what follows the // of an absolute rule into a pattern for Windows
// paths: //C:/Users/me/** and Git Bash's //c/Users/me/** both name C:\Users\me, and a
// rest naming no drive (//**, //Users/me) holds on every drive (?:/Users/me), so that a
// deny rule from the root never matches nothing.
func windowsAbs(rest string) string {
	if len(rest) > 0 && isDriveLetter(rest[0]) {
		switch {
		case len(rest) >= 2 && rest[1] == ':' && (len(rest) == 2 || rest[2] == '/'):
			return upperDrive(rest)
		case len(rest) == 1 || rest[1] == '/':
			return upperDrive(rest[:1] + ":" + rest[1:])
		}
	}
	return strings.TrimSuffix("?:/"+rest, "/")
}

// upperDrive writes a slashed path's drive letter in upper case (c:/x is C:/x): Windows
// ignores the case of drive letters, and patterns match bytes.
func upperDrive(p string) string {
	if len(p) >= 2 && p[1] == ':' && isDriveLetter(p[0]) {
		return strings.ToUpper(p[:1]) + p[1:]
	}
	return p
}

func isDriveLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
