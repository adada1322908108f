package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildRelease builds ouro as it is released (CGO_ENABLED=0, -trimpath, -ldflags "-s -w":
// one static binary) and the small probe that measures peak memory (testdata/rssprobe).
// A cgo build links libc dynamically and starts at about twice the memory.
func buildRelease(tb testing.TB) (bin, probe string) {
	tb.Helper()
	dir := tb.TempDir()
	bin, probe = filepath.Join(dir, "ouro"), filepath.Join(dir, "rssprobe")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("build: %v\n%s", err, out)
	}
	if out, err := exec.Command("go", "build", "-o", probe, "./testdata/rssprobe").CombinedOutput(); err != nil {
		tb.Fatalf("build the probe: %v\n%s", err, out)
	}
	return bin, probe
}

// peakKB runs c through the probe and returns the command's peak RSS in KB.
func peakKB(tb testing.TB, probe string, c *exec.Cmd) int64 {
	tb.Helper()
	c.Args = append([]string{probe}, c.Args...)
	c.Path = probe
	c.Stderr = nil
	out, err := c.Output()
	if err != nil {
		tb.Fatalf("%v: %v", c.Args, err)
	}
	var kb int64
	if _, err := fmt.Sscan(string(out), &kb); err != nil {
		tb.Fatalf("probe printed %q: %v", out, err)
	}
	return kb
}

// BenchmarkStartupVersion measures `ouro --version` of a release build: wall time per run
// (ns/op) and the largest peak RSS seen (peak-MB).
// Targets: under 20 ms and at most 10 MB (see also TestPeakMemory).
func BenchmarkStartupVersion(b *testing.B) {
	bin, probe := buildRelease(b)
	b.ResetTimer()
	for b.Loop() {
		if err := exec.Command(bin, "--version").Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var peak int64
	for range 5 {
		peak = max(peak, peakKB(b, probe, exec.Command(bin, "--version")))
	}
	b.ReportMetric(float64(peak)/1024, "peak-MB")
}
