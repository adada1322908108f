//go:build linux

package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// BenchmarkTextSessionCPU measures the CPU (user + system, from the rusage of the ouro
// process and the children it waited for) of a 1-turn text session of a release build
// against the fake model, with the sandbox on (the default) and off. A session that runs
// no command should cost no more with the sandbox on: its probe waits for the first
// sandboxed command (issue 27, section 1; it was 38 ms against 20 ms).
//
// OURO_BENCH_BINARY names another build to measure instead (an older release, to compare).
func BenchmarkTextSessionCPU(b *testing.B) {
	bin := os.Getenv("OURO_BENCH_BINARY")
	if bin == "" {
		bin, _ = buildRelease(b)
	}
	home, dir := b.TempDir(), b.TempDir()
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "OURO_") || k == "HOME" || k == "XDG_CACHE_HOME" {
			continue
		}
		base = append(base, kv)
	}
	base = append(base, "HOME="+home, "OURO_HOME="+filepath.Join(home, ".ouro"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "ANTHROPIC_API_KEY=test-key")
	session := func(settings string) time.Duration {
		srv, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{{Text: "hello"}}})
		if err != nil {
			b.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		c := exec.Command(bin, "-p", "say hello", "--settings", settings)
		c.Dir = dir
		c.Env = append(base, "ANTHROPIC_BASE_URL="+hs.URL)
		if out, err := c.CombinedOutput(); err != nil || !strings.Contains(string(out), "hello") {
			b.Fatalf("session: %v\n%s", err, out)
		}
		ru := c.ProcessState.SysUsage().(*syscall.Rusage)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var on, off time.Duration
	runs := 0
	for b.Loop() {
		on += session(`{}`)
		off += session(`{"sandbox":{"enabled":false}}`)
		runs++
	}
	b.ReportMetric(float64(on.Microseconds())/1000/float64(runs), "cpu-ms/session-sandbox-on")
	b.ReportMetric(float64(off.Microseconds())/1000/float64(runs), "cpu-ms/session-sandbox-off")
}
