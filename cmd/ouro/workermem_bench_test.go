//go:build linux

package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// workerCount is how many idle worker processes BenchmarkWorkerMemory keeps at once: the
// binary's pages are shared among them, as among the workers of a real fleet.
const workerCount = 20

// BenchmarkWorkerMemory starts workerCount `ouro team worker` processes of a release
// build, as a lead's --team-process does (--lead-pid: they stay until told to stop), lets
// them settle idle on an empty task list, and reports each one's memory from
// /proc/PID/smaps_rollup, averaged: Pss (what one more worker costs the machine, shared
// pages divided among the processes mapping them), Anonymous (its own heap, stacks and
// runtime: what it costs however many there are) and Rss. Target (issue 32, goal 3): at
// most 5 MB of Pss per worker.
//
//	go test ./cmd/ouro -run NONE -bench WorkerMemory -benchtime 1x
func BenchmarkWorkerMemory(b *testing.B) {
	bin, _ := buildRelease(b)
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "an idle worker asks the model nothing", http.StatusTeapot)
	}))
	defer model.Close()
	for b.Loop() {
		home, dir := b.TempDir(), b.TempDir()
		var vars []string
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "OURO_") || k == "HOME" {
				continue
			}
			vars = append(vars, kv)
		}
		vars = append(vars, "HOME="+home, "OURO_HOME="+filepath.Join(home, ".ouro"), "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+model.URL)
		var procs []*exec.Cmd
		for i := range workerCount {
			c := exec.Command(bin, "team", "worker", "--team", "crew", "--name", fmt.Sprintf("w%d", i), "--lead-pid", strconv.Itoa(os.Getpid()))
			c.Dir, c.Env = dir, vars
			if err := c.Start(); err != nil {
				b.Fatal(err)
			}
			procs = append(procs, c)
		}
		time.Sleep(5 * time.Second) // started, stores open, idle
		sum := map[string]int64{}
		for _, c := range procs {
			m, err := rollup(c.Process.Pid)
			if err != nil {
				b.Fatalf("worker %d: %v (did it exit? run it by hand: %s team worker --team crew --lead-pid PID)", c.Process.Pid, err, bin)
			}
			for k, v := range m {
				sum[k] += v
			}
		}
		for _, c := range procs {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range procs {
			_ = c.Wait()
		}
		per := func(k string) float64 { return float64(sum[k]) / workerCount / 1024 }
		b.ReportMetric(per("Pss"), "MB-Pss/worker")
		b.ReportMetric(per("Anonymous"), "MB-anon/worker")
		b.ReportMetric(per("Rss"), "MB-RSS/worker")
	}
}

// rollup reads the kB figures of /proc/PID/smaps_rollup.
func rollup(pid int) (map[string]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 2 && fields[1] == "kB" {
			if n, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
				m[k] = n
			}
		}
	}
	return m, sc.Err()
}
