// Package gcpace sets how eagerly the garbage collector runs, before the rest of ouro
// initialises. Import it for its side effect, from main only.
//
// ouro's live heap is small (a few MB: the conversation, tool results) while most of its
// resident memory is the program itself, so a collector that lets the heap double before
// collecting (Go's default, GOGC=100) costs a visible share of the peak. GOGC=50 grows it
// by half instead. The soft limit is the backstop for a heap that runs away when other
// jobs load the CPU and the background collector falls behind: near the limit the
// collector runs sooner and harder instead of letting the heap grow. It sits well above
// a long session's live heap (the conversation is a few MB even near the context
// limit), because a program whose live heap exceeds its limit collects continuously, up
// to half the CPU; being soft, it never refuses memory a session really needs.
//
// Either can be overridden the usual way, with GOGC or GOMEMLIMIT in the environment.
package gcpace

import (
	"os"
	"runtime/debug"
)

const (
	// Percent is the heap growth allowed between collections, as GOGC.
	Percent = 50
	// Limit is the soft limit on the memory the Go runtime manages (heap, stacks, its own
	// structures), as GOMEMLIMIT; the program's code and data are not counted.
	Limit = 64 << 20
)

func init() { Apply(os.Getenv) }

// Apply sets the collector's pace unless the environment, read through getenv, sets it.
func Apply(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(Limit)
	}
}
