package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	probe := filepath.Join(b.TempDir(), "rssprobe")
	if out, err := exec.Command("go", "build", "-o", probe, "./testdata/rssprobe").CombinedOutput(); err != nil {
		b.Fatalf("build the probe: %v\n%s", err, out)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := exec.Command(bin, "--version").Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// Peak memory through the small probe (see testdata/rssprobe), the largest of a few runs.
	var peakKB int64
	for range 5 {
		out, err := exec.Command(probe, bin, "--version").Output()
		if err != nil {
			b.Fatal(err)
		}
		var kb int64
		fmt.Sscan(string(out), &kb)
		peakKB = max(peakKB, kb)
	}
	b.ReportMetric(float64(peakKB)/1024, "peak-MB")
}
