//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// A workspace root without .git is where a command could plant a gitfile (".git"
// holding "gitdir: /somewhere"), pointing git at a config that runs programs (fsmonitor)
// the next time the user types git status there — or in the repository above, when the
// workspace is a folder inside one. Landlock cannot refuse one name in a folder and
// allow the others, and refusing every new file in the workspace root would break
// ordinary work. So while a sandboxed command runs, an empty .git folder holds the name:
// the sandbox protects it as it protects any existing read-only path (a read-only bind
// mount, or no rights at all), so the command can neither write into it nor put anything
// else in its place. Git skips a .git folder that is not a git dir and goes on looking
// above, so git, ouro (internal/gitdir) and builds see the workspace as they did.
//
// The placeholder lives only as long as the commands that need it: each holds a shared
// lock on it, and the last to finish removes it. It holds one file naming what it is, so
// that one left behind by a killed ouro is recognised (and reused, then removed) and
// never taken for the user's own. A missing .claude or .ouro (where a command could
// write settings or hooks the next session obeys) is held the same way.

// placeholderNote is the one file in a placeholder folder.
const placeholderNote = "OURO_SANDBOX_PLACEHOLDER"

const placeholderText = "ouro's sandbox keeps this empty folder while a command runs, so that the command cannot create a folder of this name (.git, .claude, .ouro) here. It is removed when the command ends; if ouro was killed, delete it.\n"

// Placeholders are the placeholder folders (.git, .claude, .ouro) a command holds while
// it runs.
type Placeholders struct{ held []*os.File }

// HoldPlaceholders makes (or joins) a placeholder for each missing .git, .claude and
// .ouro the policy protects, and holds it until Release. Where one cannot be made (the
// folder is gone, a file appeared there), nothing is held: Absent and Reclaim still take
// back what a command creates there. (A missing .claude or .ouro could be held for good
// by an empty folder, but then every repository ouro ran a command in, and every one
// ouro doctor looked at, would keep two empty folders it never asked for.)
func (p Policy) HoldPlaceholders() *Placeholders {
	g := &Placeholders{}
	for _, r := range p.ReadOnly {
		if b := filepath.Base(r); b != ".git" && !slices.Contains(protectedNames, b) {
			continue
		}
		if f := holdPlaceholder(r); f != nil {
			g.held = append(g.held, f)
		}
	}
	return g
}

// holdPlaceholder returns the placeholder at path, made if missing, with a shared lock
// on it; nil when path is something else (a repository, a gitfile, the user's folder).
func holdPlaceholder(path string) *os.File {
	for attempt := 0; attempt < 3; attempt++ {
		made := makePlaceholder(path)
		if !made && !isPlaceholder(path) {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_SH) != nil {
			f.Close()
			return nil
		}
		// The last holder of a placeholder may have removed it between our look and our
		// lock: then start again.
		if !sameFolder(f, path) {
			f.Close()
			continue
		}
		return f
	}
	return nil
}

// makePlaceholder makes the placeholder at path, if nothing is there, whole: it is made
// with its note under another name and renamed into place without replacing anything,
// so that no other process ever sees it without the note.
func makePlaceholder(path string) bool {
	if _, err := os.Lstat(path); err == nil {
		return false
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), filepath.Base(path)+".ouro-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp) // gone after a successful rename
	if err := os.Chmod(tmp, 0o755); err != nil {
		return false
	}
	if err := os.WriteFile(filepath.Join(tmp, placeholderNote), []byte(placeholderText), 0o644); err != nil {
		return false
	}
	return unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE) == nil
}

// isPlaceholder reports whether path is a placeholder: a folder holding nothing but the
// note.
func isPlaceholder(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	names, err := readNames(path)
	if err != nil {
		return false
	}
	return len(names) == 1 && names[0] == placeholderNote
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(3)
}

func sameFolder(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && b.IsDir() && os.SameFile(a, b)
}

// Release lets go of the placeholders; the last holder of each removes it, provided it
// still holds only its note. One filled meanwhile from outside the sandbox (a git init,
// a settings file the user wrote) is the user's now: it stays, without the note.
func (g *Placeholders) Release() {
	if g == nil {
		return
	}
	for _, f := range g.held {
		path := f.Name()
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && sameFolder(f, path) {
			if isPlaceholder(path) {
				_ = os.Remove(filepath.Join(path, placeholderNote))
				_ = os.Remove(path)
			} else if note, err := os.ReadFile(filepath.Join(path, placeholderNote)); err == nil && string(note) == placeholderText {
				_ = os.Remove(filepath.Join(path, placeholderNote))
			}
		} else if !sameFolder(f, path) {
			// Replaced while held (and put back as a new placeholder, see
			// protect_linux.go): that one goes too, unless another command holds it.
			releaseReplaced(path)
		}
		f.Close()
	}
	g.held = nil
}

// releaseReplaced removes the placeholder at path if no command holds it.
func releaseReplaced(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && sameFolder(f, path) && isPlaceholder(path) {
		_ = os.Remove(filepath.Join(path, placeholderNote))
		_ = os.Remove(path)
	}
}
