//go:build !unix

package session

import "os"

// Elsewhere transcripts are not locked across processes.
func tryLock(*os.File) (bool, error) { return false, nil }
