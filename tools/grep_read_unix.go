//go:build unix

package tools

import (
	"fmt"
	"syscall"
)

// read returns the content of path, which stays valid until the next read. It uses
// the system calls directly: os.Open would also register each file with the network
// poller, which for a search of thousands of small files costs more than reading them.
// O_NONBLOCK makes a FIFO put in place of a file fail instead of blocking.
func (r *grepReader) read(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Size > r.limit {
		return nil, errGrepTooLarge
	}
	r.grow(st.Size)
	data := r.buf[:0]
	for {
		n, err := syscall.Read(fd, data[len(data):cap(data)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		data = data[:len(data)+n]
		// Stop at the end, or at the size measured, which saves a read that would only
		// say end of file.
		if n == 0 || int64(len(data)) >= st.Size && len(data) < cap(data) {
			break
		}
		if len(data) == cap(data) { // it grew while we read
			if int64(len(data)) > r.limit {
				return nil, errGrepTooLarge
			}
			data = append(data, 0)[:len(data)]
		}
	}
	r.buf = data[:0]
	return data, nil
}
