//go:build !unix

// Package flock is the one advisory file lock ouro uses across processes; elsewhere than
// unix it locks nothing (within a process, callers hold their own mutexes).
package flock

import "os"

// Lock does nothing here.
func Lock(*os.File, bool) error { return nil }

// TryLock never finds the file busy here.
func TryLock(*os.File) (bool, error) { return false, nil }

// Unlock does nothing here.
func Unlock(*os.File) error { return nil }
