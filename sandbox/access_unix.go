//go:build unix

package sandbox

import (
	"path/filepath"
	"syscall"
)

// dacWritable reports whether this process may write p as far as file permissions go:
// p itself when it exists, else the nearest existing directory above it.
func dacWritable(p string) bool {
	for {
		err := syscall.Access(p, 2) // W_OK
		if err == nil {
			return true
		}
		if err != syscall.ENOENT && err != syscall.ENOTDIR {
			return false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}
