// Package workspace decides where tools may reach. Every path a tool touches is resolved
// here to a real path (symlinks followed, `..` and `~` applied the way the kernel would)
// and must land inside one of the allowed roots: the working directory plus any extra
// directories the user allowed. Tools then use the resolved path, never the one given.
// Beyond the roots, single files (AddFile) and folders (AddDir) a person approved a
// tool's call on are reachable too, without becoming part of the workspace.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// maxLinks bounds symlink hops in one resolution, as the kernel's ELOOP does.
const maxLinks = 40

// Workspace is a working directory and the roots tools may reach. It is safe for
// concurrent use.
type Workspace struct {
	home string

	mu    sync.RWMutex
	cwd   string // changes only by Move
	roots []string
	// files and dirs are reachable without being part of the workspace: exactly these
	// files, and these folders with what is below them (real paths).
	files, dirs []string
}

// New returns a workspace for cwd with extra allowed directories. Every root must exist;
// each is stored as its real path.
func New(cwd string, extra ...string) (*Workspace, error) {
	home, _ := os.UserHomeDir()
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", cwd, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", cwd, err)
	}
	w := &Workspace{cwd: real, home: home, roots: []string{real}}
	for _, d := range extra {
		if err := w.AddRoot(d); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// CWD is the real path of the working directory.
func (w *Workspace) CWD() string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.cwd
}

// Move makes dir (an existing folder) the working directory and, in place of the old
// working directory, the first root: the old one is no longer reachable unless it is
// also another root or lies inside one. A session entering a git worktree moves here,
// so that its tools reach the worktree and not the main checkout around it.
func (w *Workspace) Move(dir string) error {
	p, err := w.existingDir(dir)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.cwd
	w.cwd = p
	roots := []string{p}
	for _, r := range w.roots {
		if r != old && r != p {
			roots = append(roots, r)
		}
	}
	w.roots = roots
	return nil
}

// Clone is a workspace for another working directory with the same other roots, files
// and folders: what a subagent working in its own git worktree reaches. dir replaces the
// working directory as the first root.
func (w *Workspace) Clone(dir string) (*Workspace, error) {
	w.mu.RLock()
	c := &Workspace{home: w.home, cwd: w.cwd, roots: slices.Clone(w.roots), files: slices.Clone(w.files), dirs: slices.Clone(w.dirs)}
	w.mu.RUnlock()
	if err := c.Move(dir); err != nil {
		return nil, err
	}
	return c, nil
}

// Roots lists the allowed roots, the working directory first.
func (w *Workspace) Roots() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return slices.Clone(w.roots)
}

// AddRoot allows another directory (relative paths are taken from the working
// directory). It must exist and be a directory.
func (w *Workspace) AddRoot(dir string) error {
	p, err := w.existingDir(dir)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.roots, p) {
		w.roots = append(w.roots, p)
	}
	return nil
}

// existingDir is dir's real path, which must be an existing directory.
func (w *Workspace) existingDir(dir string) (string, error) {
	p, err := w.physical(w.expand(dir))
	if err != nil {
		return "", fmt.Errorf("allowed directory %s: %w", dir, err)
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("allowed directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("allowed directory %s: %s is not a directory", dir, p)
	}
	return p, nil
}

// AddFile makes one file reachable (relative paths are taken from the working
// directory): Resolve then accepts exactly its real path, symlinks followed, and nothing
// else in its folder. It need not exist yet (a Write creates it), but must not be a
// directory. Unlike AddRoot it does not make the file part of the workspace: Contains
// and Roots do not change, so the permission policy still counts it as outside.
func (w *Workspace) AddFile(path string) error {
	if strings.TrimSpace(path) == "" || strings.ContainsRune(path, 0) {
		return fmt.Errorf("allowed file %q: not a valid path", path)
	}
	p, err := w.physical(w.expand(path))
	if err != nil {
		return fmt.Errorf("allowed file %s: %w", path, err)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return fmt.Errorf("allowed file %s: %s is a directory", path, p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.files, p) {
		w.files = append(w.files, p)
	}
	return nil
}

// AddDir makes an existing folder and what is below it reachable, as AddRoot does,
// without making it part of the workspace: Contains and Roots do not change, so the
// permission policy still counts it as outside.
func (w *Workspace) AddDir(dir string) error {
	p, err := w.existingDir(dir)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.dirs, p) {
		w.dirs = append(w.dirs, p)
	}
	return nil
}

// Reaches reports whether tools may reach a real path: it is inside a root, inside a
// folder added with AddDir, or a file added with AddFile.
func (w *Workspace) Reaches(real string) bool {
	if w.Contains(real) {
		return true
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if slices.Contains(w.files, real) {
		return true
	}
	for _, d := range w.dirs {
		if Within(d, real) {
			return true
		}
	}
	return false
}

// OutsideError says a path resolved outside every allowed root.
type OutsideError struct {
	Given    string
	Resolved string
	Roots    []string
}

func (e *OutsideError) Error() string {
	s := fmt.Sprintf("path %q is outside the workspace: it resolves to %s", e.Given, e.Resolved)
	return s + fmt.Sprintf(", and the allowed directories are %s. Use a path inside them.", strings.Join(e.Roots, ", "))
}

// Resolve returns the real path p refers to, which must be inside an allowed root or
// otherwise reachable (see Reaches). p may be relative (to the working directory),
// absolute, start with ~, contain `..`, go through symlinks, and end in parts that do
// not exist yet.
func (w *Workspace) Resolve(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("the path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	real, err := w.physical(w.expand(p))
	if err != nil {
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	if !w.Reaches(real) {
		return "", &OutsideError{Given: p, Resolved: real, Roots: w.Roots()}
	}
	return real, nil
}

// Contains reports whether a real path lies inside an allowed root.
func (w *Workspace) Contains(real string) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, r := range w.roots {
		if Within(r, real) {
			return true
		}
	}
	return false
}

// Within reports whether path is root or below it (both absolute and clean).
func Within(root, path string) bool { return within(root, path, filepath.Separator) }

// within is Within for paths with the separator sep, so that Windows paths are tested
// on every system: a root that ends in sep ("/", or a drive's root "C:\", the only
// clean paths that do) has everything below it start with it, any other root is
// followed by sep. Paths compare byte by byte, as the clean real paths ouro makes are
// spelled the same way each time.
func within(root, path string, sep byte) bool {
	if root == path {
		return true
	}
	if strings.HasSuffix(root, string(sep)) {
		return strings.HasPrefix(path, root)
	}
	return strings.HasPrefix(path, root+string(sep))
}

// Rel returns real relative to the working directory when it is inside it, else real.
func (w *Workspace) Rel(real string) string {
	if r, err := filepath.Rel(w.CWD(), real); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return real
}

// expand makes p absolute: ~ and ~/ from the home directory, relative from the cwd.
func (w *Workspace) expand(p string) string {
	switch {
	case p == "~":
		p = w.home
	case strings.HasPrefix(p, "~/"):
		p = w.home + "/" + p[2:]
	}
	// No filepath.Join here: it would clean `link/..` lexically before physical() can
	// resolve the link.
	if !filepath.IsAbs(p) {
		p = w.CWD() + "/" + p
	}
	return p
}

// physical resolves an absolute path component by component as the kernel does: a
// symlink is replaced by its target before the next component (so `link/..` is the
// parent of the link's target, not the directory holding the link), and the part from
// the first component that does not exist on is applied lexically.
func (w *Workspace) physical(abs string) (string, error) {
	// On Windows the walk starts at the drive's (or share's) root, C:\, not at \.
	top, parts := splitVolume(abs)
	cur := top
	hops := 0
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// The rest does not exist yet: apply it lexically.
			rest := filepath.Join(append([]string{next}, parts[i+1:]...)...)
			return filepath.Clean(rest), nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinks {
			return "", fmt.Errorf("too many levels of symbolic links at %s", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		} else {
			target = filepath.Clean(target)
		}
		// Restart from the root with the target spliced in front of what is left.
		var rest []string
		top, rest = splitVolume(target)
		parts = append(rest, parts[i+1:]...)
		cur = top
		i = -1
	}
	return cur, nil
}

// splitVolume splits an absolute path into its top (the volume's root: / on Unix,
// C:\ or \\server\share\ on Windows) and the names below it.
func splitVolume(abs string) (top string, names []string) {
	vol := filepath.VolumeName(abs)
	return vol + string(filepath.Separator), strings.Split(filepath.ToSlash(abs[len(vol):]), "/")
}
