package worktree

import (
	"fmt"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
)

// MaxName is the longest worktree name, as in Claude Code.
const MaxName = 64

// ValidateName checks a worktree name as Claude Code does (letters, digits, `.`, `_` and
// `-` in each `/`-separated segment, at most 64 characters) and, beyond that, what git
// and the file system need: no segment empty, `.` or `..`, starting with `.` or `-`
// (which git would read as an option), or ending in `.lock`. The error says what is
// wrong and what a good name looks like.
func ValidateName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("invalid worktree name %q: %s; use letters, digits, '.', '_' and '-' (segments separated by '/'), at most %d characters, e.g. \"fix-login\"", textcut.Runes(name, 80, "…"), why, MaxName)
	}
	switch {
	case name == "":
		return bad("it is empty")
	case len(name) > MaxName:
		return bad(fmt.Sprintf("it is %d characters long", len(name)))
	}
	for _, seg := range strings.Split(name, "/") {
		switch {
		case seg == "":
			return bad("it has an empty segment (a leading, trailing or double '/')")
		case seg == "." || seg == "..":
			return bad("a segment is '.' or '..'")
		case seg[0] == '.':
			return bad(fmt.Sprintf("the segment %q starts with '.'", seg))
		case seg[0] == '-':
			return bad(fmt.Sprintf("the segment %q starts with '-'", seg))
		case strings.HasSuffix(seg, ".lock"):
			return bad(fmt.Sprintf("the segment %q ends in .lock", seg))
		case strings.Contains(seg, ".."):
			return bad(fmt.Sprintf("the segment %q contains '..'", seg))
		}
		for _, r := range seg {
			ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
			if !ok {
				return bad(fmt.Sprintf("it contains %q", r))
			}
		}
	}
	return nil
}

// fileKey is a name as one file name (for the records kept beside the worktrees): '/'
// becomes '+', which a valid name never contains.
func fileKey(name string) string { return strings.ReplaceAll(name, "/", "+") }
