// Package worktree gives an agent its own git worktree to work in, so that parallel
// edits never collide: each lives under .ouro/worktrees/<name> on branch ouro/<name>,
// made from the main checkout's HEAD. Removal never loses work silently: it is refused
// while the worktree has uncommitted files or commits no other branch holds, unless the
// caller discards them, and the refusal lists exactly what would be lost. Merging back is
// left to the person or the lead agent: Summary gives the branch, its commits and diffstat.
//
// git runs as a subprocess the caller's environment and the repository's config cannot
// steer (see gitRunner). Two processes may manage one repository's worktrees at once
// (they take turns under a lock the kernel releases when a process dies), and a process
// killed in the middle of Create leaves nothing the next call does not clean up.
package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Folder is where worktrees live, relative to the repository's top level; BranchPrefix
// starts each one's branch.
const (
	Folder       = ".ouro/worktrees"
	BranchPrefix = "ouro/"
)

// Hooks lets WorktreeCreate and WorktreeRemove hooks take part (hook.Runner implements
// it). A WorktreeCreate hook replaces git: handled true means one ran, and path is the
// folder it made (an error means it failed and nothing is created). WorktreeRemove is
// told about every removal; it cannot stop one.
type Hooks interface {
	WorktreeCreate(ctx context.Context, name string) (path string, handled bool, err error)
	WorktreeRemove(ctx context.Context, path string)
}

// Options configures a Manager. Every field is optional.
type Options struct {
	// Hooks runs the WorktreeCreate/WorktreeRemove hooks; nil runs none.
	Hooks Hooks
	// Git is the git binary (default "git" from PATH).
	Git string
	// Now is the clock (default time.Now): record times and generated names.
	Now func() time.Time
}

// Worktree is one worktree the manager knows.
type Worktree struct {
	Name string
	// Path is its folder (a real path).
	Path string
	// Branch is ouro/<name> ("" for a folder a hook made that is not a git worktree).
	Branch string
	// Base is the commit it was made from; BaseRef the main checkout's branch then.
	Base, BaseRef string
	// Hooked says a WorktreeCreate hook made it, not git.
	Hooked bool
}

// Sentinel errors, matched with errors.Is.
var (
	ErrNotFound = errors.New("no such worktree")
	ErrExists   = errors.New("worktree already exists")
	// ErrBranchExists: the branch ouro/<name> is left from before; ouro does not reuse it.
	ErrBranchExists = errors.New("branch already exists")
)

// Manager creates, describes and removes the worktrees of one repository. It is safe for
// concurrent use, also by several processes.
type Manager struct {
	start string
	opts  Options
	git   *gitRunner

	once    sync.Once
	rootErr error
	root    string // the main checkout's top level (real path)
	dir     string // root/.ouro/worktrees
}

// New returns a manager for the repository that holds dir (any folder inside it, or
// inside one of its worktrees: worktrees are always made beside the main checkout). The
// repository is looked at on first use, so New itself never fails.
func New(dir string, opts Options) *Manager {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Manager{start: dir, opts: opts, git: newGit(opts.Git)}
}

// Root is the main checkout's top level.
func (m *Manager) Root(ctx context.Context) (string, error) {
	if err := m.init(ctx); err != nil {
		return "", err
	}
	return m.root, nil
}

// Dir is the folder the worktrees live in.
func (m *Manager) Dir(ctx context.Context) (string, error) {
	if err := m.init(ctx); err != nil {
		return "", err
	}
	return m.dir, nil
}

func (m *Manager) init(ctx context.Context) error {
	m.once.Do(func() { m.rootErr = m.findRoot(ctx) })
	return m.rootErr
}

// findRoot finds the main checkout: the top level of the repository holding start, or,
// when start is inside a linked worktree, the main worktree of its repository.
func (m *Manager) findRoot(ctx context.Context) error {
	start, err := filepath.Abs(m.start)
	if err == nil {
		start, err = filepath.EvalSymlinks(start)
	}
	if err != nil {
		return fmt.Errorf("worktrees: %s: %w", m.start, err)
	}
	out, err := m.git.run(ctx, start, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
	var ge *GitError
	if errors.As(err, &ge) {
		return fmt.Errorf("%s is not inside a git repository, and worktrees need one: run git init and make a first commit, or start ouro inside a repository (git said: %s)", start, strings.TrimSpace(ge.Stderr))
	}
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[0] == "" {
		return fmt.Errorf("%s: git rev-parse gave no top level (a bare repository?); worktrees need a checkout", start)
	}
	root := lines[0]
	if lines[1] != lines[2] {
		// Inside a linked worktree: the main checkout is the first worktree listed.
		list, err := m.git.run(ctx, start, "worktree", "list", "--porcelain")
		if err != nil {
			return err
		}
		if ents := parseList(list); len(ents) > 0 && !ents[0].bare {
			root = ents[0].path
		}
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return fmt.Errorf("worktrees: repository top level: %w", err)
	}
	m.root = root
	m.dir = filepath.Join(root, filepath.FromSlash(Folder))
	return m.git.neutralize(ctx, root)
}

// NewName makes a fresh name from the clock ("wt-0102-150405-xxxx"): for a worktree
// nobody named.
func (m *Manager) NewName() string {
	t := m.opts.Now()
	return fmt.Sprintf("wt-%s-%04x", t.Format("0102-150405"), uint16(t.UnixNano()/1000)^uint16(os.Getpid()))
}

// Path is where the worktree name lives (whether or not it exists).
func (m *Manager) Path(ctx context.Context, name string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	if err := m.init(ctx); err != nil {
		return "", err
	}
	return filepath.Join(m.dir, filepath.FromSlash(name)), nil
}

// lock takes the inter-process lock, first making the worktrees folder.
func (m *Manager) lock(ctx context.Context) (func(), error) {
	if err := m.init(ctx); err != nil {
		return nil, err
	}
	if err := m.ensureDir(); err != nil {
		return nil, err
	}
	return lockFile(filepath.Join(m.dir, ".lock"))
}

// Create makes the worktree name on branch ouro/<name> from the main checkout's HEAD
// (or lets the WorktreeCreate hooks make it, when there are any). A name already used
// is ErrExists; a branch ouro/<name> left from before is refused rather than reused.
func (m *Manager) Create(ctx context.Context, name string) (*Worktree, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	unlock, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := m.recoverPending(ctx); err != nil {
		return nil, err
	}
	base, err := m.head(ctx)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(m.dir, filepath.FromSlash(name))
	if err := m.checkFree(ctx, name, path); err != nil {
		return nil, err
	}
	baseRef, _ := m.git.run(ctx, m.root, "symbolic-ref", "--short", "-q", "HEAD")
	rec := record{Name: name, Path: path, Branch: BranchPrefix + name, Base: base, BaseRef: strings.TrimSpace(baseRef),
		Created: m.opts.Now().UTC().Format(time.RFC3339)}

	if m.opts.Hooks != nil {
		hp, handled, err := m.opts.Hooks.WorktreeCreate(ctx, name)
		if handled {
			if err != nil {
				return nil, fmt.Errorf("worktree %q was not created: %w", name, err)
			}
			return m.adoptHooked(ctx, rec, hp)
		}
	}
	if _, err := m.git.run(ctx, m.root, "rev-parse", "--verify", "--quiet", "refs/heads/"+rec.Branch); err == nil {
		return nil, fmt.Errorf("worktree %q was not created: the %w: %s (left by an earlier worktree of that name?), and ouro does not reuse it; pick another name, or delete the branch (git branch -D %s) once nothing on it is needed", name, ErrBranchExists, rec.Branch, rec.Branch)
	}
	if err := writeJSON(m.pendingPath(name), rec); err != nil {
		return nil, fmt.Errorf("worktree %q: %w", name, err)
	}
	if _, err := m.git.run(ctx, m.root, "worktree", "add", "--quiet", "-b", rec.Branch, path, base); err != nil {
		m.rollback(ctx, rec)
		os.Remove(m.pendingPath(name))
		return nil, fmt.Errorf("worktree %q was not created: %w", name, err)
	}
	if err := writeJSON(m.metaPath(name), rec); err != nil {
		m.rollback(ctx, rec)
		os.Remove(m.pendingPath(name))
		return nil, fmt.Errorf("worktree %q: %w", name, err)
	}
	os.Remove(m.pendingPath(name))
	return rec.worktree(), nil
}

func (r record) worktree() *Worktree {
	return &Worktree{Name: r.Name, Path: r.Path, Branch: r.Branch, Base: r.Base, BaseRef: r.BaseRef, Hooked: r.Hooked}
}

// head is the main checkout's HEAD commit; a repository without commits is an error
// saying what to do.
func (m *Manager) head(ctx context.Context) (string, error) {
	out, err := m.git.run(ctx, m.root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || strings.TrimSpace(out) == "" {
		return "", fmt.Errorf("the repository at %s has no commits yet, and a worktree starts from a commit: make a first commit (git commit --allow-empty -m init) and try again", m.root)
	}
	return strings.TrimSpace(out), nil
}

// checkFree refuses a name in use: its folder exists, a worktree is registered there,
// it has a record, or it nests with another worktree's name (a and a/b).
func (m *Manager) checkFree(ctx context.Context, name, path string) error {
	if err := m.checkReal(path); err != nil {
		return err
	}
	recs, err := m.records(".meta")
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Name == name {
			return fmt.Errorf("%w: %q is at %s (branch %s); enter it by its path, or remove it first", ErrExists, name, r.Path, r.Branch)
		}
		if strings.HasPrefix(name, r.Name+"/") || strings.HasPrefix(r.Name, name+"/") {
			return fmt.Errorf("worktree name %q nests with the existing worktree %q (one would sit inside the other); pick another name", name, r.Name)
		}
	}
	list, err := m.list(ctx)
	if err != nil {
		return err
	}
	for _, e := range list {
		if e.path == path {
			return fmt.Errorf("%w: git already has a worktree at %s; enter it by its path, or remove it first", ErrExists, path)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		if os.Remove(path) == nil { // an empty folder: nothing of value
			return nil
		}
		return fmt.Errorf("worktree %q was not created: %s already exists and is not a worktree ouro knows; move it away or pick another name", name, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// adoptHooked records the folder a WorktreeCreate hook made.
func (m *Manager) adoptHooked(ctx context.Context, rec record, path string) (*Worktree, error) {
	path = strings.TrimSpace(path)
	if path == "" || !filepath.IsAbs(path) {
		return nil, fmt.Errorf("worktree %q was not created: the WorktreeCreate hook must print the absolute path of the folder it made, and printed %q", rec.Name, textcut.Runes(path, 80, "…"))
	}
	real, err := filepath.EvalSymlinks(path)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(real); err == nil && !st.IsDir() {
			err = errors.New("not a folder")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("worktree %q was not created: the WorktreeCreate hook printed %s, which is not a folder (%v)", rec.Name, path, err)
	}
	rec.Path, rec.Hooked = real, true
	rec.Branch = ""
	if out, err := m.git.run(ctx, real, "symbolic-ref", "--short", "-q", "HEAD"); err == nil {
		rec.Branch = strings.TrimSpace(out)
	}
	if err := writeJSON(m.metaPath(rec.Name), rec); err != nil {
		return nil, fmt.Errorf("worktree %q: %w", rec.Name, err)
	}
	return rec.worktree(), nil
}

// recoverPending undoes the creations whose process died midway (the caller holds the
// lock, so none of them is still running).
func (m *Manager) recoverPending(ctx context.Context) error {
	recs, err := m.records(".pending")
	if err != nil {
		return err
	}
	for _, r := range recs {
		m.rollback(ctx, r)
		os.Remove(m.pendingPath(r.Name))
	}
	if len(recs) > 0 {
		_, _ = m.git.run(ctx, m.root, "worktree", "prune")
	}
	return nil
}

// rollback undoes what a creation of r may have done: the registered worktree (locked
// while git was still making it), its folder, and its branch while nothing is on it.
func (m *Manager) rollback(ctx context.Context, r record) {
	if ValidateName(r.Name) != nil || r.Path != filepath.Join(m.dir, filepath.FromSlash(r.Name)) || r.Branch != BranchPrefix+r.Name {
		return // not a record Create wrote
	}
	if m.checkReal(r.Path) != nil {
		return // replaced by a link: not ours to touch
	}
	list, _ := m.list(ctx)
	checkedOut := false
	for _, e := range list {
		if e.path == r.Path {
			_, _ = m.git.run(ctx, m.root, "worktree", "remove", "--force", "--force", r.Path)
		} else if e.branch == "refs/heads/"+r.Branch {
			checkedOut = true
		}
	}
	if _, err := os.Lstat(r.Path); err == nil {
		_ = os.RemoveAll(r.Path)
	}
	m.removeEmptyParents(r.Path)
	_, _ = m.git.run(ctx, m.root, "worktree", "prune")
	tip, err := m.git.run(ctx, m.root, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch)
	if err == nil && strings.TrimSpace(tip) == r.Base && !checkedOut {
		_, _ = m.git.run(ctx, m.root, "branch", "-D", "--", r.Branch)
	}
	os.Remove(m.metaPath(r.Name))
}

// Get returns the worktree name. It is ErrNotFound when there is none, and an error when
// its folder is gone or was replaced by a symbolic link.
func (m *Manager) Get(ctx context.Context, name string) (*Worktree, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if err := m.init(ctx); err != nil {
		return nil, err
	}
	path := filepath.Join(m.dir, filepath.FromSlash(name))
	rec, err := readRecord(m.metaPath(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Not made by ouro (or its record was lost): git's own registration counts.
		list, lerr := m.list(ctx)
		if lerr != nil {
			return nil, lerr
		}
		found := false
		for _, e := range list {
			if e.path == path {
				found = true
				rec = record{Name: name, Path: path, Branch: strings.TrimPrefix(e.branch, "refs/heads/")}
			}
		}
		if !found {
			return nil, m.notFound(ctx, name)
		}
	case err != nil:
		return nil, err
	}
	if !rec.Hooked {
		if err := m.checkReal(rec.Path); err != nil {
			return nil, err
		}
	}
	st, err := os.Stat(rec.Path)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("worktree %q: its folder %s is gone; remove it (discarding changes) to forget it, or run git worktree prune", name, rec.Path)
	}
	return rec.worktree(), nil
}

func (m *Manager) notFound(ctx context.Context, name string) error {
	var names []string
	if all, err := m.List(ctx); err == nil {
		for _, w := range all {
			names = append(names, w.Name)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%w named %q (there are none)", ErrNotFound, name)
	}
	return fmt.Errorf("%w named %q; the worktrees are %s", ErrNotFound, name, strings.Join(names, ", "))
}

// List returns every worktree under the worktrees folder and every one a hook made, by
// name.
func (m *Manager) List(ctx context.Context) ([]Worktree, error) {
	if err := m.init(ctx); err != nil {
		return nil, err
	}
	byName := map[string]Worktree{}
	list, err := m.list(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range list {
		rel, err := filepath.Rel(m.dir, e.path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		name := filepath.ToSlash(rel)
		byName[name] = Worktree{Name: name, Path: e.path, Branch: strings.TrimPrefix(e.branch, "refs/heads/")}
	}
	recs, err := m.records(".meta")
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if _, ok := byName[r.Name]; ok || r.Hooked {
			byName[r.Name] = *r.worktree()
		}
	}
	out := make([]Worktree, 0, len(byName))
	for _, w := range byName {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ByPath returns the worktree whose folder is path (an existing worktree of this
// repository), for entering one by its path.
func (m *Manager) ByPath(ctx context.Context, path string) (*Worktree, error) {
	all, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("worktree path %s: %w", path, err)
	}
	for _, w := range all {
		if w.Path == real {
			return m.Get(ctx, w.Name)
		}
	}
	return nil, fmt.Errorf("%w at %s: it is not one of this repository's worktrees under %s", ErrNotFound, path, m.dir)
}

// entry is one worktree as git lists it.
type entry struct {
	path, head, branch string
	bare, locked       bool
}

func (m *Manager) list(ctx context.Context) ([]entry, error) {
	out, err := m.git.run(ctx, m.root, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	return parseList(out), nil
}

func parseList(out string) []entry {
	var ents []entry
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var e entry
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "worktree":
				e.path = v
			case "HEAD":
				e.head = v
			case "branch":
				e.branch = v
			case "bare":
				e.bare = true
			case "locked":
				e.locked = true
			}
		}
		if e.path != "" {
			ents = append(ents, e)
		}
	}
	return ents
}
