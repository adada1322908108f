package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ouroagent/ouro/internal/gitdir"
	"github.com/ouroagent/ouro/workspace"
)

// The walk shared by Glob, Grep and LS. It never leaves the directory it starts from:
// symlinks are not descended, and a symlink is reported only when its target is inside
// the workspace. It skips version-control metadata and, when asked, what .gitignore
// files and .git/info/exclude exclude, with git's precedence: the last matching pattern
// of the deepest file wins, and nothing inside an excluded directory comes back.
//
// The .gitignore rules are a thin layer over doublestar's matcher. go-git v5's gitignore
// package (the maintained choice that can be fetched here) gets negations wrong: with
// "*", "!*/", "!*.go" it keeps src/a.txt, which git ignores, because a negated
// directory pattern also matches everything below that directory.

// maxIgnoreFileBytes bounds how much of one ignore file is read.
const maxIgnoreFileBytes = 1 << 20

// isVCSDir names the metadata directories no search goes into.
func isVCSDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".jj":
		return true
	}
	return false
}

// ignoreRule is one line of a .gitignore.
type ignoreRule struct {
	pattern  string // doublestar pattern, relative to the directory of the file
	negate   bool   // "!pattern": re-includes
	dirOnly  bool   // "pattern/": matches directories only
	basename bool   // no slash: matches the name at any depth
	literal  bool   // no wildcard: compare as a string
	suffix   string // "*.ext": compare the end of the name
	inside   string // "dir/**": matches below dir, not dir itself
}

// parseIgnoreLine parses one line of an ignore file; ok is false for blank lines,
// comments and patterns doublestar cannot read.
func parseIgnoreLine(line string) (r ignoreRule, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return r, false
	}
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	switch {
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		line = strings.TrimPrefix(line, "/")
	} else {
		r.basename = true
	}
	// gitignore has no {a,b} alternation: braces are literal.
	line = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
	if !doublestar.ValidatePattern(line) {
		return r, false
	}
	r.pattern = line
	switch {
	case !strings.ContainsAny(line, `*?[\`):
		r.literal = true
	case r.basename && strings.HasPrefix(line, "*") && !strings.ContainsAny(line[1:], `*?[\`):
		r.suffix = line[1:]
	case strings.HasSuffix(line, "/**"):
		r.inside = strings.TrimSuffix(line, "/**")
	}
	return r, true
}

// parseIgnoreFile parses the content of an ignore file.
func parseIgnoreFile(data []byte) []ignoreRule {
	var rules []ignoreRule
	for line := range strings.Lines(string(data)) {
		if r, ok := parseIgnoreLine(strings.TrimSuffix(line, "\n")); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// match reports whether the rule matches an entry called name at rel, the slash path
// relative to the directory of the rule's file.
func (r *ignoreRule) match(name, rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	subject := rel
	if r.basename {
		subject = name
	}
	switch {
	case r.literal:
		return subject == r.pattern
	case r.suffix != "":
		return strings.HasSuffix(subject, r.suffix)
	case r.inside != "":
		// doublestar lets "dir/**" match dir itself; git does not.
		ok, _ := doublestar.Match(r.pattern, subject)
		if !ok {
			return false
		}
		self, _ := doublestar.Match(r.inside, subject)
		return !self
	}
	ok, _ := doublestar.Match(r.pattern, subject)
	return ok
}

// ignoreScope is the set of rules in force in one directory: its own, then its
// parent's. It is immutable once built, so walkers share it freely.
type ignoreScope struct {
	parent *ignoreScope
	base   string // real absolute path of the directory the rules are relative to
	rules  []ignoreRule
}

// ignored reports whether the entry at abs (below every scope's base) is excluded.
func (s *ignoreScope) ignored(abs, name string, isDir bool) bool {
	for sc := s; sc != nil; sc = sc.parent {
		rel := abs[len(sc.base)+1:]
		for i := len(sc.rules) - 1; i >= 0; i-- {
			if sc.rules[i].match(name, rel, isDir) {
				return !sc.rules[i].negate
			}
		}
	}
	return false
}

// loadIgnore returns the scope for dir: parent plus dir's .git/info/exclude (lowest
// priority) and .gitignore. Only regular files are read, so an ignore file that is a
// symlink cannot pull in anything from outside the tree.
func loadIgnore(parent *ignoreScope, dir string, hasGitignore, hasGitDir bool) *ignoreScope {
	var rules []ignoreRule
	if hasGitDir {
		if info, err := os.Lstat(filepath.Join(dir, ".git", "info")); err == nil && info.IsDir() {
			rules = append(rules, readIgnoreFile(filepath.Join(dir, ".git", "info", "exclude"))...)
		}
	}
	if hasGitignore {
		rules = append(rules, readIgnoreFile(filepath.Join(dir, ".gitignore"))...)
	}
	if len(rules) == 0 {
		return parent
	}
	return &ignoreScope{parent: parent, base: dir, rules: rules}
}

// readIgnoreFile reads an ignore file that is a regular file; anything else, or an
// unreadable file, contributes no rules, as with git.
func readIgnoreFile(path string) []ignoreRule {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, min(info.Size(), maxIgnoreFileBytes))
	n, _ := io.ReadFull(f, buf)
	return parseIgnoreFile(buf[:n])
}

// rootIgnoreScope returns the rules that apply to the entries of root from the
// directories above it: from the nearest enclosing repository (a directory holding
// .git) down to root's parent, never above the workspace root that holds root.
func rootIgnoreScope(ws *workspace.Workspace, root string) *ignoreScope {
	top := ""
	for _, r := range ws.Roots() {
		if workspace.Within(r, root) && len(r) > len(top) {
			top = r
		}
	}
	if top == "" || top == root || hasGitDir(root) {
		return nil // a repository of its own: nothing above applies
	}
	dirs := []string{} // root's ancestors, nearest first, down to top
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == top || d == filepath.Dir(d) {
			break
		}
	}
	start := len(dirs) - 1
	for i, d := range dirs {
		if hasGitDir(d) {
			start = i
			break
		}
	}
	var s *ignoreScope
	for i := start; i >= 0; i-- {
		s = loadIgnore(s, dirs[i], true, hasGitDir(dirs[i]))
	}
	return s
}

func hasGitDir(dir string) bool { return gitdir.Marks(dir) }

// walkEntry is one entry the walk reports.
type walkEntry struct {
	Abs    string // real absolute path (for a symlink, the link itself)
	Rel    string // slash path relative to the walk's root
	Name   string
	Dir    bool        // a directory (never true for a symlink)
	Link   bool        // a symlink whose target is inside the workspace
	Target string      // the real path a Link points to
	Depth  int         // 1 for the root's own entries
	Type   fs.FileMode // type bits, as the directory listing gives them
	entry  fs.DirEntry
}

// Info returns the entry's lstat information.
func (e *walkEntry) Info() (fs.FileInfo, error) { return e.entry.Info() }

// walkOptions says how to walk.
type walkOptions struct {
	// Gitignore skips what ignore files exclude.
	Gitignore bool
	// MaxDepth stops descending below that depth; 0 means no limit.
	MaxDepth int
	// Ordered walks breadth-first in name order on one goroutine; otherwise directories
	// are read in parallel and visit is called concurrently in no particular order.
	Ordered bool
	// Workers is the number of parallel readers; 0 means GOMAXPROCS.
	Workers int
}

// dirTask is a directory waiting to be read.
type dirTask struct {
	abs, rel string
	depth    int
	scope    *ignoreScope
}

// walkTree walks the directory root (a real path inside ws) and calls visit for every
// entry that is not skipped, directories included. visit may return fs.SkipDir for a
// directory not to descend into it, or fs.SkipAll to end the walk without error.
// Directories that cannot be read are passed over; root itself must be readable.
func walkTree(ctx context.Context, ws *workspace.Workspace, root string, opt walkOptions, visit func(*walkEntry) error) error {
	var scope *ignoreScope
	if opt.Gitignore {
		scope = rootIgnoreScope(ws, root)
	}
	first := dirTask{abs: root, depth: 0, scope: scope}
	if opt.Ordered {
		return walkOrdered(ctx, ws, first, opt, visit)
	}
	return walkParallel(ctx, ws, first, opt, visit)
}

func walkOrdered(ctx context.Context, ws *workspace.Workspace, first dirTask, opt walkOptions, visit func(*walkEntry) error) error {
	queue := []dirTask{first}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		err := walkDir(ctx, ws, t, opt, visit, func(sub dirTask) { queue = append(queue, sub) })
		if errors.Is(err, fs.SkipAll) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func walkParallel(ctx context.Context, ws *workspace.Workspace, first dirTask, opt walkOptions, visit func(*walkEntry) error) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		stack   = []dirTask{first}
		pending = 1 // tasks pushed and not yet finished
		stop    bool
		failure error
	)
	push := func(t dirTask) {
		mu.Lock()
		stack = append(stack, t)
		pending++
		mu.Unlock()
		cond.Signal()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				for len(stack) == 0 && pending > 0 && !stop {
					cond.Wait()
				}
				if stop || len(stack) == 0 {
					mu.Unlock()
					return
				}
				t := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				mu.Unlock()

				err := func() (err error) {
					defer catchPanic(&err)
					return walkDir(ctx, ws, t, opt, visit, push)
				}()

				mu.Lock()
				pending--
				if err != nil && !stop {
					stop = true
					if !errors.Is(err, fs.SkipAll) {
						failure = err
					}
				}
				if pending == 0 || stop {
					cond.Broadcast()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	raisePanic(failure)
	return failure
}

// workerPanic carries a panic out of a worker goroutine, to be raised again on the
// caller's, where the tool registry turns it into an error result instead of the
// process crashing.
type workerPanic struct {
	value any
	stack []byte
}

func (p *workerPanic) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// catchPanic, deferred in a worker, turns a panic into a *workerPanic in *err.
func catchPanic(err *error) {
	if v := recover(); v != nil {
		*err = &workerPanic{value: v, stack: debug.Stack()}
	}
}

// raisePanic panics again, on the calling goroutine, if err carries a worker's panic.
func raisePanic(err error) {
	var p *workerPanic
	if errors.As(err, &p) {
		panic(fmt.Sprintf("%v\n[in a search worker]\n%s", p.value, p.stack))
	}
}

// walkDir reads one directory, reports its entries and queues its subdirectories.
func walkDir(ctx context.Context, ws *workspace.Workspace, t dirTask, opt walkOptions, visit func(*walkEntry) error, push func(dirTask)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := readDirEntries(t.abs, opt.Ordered)
	if err != nil && len(entries) == 0 {
		if t.depth == 0 {
			return fmt.Errorf("read directory %s: %w", t.abs, err)
		}
		return nil // unreadable below the root: pass over it
	}
	scope := t.scope
	if opt.Gitignore {
		var gitignore, gitDir bool
		for _, e := range entries {
			switch e.Name() {
			case ".gitignore":
				gitignore = e.Type().IsRegular()
			case ".git":
				gitDir = e.IsDir()
			}
		}
		if gitignore || gitDir {
			scope = loadIgnore(scope, t.abs, gitignore, gitDir)
		}
	}
	depth := t.depth + 1
	for _, d := range entries {
		name := d.Name()
		typ := d.Type()
		isDir := typ.IsDir()
		if isDir && isVCSDir(name) {
			continue
		}
		abs := t.abs + string(filepath.Separator) + name
		if opt.Gitignore && scope != nil && scope.ignored(abs, name, isDir) {
			continue
		}
		e := walkEntry{Abs: abs, Rel: joinRel(t.rel, name), Name: name, Dir: isDir, Depth: depth, Type: typ, entry: d}
		if typ&fs.ModeSymlink != 0 {
			target, err := ws.Resolve(abs)
			if err != nil {
				continue // points outside the workspace, or nowhere
			}
			if _, err := os.Stat(target); err != nil {
				continue
			}
			e.Link, e.Target = true, target
		}
		err := visit(&e)
		if errors.Is(err, fs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if isDir && (opt.MaxDepth == 0 || depth < opt.MaxDepth) {
			push(dirTask{abs: abs, rel: e.Rel, depth: depth, scope: scope})
		}
	}
	return nil
}

// readDirEntries lists a directory, sorted by name when asked.
func readDirEntries(dir string, sorted bool) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if sorted {
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return entries, err
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// resolveSearchPath resolves the path a search tool was given (empty: the working
// directory) to a real path inside the workspace that exists.
func resolveSearchPath(ws *workspace.Workspace, toolName, given string) (string, fs.FileInfo, error) {
	if given == "" {
		given = ws.CWD()
	}
	abs, err := ws.Resolve(given)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", toolName, err)
	}
	info, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("%s: path %q does not exist (it resolves to %s); check the path with LS or Glob", toolName, given, abs)
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", toolName, err)
	}
	return abs, info, nil
}

// displayPath shows a real path relative to the working directory when it is inside it.
func displayPath(ws *workspace.Workspace, abs string) string {
	return filepath.ToSlash(ws.Rel(abs))
}

// hasNUL reports whether p holds a NUL byte, the mark of a binary file.
func hasNUL(p []byte) bool { return bytes.IndexByte(p, 0) >= 0 }
