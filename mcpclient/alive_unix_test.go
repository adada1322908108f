//go:build unix

package mcpclient

import "syscall"

// processAlive reports whether process pid (or a zombie of it) still exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
