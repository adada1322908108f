//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/tool"
)

// BenchmarkBackground256 starts 256 background Bash commands at once (each sleeps 0.1 s
// and prints when it started and ended), with the default limit of 8 running and with
// the ceiling of 64, and waits for every notification. Past the limit the commands wait
// in the queue. It reports the wall time from the first start to the last notification,
// the most commands whose processes ran at the same moment (from the times they printed)
// and the longest the queue got. The sandbox is off: this measures the queue, not the
// sandbox's start cost (sandbox/BenchmarkCommandOverheadPSS has that).
//
//	go test -run NONE -bench Background256 -benchtime 1x ./tools
func BenchmarkBackground256(b *testing.B) {
	const jobs = 256
	for _, limit := range []int{background.DefaultMaxRunning, background.HardMaxRunning} {
		b.Run(fmt.Sprintf("maxRunning=%d", limit), func(b *testing.B) {
			for b.Loop() {
				ws := realDir(b, b.TempDir())
				m := background.New(background.Config{Dir: b.TempDir(), MaxRunning: limit})
				sh := NewBash(BashConfig{Dir: ws, KillGrace: 200 * time.Millisecond, Background: m})
				n := &notes{ch: make(chan string, jobs)}
				in, _ := json.Marshal(map[string]any{"run_in_background": true,
					"command": "s=$(date +%s%N); sleep 0.1; echo $s $(date +%s%N)"})
				began := time.Now()
				queued, peakQueue := 0, 0
				for i := range jobs {
					res, err := sh.Run(context.Background(), tool.NewExec(tool.Call{ID: fmt.Sprintf("toolu_%d", i), Name: "Bash", Input: in}, nil, n))
					if err != nil || res.IsError {
						b.Fatalf("start %d: %v %s", i, err, res.Text())
					}
					if strings.Contains(res.Text(), "queued: position") {
						queued++
					}
					peakQueue = max(peakQueue, m.Queued())
				}
				for i := range jobs {
					select {
					case text := <-n.ch:
						if !strings.Contains(text, "<status>completed</status>") {
							b.Fatalf("job %d: %s", i, text)
						}
					case <-time.After(2 * time.Minute):
						b.Fatalf("%d of %d jobs finished", i, jobs)
					}
				}
				wall := time.Since(began)
				peak := maxOverlap(b, m.List())
				m.Close()
				if peak > limit {
					b.Fatalf("%d commands ran at once with a limit of %d", peak, limit)
				}
				b.ReportMetric(wall.Seconds(), "s/256jobs")
				b.ReportMetric(float64(peak), "max-concurrent")
				b.ReportMetric(float64(queued), "queued-at-start")
				b.ReportMetric(float64(peakQueue), "max-queue")
			}
		})
	}
}

// maxOverlap is the most intervals (each task's printed start and end) open at once.
func maxOverlap(b *testing.B, list []background.Info) int {
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, i := range list {
		data, err := os.ReadFile(i.Output)
		f := strings.Fields(string(data))
		if err != nil || len(f) != 2 {
			b.Fatalf("output of %s: %q %v", i.ID, data, err)
		}
		s, _ := strconv.ParseInt(f[0], 10, 64)
		e, _ := strconv.ParseInt(f[1], 10, 64)
		edges = append(edges, edge{s, 1}, edge{e, -1})
	}
	sort.Slice(edges, func(a, c int) bool {
		if edges[a].at != edges[c].at {
			return edges[a].at < edges[c].at
		}
		return edges[a].delta < edges[c].delta // an end before a start at the same instant
	})
	open, peak := 0, 0
	for _, e := range edges {
		open += e.delta
		peak = max(peak, open)
	}
	return peak
}
