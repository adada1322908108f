//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkCommandOverheadPSS measures what a running sandboxed command costs beyond the
// command itself: 16 sandboxed `sleep 60` run at once, launched by a build of ouro, and
// the proportional set size (PSS, /proc/PID/smaps_rollup) of each one's processes is
// compared with that of 16 plain `sleep 60`. Where ouro supervises the commands itself
// (started with Start), the warden, one per ouro, is counted too, its share per command
// (it is reported on its own as warden-PSS-kB). It reports the overhead per command in
// kB for each launch this machine has, and for the resident launcher where Start does
// not use it (target: at most 1024 kB; issue 27, section 4).
func BenchmarkCommandOverheadPSS(b *testing.B) {
	if _, ok := Supported(); !ok {
		b.Skip("Landlock is not available on this kernel")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		b.Skip("no sleep on PATH")
	}
	ouro := filepath.Join(b.TempDir(), "ouro")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", ouro, "../cmd/ouro")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build ouro: %v\n%s", err, out)
	}
	const n = 16
	plain := make([]*exec.Cmd, n)
	for i := range plain {
		plain[i] = exec.Command(sleep, "60")
	}
	base := averagePSS(b, plain, sleep, false)
	b.Logf("a plain sleep: %d kB PSS", base)

	type bench struct {
		name     string
		mode     string
		pidNS    bool
		resident bool // started with cmd.Start: the launcher stays where it does not exec
	}
	benches := []bench{
		{"landlock", modeLandlock, false, false}, {"supervise", modeSupervise, false, false},
		{"landlock-resident", modeLandlock, false, true}, {"supervise-resident", modeSupervise, false, true},
	}
	if pr := probe(); pr.Namespaces {
		benches = append([]bench{{"mount", modeMount, pr.PIDNS, false}, {"mount-without-pidns", modeMount, false, false}}, benches...)
	}
	for _, l := range benches {
		b.Run(l.name, func(b *testing.B) {
			var overhead int64
			for b.Loop() {
				cmds := make([]*exec.Cmd, n)
				for i := range cmds {
					w := Policy{WriteRoots: []string{b.TempDir()}}
					if l.mode == modeSupervise {
						w = Policy{}
					}
					c, err := commandFor(context.Background(), ouro, w, l.mode, l.pidNS, sleep, "60")
					if err != nil {
						b.Fatal(err)
					}
					cmds[i] = c
				}
				overhead = averagePSS(b, cmds, sleep, !l.resident) - base
			}
			b.ReportMetric(float64(overhead), "overhead-PSS-kB/cmd")
		})
	}
}

// averagePSS starts cmds (with Start where reaped, else cmd.Start), waits until each
// runs prog (itself, or as a descendant), and returns the average PSS of each one's
// processes in kB, with its share of the warden's where one runs. The commands are
// killed before it returns.
func averagePSS(b *testing.B, cmds []*exec.Cmd, prog string, reaped bool) int64 {
	b.Helper()
	for _, c := range cmds {
		start := c.Start
		if reaped {
			start = func() error { return Start(c) }
		}
		if err := start(); err != nil {
			b.Fatal(err)
		}
	}
	defer func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
			End(c)
		}
	}()
	real, _ := filepath.EvalSymlinks(prog)
	var total int64
	for _, c := range cmds {
		var procs []int
		for i := 0; ; i++ {
			procs = append([]int{c.Process.Pid}, descendants(c.Process.Pid)...)
			exe, _ := os.Readlink("/proc/" + strconv.Itoa(procs[len(procs)-1]) + "/exe")
			if exe == real {
				break
			}
			if i == 1000 {
				b.Fatalf("%v never ran %s (last process runs %s)", c.Args, real, exe)
			}
			time.Sleep(5 * time.Millisecond)
		}
		for _, p := range procs {
			total += pssKB(b, p)
		}
	}
	if spec, _ := specOf(cmds[0]); spec.Reaped {
		sup.mu.Lock()
		warden := sup.wardenPID
		sup.mu.Unlock()
		if warden > 0 {
			w := pssKB(b, warden)
			b.ReportMetric(float64(w), "warden-PSS-kB")
			total += w
		}
	}
	return total / int64(len(cmds))
}

// pssKB reads the Pss line of /proc/PID/smaps_rollup.
func pssKB(b *testing.B, pid int) int64 {
	b.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		b.Fatalf("PSS of %d: %v", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("PSS of %d: %q", pid, sc.Text())
			}
			return kb
		}
	}
	b.Fatalf("no Pss line for %d", pid)
	return 0
}
