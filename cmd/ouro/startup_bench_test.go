package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkStartupVersion measures `ouro --version` of a release build (CGO_ENABLED=0,
// -trimpath, -ldflags "-s -w": one static binary): wall time per run (ns/op) and the
// largest peak RSS seen (peak-MB). A cgo build links libc dynamically and starts at about
// twice the memory.
// Targets: under 20 ms and under 30 MB.
func BenchmarkStartupVersion(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "ouro")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
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
