//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// launch is one way a command is launched: a mode and whether it gets a PID namespace.
type launch struct {
	mode  string
	pidNS bool
}

func (l launch) String() string {
	if l.mode == modeMount && !l.pidNS {
		return "mount-without-pidns"
	}
	return l.mode
}

// reapedLaunches are the launches ouro supervises itself (see reap_linux.go): all but the
// mount mode with a PID namespace, where the kernel does.
func reapedLaunches(t *testing.T) []launch {
	t.Helper()
	out := []launch{{modeLandlock, false}, {modeSupervise, false}}
	if namespacesWork() {
		out = append(out, launch{modeMount, false})
	}
	return out
}

var reapSeq atomic.Int64

// reapMarker is a sleep duration no other process uses, to find the test's sleeps by
// their command line.
func reapMarker() string {
	return fmt.Sprintf("%d.%06d", 800+os.Getpid()%90, reapSeq.Add(1))
}

// sleeping lists the live processes running `sleep marker`.
func sleeping(marker string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cl, err := os.ReadFile(d + "/cmdline")
		if err != nil || !bytes.HasSuffix(cl, []byte("\x00"+marker+"\x00")) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if _, state, _, ok := procStat(pid); ok && state != 'Z' && state != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

func killSleeping(marker string) {
	for _, p := range sleeping(marker) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// startIn starts script under l with Start, as Bash does, its output in out.
func startIn(t *testing.T, l launch, ws workspace, script string, out *bytes.Buffer) *exec.Cmd {
	t.Helper()
	p := ws.policy
	if l.mode == modeSupervise {
		p = Policy{}
	}
	cmd, err := command(context.Background(), p, l.mode, l.pidNS, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = ws.root
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr.Setpgid = true // as Bash asks; Start makes it a session
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// until waits for cond, failing with what after a generous while (a condition the test
// needs before it can go on, not a measure of speed).
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Where ouro supervises a command itself, nothing stays beside it: the process ouro
// started becomes the command, and every way of leaving a process behind is undone by
// the time End returns.
func TestReapedCommandLeavesNothingBehind(t *testing.T) {
	requireLandlock(t)
	escapes := map[string]string{
		"background":           "sleep %s &",
		"nohup":                "nohup sleep %s >/dev/null 2>&1 &",
		"setsid":               "setsid sleep %s >/dev/null 2>&1 &",
		"setsid -f":            "setsid -f sleep %s >/dev/null 2>&1",
		"double fork":          "( ( sleep %s & ) & )",
		"ignores what it can":  "(trap '' TERM HUP INT; exec setsid sleep %s) >/dev/null 2>&1 &",
		"a setsid shell loops": "setsid sh -c 'while :; do sleep %s; done' >/dev/null 2>&1 &",
	}
	for _, l := range reapedLaunches(t) {
		for name, esc := range escapes {
			t.Run(l.String()+"/"+name, func(t *testing.T) {
				t.Parallel()
				ws := newWorkspace(t)
				marker := reapMarker()
				defer killSleeping(marker)
				var out bytes.Buffer
				cmd := startIn(t, l, ws, fmt.Sprintf(esc, marker)+"\nsleep 0.3; echo started", &out)
				if Resident(cmd) {
					t.Fatalf("%s keeps a resident launcher", l)
				}
				until(t, "the command's shell runs in place of the launcher", func() bool {
					exe, _ := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe")
					return strings.HasSuffix(exe, "/bash") || cmd.ProcessState != nil
				})
				err := cmd.Wait()
				End(cmd)
				if err != nil || out.String() != "started\n" {
					t.Fatalf("%v, %q", err, out.String())
				}
				if left := sleeping(marker); len(left) > 0 {
					t.Errorf("still running after End: %v", left)
				}
			})
		}
	}
}

// Concurrent commands: one command's orphan is not killed while that command runs, even
// when another command ends meanwhile; it is killed when its own command ends.
func TestConcurrentCommandsKeepTheirOwnOrphans(t *testing.T) {
	requireLandlock(t)
	for _, l := range reapedLaunches(t) {
		t.Run(l.String(), func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			a, b := reapMarker(), reapMarker()
			defer killSleeping(a)
			defer killSleeping(b)
			gate := filepath.Join(ws.root, "src", "gate")
			var outA bytes.Buffer
			cmdA := startIn(t, l, ws, "( ( sleep "+a+" & ) & ); setsid sleep "+a+" >/dev/null 2>&1 & "+
				"while [ ! -e src/gate ]; do sleep 0.02; done; echo A", &outA)
			until(t, "command A's two orphans run", func() bool { return len(sleeping(a)) == 2 })

			// B starts and ends while A runs; its orphans were started while A ran.
			var outB bytes.Buffer
			cmdB := startIn(t, l, ws, "( ( sleep "+b+" & ) & ); setsid sleep "+b+" >/dev/null 2>&1 & "+
				"until [ \"$(pgrep -fc 'sleep "+b+"$')\" = 2 ]; do sleep 0.02; done; echo B", &outB)
			if err := cmdB.Wait(); err != nil || outB.String() != "B\n" {
				t.Fatalf("B: %v, %q", err, outB.String())
			}
			End(cmdB)
			if left := sleeping(b); len(left) > 0 {
				t.Errorf("B's orphans outlived B: %v", left)
			}
			if got := sleeping(a); len(got) != 2 {
				t.Fatalf("A's orphans while A still runs, after B ended: %v, want 2", got)
			}
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := cmdA.Wait(); err != nil || outA.String() != "A\n" {
				t.Fatalf("A: %v, %q", err, outA.String())
			}
			End(cmdA)
			if left := sleeping(a); len(left) > 0 {
				t.Errorf("A's orphans outlived A: %v", left)
			}
		})
	}
}

// The processes ouro starts itself are never taken for a command's: while commands come
// and go, os/exec still waits for its own children (their status intact), and what one
// of them detached is left alone.
func TestReapingLeavesOurosOwnChildrenAlone(t *testing.T) {
	requireLandlock(t)
	ws := newWorkspace(t)
	own, detached := reapMarker(), reapMarker()
	defer killSleeping(own)
	defer killSleeping(detached)
	var out bytes.Buffer
	running := startIn(t, launch{modeLandlock, false}, ws, "sleep 30", &out)
	defer func() { _ = running.Process.Kill(); _ = running.Wait(); End(running) }()

	child := exec.Command("sh", "-c", "sleep "+own+" & wait $!; exit 3")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Its orphan is re-parented to this process, a subreaper now.
	if err := exec.Command("sh", "-c", "sleep "+detached+" >/dev/null 2>&1 &").Run(); err != nil {
		t.Fatal(err)
	}
	until(t, "both sleeps run", func() bool { return len(sleeping(own)) == 1 && len(sleeping(detached)) == 1 })
	for range 3 {
		var o bytes.Buffer
		c := startIn(t, launch{modeSupervise, false}, ws, "(sleep 60 &) ; true", &o)
		_ = c.Wait()
		End(c)
	}
	if len(sleeping(detached)) != 1 || len(sleeping(own)) != 1 {
		t.Fatalf("ouro's own processes were killed: own %v, detached %v", sleeping(own), sleeping(detached))
	}
	killSleeping(own)
	err := child.Wait()
	if child.ProcessState == nil || child.ProcessState.ExitCode() != 3 {
		t.Errorf("os/exec's wait for its own child: %v, %v; want exit status 3", err, child.ProcessState)
	}
}

// When ouro dies by SIGKILL, the warden takes every command it was running with it,
// whatever they detached.
func TestWardenKillsCommandsWhenOuroDies(t *testing.T) {
	requireLandlock(t)
	for _, l := range reapedLaunches(t) {
		t.Run(l.String(), func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			marker := reapMarker()
			defer killSleeping(marker)
			holder := exec.Command(os.Args[0], "-test.run=^$")
			holder.Env = append(os.Environ(), holderEnv+"="+l.mode+","+strconv.FormatBool(l.pidNS)+","+ws.root+","+
				"setsid sleep "+marker+" >/dev/null 2>&1 & ( ( sleep "+marker+" & ) & ); sleep "+marker)
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			until(t, "the holder's command and its orphans run", func() bool { return len(sleeping(marker)) == 3 })
			if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = holder.Wait()
			until(t, "every process of the command is gone", func() bool { return len(sleeping(marker)) == 0 })
		})
	}
}

// runHolder is the test binary as a stand-in for ouro, for TestWardenKillsCommandsWhenOuroDies.
func runHolder(spec string) {
	f := strings.SplitN(spec, ",", 4)
	if len(f) != 4 {
		os.Exit(2)
	}
	pidNS, _ := strconv.ParseBool(f[1])
	p := Policy{WriteRoots: []string{f[2]}}
	if f[0] == modeSupervise {
		p = Policy{}
	}
	cmd, err := command(context.Background(), p, f[0], pidNS, "bash", "-c", f[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cmd.Dir = f[2]
	if err := Start(cmd); err != nil || Resident(cmd) {
		fmt.Fprintln(os.Stderr, "not supervised by the holder itself:", err)
		os.Exit(2)
	}
	_ = cmd.Wait()
	os.Exit(0)
}

// A sandboxed command cannot shed the mark that makes its processes known, not even one
// run by root with CAP_SYS_RESOURCE, which could raise a hard limit again: the launcher
// drops the capability from the bounding set, so what the command detaches after trying
// still dies with it. (Unsandboxed, root keeps it; it can also kill ouro.)
func TestSandboxedCommandCannotShedTheMark(t *testing.T) {
	requireLandlock(t)
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit on PATH")
	}
	status, _ := os.ReadFile("/proc/self/status")
	var eff uint64
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, _ = strconv.ParseUint(strings.TrimSpace(rest), 16, 64)
		}
	}
	if eff&(1<<unix.CAP_SYS_RESOURCE) == 0 {
		t.Skip("this process has no CAP_SYS_RESOURCE, so no command it starts could raise a hard limit")
	}
	for _, l := range reapedLaunches(t) {
		if l.mode == modeSupervise {
			continue
		}
		t.Run(l.String(), func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			marker := reapMarker()
			defer killSleeping(marker)
			var out bytes.Buffer
			cmd := startIn(t, l, ws, "prlimit --pid $$ --rttime=unlimited:unlimited 2>/dev/null && echo raised; "+
				"setsid sleep "+marker+" >/dev/null 2>&1 & sleep 0.2; echo done", &out)
			_ = cmd.Wait()
			End(cmd)
			if strings.Contains(out.String(), "raised") {
				t.Errorf("the command raised its RLIMIT_RTTIME again: %q", out.String())
			}
			if left := sleeping(marker); len(left) > 0 {
				t.Errorf("still running after End: %v", left)
			}
		})
	}
}
