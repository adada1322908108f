package engine

import (
	"fmt"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// MemoryLimitEnv names the environment variable that sets the memory a workflow script may
// use in the workflow engine process ("2GiB", "512MB", a number of bytes).
const MemoryLimitEnv = "OURO_WORKFLOW_MEMORY"

// DefaultMemoryLimit is the memory a script may use when MemoryLimitEnv is unset: far more
// than a script that fans work out to agents and gathers their answers needs, far less than
// a runaway loop reaches in seconds (5.9 GB in 19 s, measured).
const DefaultMemoryLimit = 1 << 30

// MemoryLimitFromEnv reads MemoryLimitEnv through getenv.
func MemoryLimitFromEnv(getenv func(string) string) (int64, error) {
	v := strings.TrimSpace(getenv(MemoryLimitEnv))
	if v == "" {
		return DefaultMemoryLimit, nil
	}
	n, err := humanize.ParseBytes(v)
	if err != nil || n == 0 || n > 1<<62 {
		return 0, fmt.Errorf("%s=%q is not a memory size: write it as 2GiB, 512MB or a number of bytes", MemoryLimitEnv, v)
	}
	return int64(n), nil
}

// memoryPoll is how often the watchdog reads the heap's size.
const memoryPoll = 10 * time.Millisecond

// watchMemory stops r when the process's heap passes limit: goja has no memory limit of its
// own, and a script is free to grow an array without end. The heap is the process's, which
// in the helper is the run's. Two readings count: the heap the last collection found live
// (what the script really holds), and every object not yet swept past twice the limit (the
// collector is falling behind a script that allocates faster than it frees; GOGC's default
// lets garbage reach the live heap's size, never twice the limit while the live heap is
// under it). It returns a function that ends the watch.
func (r *run) watchMemory(limit int64) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(memoryPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-r.ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(samples)
			live, objects := sampleBytes(samples[0]), sampleBytes(samples[1])
			if live > uint64(limit) || objects > 2*uint64(limit) {
				r.stop(fmt.Errorf("%w: the script's memory reached %s, more than its limit of %s, so it was stopped (a script that needs more can have it: set %s, e.g. %s=%s)",
					errLimit, humanize.IBytes(max(live, objects)), humanize.IBytes(uint64(limit)), MemoryLimitEnv, MemoryLimitEnv, strings.ReplaceAll(humanize.IBytes(2*uint64(limit)), " ", "")))
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}

func sampleBytes(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}
