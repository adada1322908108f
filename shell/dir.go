package shell

import (
	"path"
	"slices"
	"strings"
)

// dirState is what the analyser knows of the shell's working folder at a point of the
// line: the folders it may be in ("" is where the line started), or nothing at all.
// A cd may fail and the line go on, and a branch may or may not run, so after them the
// shell may be in one of several folders.
type dirState struct {
	dirs    []string // sorted, without repeats
	unknown bool     // anywhere: a cd to a folder only known at run time
}

// maxDirs bounds the folders followed at once; past it the folder is unknown.
const maxDirs = 8

func startDir() *dirState   { return &dirState{dirs: []string{""}} }
func unknownDir() *dirState { return &dirState{unknown: true} }

func (d *dirState) copy() *dirState {
	return &dirState{dirs: slices.Clone(d.dirs), unknown: d.unknown}
}

// set makes d hold what o holds.
func (d *dirState) set(o *dirState) { d.dirs, d.unknown = slices.Clone(o.dirs), o.unknown }

func (d *dirState) exact() (string, bool) {
	if !d.unknown && len(d.dirs) == 1 {
		return d.dirs[0], true
	}
	return "", false
}

func (d *dirState) equal(o *dirState) bool {
	return d.unknown == o.unknown && (d.unknown || slices.Equal(d.dirs, o.dirs))
}

// union is where the shell may be after one of two paths through the line.
func union(a, b *dirState) *dirState {
	if a.unknown || b.unknown {
		return unknownDir()
	}
	dirs := append(slices.Clone(a.dirs), b.dirs...)
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	if len(dirs) > maxDirs {
		return unknownDir()
	}
	return &dirState{dirs: dirs}
}

// moved is where `cd t` leads from each folder of d, if it succeeds.
func (d *dirState) moved(t string) *dirState {
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") && !strings.HasPrefix(t, "~+") {
		j, unk := joinDir("", t, false)
		if unk {
			return unknownDir()
		}
		return &dirState{dirs: []string{j}}
	}
	if d.unknown {
		return unknownDir()
	}
	out := &dirState{}
	for _, s := range d.dirs {
		j, unk := joinDir(s, t, false)
		if unk {
			return unknownDir()
		}
		out = union(out, &dirState{dirs: []string{j}})
	}
	return out
}

// fill records in c the folder it runs in.
func (d *dirState) fill(c *Command) {
	if d == nil {
		return
	}
	if dir, ok := d.exact(); ok {
		c.Dir, c.DirUnknown, c.Dirs = dir, false, nil
		return
	}
	c.Dir, c.DirUnknown, c.Dirs = "", true, nil
	if !d.unknown {
		c.Dirs = slices.Clone(d.dirs)
	}
}

// joinDir is where `cd t` leads from cur ("" = the starting folder); unknown when that
// cannot be said (a ".." climbing out of a home folder).
func joinDir(cur, t string, unknown bool) (string, bool) {
	if t == "" {
		return cur, unknown
	}
	if strings.HasPrefix(t, "/") {
		return path.Clean(t), false
	}
	if strings.HasPrefix(t, "~") {
		head, rest, _ := strings.Cut(t, "/")
		switch {
		case head == "~+":
			// $PWD: the folder the shell is in.
			return joinDir(cur, rest, unknown)
		case strings.HasPrefix(head, "~+") || strings.HasPrefix(head, "~-"):
			// ~- is $OLDPWD, ~+N and ~-N the folder stack: not known before the
			// line runs. (~user stays as written: a home, like ~.)
			return cur, true
		}
		if hasDotDot(t) {
			return cur, true
		}
		return cleanTilde(t), false
	}
	if unknown {
		return cur, true
	}
	if strings.HasPrefix(cur, "~") {
		if hasDotDot(t) {
			return cur, true
		}
		return cleanTilde(cur + "/" + t), false
	}
	j := path.Join(cur, t)
	if j == "." {
		j = ""
	}
	return j, false
}

func hasDotDot(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == ".." {
			return true
		}
	}
	return false
}

// cleanTilde cleans a ~ or ~user path without letting ".." eat the tilde.
func cleanTilde(p string) string {
	head, rest, _ := strings.Cut(p, "/")
	if rest == "" {
		return head
	}
	c := path.Clean("/" + rest)
	if c == "/" {
		return head
	}
	return head + c
}

// JoinDir is where the path p (a folder given to cd, or an operand) leads from the
// folder dir, both written as Command.Dir writes folders: "" is where the line started,
// "~" a home. ok is false when that cannot be said (a ".." climbing out of a home).
func JoinDir(dir, p string) (joined string, ok bool) {
	j, unknown := joinDir(dir, p, false)
	return j, !unknown
}
