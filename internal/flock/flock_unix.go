//go:build unix

// Package flock is the one advisory file lock ouro uses across processes (transcripts,
// the memory store, the grant ledger). The kernel drops a lock when its file is closed or
// its process dies, kill -9 included, so a crash never leaves one behind.
package flock

import (
	"errors"
	"os"
	"syscall"
)

// Lock waits for a lock on f: exclusive, or shared (for readers).
func Lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	return retry(func() error { return syscall.Flock(int(f.Fd()), how) })
}

// TryLock takes an exclusive lock on f without waiting; busy reports that another open
// file (another process, or another open of the file here) holds it.
func TryLock(f *os.File) (busy bool, err error) {
	err = retry(func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) })
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// Unlock releases f's lock (closing f does too).
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func retry(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
