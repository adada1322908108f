//go:build linux

package tools

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
)

// TestMain lets the test binary act as the sandbox launcher, as the ouro binary does:
// sandboxed Bash commands start os.Executable() in launcher mode.
func TestMain(m *testing.M) {
	sandbox.MaybeRunLauncher()
	os.Exit(m.Run())
}

// sandboxed returns a Bash whose commands run in the sandbox for workspace ws, with a
// fresh home and session temp dir (tmp false: none, so the cwd file needs its own grant).
func sandboxed(t *testing.T, ws string, tmp bool, network settings.SandboxNetwork) *Bash {
	t.Helper()
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	sessionTmp := ""
	if tmp {
		sessionTmp = realDir(t, t.TempDir())
	}
	pol := sandbox.FromSettings(settings.Sandbox{Network: network}, []string{ws}, realDir(t, t.TempDir()), sessionTmp)
	return NewBash(BashConfig{Dir: ws, Sandbox: &pol, KillGrace: 200 * time.Millisecond})
}

func TestSandboxedBashWrites(t *testing.T) {
	t.Parallel()
	ws, outside := realDir(t, t.TempDir()), realDir(t, t.TempDir())
	b := sandboxed(t, ws, true, settings.SandboxNetwork{})

	target := filepath.Join(outside, "outside-file")
	res := runBash(t, b, "echo x > "+target, 0)
	text := res.Text()
	if !res.IsError || !strings.Contains(text, "Permission denied") {
		t.Errorf("write outside the workspace: is_error %v, %q", res.IsError, text)
	}
	for _, want := range []string{"Sandbox: writing to " + target + " was blocked", "may write only under " + ws, "sandbox.filesystem.allowWrite"} {
		if !strings.Contains(text, want) {
			t.Errorf("result %q\ndoes not say %q", text, want)
		}
	}
	if fileExists(target) {
		t.Errorf("%s was written", target)
	}

	res = runBash(t, b, "echo x > "+filepath.Join(ws, "f")+" && cat f", 0)
	if res.IsError || res.Text() != "x" {
		t.Errorf("write inside the workspace: is_error %v, %q", res.IsError, res.Text())
	}
	if strings.Contains(res.Text(), "Sandbox") {
		t.Errorf("a sandbox note on a command that was not blocked: %q", res.Text())
	}
}

func TestSandboxedBashKeepsProtectedPathsReadOnly(t *testing.T) {
	t.Parallel()
	ws := realDir(t, t.TempDir())
	for _, d := range []string{".git/hooks", ".ouro"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settingsFile := filepath.Join(ws, ".ouro", "settings.json")
	if err := os.WriteFile(settingsFile, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := sandboxed(t, ws, true, settings.SandboxNetwork{})
	for _, cmd := range []string{"echo evil > .git/hooks/x", `echo '{"permissions":{"allow":["Bash"]}}' > .ouro/settings.json`} {
		res := runBash(t, b, cmd, 0)
		if !res.IsError || !strings.Contains(res.Text(), "is kept read-only") {
			t.Errorf("%s: is_error %v, %q; want it refused with a note", cmd, res.IsError, res.Text())
		}
	}
	if fileExists(filepath.Join(ws, ".git", "hooks", "x")) {
		t.Error(".git/hooks/x was written")
	}
	if data, _ := os.ReadFile(settingsFile); string(data) != "{}\n" {
		t.Errorf(".ouro/settings.json is now %q", data)
	}
}

func TestSandboxedBashCwdPersists(t *testing.T) {
	for _, tmp := range []bool{true, false} {
		t.Run("session temp dir "+strconv.FormatBool(tmp), func(t *testing.T) {
			t.Parallel()
			ws := realDir(t, t.TempDir())
			b := sandboxed(t, ws, tmp, settings.SandboxNetwork{})
			// Made here: with .claude and .ouro missing, the sandbox makes no folder
			// directly in the workspace root.
			if err := os.MkdirAll(filepath.Join(ws, "sub", "deeper"), 0o755); err != nil {
				t.Fatal(err)
			}
			runBash(t, b, "cd sub", 0)
			sub := filepath.Join(ws, "sub")
			if b.Cwd() != sub {
				t.Errorf("Cwd() = %q, want %q", b.Cwd(), sub)
			}
			res := runBash(t, b, "cd deeper; exit 3", 0)
			if !strings.Contains(res.Text(), "Exit code 3") {
				t.Errorf("exit 3 reported as %q", res.Text())
			}
			if got, want := runBash(t, b, "pwd", 0).Text(), filepath.Join(sub, "deeper"); got != want {
				t.Errorf("pwd = %q, want %q", got, want)
			}
		})
	}
}

func TestSandboxedBashTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	b := sandboxed(t, realDir(t, t.TempDir()), true, settings.SandboxNetwork{})
	// The command runs in a PID namespace where it has one: $! is no PID out here, so the
	// sleep is found by its command line.
	marker := sleepMarker()
	res := runBash(t, b, "trap '' TERM; sleep "+marker+" & echo partial; sleep 60", 2000)
	text := res.Text()
	if !res.IsError || !strings.Contains(text, "timed out after 2s") || !strings.Contains(text, "partial") {
		t.Errorf("result %q (is_error %v), want a timeout with the output so far", text, res.IsError)
	}
	assertNoSleeper(t, marker)
}

func TestSandboxedBashNetwork(t *testing.T) {
	t.Parallel()
	if abi, ok := sandbox.Supported(); ok && abi < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP", abi)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port) + " && echo connected"

	no := false
	res := runBash(t, sandboxed(t, realDir(t, t.TempDir()), true, settings.SandboxNetwork{Allow: &no}), connect, 0)
	if !res.IsError || strings.Contains(res.Text(), "connected") || !strings.Contains(res.Text(), "Sandbox: a connection was blocked") {
		t.Errorf("network off: is_error %v, %q; want the connection refused with a note", res.IsError, res.Text())
	}

	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	res = runBash(t, sandboxed(t, realDir(t, t.TempDir()), true, settings.SandboxNetwork{AllowPorts: []int{port}}), connect, 0)
	if res.IsError || res.Text() != "connected" {
		t.Errorf("port allowed: is_error %v, %q", res.IsError, res.Text())
	}
	if err := <-accepted; err != nil {
		t.Errorf("the listener saw no connection: %v", err)
	}
}
