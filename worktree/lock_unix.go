//go:build unix

package worktree

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path (created if need be) that the kernel releases
// when the process dies, even by kill -9: two processes managing the same repository's
// worktrees take turns, and a crashed one never leaves the lock held.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("worktree lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("worktree lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
