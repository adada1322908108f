//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// buildRelease builds ouro as it is released (CGO_ENABLED=0, -trimpath, -ldflags "-s -w":
// one static binary) and the small probe that measures peak memory (testdata/rssprobe).
// A cgo build links libc dynamically and starts at about twice the memory.
func buildRelease(tb testing.TB) (bin, probe string) {
	tb.Helper()
	dir := tb.TempDir()
	linked := filepath.Join(dir, "ouro.linked")
	bin, probe = filepath.Join(dir, "ouro"), filepath.Join(dir, "rssprobe")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", linked, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("build: %v\n%s", err, out)
	}
	installLike(tb, linked, bin)
	if out, err := exec.Command("go", "build", "-o", probe, "./testdata/rssprobe").CombinedOutput(); err != nil {
		tb.Fatalf("build the probe: %v\n%s", err, out)
	}
	return bin, probe
}

// installLike copies the binary the linker wrote to dst the way an installer does, with
// plain writes, and drops dst from the page cache, so that runs read it as they would an
// installed ouro. The linker writes its output through a memory mapping, and until those
// cached pages are dropped every run of that very file maps more of it at each page
// fault: about 4 MB more peak RSS on Linux 6.18, measuring the page cache, not ouro.
func installLike(tb testing.TB, src, dst string) {
	tb.Helper()
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		tb.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(struct{ io.Writer }{out}, in); err != nil { // no copy_file_range: plain writes
		tb.Fatal(err)
	}
	if err := out.Sync(); err != nil {
		tb.Fatal(err)
	}
	dropFromCache(tb, dst)
}

// dropFromCache drops the file at path from the page cache (pages no process maps), so
// that the next run reads it from disk as the first run after an install does.
func dropFromCache(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		tb.Logf("cannot drop %s from the page cache (%v); its figures may be high", path, err)
	}
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
// Targets: under 20 ms and at most 12 MB (see TestPeakMemory: 10 MB before ouro linked goja and the OpenAI SDK).
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
