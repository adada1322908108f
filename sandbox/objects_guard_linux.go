//go:build linux

package sandbox

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// In the Landlock-only mode the objects folder of the workspace's own .git lies in a
// folder that stays open (index.lock, rebase-merge/ are made directly in .git), and
// Landlock grants every right of a folder to all below it: a command could rewrite a
// committed object in place. Git itself writes new objects elsewhere in a sandboxed
// command (GIT_OBJECT_DIRECTORY, see WithCheckoutObjects), so any change to an existing
// file of the store is the command's own. The guard notes each file's identity before the
// command (inode, size, ctime: a change time no unprivileged process can set) and the
// checksum a pack or index ends with; after the command, a file that changed and no
// longer holds what its name says (a loose object whose content does not hash to its
// name, a pack or index whose content does not match the checksum it had) is moved to
// the quarantine, so git reports it missing instead of reading a forged history, and the
// note says so (git fetch, or the quarantined copy, brings it back). A removed object
// cannot be brought back here; the note names it.

type objectsGuard struct {
	store   string
	hashLen int
	files   map[string]objectFile
}

type objectFile struct {
	ino, size int64
	ctime     syscall.Timespec
	trailer   []byte // a pack's or index's last hashLen bytes
}

func (p Policy) guardObjects() *objectsGuard {
	o := p.Objects
	if o == nil || !o.Checkout {
		return nil
	}
	g := &objectsGuard{store: o.Shared, hashLen: hashLenOf(o.GitDir), files: map[string]objectFile{}}
	_ = filepath.WalkDir(o.Shared, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), stagingPrefix) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) != nil {
			return nil
		}
		rel, _ := filepath.Rel(o.Shared, path)
		f := objectFile{ino: int64(st.Ino), size: st.Size, ctime: st.Ctim}
		if packLike(rel) {
			f.trailer = readTrailer(path, g.hashLen)
		}
		g.files[rel] = f
		return nil
	})
	return g
}

func packLike(rel string) bool {
	return strings.HasPrefix(rel, "pack"+string(filepath.Separator)) && (strings.HasSuffix(rel, ".pack") || strings.HasSuffix(rel, ".idx"))
}

func readTrailer(path string, n int) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() < int64(n) {
		return nil
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, st.Size()-int64(n)); err != nil {
		return nil
	}
	return b
}

func (g *objectsGuard) newHash() hash.Hash {
	if g.hashLen == 32 {
		return sha256.New()
	}
	return sha1.New()
}

// check returns what was rewritten (and moved to the quarantine) and what was removed.
func (g *objectsGuard) check(quarantine func() string) (rewritten, removed []string) {
	if g == nil {
		return nil, nil
	}
	// Where git looks for the objects it lacks: one a command made could supply a forged
	// object for any hash the repository does not have yet.
	for _, rel := range []string{filepath.Join("info", "alternates"), filepath.Join("info", "http-alternates")} {
		if _, had := g.files[rel]; had {
			continue
		}
		path := filepath.Join(g.store, rel)
		if _, err := os.Lstat(path); err == nil {
			dst := filepath.Join(quarantine(), "objects", rel)
			if os.MkdirAll(filepath.Dir(dst), 0o700) != nil || os.Rename(path, dst) != nil {
				os.RemoveAll(path)
				dst = "removed"
			}
			rewritten = append(rewritten, fmt.Sprintf("%s (created; now %s)", path, dst))
		}
	}
	for rel, was := range g.files {
		path := filepath.Join(g.store, rel)
		var st syscall.Stat_t
		if err := syscall.Lstat(path, &st); err != nil {
			removed = append(removed, path)
			continue
		}
		if int64(st.Ino) == was.ino && st.Size == was.size && st.Ctim == was.ctime {
			continue
		}
		if st.Mode&syscall.S_IFMT == syscall.S_IFREG && g.intact(rel, path, was) {
			continue // a hard link made, a mode changed: the content still is what it was
		}
		dst := filepath.Join(quarantine(), "objects", rel)
		if os.MkdirAll(filepath.Dir(dst), 0o700) != nil || os.Rename(path, dst) != nil {
			if err := os.Remove(path); err != nil {
				rewritten = append(rewritten, fmt.Sprintf("%s (could not be moved away: %v)", path, err))
				continue
			}
			dst = "removed"
		}
		rewritten = append(rewritten, fmt.Sprintf("%s (now %s)", path, dst))
	}
	return rewritten, removed
}

// intact reports whether the file at path still holds what its name (a loose object) or
// its recorded trailer (a pack or index) says.
func (g *objectsGuard) intact(rel, path string, was objectFile) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if packLike(rel) {
		st, err := f.Stat()
		if err != nil || st.Size() < int64(g.hashLen) || was.trailer == nil {
			return false
		}
		h := g.newHash()
		if _, err := io.Copy(h, io.LimitReader(f, st.Size()-int64(g.hashLen))); err != nil {
			return false
		}
		return bytes.Equal(h.Sum(nil), was.trailer) && bytes.Equal(readTrailer(path, g.hashLen), was.trailer)
	}
	dir, name := filepath.Split(rel)
	if !fanoutName(filepath.Clean(dir)) || !looseName(name) {
		return false // not an object: a change to it is not ordinary
	}
	z, err := zlib.NewReader(f)
	if err != nil {
		return false
	}
	h := g.newHash()
	if _, err := io.Copy(h, z); err != nil {
		return false
	}
	return fmt.Sprintf("%x", h.Sum(nil)) == filepath.Clean(dir)+name
}
