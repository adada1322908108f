package gcpace

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestApplyKeepsTheEnvironmentsChoice(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	Apply(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != Percent {
		t.Errorf("GC percent = %d, want %d", got, Percent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != Limit {
		t.Errorf("memory limit = %d, want %d", got, Limit)
	}

	debug.SetGCPercent(80)
	debug.SetMemoryLimit(1 << 30)
	Apply(func(k string) string { return map[string]string{"GOGC": "80", "GOMEMLIMIT": "1GiB"}[k] })
	if got := debug.SetGCPercent(100); got != 80 {
		t.Errorf("GOGC=80 in the environment, GC percent changed to %d", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != 1<<30 {
		t.Errorf("GOMEMLIMIT=1GiB in the environment, limit changed to %d", got)
	}
}
