package wfserve

import "golang.org/x/sys/unix"

// capMemory bounds the engine process's private writable memory (RLIMIT_DATA, which
// counts the Go heap's mappings but not the address space Go only reserves) at a margin
// above the
// script's limit: the engine's watchdog stops a script that grows step by step, and this
// backstop stops one allocation too large to be watched (a string of 16 GiB) before it
// takes the machine's memory. The process then dies with "out of memory", which the
// caller reports as the limit. Builds with the race detector, whose shadow memory counts
// too, are left without it.
func capMemory(limit int64) {
	if raceEnabled || limit <= 0 {
		return
	}
	capBytes := uint64(limit)*4 + 512<<20
	var cur unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_DATA, &cur) == nil && cur.Max != unix.RLIM_INFINITY && cur.Max < capBytes {
		return // already bounded more tightly
	}
	_ = unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: capBytes, Max: capBytes})
}
