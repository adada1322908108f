//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
}
