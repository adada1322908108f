// Package regfile reads files that configure ouro (settings, instruction files, skills,
// agent definitions) safely: only regular files, and never more than a bound, enforced
// while reading. A named pipe, a device such as /dev/zero or a socket put where a
// configuration file is expected is refused instead of hanging startup or exhausting
// memory; a file too large is refused (Read) or cut (ReadHead) after reading at most
// one byte more than the bound.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxConfig is the bound for a configuration file: far more than any hand-written
// settings file, agent or skill, far less than what would cost noticeable memory or time.
const MaxConfig = 1 << 20

// NotRegularError says that a path names something other than a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; only regular files are read", e.Path, Describe(e.Mode))
}

// TooLargeError says that a file holds more than the bound it was read with.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most ouro reads of such a file; shorten it", e.Path, Size(e.Limit))
}

// Read returns the whole content of the regular file at path, or an error: the file is
// missing (fs.ErrNotExist), is not a regular file (*NotRegularError), or holds more than
// limit bytes (*TooLargeError).
func Read(path string, limit int64) ([]byte, error) {
	data, more, err := ReadHead(path, limit)
	if err != nil {
		return nil, err
	}
	if more {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}

// ReadHead returns at most limit bytes from the start of the regular file at path, and
// whether the file holds more.
func ReadHead(path string, limit int64) (data []byte, more bool, err error) {
	f, err := Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// Open opens the regular file at path for reading. The open itself cannot block (a
// named pipe with no writer would block an ordinary open), and the check is made on the
// opened file, so a pipe or device swapped in after a Stat is still refused.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, nil
}

// IsNotRegular reports whether err says a path was not a regular file.
func IsNotRegular(err error) bool {
	var e *NotRegularError
	return errors.As(err, &e)
}

// IsTooLarge reports whether err says a file was over its bound.
func IsTooLarge(err error) bool {
	var e *TooLargeError
	return errors.As(err, &e)
}

// Describe names a kind of file for an error message.
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// Size writes a byte count for people: "1 MiB", "256 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// LimitReader reads from r, which reads the file at path, and fails with a
// *TooLargeError once more than limit bytes were asked for: for readers that stream a
// file (a frontmatter scanner) rather than reading it whole.
func LimitReader(r io.Reader, path string, limit int64) io.Reader {
	return &limited{r: r, path: path, left: limit, limit: limit}
}

type limited struct {
	r     io.Reader
	path  string
	left  int64
	limit int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more says whether the file really is longer than the limit.
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			return 0, &TooLargeError{Path: l.path, Limit: l.limit}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
