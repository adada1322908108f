//go:build unix && !linux

package team

import "syscall"

// deathSignal: no parent-death signal here; the worker watches its lead (WatchLead).
func deathSignal(*syscall.SysProcAttr) {}
