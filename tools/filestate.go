package tools

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"
)

// Claude Code's wording, which models trained on it recognise and act on.
var (
	errNotRead = errors.New("File has not been read yet. Read it first before writing to it.")
	errChanged = errors.New("File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.")
)

// FileState remembers, for one session, what each file looked like when the agent last
// read or wrote it. Write and Edit consult it before changing an existing file: a file
// the model has not read, or that changed on disk since, would be overwritten from a
// stale picture, silently undoing the user's or a formatter's change. It is safe for
// concurrent use.
type FileState struct {
	mu       sync.Mutex
	seen     map[string]fileStamp
	locks    map[string]*pathLock
	recorder ChangeRecorder
	editor   Editor // nil: the disk alone
}

// fileStamp identifies one version of a file. The content hash catches a rewrite that
// keeps the size and lands within the filesystem's timestamp granularity.
type fileStamp struct {
	modTime time.Time
	size    int64
	sum     [sha256.Size]byte
}

type pathLock struct {
	mu   sync.Mutex
	refs int
}

// NewFileState returns an empty tracker; share one between the Read, Write and Edit of a
// session.
func NewFileState() *FileState {
	return &FileState{seen: map[string]fileStamp{}, locks: map[string]*pathLock{}}
}

func newStamp(info fs.FileInfo, sum [sha256.Size]byte) fileStamp {
	return fileStamp{modTime: info.ModTime(), size: info.Size(), sum: sum}
}

// record notes that the agent has seen path (a resolved path) as stamp, and reports
// whether that is news: a first read, or a file that changed since the last one. News
// lets the registry allow an Edit that failed with "not read yet" to be tried again.
func (s *FileState) record(path string, stamp fileStamp) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.seen[path]
	s.seen[path] = stamp
	return !ok || !old.modTime.Equal(stamp.modTime) || old.size != stamp.size || old.sum != stamp.sum
}

// check says whether an existing file may be overwritten: it must have been read in this
// session and still be as it was. info is the file's current state; sum hashes its
// current content and is only called when time and size have not already told.
// Any difference counts as a change, a mere touch included: reading again is cheap, and
// an edit made from a stale picture is not.
func (s *FileState) check(path string, info fs.FileInfo, sum func() ([sha256.Size]byte, error)) error {
	s.mu.Lock()
	stamp, ok := s.seen[path]
	s.mu.Unlock()
	if !ok {
		return errNotRead
	}
	if !stamp.modTime.Equal(info.ModTime()) || stamp.size != info.Size() {
		return errChanged
	}
	cur, err := sum()
	if err != nil {
		return fmt.Errorf("hash %s to see whether it changed: %w", path, err)
	}
	if cur != stamp.sum {
		return errChanged
	}
	return nil
}

// lock serialises the check-then-write of Write and Edit on one path, so two calls in the
// same session cannot both pass the check and lose one of their changes.
func (s *FileState) lock(path string) (unlock func()) {
	s.mu.Lock()
	l := s.locks[path]
	if l == nil {
		l = &pathLock{}
		s.locks[path] = l
	}
	l.refs++
	s.mu.Unlock()

	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(s.locks, path)
		}
		s.mu.Unlock()
	}
}

// hashReader hashes everything r yields, stopping early when ctx ends.
func hashReader(ctx context.Context, r io.Reader) ([sha256.Size]byte, error) {
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx: ctx, r: r}); err != nil {
		return [sha256.Size]byte{}, err
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum, nil
}

// sumOfSeen returns the hash recorded for path, if any.
func (s *FileState) sumOfSeen(path string) ([sha256.Size]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.seen[path]
	return st.sum, ok
}

// ChangeRecorder is told about each file Write and Edit change, under the path's lock:
// BeforeChange just before the change (an error refuses it, so nothing is changed that
// could not be recorded first) and Changed with the hash of what was written. Checkpoints
// use it; the tools know nothing more of them.
type ChangeRecorder interface {
	BeforeChange(path string) error
	Changed(path string, sum [sha256.Size]byte)
}

// SetRecorder makes r see every change Write and Edit make through this FileState; nil
// stops it. Set it before the tools run.
func (s *FileState) SetRecorder(r ChangeRecorder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recorder = r
}

func (s *FileState) beforeChange(tool, path string) error {
	s.mu.Lock()
	r := s.recorder
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	if err := r.BeforeChange(path); err != nil {
		return fmt.Errorf("%s %s: not changed, because its checkpoint could not be saved: %w", tool, path, err)
	}
	return nil
}

func (s *FileState) changed(path string, sum [sha256.Size]byte) {
	s.mu.Lock()
	r := s.recorder
	s.mu.Unlock()
	if r != nil {
		r.Changed(path, sum)
	}
}
