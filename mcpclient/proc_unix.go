//go:build linux || darwin

package mcpclient

import (
	"errors"
	"syscall"
	"time"
)

// killGroup stops a server's process group: SIGTERM, then (under the launcher) SIGHUP so
// the launcher kills the whole tree, then SIGKILL for whatever is left.
func killGroup(pgid int, supervised bool) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return
	}
	if gone(pgid, 500*time.Millisecond) {
		return
	}
	if supervised {
		_ = syscall.Kill(pgid, syscall.SIGHUP)
		if gone(pgid, 500*time.Millisecond) {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	gone(pgid, 500*time.Millisecond)
}

func gone(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
