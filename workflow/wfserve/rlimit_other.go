//go:build !linux

package wfserve

// capMemory has no backstop outside Linux: the engine's watchdog alone bounds a script.
func capMemory(int64) {}
