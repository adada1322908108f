//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/settings"
)

func requireLandlock(t *testing.T) int {
	t.Helper()
	abi, ok := Supported()
	if !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash on PATH")
	}
	return abi
}

// modes are the launch modes this machine can run: Landlock alone always, and the bind
// mounts for read-only paths where user namespaces allow them.
func modes(t *testing.T) []string {
	t.Helper()
	if namespacesWork() {
		return []string{modeMount, modeLandlock}
	}
	t.Log("user namespaces are not available: only the Landlock-only mode is tested")
	return []string{modeLandlock}
}

type run struct {
	out  string
	code int
}

// sh runs script with bash inside the sandbox, in dir.
func sh(t *testing.T, p Policy, mode, dir, script string, args ...string) run {
	t.Helper()
	p.Objects.makePrivate() // as Command does
	cmd, err := command(context.Background(), p, mode, probe().PIDNS, "bash", append([]string{"-c", script, "bash"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// As Bash runs commands: supervised by ouro itself where it can (see Start).
	err = Start(cmd)
	if err == nil {
		err = cmd.Wait()
		End(cmd)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %q: %v", script, err)
	}
	return run{out.String(), cmd.ProcessState.ExitCode()}
}

// workspace is a repository with everything the sandbox keeps read-only, plus a session
// temp dir, and a directory outside both.
type workspace struct {
	root, tmp, outside string
	policy             Policy
}

func newWorkspace(t *testing.T) workspace {
	t.Helper()
	w := workspace{root: realTemp(t), tmp: realTemp(t), outside: realTemp(t)}
	tree(t, w.root, ".git/hooks/pre-commit", ".git/config", ".git/HEAD", ".git/objects/", ".ouro/settings.json", ".claude/", "src/main.go", "README")
	tree(t, w.outside, "readable")
	w.policy = Policy{
		WriteRoots: []string{w.root, w.tmp},
		ReadOnly: []string{
			filepath.Join(w.root, ".git", "hooks"), filepath.Join(w.root, ".git", "config"),
			filepath.Join(w.root, ".ouro"), filepath.Join(w.root, ".claude"),
		},
		TempDir: w.tmp,
	}
	return w
}

func content(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func TestWritesOnlyInTheRoots(t *testing.T) {
	requireLandlock(t)
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			outside := filepath.Join(w.outside, "outside-file")
			r := sh(t, w.policy, mode, w.root, `echo x > "$1"`, outside)
			if r.code == 0 || !strings.Contains(r.out, "Permission denied") {
				t.Errorf("write outside the roots: exit %d, output %q; want Permission denied", r.code, r.out)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("%s was created", outside)
			}

			// Inside: a new file in a subdirectory, an existing file, the temp dir (as
			// TMPDIR), and a file read from outside the roots.
			r = sh(t, w.policy, mode, w.root, `set -e
				echo new > src/new.go; echo changed > README; mkdir -p src/pkg/deep; echo deep > src/pkg/deep/f
				mv src/new.go src/pkg/moved.go
				echo tmp > "$TMPDIR/t"; cat "$1"; echo x > /dev/null; echo fd > /dev/fd/1; echo stdout > /dev/stdout`,
				filepath.Join(w.outside, "readable"))
			if r.code != 0 || r.out != "original\nfd\nstdout\n" {
				t.Fatalf("writes inside the roots: exit %d, output %q", r.code, r.out)
			}
			for p, want := range map[string]string{
				"src/pkg/moved.go": "new\n", "README": "changed\n", "src/pkg/deep/f": "deep\n",
			} {
				if got := content(t, filepath.Join(w.root, p)); got != want {
					t.Errorf("%s = %q, want %q", p, got, want)
				}
			}
			if got := content(t, filepath.Join(w.tmp, "t")); got != "tmp\n" {
				t.Errorf("$TMPDIR/t = %q: TMPDIR is not the session temp dir", got)
			}
		})
	}
}

func TestReadOnlyInsideTheRoots(t *testing.T) {
	requireLandlock(t)
	attempts := []struct{ name, script string }{
		{"new hook", `echo evil > .git/hooks/x`},
		{"change hook", `echo evil > .git/hooks/pre-commit`},
		{"remove hook", `rm .git/hooks/pre-commit`},
		{"git config", `echo evil >> .git/config`},
		{"ouro settings", `echo '{"permissions":{"allow":["Bash"]}}' > .ouro/settings.json`},
		{"new ouro file", `echo '{}' > .ouro/settings.local.json`},
		{"claude", `mkdir .claude/agents`},
		{"rename .git away", `mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit`},
		{"remove .ouro", `rm -rf .ouro`},
		{"from inside .git", `cd .git && echo evil > hooks/pre-commit`},
		// ouro's own view of the files, without the mounts, through /proc.
		{"through the parent's root", `ls "/proc/$PPID/root$PWD/.git" && echo evil > "/proc/$PPID/root$PWD/.git/hooks/pre-commit"`},
	}
	// All attempts run in one shell, each in a subshell, to start the launcher only once.
	var script strings.Builder
	for _, a := range attempts {
		fmt.Fprintf(&script, "if ( %s ) >/dev/null 2>&1; then echo %q; fi\n", a.script, "succeeded: "+a.name)
	}
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			if r := sh(t, w.policy, mode, w.root, script.String()); r.code != 0 || r.out != "" {
				t.Errorf("exit %d:\n%s", r.code, r.out)
			}
			for _, f := range []string{".git/hooks/pre-commit", ".git/config", ".ouro/settings.json"} {
				if got := content(t, filepath.Join(w.root, f)); got != "original\n" {
					t.Errorf("%s is now %q", f, got)
				}
			}
			for _, f := range []string{".git/hooks/x", ".ouro/settings.local.json", ".claude/agents", ".git-old"} {
				if _, err := os.Lstat(filepath.Join(w.root, f)); err == nil {
					t.Errorf("%s was created", f)
				}
			}
			// Starting inside .git (the working directory set before the mounts) changes nothing.
			if r := sh(t, w.policy, mode, filepath.Join(w.root, ".git"), `echo evil > hooks/pre-commit`); r.code == 0 {
				t.Errorf("from a start inside .git the hook was written: %q", r.out)
			}
		})
	}
}

// The mount mode keeps the rest of the workspace fully usable: git's lock files and new
// files in the root can be created.
func TestMountModeKeepsTheRootWritable(t *testing.T) {
	requireLandlock(t)
	if !namespacesWork() {
		t.Skip("user namespaces are not available")
	}
	w := newWorkspace(t)
	r := sh(t, w.policy, modeMount, w.root, `set -e; echo x > f; echo lock > .git/index.lock; mv .git/index.lock .git/index; rm f`)
	if r.code != 0 {
		t.Fatalf("exit %d: %q", r.code, r.out)
	}
	if got := content(t, filepath.Join(w.root, ".git", "index")); got != "lock\n" {
		t.Errorf(".git/index = %q", got)
	}
	// The mounts stay in the launcher's namespace.
	mounts := content(t, "/proc/self/mountinfo")
	if strings.Contains(mounts, w.root) {
		t.Errorf("the sandbox's mounts leaked into ours:\n%s", mounts)
	}
}

// Landlock alone cannot keep a path read-only while letting entries be created in the
// folders above it. For a read-only path that is not kept by check-and-restore
// (Policy.Restore: here none; in FromSettings's policies, denyWrite), it gives up the
// latter, as documented.
func TestLandlockModeFreezesTheAncestorsOfReadOnlyPaths(t *testing.T) {
	requireLandlock(t)
	w := newWorkspace(t)
	r := sh(t, w.policy, modeLandlock, w.root, `echo x > newfile`)
	if r.code == 0 {
		t.Errorf("a new file in the root of a workspace with read-only paths was created: %q", r.out)
	}
	r = sh(t, w.policy, modeLandlock, w.root, `echo changed > .git/HEAD && echo y > .git/objects/ab`)
	if r.code != 0 {
		t.Errorf("existing files and other subtrees of .git are not writable: exit %d, %q", r.code, r.out)
	}
	// Without read-only paths the root is granted whole.
	p := w.policy
	p.ReadOnly = nil
	if r := sh(t, p, modeLandlock, w.root, `echo x > newfile`); r.code != 0 {
		t.Errorf("without read-only paths: exit %d, %q", r.code, r.out)
	}
}

func TestBuildCachesAndGo(t *testing.T) {
	requireLandlock(t)
	cleanGoEnv(t)
	ws, home, tmp, cache := realTemp(t), realTemp(t), realTemp(t), realTemp(t)
	t.Setenv("GOCACHE", cache)
	t.Setenv("HOME", home)
	tree(t, home, ".cache/")
	p := FromSettings(settings.Sandbox{}, []string{ws}, home, tmp)
	p.MakeCaches()
	r := sh(t, p, modeLandlock, ws, `echo x > "$GOCACHE/entry" && mkdir -p "$XDG_CACHE_HOME/tool" && echo y > "$XDG_CACHE_HOME/tool/f"`)
	if r.code != 0 {
		t.Fatalf("writing the caches: exit %d, %q", r.code, r.out)
	}
	if got := content(t, filepath.Join(p.Env["XDG_CACHE_HOME"], "tool", "f")); got != "y\n" {
		t.Errorf("the sandbox's own cache: %q", got)
	}
	if got := content(t, filepath.Join(p.Env["GOCACHE"], "entry")); got != "x\n" {
		t.Errorf("GOCACHE entry = %q", got)
	}
	if r := sh(t, p, modeLandlock, ws, `echo x > "$1/entry"`, cache); r.code == 0 {
		t.Errorf("the user's build cache was written")
	}

	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	r = sh(t, p, modeLandlock, ws, `"$1" version`, goBin)
	if r.code != 0 || !strings.HasPrefix(r.out, "go version go") {
		t.Errorf("go version: exit %d, %q", r.code, r.out)
	}
}

func TestNetwork(t *testing.T) {
	if abi := requireLandlock(t); abi < 4 {
		t.Skipf("Landlock ABI %d cannot restrict TCP", abi)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := `exec 3<>"/dev/tcp/127.0.0.1/$1" && echo hello >&3`
	ws := realTemp(t)

	no, yes := false, true
	off := Policy{WriteRoots: []string{ws}, Network: settings.SandboxNetwork{Allow: &no}}
	r := sh(t, off, modeLandlock, ws, connect, strconv.Itoa(port))
	if r.code == 0 || !strings.Contains(r.out, "connect: Permission denied") {
		t.Errorf("network off: exit %d, %q; want the connection refused", r.code, r.out)
	}
	if note := Diagnose(off, r.out, ws); !strings.Contains(note, "may not open TCP connections") {
		t.Errorf("no network note for %q: %q", r.out, note)
	}

	otherPort := Policy{WriteRoots: []string{ws}, Network: settings.SandboxNetwork{AllowPorts: []int{port + 1}}}
	if r := sh(t, otherPort, modeLandlock, ws, connect, strconv.Itoa(port)); r.code == 0 {
		t.Errorf("only port %d allowed, yet %d was reached: %q", port+1, port, r.out)
	}

	for name, p := range map[string]Policy{
		"all allowed":  {WriteRoots: []string{ws}, Network: settings.SandboxNetwork{Allow: &yes}},
		"by default":   {WriteRoots: []string{ws}},
		"port allowed": {WriteRoots: []string{ws}, Network: settings.SandboxNetwork{AllowPorts: []int{port}}},
	} {
		got := make(chan string, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				got <- err.Error()
				return
			}
			defer c.Close()
			line, _ := bufio.NewReader(c).ReadString('\n')
			got <- line
		}()
		if r := sh(t, p, modeLandlock, ws, connect, strconv.Itoa(port)); r.code != 0 {
			t.Fatalf("%s: exit %d, %q", name, r.code, r.out)
		}
		if line := <-got; line != "hello\n" {
			t.Errorf("%s: the listener read %q", name, line)
		}
	}
}

func TestLauncherNeverRunsUnsandboxed(t *testing.T) {
	requireLandlock(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws := realTemp(t)
	spec, err := json.Marshal(launchSpec{Mode: modeLandlock, Policy: Policy{WriteRoots: []string{ws}}})
	if err != nil {
		t.Fatal(err)
	}
	// Landlock stacks at most 16 rulesets: the 17th nested launcher cannot apply its own.
	var chain []string
	for range 17 {
		chain = append(chain, exe, launcherArg, string(spec))
	}
	cases := map[string][]string{
		"bad spec":                   {launcherArg, "{", "bash", "-c", "echo ran"},
		"unknown mode":               {launcherArg, `{"mode":"none"}`, "bash", "-c", "echo ran"},
		"no spec":                    {launcherArg},
		"Landlock cannot be applied": append(chain[1:], "bash", "-c", "echo ran"),
	}
	for name, args := range cases {
		cmd := exec.Command(exe, args...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != launcherFailed {
			t.Errorf("%s: err %v, want exit status %d", name, err, launcherFailed)
		}
		if strings.Contains(string(out), "ran") || !strings.HasPrefix(string(out), "ouro sandbox: ") {
			t.Errorf("%s: output %q", name, out)
		}
	}
}

// A binary that does not call MaybeRunLauncher is found out once, and refused, instead of
// every command running whatever that binary does with the launcher's arguments.
func TestBinaryThatIsNoLauncher(t *testing.T) {
	requireLandlock(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if pr := probeBinary(exe); !pr.Launcher {
		t.Errorf("the test binary, which calls MaybeRunLauncher, is not taken for a launcher")
	}
	for _, other := range []string{"true", "echo"} {
		path, err := exec.LookPath(other)
		if err != nil {
			t.Fatal(err)
		}
		if pr := probeBinary(path); pr.Launcher || pr.Namespaces {
			t.Errorf("%s taken for a launcher: %+v", other, pr)
		}
	}

	// A process started as the launcher that runs ordinary code anyway starts no other.
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = []string{exe, launcherArg, "{}", "bash"}
	if _, err := Command(context.Background(), Policy{}, "bash"); err == nil || !strings.Contains(err.Error(), "did not call sandbox.MaybeRunLauncher") {
		t.Errorf("Command in an unhandled launcher process: err %v", err)
	}
}

func TestMaybeRunLauncherReturnsOutsideLauncherMode(t *testing.T) {
	saved := os.Args
	defer func() { os.Args = saved }()
	for _, args := range [][]string{{"ouro"}, {"ouro", "-p", "hi"}, {"ouro", "x" + launcherArg}} {
		os.Args = args
		MaybeRunLauncher() // exits the test binary if it wrongly takes over
	}
}

func TestAvailability(t *testing.T) {
	abi := requireLandlock(t)
	no := false
	ok, warnings := Availability(Policy{Network: settings.SandboxNetwork{Allow: &no}})
	if !ok {
		t.Fatalf("Availability = false with Landlock ABI %d", abi)
	}
	wantNet := abi < 4
	gotNet := strings.Contains(strings.Join(warnings, "\n"), "cannot restrict network connections")
	if gotNet != wantNet {
		t.Errorf("ABI %d: warnings %q", abi, warnings)
	}
	if _, w := Availability(Policy{}); strings.Contains(strings.Join(w, "\n"), "network") {
		t.Errorf("a network warning while the network is open (the default): %q", w)
	}
}

// The launcher supervises the command: its exit status comes through, and no process the
// command starts outlives it, in every mode and without a sandbox (supervise).
func TestLauncherTakesTheProcessTreeWithTheCommand(t *testing.T) {
	requireLandlock(t)
	for _, mode := range append(modes(t), modeSupervise) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			p := ws.policy
			if r := sh(t, p, mode, ws.root, "exit 7"); r.code != 7 {
				t.Errorf("exit 7 came out as %d (%s)", r.code, r.out)
			}
			marker := filepath.Join(ws.root, "src", "alive") // src: writable in every mode
			// The detached loop touches the marker every 50 ms for as long as it lives.
			r := sh(t, p, mode, ws.root, `setsid sh -c 'while :; do touch "$1"; sleep 0.05; done' sh "$1" >/dev/null 2>&1 & sleep 0.2; echo ok`, marker)
			if r.code != 0 || r.out != "ok\n" {
				t.Fatalf("code %d, %q", r.code, r.out)
			}
			if err := os.Remove(marker); err != nil {
				t.Fatalf("the detached loop never ran: %v", err)
			}
			time.Sleep(300 * time.Millisecond)
			if _, err := os.Stat(marker); err == nil {
				t.Error("a process the command detached still runs after it")
			}
		})
	}
}

// A command killed by a signal is reported as such: by the signal itself where the
// launcher can die of it, else as the shell reports it, 128 + its number. A shell the
// launcher became (mount mode in a PID namespace) is PID 1 there: a signal it sends
// itself without a handler is ignored, as for any init, and ouro's SIGKILL is reported
// as itself.
func TestLauncherReportsASignalledCommand(t *testing.T) {
	requireLandlock(t)
	for _, mode := range append(modes(t), modeSupervise) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t)
			p := ws.policy
			cmd, err := command(context.Background(), p, mode, probe().PIDNS, "bash", "-c", "kill -TERM $$; echo alive")
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.Output()
			ws2, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !Resident(cmd) {
				if err != nil || string(out) != "alive\n" {
					t.Errorf("the shell as PID 1 of its namespace: %q, %v; want its own SIGTERM ignored", out, err)
				}
				cmd, err = command(context.Background(), p, mode, true, "sleep", "60")
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				if ws2, _ = cmd.ProcessState.Sys().(syscall.WaitStatus); !ws2.Signaled() || ws2.Signal() != syscall.SIGKILL {
					t.Errorf("a command killed by ouro came out as %v", cmd.ProcessState)
				}
				return
			}
			if !(ws2.Signaled() && ws2.Signal() == syscall.SIGTERM) && cmd.ProcessState.ExitCode() != 128+int(syscall.SIGTERM) {
				t.Errorf("a shell killed by SIGTERM came out as %v (%q)", err, out)
			}
		})
	}
}

// Mount mode without a PID namespace (a container whose /proc cannot be mounted again)
// still takes the process tree with the command, as a subreaper.
func TestMountModeWithoutPIDNamespaceSupervises(t *testing.T) {
	requireLandlock(t)
	if !namespacesWork() {
		t.Skip("user namespaces are not available")
	}
	ws := newWorkspace(t)
	marker := filepath.Join(ws.root, "src", "alive")
	cmd, err := command(context.Background(), ws.policy, modeMount, false, "bash", "-c",
		`setsid sh -c 'while :; do touch "$1"; sleep 0.05; done' sh "$1" >/dev/null 2>&1 & sleep 0.2; echo $$`, "bash", marker)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) == "1" || strings.TrimSpace(string(out)) == "2" {
		t.Fatalf("%q, %v (a shell PID of 1 or 2 means it ran in a PID namespace)", out, err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("the detached loop never ran: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a process the command detached still runs after it")
	}
}

// A process that never called MaybeRunLauncher does not start its own binary as the
// launcher (a test binary would run its tests again): Supervised and Command refuse.
func TestNoLauncherWithoutMaybeRunLauncher(t *testing.T) {
	requireLandlock(t)
	launcherReady.Store(false)
	defer launcherReady.Store(true)
	if _, err := Supervised(context.Background(), "true"); err == nil || !strings.Contains(err.Error(), "MaybeRunLauncher") {
		t.Errorf("Supervised: err %v", err)
	}
	if _, err := Command(context.Background(), Policy{}, "true"); err == nil || !strings.Contains(err.Error(), "MaybeRunLauncher") {
		t.Errorf("Command: err %v", err)
	}
	if ok, w := Availability(Policy{}); ok || len(w) != 1 {
		t.Errorf("Availability: %v %q", ok, w)
	}
}
