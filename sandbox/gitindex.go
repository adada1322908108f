package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
)

// Gitlinks and the index guard close one more way git can be led to run a command:
// `git status` descends into every submodule, a gitlink (mode 160000) in the index,
// following the submodule folder's .git to a git dir whose config then decides what runs
// (core.fsmonitor and the like). A sandboxed command may write the index (git add and
// commit need it) and any file below the workspace, so it could register a gitlink for a
// folder of its own making. The sandbox therefore keeps the .git of every submodule that
// exists read-only (the policy lists them), and an IndexGuard puts the index back when a
// command added a gitlink.

// maxIndex bounds the index read (a very large repository's index is tens of MB).
const maxIndex = 256 << 20

// gitlinkMode is a submodule's mode in the index.
const gitlinkMode = 0o160000

// Gitlinks lists the paths the git index at path records as submodules. A missing index
// has none. hashLen is 20 (SHA-1) or 32 (SHA-256 repositories).
func Gitlinks(path string, hashLen int) (map[string]bool, error) {
	data, err := regfile.Read(path, maxIndex)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseGitlinks(data, hashLen)
}

// parseGitlinks reads the entries of an index file (versions 2, 3 and 4) and keeps the
// paths of those with the gitlink mode.
func parseGitlinks(data []byte, hashLen int) (map[string]bool, error) {
	bad := func(why string) (map[string]bool, error) {
		return nil, fmt.Errorf("git index: %s", why)
	}
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return bad("no DIRC signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return bad(fmt.Sprintf("unknown version %d", version))
	}
	count := binary.BigEndian.Uint32(data[8:12])
	out := map[string]bool{}
	pos := 12
	prev := ""
	const statLen = 40
	for i := uint32(0); i < count; i++ {
		start := pos
		if pos+statLen+hashLen+2 > len(data) {
			return bad("an entry runs past the end")
		}
		mode := binary.BigEndian.Uint32(data[pos+24 : pos+28])
		pos += statLen + hashLen
		flags := binary.BigEndian.Uint16(data[pos : pos+2])
		pos += 2
		if flags&0x4000 != 0 {
			if version < 3 {
				return bad("extended flags in a version 2 index")
			}
			pos += 2
		}
		var name string
		if version == 4 {
			strip, n := gitVarint(data[pos:])
			if n == 0 || int(strip) > len(prev) {
				return bad("a bad path prefix")
			}
			pos += n
			end := bytes.IndexByte(data[pos:], 0)
			if end < 0 {
				return bad("an unterminated path")
			}
			name = prev[:len(prev)-int(strip)] + string(data[pos:pos+end])
			pos += end + 1
		} else {
			end := bytes.IndexByte(data[pos:], 0)
			if end < 0 {
				return bad("an unterminated path")
			}
			name = string(data[pos : pos+end])
			pos += end + 1
			// Entries are padded with NULs to a multiple of eight bytes.
			for (pos-start)%8 != 0 {
				pos++
			}
		}
		prev = name
		if mode&0o170000 == gitlinkMode {
			out[name] = true
		}
	}
	return out, nil
}

// gitVarint decodes git's offset varint (varint.c); n is 0 when it is malformed.
func gitVarint(b []byte) (val uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val = uint64(c & 127)
	n = 1
	for c&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		val++
		c = b[n]
		n++
		val = val<<7 + uint64(c&127)
	}
	return val, n
}

// hashLenOf is the object name length of the repository whose git dir is dir: 32 when
// its config sets extensions.objectFormat = sha256, else 20.
func hashLenOf(gitDir string) int {
	data, err := regfile.Read(filepath.Join(gitDir, "config"), 1<<20)
	if err != nil {
		return 20
	}
	for _, line := range strings.Split(strings.ToLower(string(data)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "objectformat" && strings.TrimSpace(v) == "sha256" {
			return 32
		}
	}
	return 20
}

// submoduleGitPaths lists the .git of every submodule the repository at root records:
// what must stay read-only so that no sandboxed command changes where git goes for it.
func submoduleGitPaths(root string) []string {
	gitDir := filepath.Join(root, ".git")
	if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
		return nil
	}
	links, err := Gitlinks(filepath.Join(gitDir, "index"), hashLenOf(gitDir))
	if err != nil {
		return nil
	}
	var out []string
	for p := range links {
		out = append(out, gitMetadata(filepath.Join(root, filepath.FromSlash(p), ".git"))...)
	}
	return out
}

// IndexGuard remembers the git indexes of the workspace's repositories before a
// sandboxed command, to put one back when the command added a submodule to it.
type IndexGuard struct {
	saved []savedIndex
}

type savedIndex struct {
	path    string
	hashLen int
	data    []byte // nil: there was no index
	links   map[string]bool
}

// GuardIndexes notes the index of each repository among the policy's write roots. It
// costs one read of each index per command.
func (p Policy) GuardIndexes() *IndexGuard {
	g := &IndexGuard{}
	for _, r := range p.WriteRoots {
		gitDir := filepath.Join(r, ".git")
		if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
			continue
		}
		s := savedIndex{path: filepath.Join(gitDir, "index"), hashLen: hashLenOf(gitDir)}
		data, err := regfile.Read(s.path, maxIndex)
		switch {
		case errors.Is(err, os.ErrNotExist):
			s.links = map[string]bool{}
		case err != nil:
			continue // unreadable or too large: nothing to compare with
		default:
			if s.links, err = parseGitlinks(data, s.hashLen); err != nil {
				continue
			}
			s.data = data
		}
		g.saved = append(g.saved, s)
	}
	return g
}

// Restore puts back each index to which the command added a gitlink, and says so ("" when
// none was added). An index the command removed or cannot be parsed after it is left
// as it is: it adds no submodule.
func (g *IndexGuard) Restore() string {
	if g == nil {
		return ""
	}
	var notes []string
	for _, s := range g.saved {
		after, err := Gitlinks(s.path, s.hashLen)
		if err != nil {
			continue
		}
		var added []string
		for p := range after {
			if !s.links[p] {
				added = append(added, p)
			}
		}
		if len(added) == 0 {
			continue
		}
		what := "put back as it was before the command"
		if err := restoreFile(s.path, s.data); err != nil {
			what = fmt.Sprintf("could not be put back (%v): check `git status` before you trust this repository", err)
		}
		notes = append(notes, fmt.Sprintf("%s (new submodule entries: %s) was %s", s.path, strings.Join(added, ", "), what))
	}
	if len(notes) == 0 {
		return ""
	}
	return "The command added submodules to the git index, which sandboxed commands may not do (git would follow them to a configuration outside the sandbox's control the next time it runs): " +
		strings.Join(notes, "; ") + ". Add submodules outside the sandbox."
}

// restoreFile writes data back to path through a temporary file beside it; nil data
// removes path (there was no index).
func restoreFile(path string, data []byte) error {
	if data == nil {
		return os.Remove(path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
