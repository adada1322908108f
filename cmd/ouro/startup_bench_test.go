package main

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkStartupVersion measures `ouro --version` of a release build (-trimpath,
// -ldflags "-s -w"): wall time per run (ns/op) and the largest peak RSS seen (peak-MB).
// Targets: under 20 ms and under 30 MB.
func BenchmarkStartupVersion(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "ouro")
	if out, err := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	var peakKB int64
	b.ResetTimer()
	for b.Loop() {
		c := exec.Command(bin, "--version")
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > peakKB {
			peakKB = ru.Maxrss
		}
	}
	b.ReportMetric(float64(peakKB)/1024, "peak-MB")
}
