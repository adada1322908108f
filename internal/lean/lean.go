// Package lean releases what only ouro's start-up needed.
//
// Every package a Go program links is initialised in every run, whether the run uses it
// or not. The OpenAI SDK's initialisation alone (its many union and validator
// registrations, each a small function placed next to the code it registers) touches
// code and type data spread over its whole part of the binary, and the kernel maps
// 64 KB around each page a program first touches (fault-around): about 6 MB of ouro's
// resident memory in a run that talks to Anthropic, more than a quarter of it, for code
// that never runs again. Go cannot initialise a package lazily, so once initialisation
// is over ReleaseInitPages drops the mappings of ouro's own read-only code and data
// (madvise MADV_DONTNEED). They are clean copies of the binary: the pages stay in the
// page cache, shared with every other ouro, and what the run goes on to use is mapped
// back in at its first touch. Nothing writable is dropped.
//
// OURO_KEEP_INIT_PAGES=1 turns it off (to measure what it saves).
package lean

import "os"

// ReleaseInitPages drops the mappings of the executable's read-only segments; call it
// first thing in main, when every package has been initialised.
func ReleaseInitPages() {
	if os.Getenv("OURO_KEEP_INIT_PAGES") == "1" {
		return
	}
	release()
}
