//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// RefuseWithoutSandbox is whether sandboxed commands are refused when no sandbox can be
// had (no Landlock, or a binary that is not the launcher), unless the person's own
// settings say otherwise (sandbox.failIfUnavailable: false): on Linux they are, so that
// a command never runs unsandboxed by surprise.
const RefuseWithoutSandbox = true

// Supported reports the kernel's Landlock ABI version, asked with the
// landlock_create_ruleset system call (securityfs need not be mounted), and whether
// Landlock can be used at all.
func Supported() (abi int, ok bool) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0, false
	}
	return v, true
}

// Availability says whether commands can run sandboxed under p on this machine and, when
// something of p cannot be enforced, what (one sentence each, to show the user once).
// When ok is false the one warning says why there is no sandbox; [Command] then refuses
// to run commands, with that reason.
//
// It starts no process: the probe for the namespace mode runs at the first sandboxed
// command (see [Command]), unless an earlier session left its verdict in the cache, and
// the warnings of the mode it finds are then given to the policy's notice (WithNotice).
func Availability(p Policy) (ok bool, warnings []string) {
	v, known := decide(false)
	if v.Mode == ModeUnavailable {
		return false, []string{v.Why}
	}
	abi, _ := Supported()
	if abi < 4 && p.NetworkRestricted() {
		w := fmt.Sprintf("Landlock ABI %d cannot restrict network connections (that needs ABI 4, Linux 6.7); sandboxed commands can reach the network.", abi)
		if p.Network.Proxied() {
			w = fmt.Sprintf("Landlock ABI %d cannot restrict network connections (that needs ABI 4, Linux 6.7): sandbox.network.allowedDomains holds only for tools that use the proxy HTTP_PROXY names; a command can connect anywhere directly.", abi)
		}
		warnings = append(warnings, w)
	}
	if abi < 3 {
		warnings = append(warnings, fmt.Sprintf("Landlock ABI %d cannot restrict truncate(2); a sandboxed command can empty files outside its write roots with it.", abi))
	}
	if known {
		warnings = append(warnings, modeWarnings(v)...)
	}
	if p.NetworkRestricted() {
		warnings = append(warnings, channelWarning(abi))
	}
	return true, warnings
}

// modeWarnings say what the mode of v leaves out.
func modeWarnings(v Verdict) []string {
	var warnings []string
	if v.Mode == ModeLandlock {
		warnings = append(warnings, landlockOnlyWarning(v), shmWarning)
	}
	if !v.PIDNS {
		warnings = append(warnings, "A PID namespace with its own /proc is not available here ("+v.WhyNoPIDNS+"), so ouro finds a command's processes as their subreaper instead (and a warden of its own kills them if ouro is killed): a command that kills the warden and then ouro can leave processes running after it.")
	}
	return warnings
}

// Command returns a command that runs name with args inside the sandbox p: the ouro
// binary (os.Executable) started as the launcher, which applies the sandbox to itself
// and then becomes name (in a PID namespace of its own) or runs it as its supervised
// child (see [Resident]). The caller may set Dir, Env, Stdin, Stdout, Stderr and WaitDelay;
// SysProcAttr is already set (to enter the namespaces) and must be amended, not replaced.
// As with exec.CommandContext, ctx being done kills the process.
//
// The binary must call [MaybeRunLauncher] first thing in main (tests: in TestMain).
func Command(ctx context.Context, p Policy, name string, args ...string) (*exec.Cmd, error) {
	if len(os.Args) > 1 && os.Args[1] == launcherArg {
		// Started as the launcher, yet running ordinary code: MaybeRunLauncher was not
		// called. Starting another launcher would only repeat that, without end.
		return nil, errors.New("sandbox: this process was started as the sandbox launcher but did not call sandbox.MaybeRunLauncher first")
	}
	v, fresh := decideFresh()
	mode := modeLandlock
	switch v.Mode {
	case ModeUnavailable:
		return nil, fmt.Errorf("sandbox: %s. %s", v.Why, RefusedAdvice)
	case ModeNamespaces:
		mode = modeMount
	}
	if fresh && p.notice != nil {
		// Found just now, after Availability spoke: say what this mode leaves out.
		for _, w := range modeWarnings(v) {
			p.notice(w)
		}
	}
	p.MakeCaches() // a command is about to run: the caches it may need must exist to be granted
	return command(ctx, p, mode, v.PIDNS, name, args...)
}

// Probe says how sandboxed commands run here (see [Verdict]), probing where neither this
// process nor the cache knows yet.
func Probe() Verdict { return verdict() }

// Supervised returns a command that runs name with args unsandboxed, but under the
// launcher's supervision: when the command ends, every process it started is killed
// with it, and when ouro dies, even by SIGKILL, the whole tree is killed too. As with
// Command, SysProcAttr is set (Pdeathsig) and must be amended, not replaced, and the
// binary must call [MaybeRunLauncher]; where it does not, the error says so and the
// caller runs the command itself.
func Supervised(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	if len(os.Args) > 1 && os.Args[1] == launcherArg {
		return nil, errors.New("sandbox: this process was started as the sandbox launcher but did not call sandbox.MaybeRunLauncher first")
	}
	if !launcherReady.Load() {
		return nil, errors.New("sandbox: " + notLauncher())
	}
	return command(ctx, Policy{}, modeSupervise, false, name, args...)
}

// Resident reports whether cmd, from [Command] or [Supervised], keeps the launcher
// running as the command's supervisor, which takes SIGHUP as "kill the whole tree now"
// (see supervise_linux.go). Where it does not, the process is the command's shell itself,
// PID 1 of a PID namespace of its own: SIGKILL to it takes every process of the command.
func Resident(cmd *exec.Cmd) bool {
	if len(cmd.Args) < 3 || cmd.Args[1] != launcherArg {
		return false
	}
	var spec launchSpec
	return json.Unmarshal([]byte(cmd.Args[2]), &spec) == nil && !spec.Exec
}

// command starts the launcher in mode; pidNS (mount and probe modes only) puts it in a
// PID namespace of its own too.
func command(ctx context.Context, p Policy, mode string, pidNS bool, name string, args ...string) (*exec.Cmd, error) {
	exe, err := launcherPath()
	if err != nil {
		return nil, err
	}
	return commandFor(ctx, exe, p, mode, pidNS, name, args...)
}

// launcherPath is the binary to start as the launcher: this very process's, through
// /proc/self/exe, which names the running image even after an upgrade replaced the file
// (so that a process that called MaybeRunLauncher knows, without asking, that the binary
// it starts acts as the launcher); os.Executable where /proc is missing.
func launcherPath() (string, error) {
	const self = "/proc/self/exe"
	if _, err := os.Stat(self); err == nil {
		return self, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("sandbox: find the ouro binary to launch: %w", err)
	}
	return exe, nil
}

// commandFor is command with the launcher binary given.
func commandFor(ctx context.Context, exe string, p Policy, mode string, pidNS bool, name string, args ...string) (*exec.Cmd, error) {
	pidNS = pidNS && (mode == modeMount || mode == modeProbe)
	// In a PID namespace of its own the command needs no supervisor: the launcher
	// becomes it (see supervise_linux.go).
	execs := pidNS && mode == modeMount
	spec, err := json.Marshal(launchSpec{Mode: mode, Policy: p, PIDNS: pidNS, Exec: execs})
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, append([]string{launcherArg, string(spec), name}, args...)...)
	// When ouro dies, the launcher is told to kill the command's processes (see
	// supervise); a command that is PID 1 of its namespace is killed, and the kernel
	// kills the rest of the namespace with it (PID 1 ignores any other signal it has no
	// handler for).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: killSignal}
	if execs {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if mode == modeMount || mode == modeProbe {
		if err := enterNamespaces(cmd.SysProcAttr, pidNS); err != nil {
			return nil, err
		}
	}
	return cmd, nil
}

// enterNamespaces starts the process in a new user namespace (which lets an unprivileged
// user own the new mount and PID namespaces) with the same user and group IDs as ouro: for a
// non-root user just its own IDs, for root every ID root has here, so that root keeps
// its access to files owned by others.
func enterNamespaces(attr *syscall.SysProcAttr, pidNS bool) error {
	attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	if pidNS {
		attr.Cloneflags |= syscall.CLONE_NEWPID
	}
	if os.Geteuid() != 0 {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		return nil
	}
	var err error
	if attr.UidMappings, err = identityMap("/proc/self/uid_map"); err != nil {
		return err
	}
	if attr.GidMappings, err = identityMap("/proc/self/gid_map"); err != nil {
		return err
	}
	attr.GidMappingsEnableSetgroups = true
	return nil
}

// identityMap maps every ID of the current user namespace to itself.
func identityMap(file string) ([]syscall.SysProcIDMap, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("sandbox: read %s: %w", file, err)
	}
	defer f.Close()
	var out []syscall.SysProcIDMap
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		inside, err1 := strconv.Atoi(fields[0])
		size, err2 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("sandbox: unexpected line %q in %s", sc.Text(), file)
		}
		out = append(out, syscall.SysProcIDMap{ContainerID: inside, HostID: inside, Size: size})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sandbox: read %s: %w", file, err)
	}
	return out, nil
}

// namespacesWork reports whether the mount mode is available (for tests).
func namespacesWork() bool { return probe().Namespaces }

func notLauncher() string {
	exe, _ := os.Executable()
	return fmt.Sprintf("%s does not act as the sandbox launcher: it must call sandbox.MaybeRunLauncher first in main (in tests: in TestMain)", exe)
}
