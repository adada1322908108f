//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// probeEnv tells the helper below what to change in its namespaces before it probes:
// "submount DIR" mounts a tmpfs below DIR, its TMPDIR; "nouserns" sets
// user.max_user_namespaces to 0, as some containers have it.
const probeEnv = "OURO_TEST_PROBE_HELPER"

// probeIn runs the probe in a process of its own user and mount namespaces, after setup
// (see probeEnv), and returns its verdict and output.
func probeIn(t *testing.T, setup string) (probeResult, string) {
	t.Helper()
	helper := exec.Command(os.Args[0], "-test.run=^TestProbeHelper$", "-test.v")
	helper.Env = append(os.Environ(), probeEnv+"="+setup)
	helper.SysProcAttr = &syscall.SysProcAttr{}
	if err := enterNamespaces(helper.SysProcAttr, false); err != nil {
		t.Fatal(err)
	}
	out, err := helper.CombinedOutput()
	if err != nil && len(out) == 0 {
		t.Skipf("cannot start a process in user and mount namespaces of its own here (%v): the test needs them to change mounts and limits without touching the machine's", err)
	}
	_, line, found := strings.Cut(string(out), "VERDICT ")
	if !found {
		t.Fatalf("the helper printed no verdict (%v):\n%s", err, out)
	}
	line, _, _ = strings.Cut(line, "\n")
	var got probeResult
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("verdict %q: %v", line, err)
	}
	return got, string(out)
}

// A mount below TMPDIR (a tmpfs, say) is locked into every user namespace made from the
// mount namespace it is in, and a bind mount that is not recursive refuses a tree with a
// locked mount inside: the probe then took working user namespaces for missing ones
// (issue 27, section 1). The probe runs here in a mount namespace of its own with a
// tmpfs below its TMPDIR, and must still choose the namespace mode.
func TestProbeWithAMountBelowTMPDIR(t *testing.T) {
	requireLandlock(t)
	got, out := probeIn(t, "submount "+realTemp(t))
	if !got.Namespaces {
		t.Errorf("with a tmpfs below TMPDIR the probe finds no namespaces: %+v\n%s", got, out)
	}
	if !got.PIDNS {
		t.Errorf("with a tmpfs below TMPDIR the probe finds no PID namespace: %+v\n%s", got, out)
	}
}

// Where no user namespace can be made, the probe says which call failed, with its error
// and the setting behind it, not that the binary is no launcher.
func TestProbeSaysWhatFailed(t *testing.T) {
	requireLandlock(t)
	got, out := probeIn(t, "nouserns")
	if got.Namespaces || got.PIDNS {
		t.Fatalf("namespaces found with user.max_user_namespaces 0: %+v\n%s", got, out)
	}
	if !got.Launcher {
		t.Errorf("the binary is not taken for the launcher: %+v", got)
	}
	for _, want := range []string{"CLONE_NEWUSER", syscall.ENOSPC.Error(), "user.max_user_namespaces is 0", "sysctl"} {
		if !strings.Contains(got.NamespacesErr, want) {
			t.Errorf("the failure %q does not say %q", got.NamespacesErr, want)
		}
	}
	// Bash there runs in the Landlock-only mode, never without a sandbox (issue 27:
	// with max_user_namespaces 0 it ran with none).
	want := `RAN made="new\n" hook="original\n" outside="<open ` // and the rest of the error
	if !strings.Contains(out, want) || !strings.Contains(out, "sameuserns=true") {
		t.Errorf("the command did not run in the Landlock-only mode (want %s… and sameuserns=true):\n%s", want, out)
	}
	// What the mode leaves out (the restore guard, /dev/shm, no PID namespace) is told
	// once, when the first command finds it, and the
	// reason is the failed call, not a claim that the binary is no launcher.
	if strings.Contains(out, "AVAILABILITY-WARNED") || !strings.Contains(out, "NOTICES 3 ") ||
		!strings.Contains(out, `The sandbox cannot use namespaces here (starting a process in new namespaces (clone with CLONE_NEWUSER|CLONE_NEWNS`) {
		t.Errorf("the mode's warnings were not told once by the first command:\n%s", out)
	}
}

// OURO_SANDBOX_MODE picks each mode, for tests: the mode's namespaces (or none), and a
// refusal with the reason and the person's way out for "unavailable" and for a value
// that names no mode. No value runs a command unsandboxed.
func TestForcedModes(t *testing.T) {
	requireLandlock(t)
	ownNS, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Skipf("no /proc/self/ns: %v", err)
	}
	for _, c := range []struct{ value, want string }{
		{ModeLandlock, "same"},
		{ModeNamespaces, "other"},
		{ModeUnavailable, "refused"},
		{"off", "refused"},
	} {
		t.Run(c.value, func(t *testing.T) {
			if c.value == ModeNamespaces && !namespacesWork() {
				t.Skip("user namespaces are not available")
			}
			t.Setenv(ModeEnv, c.value)
			w := newWorkspace(t)
			cmd, err := Command(context.Background(), w.policy, "bash", "-c", `readlink /proc/self/ns/mnt; echo out > "$1"/x`, "bash", w.outside)
			if c.want == "refused" {
				if err == nil || !strings.Contains(err.Error(), ModeEnv) || !strings.Contains(err.Error(), "sandbox.failIfUnavailable: false") {
					t.Errorf("err %v, want a refusal naming %s and the way out", err, ModeEnv)
				}
				if v := Probe(); v.Mode != ModeUnavailable || !v.Forced {
					t.Errorf("Probe = %+v", v)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, _ := cmd.CombinedOutput()
			first, _, _ := strings.Cut(string(out), "\n")
			if got := first == ownNS; got != (c.want == "same") {
				t.Errorf("%s: the command's mount namespace %q, ouro's %q", c.value, out, ownNS)
			}
			if _, err := os.Stat(filepath.Join(w.outside, "x")); err == nil {
				t.Errorf("%s: the command wrote outside its roots", c.value)
			}
			if v := Probe(); v.Mode != c.value || !v.Forced {
				t.Errorf("Probe = %+v", v)
			}
		})
	}
}

// TestProbeHelper is the process probeIn starts in namespaces of its own; run alone, it
// does nothing.
func TestProbeHelper(t *testing.T) {
	setup := os.Getenv(probeEnv)
	if setup == "" {
		return
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		t.Fatalf("make mounts private: %v", err)
	}
	switch kind, arg, _ := strings.Cut(setup, " "); kind {
	case "submount":
		sub := filepath.Join(arg, "sub")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount("tmpfs", sub, "tmpfs", 0, "size=1m"); err != nil {
			t.Fatalf("mount a tmpfs at %s: %v", sub, err)
		}
		t.Setenv("TMPDIR", arg)
	case "nouserns":
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0o644); err != nil {
			t.Fatalf("set user.max_user_namespaces to 0: %v", err)
		}
	default:
		t.Fatalf("unknown setup %q", setup)
	}
	pr := probeBinary("/proc/self/exe")
	b, _ := json.Marshal(pr)
	t.Logf("VERDICT %s", b)
	// A command runs sandboxed all the same: in the Landlock-only mode where no
	// namespace can be made.
	w := newWorkspace(t)
	if _, warnings := Availability(w.policy); len(warnings) > 0 {
		t.Logf("AVAILABILITY-WARNED %q", warnings) // it cannot know the mode before the probe
	}
	var notices []string
	pol := w.policy.WithNotice(func(s string) { notices = append(notices, s) })
	cmd, err := Command(context.Background(), pol, "bash", "-c", `echo new > made; echo evil > .git/hooks/pre-commit; echo out > "$1"/x; readlink /proc/self/ns/user`, "bash", w.outside)
	if err != nil {
		t.Logf("COMMAND-ERROR %v", err)
		return
	}
	cmd.Dir = filepath.Join(w.root, "src")
	out, _ := cmd.CombinedOutput()
	own, _ := os.Readlink("/proc/self/ns/user")
	t.Logf("RAN made=%q hook=%q outside=%q sameuserns=%v", content(t, filepath.Join(cmd.Dir, "made")),
		content(t, filepath.Join(w.root, ".git", "hooks", "pre-commit")), content(t, filepath.Join(w.outside, "x")),
		strings.Contains(string(out), own))
	if _, err := Command(context.Background(), pol, "true"); err != nil {
		t.Fatal(err)
	}
	t.Logf("NOTICES %d %q", len(notices), notices)
}

// In the namespace mode with a PID namespace no launcher stays resident beside the
// command: the process ouro started, PID 1 of the namespace, is the command itself
// (issue 27, section 4), and the command's processes still end with it
// (TestLauncherTakesTheProcessTreeWithTheCommand).
func TestNamespaceModeLeavesNoLauncher(t *testing.T) {
	requireLandlock(t)
	if !namespacesWork() || !probe().PIDNS {
		t.Skip("no PID namespace here: the launcher stays as the supervisor")
	}
	w := newWorkspace(t)
	cmd, err := Command(context.Background(), w.policy, "bash", "-c", `echo "$$"; tr '\0' ' ' </proc/1/cmdline`)
	if err != nil {
		t.Fatal(err)
	}
	if Resident(cmd) {
		t.Error("Resident says a launcher stays in the namespace mode")
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "1\nbash -c ") || strings.Contains(string(out), launcherArg) {
		t.Errorf("PID 1 of the command's namespace is not the shell: %q", out)
	}
}

// Commands the launcher became die with the process that started them: each carries
// SIGKILL as its parent-death signal, whichever of the launcher's threads exec'd it. The
// signal belongs to a thread, ouro sets it on the launcher's first one, and an exec from
// another thread made the command without it, so that one in a few outlived a killed
// ouro (issue 27, section 4). The command reads its own with prctl(PR_GET_PDEATHSIG).
func TestCommandsDieWithTheirParent(t *testing.T) {
	requireLandlock(t)
	if !namespacesWork() || !probe().PIDNS {
		t.Skip("no PID namespace here: the launcher stays as the supervisor")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	const script = `import ctypes; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); print(s.value)`
	w := newWorkspace(t)
	// Several at once: a busy machine is where the launcher's Go runtime moves its main
	// goroutine to another thread.
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			c, err := Command(context.Background(), w.policy, python, "-c", script)
			if err != nil {
				t.Error(err)
				return
			}
			out, err := c.Output()
			if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(int(syscall.SIGKILL)) {
				t.Errorf("command %d: parent-death signal %q (%v), want %d", i, out, err, syscall.SIGKILL)
			}
		})
	}
	wg.Wait()
}
