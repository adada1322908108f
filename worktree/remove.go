package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Summary is what a worktree holds that its base does not: what the lead needs to decide
// about merging it.
type Summary struct {
	Name, Path, Branch string
	// Base is the commit the worktree started from (short); BaseRef the main checkout's
	// branch then ("" when unknown or detached).
	Base, BaseRef string
	// Commits are the commits since Base, newest first, one line each ("abc1234 subject").
	Commits []string
	// Diffstat is git diff --stat of Base against the worktree's HEAD ("" when none).
	Diffstat string
	// Dirty are the uncommitted changes, as git status --porcelain lists them
	// (" M file", "?? new-file").
	Dirty []string
	// NotGit says the folder (made by a hook) is not a git worktree: nothing above is known.
	NotGit bool
}

// Changed reports whether the worktree holds anything its base does not.
func (s Summary) Changed() bool { return len(s.Commits) > 0 || len(s.Dirty) > 0 }

// String is the summary for a person or a model: the branch, its commits and diffstat,
// and the uncommitted files.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Worktree %s at %s", s.Name, s.Path)
	if s.NotGit {
		b.WriteString(" (made by a WorktreeCreate hook; not a git worktree, so its changes are not known)")
		return b.String()
	}
	fmt.Fprintf(&b, ", branch %s", s.Branch)
	if s.Base != "" {
		fmt.Fprintf(&b, ", from %s", s.Base)
		if s.BaseRef != "" {
			fmt.Fprintf(&b, " (%s)", s.BaseRef)
		}
	}
	if !s.Changed() {
		b.WriteString(": no changes.")
		return b.String()
	}
	b.WriteString(".")
	if len(s.Commits) > 0 {
		fmt.Fprintf(&b, "\nCommits (%d):\n  %s", len(s.Commits), strings.Join(s.Commits, "\n  "))
	}
	if s.Diffstat != "" {
		fmt.Fprintf(&b, "\nDiffstat:\n%s", s.Diffstat)
	}
	if len(s.Dirty) > 0 {
		fmt.Fprintf(&b, "\nUncommitted (%d):\n  %s", len(s.Dirty), strings.Join(s.Dirty, "\n  "))
	}
	return b.String()
}

// Summary describes the worktree name against its base.
func (m *Manager) Summary(ctx context.Context, name string) (Summary, error) {
	w, err := m.Get(ctx, name)
	if err != nil {
		return Summary{}, err
	}
	return m.summary(ctx, w)
}

func (m *Manager) summary(ctx context.Context, w *Worktree) (Summary, error) {
	s := Summary{Name: w.Name, Path: w.Path, Branch: w.Branch, BaseRef: w.BaseRef}
	head, err := m.git.run(ctx, w.Path, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		if w.Hooked {
			s.NotGit = true
			return s, nil
		}
		return s, fmt.Errorf("worktree %q: its HEAD cannot be read: %w", w.Name, err)
	}
	head = strings.TrimSpace(head)
	base := w.Base
	if base == "" {
		main, err := m.head(ctx)
		if err != nil {
			return s, err
		}
		out, err := m.git.run(ctx, w.Path, "merge-base", main, head)
		if err != nil {
			return s, fmt.Errorf("worktree %q: %w", w.Name, err)
		}
		base = strings.TrimSpace(out)
	}
	s.Base = short(base)
	log, err := m.git.run(ctx, w.Path, "log", "--no-decorate", "--format=%h %s", base+".."+head)
	if err != nil {
		return s, fmt.Errorf("worktree %q: %w", w.Name, err)
	}
	s.Commits = lines(log)
	if len(s.Commits) > 0 {
		stat, err := m.git.run(ctx, w.Path, "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--stat", base, head, "--")
		if err != nil {
			return s, fmt.Errorf("worktree %q: %w", w.Name, err)
		}
		s.Diffstat = strings.TrimRight(stat, "\n")
	}
	if s.Dirty, err = m.dirty(ctx, w); err != nil {
		return s, err
	}
	return s, nil
}

func (m *Manager) dirty(ctx context.Context, w *Worktree) ([]string, error) {
	st, err := m.git.run(ctx, w.Path, "status", "--porcelain=v1", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return nil, fmt.Errorf("worktree %q: %w", w.Name, err)
	}
	return lines(st), nil
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// LossError is a removal refused because it would lose work: exactly what would be lost.
type LossError struct {
	Name string
	// Uncommitted are the files git status lists; Commits the commits no other branch,
	// tag or the main checkout's HEAD holds (one line each).
	Uncommitted, Commits []string
}

func (e *LossError) Error() string {
	var parts []string
	if n := len(e.Uncommitted); n > 0 {
		parts = append(parts, fmt.Sprintf("%d uncommitted %s (%s)", n, plural(n, "file", "files"), listed(e.Uncommitted)))
	}
	if n := len(e.Commits); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s on no other branch (%s)", n, plural(n, "commit", "commits"), listed(e.Commits)))
	}
	return fmt.Sprintf("worktree %q was not removed: it would lose %s. Commit or merge what you want to keep (or keep the worktree), or remove it with discard_changes: true to throw this away", e.Name, strings.Join(parts, " and "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// listed joins items for an error, all of them up to 20.
func listed(items []string) string {
	const most = 20
	trimmed := make([]string, 0, len(items))
	for _, it := range items {
		trimmed = append(trimmed, strings.TrimSpace(it))
	}
	if len(trimmed) > most {
		return strings.Join(trimmed[:most], "; ") + fmt.Sprintf("; and %d more", len(trimmed)-most)
	}
	return strings.Join(trimmed, "; ")
}

// loss is what removing w would lose: its uncommitted files and the commits of its HEAD
// and branch that no other branch, tag, remote branch or the main checkout's HEAD holds.
func (m *Manager) loss(ctx context.Context, w *Worktree) (*LossError, error) {
	e := &LossError{Name: w.Name}
	var err error
	if e.Uncommitted, err = m.dirty(ctx, w); err != nil {
		return nil, err
	}
	args := []string{"log", "--no-decorate", "--format=%h %s", "HEAD"}
	if w.Branch != "" {
		if _, err := m.git.run(ctx, m.root, "rev-parse", "--verify", "--quiet", "refs/heads/"+w.Branch); err == nil {
			args = append(args, "refs/heads/"+w.Branch)
		}
		// --exclude takes the name below refs/heads/ for --branches.
		args = append(args, "--not", "--exclude="+w.Branch)
	} else {
		args = append(args, "--not")
	}
	args = append(args, "--branches", "--tags", "--remotes")
	if main, err := m.head(ctx); err == nil {
		args = append(args, main)
	}
	out, err := m.git.run(ctx, w.Path, args...)
	if err != nil {
		return nil, fmt.Errorf("worktree %q: %w", w.Name, err)
	}
	e.Commits = lines(out)
	if len(e.Uncommitted) == 0 && len(e.Commits) == 0 {
		return nil, nil
	}
	return e, nil
}

// Remove removes the worktree name and its branch. Unless discard is set it is refused
// with a *LossError while that would lose uncommitted files or unmerged commits. A folder
// a WorktreeCreate hook made is left to the WorktreeRemove hooks.
func (m *Manager) Remove(ctx context.Context, name string, discard bool) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	unlock, err := m.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	w, err := m.Get(ctx, name)
	if err != nil {
		if discard && !errors.Is(err, ErrNotFound) && m.checkReal(filepath.Join(m.dir, filepath.FromSlash(name))) == nil {
			// Its folder is gone: forget it.
			return m.forget(ctx, name)
		}
		return err
	}
	if !discard {
		loss, err := m.loss(ctx, w)
		if err != nil && !w.Hooked {
			return err
		}
		if loss != nil {
			return loss
		}
	}
	return m.remove(ctx, w)
}

// RemoveIfUnchanged removes the worktree name when it holds nothing its base does not:
// no uncommitted file and no commit since it was made. removed says whether it did.
func (m *Manager) RemoveIfUnchanged(ctx context.Context, name string) (removed bool, err error) {
	if err := ValidateName(name); err != nil {
		return false, err
	}
	unlock, err := m.lock(ctx)
	if err != nil {
		return false, err
	}
	defer unlock()
	w, err := m.Get(ctx, name)
	if err != nil {
		return false, err
	}
	s, err := m.summary(ctx, w)
	if err != nil || s.NotGit || s.Changed() {
		return false, err
	}
	if loss, err := m.loss(ctx, w); err != nil || loss != nil {
		return false, err
	}
	return true, m.remove(ctx, w)
}

// remove removes w's folder, registration and branch (the caller holds the lock and has
// checked what would be lost), then tells the WorktreeRemove hooks.
func (m *Manager) remove(ctx context.Context, w *Worktree) error {
	if !w.Hooked {
		if err := m.checkReal(w.Path); err != nil {
			return err
		}
		if _, err := m.git.run(ctx, m.root, "worktree", "remove", "--force", w.Path); err != nil {
			return fmt.Errorf("worktree %q was not removed: %w", w.Name, err)
		}
		m.removeEmptyParents(w.Path)
		if w.Branch == BranchPrefix+w.Name {
			if _, err := m.git.run(ctx, m.root, "branch", "-D", "--", w.Branch); err != nil {
				os.Remove(m.metaPath(w.Name))
				return fmt.Errorf("worktree %q was removed but its branch was not: %w", w.Name, err)
			}
		}
	}
	os.Remove(m.metaPath(w.Name))
	if m.opts.Hooks != nil {
		m.opts.Hooks.WorktreeRemove(ctx, w.Path)
	}
	return nil
}

// forget drops what is left of a worktree whose folder is gone: git's registration, the
// record and the branch.
func (m *Manager) forget(ctx context.Context, name string) error {
	_, _ = m.git.run(ctx, m.root, "worktree", "prune")
	rec, err := readRecord(m.metaPath(name))
	if err == nil && rec.Branch == BranchPrefix+name {
		_, _ = m.git.run(ctx, m.root, "branch", "-D", "--", rec.Branch)
	}
	os.Remove(m.metaPath(name))
	return nil
}
