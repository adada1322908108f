//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// In the mount mode a command's /dev/shm is its own: nothing it leaves there reaches
// other sessions or the next command.
func TestDevShmIsPrivateInTheMountMode(t *testing.T) {
	requireLandlock(t)
	if !namespacesWork() {
		t.Skip("user namespaces are not available")
	}
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	name := "ouro-sandbox-test-" + strconv.Itoa(os.Getpid())
	defer os.Remove(filepath.Join("/dev/shm", name))
	w := newWorkspace(t)
	if r := sh(t, w.policy, modeMount, w.root, `echo left > /dev/shm/`+name+` && cat /dev/shm/`+name); r.code != 0 || r.out != "left\n" {
		t.Fatalf("writing /dev/shm in the sandbox: %d %q", r.code, r.out)
	}
	if exists(filepath.Join("/dev/shm", name)) {
		t.Error("what a sandboxed command wrote in /dev/shm is seen outside it")
	}
	if r := sh(t, w.policy, modeMount, w.root, `test -e /dev/shm/`+name); r.code == 0 {
		t.Error("the next command sees the first one's /dev/shm")
	}
}

// With the network confined, an abstract Unix socket of a process outside the sandbox
// cannot be reached (Landlock ABI 6); with it open, it can, as before.
func TestAbstractUnixSocketsAreClosedWhenConfined(t *testing.T) {
	if abi := requireLandlock(t); abi < 6 {
		t.Skipf("Landlock ABI %d cannot scope abstract Unix sockets", abi)
	}
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("no python3")
	}
	py := strings.TrimSpace(string(out))
	name := "@ouro-sandbox-test-" + strconv.Itoa(os.Getpid())
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("reached\n"))
			c.Close()
		}
	}()
	script := `'` + py + `' -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect("\0` + name[1:] + `"); print(s.recv(20).decode().strip())'`
	deny := false
	for _, mode := range modes(t) {
		w := newWorkspace(t)
		open := w.policy
		if r := sh(t, open, mode, w.root, script); r.code != 0 || r.out != "reached\n" {
			t.Errorf("%s mode, network open: %d %q", mode, r.code, r.out)
		}
		confined := w.policy
		confined.Network.Allow = &deny
		if r := sh(t, confined, mode, w.root, script); r.code == 0 {
			t.Errorf("%s mode, network confined: the abstract socket outside was reached: %q", mode, r.out)
		}
	}
}

// What stays open with the network confined is said (ouro doctor and the session show
// Availability's warnings).
func TestAvailabilitySaysWhatStaysOpen(t *testing.T) {
	requireLandlock(t)
	deny := false
	p := newWorkspace(t).policy
	p.Network.Allow = &deny
	ok, warnings := Availability(p)
	if !ok {
		t.Fatalf("not available: %q", warnings)
	}
	all := strings.Join(warnings, "\n")
	for _, want := range []string{"UDP (DNS included)", "Unix-domain sockets that have a path", "abstract Unix sockets"} {
		if !strings.Contains(all, want) {
			t.Errorf("the warnings do not say %q:\n%s", want, all)
		}
	}
	t.Setenv(ModeEnv, "landlock")
	_, warnings = Availability(p)
	if all := strings.Join(warnings, "\n"); !strings.Contains(all, "/dev/shm is the machine's") || !strings.Contains(all, "put") {
		t.Errorf("the Landlock-only mode's warnings do not say what it leaves open:\n%s", all)
	}
}
