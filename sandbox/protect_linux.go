//go:build linux

package sandbox

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// syscallNoFollow makes an open fail on a symbolic link (os.Root would follow one that
// stays inside the root).
const syscallNoFollow = syscall.O_NOFOLLOW

// Check-and-restore, for the Landlock-only mode. Landlock grants a right on a folder
// and everything below it, and cannot take it back for one name: a workspace root in
// which a command may create, remove and rename entries (new.txt, build/, app) is a root
// in which it could also replace .mcp.json, and a .git in which git may make
// index.lock and rebase-merge/ is one in which .git/hooks could get a new hook. So where
// no mount namespace is available, the folders that hold the protected paths
// (Policy.Restore) are granted whole, and a ProtectGuard keeps the paths themselves:
// before the command it records each one (type, permissions, the content of every file,
// the target of every link, for a folder everything inside it but the content folders)
// and the identity of the folders above it inside the root (.git for .git/hooks); after
// the command, once every process it started is gone (the launcher's supervision), it
// puts back whatever differs, takes out what was added, and moves a swapped-away folder
// (mv .git .git-old; mkdir .git) back into place. Every change it makes goes through an
// os.Root of the write root, so that a symbolic link a command left cannot lead it
// outside the root.
//
// The command cannot race the restore: none of its processes is alive when it runs.
// What is left open is the time the command runs: a program outside the sandbox that
// reads a protected path meanwhile (the user's own git in another terminal, during a
// long background command) can see the command's version. The mount mode has no such
// window; Availability says which mode runs.

// ProtectGuard holds what GuardProtected recorded; nil when there is nothing to guard
// (the mount mode, or no protected path exists).
type ProtectGuard struct {
	paths   []*guardedPath
	pins    []*pinnedDir
	roots   map[string]*os.Root
	tempDir string
	objects *objectsGuard // the workspace's own object store (objects_guard_linux.go)
}

type guardedPath struct {
	root  *os.Root
	base  string // the write root's path
	rel   string // the protected path, relative to base
	nodes []pathNode
}

// pinnedDir is a folder between a write root and a protected path, held open to find it
// again if a command renames it.
type pinnedDir struct {
	root *os.Root
	base string
	rel  string
	dir  *os.File
}

// pathNode is one recorded entry.
type pathNode struct {
	rel  string
	mode fs.FileMode
	sum  [sha256.Size]byte
	data []byte // the content of a regular file, when within the budget
	kept bool   // data is the content
	link string
	// content: a content folder (.claude/skills), whose entries are ordinary content;
	// only that it is a real folder is kept.
	content bool
}

// guardBudget bounds the file content a guard keeps in memory; a file beyond it is
// checked by its hash, and if changed, reported instead of put back.
const guardBudget = 32 << 20

// GuardProtected records the protected paths before a sandboxed command, in the
// Landlock-only mode; Restore puts them back after it. Take it after HoldPlaceholders.
func (p Policy) GuardProtected() *ProtectGuard {
	if !landlockOnly() {
		return nil
	}
	return p.guardProtected()
}

func (p Policy) guardProtected() *ProtectGuard {
	g := &ProtectGuard{roots: map[string]*os.Root{}, tempDir: p.TempDir}
	budget := guardBudget
	content := p.openContent()
	for _, r := range p.ReadOnly {
		if !slices.Contains(p.Restore, r) || !exists(r) {
			continue
		}
		base := longestRoot(p.WriteRoots, r)
		if base == "" || base == r {
			continue
		}
		root := g.root(base)
		if root == nil {
			continue
		}
		rel, err := filepath.Rel(base, r)
		if err != nil {
			continue
		}
		var contentRels []string
		for _, c := range content {
			if cr, err := filepath.Rel(base, c); err == nil && within(c, r) {
				contentRels = append(contentRels, cr)
			}
		}
		nodes, err := walkGuarded(root, rel, contentRels, &budget)
		if err != nil {
			continue
		}
		g.paths = append(g.paths, &guardedPath{root: root, base: base, rel: rel, nodes: nodes})
		// The folder itself and those above it inside the root: one renamed away is put
		// back, with its content folders (mv .claude .claude-old; mkdir .claude).
		for d := rel; d != "."; d = filepath.Dir(d) {
			g.pin(root, base, d)
		}
	}
	g.objects = p.guardObjects()
	if len(g.paths) == 0 && g.objects == nil {
		g.close()
		return nil
	}
	// Shallowest first: a folder is put back before what lies in it.
	slices.SortFunc(g.pins, func(a, b *pinnedDir) int { return strings.Count(a.rel, "/") - strings.Count(b.rel, "/") })
	return g
}

func (g *ProtectGuard) root(base string) *os.Root {
	if r, ok := g.roots[base]; ok {
		return r
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil
	}
	g.roots[base] = r
	return r
}

func (g *ProtectGuard) pin(root *os.Root, base, rel string) {
	if slices.ContainsFunc(g.pins, func(p *pinnedDir) bool { return p.root == root && p.rel == rel }) {
		return
	}
	f, err := root.Open(rel)
	if err != nil {
		return
	}
	if st, err := f.Stat(); err != nil || !st.IsDir() {
		f.Close()
		return
	}
	g.pins = append(g.pins, &pinnedDir{root: root, base: base, rel: rel, dir: f})
}

func (g *ProtectGuard) close() {
	for _, p := range g.pins {
		p.dir.Close()
	}
	for _, r := range g.roots {
		r.Close()
	}
}

// longestRoot is the innermost write root that holds p.
func longestRoot(roots []string, p string) string {
	best := ""
	for _, w := range roots {
		if within(p, w) && len(w) > len(best) {
			best = w
		}
	}
	return best
}

// walkGuarded records rel and, for a folder, everything below it (content folders only
// as folders). budget is what is left of guardBudget; nil hashes without keeping.
func walkGuarded(root *os.Root, rel string, content []string, budget *int) ([]pathNode, error) {
	st, err := root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	n := pathNode{rel: rel, mode: st.Mode() & (fs.ModeType | fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		if n.link, err = root.Readlink(rel); err != nil {
			return nil, err
		}
	case st.Mode().IsRegular():
		f, err := root.OpenFile(rel, os.O_RDONLY|syscallNoFollow, 0)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		var buf bytes.Buffer
		keep := budget != nil && st.Size() <= int64(*budget)
		w := io.Writer(h)
		if keep {
			w = io.MultiWriter(h, &buf)
		}
		_, err = io.Copy(w, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		copy(n.sum[:], h.Sum(nil))
		if keep {
			n.data, n.kept = buf.Bytes(), true
			*budget -= buf.Len()
		}
	case st.IsDir():
		if slices.Contains(content, rel) {
			n.content = true
			return []pathNode{n}, nil
		}
		f, err := root.Open(rel)
		if err != nil {
			return nil, err
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		out := []pathNode{n}
		for _, name := range names {
			sub, err := walkGuarded(root, filepath.Join(rel, name), content, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	}
	return []pathNode{n}, nil
}

func (a pathNode) same(b pathNode) bool {
	if a.rel != b.rel || a.mode != b.mode || a.link != b.link || a.content != b.content {
		return false
	}
	return !a.mode.IsRegular() || a.sum == b.sum
}

// Restore puts back what the command changed among the protected paths; it must be
// called once every process of the command is gone. The note says what was put back
// ("" when nothing had changed).
func (g *ProtectGuard) Restore() string {
	if g == nil {
		return ""
	}
	defer g.close()
	var changes, lost []string
	var quarantine string
	q := func() string {
		if quarantine == "" {
			dir := g.tempDir
			if dir == "" {
				dir = os.TempDir()
			}
			quarantine = filepath.Join(dir, "quarantine", strconv.FormatInt(time.Now().UnixNano(), 10))
		}
		return quarantine
	}
	for _, p := range g.pins {
		if note := p.putBack(); note != "" {
			changes = append(changes, note)
		}
	}
	for _, p := range g.paths {
		var cur []pathNode
		if _, err := p.root.Lstat(p.rel); err == nil {
			cur, _ = walkGuarded(p.root, p.rel, contentOf(p.nodes), nil)
		}
		if slices.EqualFunc(cur, p.nodes, pathNode.same) {
			continue
		}
		c, l := p.putBack(cur, q)
		changes = append(changes, c...)
		lost = append(lost, l...)
	}
	rewritten, removed := g.objects.check(q)
	var b strings.Builder
	if len(rewritten) > 0 {
		fmt.Fprintf(&b, "Sandbox: the command rewrote git objects of the repository's history, which sandboxed commands may not change: %s. They were moved away, so that git reports them missing instead of reading a forged history; git fetch (or the moved copy, if it was not forged) brings them back.", strings.Join(shorten(rewritten, 5), "; "))
	}
	if len(removed) > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "Sandbox: the command removed git objects of the repository's history: %s; git fetch brings them back if they were pushed.", strings.Join(shorten(removed, 5), "; "))
	}
	if len(changes) == 0 && len(lost) == 0 {
		return b.String()
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString("Sandbox: the command changed protected paths, which sandboxed commands may not write (git, ouro and Claude Code read them outside the sandbox, where they decide what runs): ")
	b.WriteString(strings.Join(shorten(changes, 8), "; "))
	b.WriteString(". They were put back as they were")
	if quarantine != "" && exists(quarantine) {
		fmt.Fprintf(&b, "; what the command left there is in %s", quarantine)
	}
	b.WriteString(".")
	if len(lost) > 0 {
		fmt.Fprintf(&b, " Could not be put back: %s; check them before you trust them.", strings.Join(shorten(lost, 8), "; "))
	}
	b.WriteString(" To change settings, hooks or agents, use the Write or Edit tool, which asks the user first.")
	return b.String()
}

func shorten(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(slices.Clone(list[:n]), fmt.Sprintf("and %d more", len(list)-n))
}

func contentOf(nodes []pathNode) []string {
	var out []string
	for _, n := range nodes {
		if n.content {
			out = append(out, n.rel)
		}
	}
	return out
}

// putBack moves the pinned folder back to its place if a command renamed it away, and
// what took its place aside (renamed next to it: it may be large, a copy of .git).
func (p *pinnedDir) putBack() string {
	orig, err := p.dir.Stat()
	if err != nil {
		return ""
	}
	if st, err := p.root.Lstat(p.rel); err == nil && os.SameFile(st, orig) {
		return ""
	}
	now, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(p.dir.Fd())))
	full := filepath.Join(p.base, p.rel)
	if err == nil && strings.HasSuffix(now, " (deleted)") {
		return fmt.Sprintf("%s was removed", full)
	}
	if err != nil || !within(now, p.base) || now == p.base {
		return fmt.Sprintf("%s was moved and could not be found again", full)
	}
	nowRel, err := filepath.Rel(p.base, now)
	if err != nil {
		return fmt.Sprintf("%s was moved to %s and could not be put back", full, now)
	}
	aside := ""
	if _, err := p.root.Lstat(p.rel); err == nil {
		aside = p.rel + ".ouro-replaced-" + strconv.FormatInt(time.Now().UnixNano(), 10)
		if err := p.root.Rename(p.rel, aside); err != nil {
			return fmt.Sprintf("%s was replaced, and the original (now %s) could not be put back: %v", full, now, err)
		}
	}
	if err := p.root.Rename(nowRel, p.rel); err != nil {
		return fmt.Sprintf("%s was moved to %s and could not be put back: %v", full, now, err)
	}
	if aside != "" {
		return fmt.Sprintf("%s was moved to %s and replaced (the replacement is now %s)", full, now, filepath.Join(p.base, aside))
	}
	return fmt.Sprintf("%s was moved to %s", full, now)
}

// putBack makes the protected path what was recorded: entries added or of another kind
// are copied to the quarantine and removed (deepest first), then whatever is missing or
// differs is written again from the record (parents first).
func (p *guardedPath) putBack(cur []pathNode, quarantine func() string) (changes, lost []string) {
	recorded := map[string]pathNode{}
	for _, n := range p.nodes {
		recorded[n.rel] = n
	}
	full := func(rel string) string { return filepath.Join(p.base, rel) }
	wrong := func(c pathNode) bool {
		r, ok := recorded[c.rel]
		return !ok || r.mode.Type() != c.mode.Type() || r.content != c.content
	}
	now := map[string]pathNode{}
	setAside := map[string]bool{}
	for i := len(cur) - 1; i >= 0; i-- {
		c := cur[i]
		if !wrong(c) {
			now[c.rel] = c
			continue
		}
		p.copyAside(c.rel, quarantine)
		_ = p.root.RemoveAll(c.rel)
		setAside[c.rel] = true
		parent, ok := recorded[filepath.Dir(c.rel)]
		if _, was := recorded[c.rel]; was {
			changes = append(changes, full(c.rel)+" (replaced)")
		} else if ok && parent.mode.IsDir() && c.rel != p.rel {
			changes = append(changes, full(c.rel)+" (created)")
		}
	}
	for _, r := range p.nodes {
		c, had := now[r.rel]
		perm := r.mode &^ fs.ModeType
		switch {
		case !had:
			var err error
			switch {
			case r.mode.IsDir():
				if err = p.root.Mkdir(r.rel, 0o700); err == nil {
					err = p.root.Chmod(r.rel, perm)
				}
			case r.mode&fs.ModeSymlink != 0:
				err = p.root.Symlink(r.link, r.rel)
			case r.mode.IsRegular() && !r.kept:
				err = fmt.Errorf("too large to keep a copy of")
			case r.mode.IsRegular():
				err = p.writeFile(r)
			}
			if err != nil {
				lost = append(lost, fmt.Sprintf("%s (%v)", full(r.rel), err))
			} else if _, parentNow := now[filepath.Dir(r.rel)]; !setAside[r.rel] && (parentNow || r.rel == p.rel) {
				changes = append(changes, full(r.rel)+" (removed)") // the topmost only
			}
		case r.mode&fs.ModeSymlink != 0 && c.link != r.link:
			p.copyAside(r.rel, quarantine)
			_ = p.root.Remove(r.rel)
			if err := p.root.Symlink(r.link, r.rel); err != nil {
				lost = append(lost, fmt.Sprintf("%s (%v)", full(r.rel), err))
			} else {
				changes = append(changes, full(r.rel)+" (changed)")
			}
		case r.mode.IsRegular() && c.sum != r.sum:
			if !r.kept {
				lost = append(lost, full(r.rel)+" (changed, and too large to keep a copy of)")
				continue
			}
			p.copyAside(r.rel, quarantine)
			if err := p.writeFile(r); err != nil {
				lost = append(lost, fmt.Sprintf("%s (%v)", full(r.rel), err))
			} else {
				changes = append(changes, full(r.rel)+" (changed)")
			}
		case c.mode != r.mode && r.mode&fs.ModeSymlink == 0:
			if err := p.root.Chmod(r.rel, perm); err != nil {
				lost = append(lost, fmt.Sprintf("%s (%v)", full(r.rel), err))
			} else {
				changes = append(changes, full(r.rel)+" (permissions changed)")
			}
		}
	}
	return changes, lost
}

// writeFile writes a recorded file next to its place and renames it there, so that no
// link or open descriptor a command kept reaches the new file.
func (p *guardedPath) writeFile(r pathNode) error {
	tmp := r.rel + ".ouro-restore-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	f, err := p.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(r.data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.root.Chmod(tmp, r.mode&^fs.ModeType)
	}
	if err == nil {
		err = p.root.Rename(tmp, r.rel)
	}
	if err != nil {
		_ = p.root.Remove(tmp)
	}
	return err
}

// setAside copies rel (a file, link or folder) to the quarantine and removes it.
func (p *guardedPath) setAside(rel string, quarantine func() string) {
	p.copyAside(rel, quarantine)
	_ = p.root.RemoveAll(rel)
}

// quarantineMax bounds what is copied to the quarantine from one path.
const quarantineMax = 64 << 20

// copyAside copies rel into the quarantine, under its path relative to the root, up to
// quarantineMax bytes; what is beyond is left out.
func (p *guardedPath) copyAside(rel string, quarantine func() string) {
	left := int64(quarantineMax)
	var copyTree func(rel string)
	copyTree = func(rel string) {
		st, err := p.root.Lstat(rel)
		if err != nil {
			return
		}
		dst := filepath.Join(quarantine(), rel)
		if os.MkdirAll(filepath.Dir(dst), 0o700) != nil {
			return
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			if target, err := p.root.Readlink(rel); err == nil {
				_ = os.Symlink(target, dst)
			}
		case st.Mode().IsRegular():
			in, err := p.root.OpenFile(rel, os.O_RDONLY|syscallNoFollow, 0)
			if err != nil {
				return
			}
			defer in.Close()
			out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return
			}
			n, _ := io.Copy(out, io.LimitReader(in, left))
			left -= n
			out.Close()
		case st.IsDir():
			if os.Mkdir(dst, 0o700) != nil && !exists(dst) {
				return
			}
			f, err := p.root.Open(rel)
			if err != nil {
				return
			}
			names, _ := f.Readdirnames(-1)
			f.Close()
			for _, n := range names {
				if left > 0 {
					copyTree(filepath.Join(rel, n))
				}
			}
		}
	}
	copyTree(rel)
}
