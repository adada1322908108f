package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/ouroagent/ouro/internal/atomicfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Step is what restoring one file to before a prompt would do.
type Step struct {
	File File // the state to restore
	// Conflict says why the file is no longer what ouro last wrote (changed by you, an
	// editor, Bash or another session): restoring it would lose that change. Restore
	// overwrites it only when forced.
	Conflict string
	// Refused says why the file cannot be restored at all (a symbolic link swapped in,
	// its content too big to have been kept); forcing does not help.
	Refused string
	// Same is true when the file already is as it was: nothing to do.
	Same bool

	from string // the session whose folder holds the kept content
}

// Plan says what restoring the code to before prompt id would do, file by file: the
// state kept by the first prompt from id on that changed it, checked against what the
// last one wrote.
func (s *Store) Plan(id int) ([]Step, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps, err := s.find(id)
	if err != nil {
		return nil, err
	}
	var steps []Step
	index := map[string]int{}
	last := map[string]File{}
	for _, p := range ps {
		if err := s.load(p); err != nil {
			return nil, err
		}
		for _, f := range p.Files {
			if _, ok := index[f.Path]; !ok {
				index[f.Path] = len(steps)
				steps = append(steps, Step{File: f, from: p.Session})
			}
			last[f.Path] = f
		}
	}
	for i := range steps {
		st := &steps[i]
		st.Same, st.Conflict, st.Refused = s.check(st.File, last[st.File.Path])
	}
	return steps, nil
}

// check compares path's state now with what ouro last left there (last) and with the
// state to restore (want).
func (s *Store) check(want, last File) (same bool, conflict, refused string) {
	path := want.Path
	if !filepath.IsAbs(path) || s.Within != nil && !s.Within(filepath.Clean(path)) {
		return false, "", "it is outside this session's workspace, so a rewind does not touch it"
	}
	dir := filepath.Dir(path)
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		return false, "", fmt.Sprintf("its folder now leads elsewhere (%s): a symbolic link was put in its way", real)
	}
	info, err := os.Lstat(path)
	var now string // "" absent, else the hash
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, "", err.Error()
	case info.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return false, "", fmt.Sprintf("it is now a symbolic link (to %s); ouro does not restore through links — remove the link and rewind again", target)
	case !info.Mode().IsRegular():
		return false, "", fmt.Sprintf("it is now a %s, not a file", info.Mode().Type())
	default:
		sum, err := hashFile(path)
		if err != nil {
			return false, "", err.Error()
		}
		now = sum
	}
	if want.Absent && now == "" || !want.Absent && !want.TooBig && now == want.Sum {
		return true, "", ""
	}
	if want.TooBig {
		return false, "", fmt.Sprintf("it was too big to checkpoint (%d bytes; the limit is %d), so its earlier content was not kept", want.Size, s.maxFile())
	}
	expect := last.After
	if expect == "" { // the last change did not complete: the file should be as before it
		expect = last.Sum
	}
	if now != expect || expect == "" && !last.Absent {
		what := "changed"
		if now == "" {
			what = "deleted"
		}
		return false, fmt.Sprintf("it was %s after ouro last wrote it (by you, an editor, Bash or another session); restoring would lose that", what), ""
	}
	return false, "", ""
}

// Restore carries out steps (from Plan): files that did not exist are deleted, the others
// get their kept content and permissions back. Steps with a conflict are skipped unless
// force is set; refused and unchanged ones always are. It returns the files restored.
func (s *Store) Restore(steps []Step, force bool) ([]File, error) {
	var done []File
	var errs []error
	for _, st := range steps {
		if st.Same || st.Refused != "" || st.Conflict != "" && !force {
			continue
		}
		f := st.File
		var err error
		if f.Absent {
			err = os.Remove(f.Path)
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		} else {
			err = s.put(f, st.from)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", f.Path, err))
			continue
		}
		done = append(done, f)
	}
	return done, errors.Join(errs...)
}

// put writes f's kept content back, checking the blob is what was kept.
func (s *Store) put(f File, from string) error {
	data, err := os.ReadFile(filepath.Join(s.dir(from), "blobs", f.Sum))
	if err != nil {
		return fmt.Errorf("its checkpoint is missing: %w", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.Sum {
		return errors.New("its checkpoint was altered on disk; not restored")
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(f.Mode)
	if mode == 0 {
		mode = 0o644
	}
	return atomicfile.Write(f.Path, data, mode)
}

// readNoFollow reads at most limit+1 bytes of path, refusing a symbolic link.
func readNoFollow(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

func hashFile(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
