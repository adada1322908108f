//go:build !unix

package tools

import (
	"fmt"
	"io"
	"os"
)

// read returns the content of path, which stays valid until the next read.
func (r *grepReader) read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > r.limit {
		return nil, errGrepTooLarge
	}
	r.grow(info.Size())
	data := r.buf[:0]
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
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
