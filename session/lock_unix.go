//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on the open transcript without waiting. The kernel
// drops it when the file is closed or the process dies (kill -9 included), so a crashed
// ouro never leaves a session locked.
func tryLock(f *os.File) (busy bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
