package worktree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What the manager keeps beside the worktrees, under .ouro/worktrees:
//
//	.gitignore        "*": the main checkout's git status does not list the worktrees
//	.lock             the inter-process lock (see lockFile)
//	.meta/<key>.json  one record per worktree: its name, path, branch and base commit
//	.pending/<key>    a creation under way: if its process died (kill -9), the next
//	                  call undoes what it left (a half-made directory, a registered
//	                  but locked worktree, a branch with nothing on it)

// record is what Create remembers of a worktree.
type record struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Branch  string `json:"branch,omitempty"`
	Base    string `json:"base,omitempty"`     // the commit it started from
	BaseRef string `json:"base_ref,omitempty"` // the main checkout's branch then ("" when detached)
	Hooked  bool   `json:"hooked,omitempty"`   // made by a WorktreeCreate hook, not by git
	Created string `json:"created,omitempty"`
}

func (m *Manager) metaPath(name string) string {
	return filepath.Join(m.dir, ".meta", fileKey(name)+".json")
}

func (m *Manager) pendingPath(name string) string {
	return filepath.Join(m.dir, ".pending", fileKey(name))
}

// writeJSON writes v to path atomically (a temporary file renamed over it), synced, so
// that a crash leaves either the old file or the new one.
func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func readRecord(path string) (record, error) {
	var r record
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("worktree record %s is damaged (%v); delete it and run git worktree prune", path, err)
	}
	return r, nil
}

// records lists every record in dir (.meta or .pending).
func (m *Manager) records(sub string) ([]record, error) {
	ents, err := os.ReadDir(filepath.Join(m.dir, sub))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []record
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		r, err := readRecord(filepath.Join(m.dir, sub, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// ensureDir makes .ouro/worktrees (and its .gitignore) under the root, refusing to go
// through a symbolic link: a link planted at .ouro or .ouro/worktrees would make the
// worktrees (and later their removal) land wherever it points.
func (m *Manager) ensureDir() error {
	for _, d := range []string{filepath.Dir(m.dir), m.dir} {
		st, err := os.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("worktrees folder: %w", err)
			}
			continue
		case err != nil:
			return fmt.Errorf("worktrees folder: %w", err)
		case st.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link; ouro keeps worktrees only in a real folder there, so it will not follow it (it could point anywhere). Remove the link and try again", d)
		case !st.IsDir():
			return fmt.Errorf("%s is not a folder; ouro keeps worktrees there. Move it away and try again", d)
		}
	}
	ign := filepath.Join(m.dir, ".gitignore")
	if f, err := os.OpenFile(ign, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644); err == nil {
		_, _ = f.WriteString("# ouro's worktrees: not part of the main checkout\n*\n")
		f.Close()
	}
	return nil
}

// checkReal refuses a worktree path that is, or lies below, a symbolic link within the
// worktrees folder: the directory ouro made was replaced, and whatever the link points
// at is not ouro's to inspect or delete.
func (m *Manager) checkReal(path string) error {
	rel, err := filepath.Rel(m.dir, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is not inside the worktrees folder %s", path, m.dir)
	}
	cur := m.dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link, not the worktree folder ouro made; ouro will not work through it (it could point anywhere). Remove the link yourself, then run git worktree prune", cur)
		}
	}
	return nil
}

// removeEmptyParents removes the folders left empty between path and the worktrees
// folder (a worktree named a/b leaves a/).
func (m *Manager) removeEmptyParents(path string) {
	for d := filepath.Dir(path); d != m.dir && strings.HasPrefix(d, m.dir+string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			return
		}
	}
}
