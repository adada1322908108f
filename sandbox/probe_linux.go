//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

type probeResult struct {
	// Launcher: the binary answered in launcher mode (it calls MaybeRunLauncher).
	Launcher bool `json:"launcher"`
	// Namespaces: the launcher can make read-only bind mounts here. That needs a user
	// namespace with the right to mount in it, which containers (seccomp) and some
	// distributions (Ubuntu's AppArmor userns restriction) withhold.
	Namespaces bool `json:"namespaces"`
	// PIDNS: the launcher can also be PID 1 of a PID namespace with its own /proc, which
	// containers with a masked /proc withhold.
	PIDNS bool `json:"pidns"`
	// NamespacesErr says, when Namespaces is false, which call failed and how; PIDNSErr
	// the same for PIDNS.
	NamespacesErr string `json:"namespacesErr,omitempty"`
	PIDNSErr      string `json:"pidnsErr,omitempty"`
}

// verdict finds the mode sandboxed commands run in: ModeEnv's where it is set, else the
// namespace mode where the probe finds it works, else Landlock alone; unavailable where
// the kernel has no Landlock or this binary does not act as the launcher.
func verdict() Verdict {
	forced, isForced := os.LookupEnv(ModeEnv)
	if isForced && forced != "" {
		v := forcedVerdict(forced)
		if v.Mode == ModeUnavailable {
			return v
		}
	}
	if _, err := landlockABI(); err != nil {
		return Verdict{Mode: ModeUnavailable, Why: err.Error()}
	}
	if !launcherReady.Load() {
		return Verdict{Mode: ModeUnavailable, Why: notLauncher()}
	}
	if isForced && forced != "" {
		return forcedVerdict(forced)
	}
	pr := probe()
	switch {
	case !pr.Launcher:
		return Verdict{Mode: ModeUnavailable, Why: notLauncher()}
	case pr.Namespaces:
		return Verdict{Mode: ModeNamespaces, PIDNS: pr.PIDNS, WhyNoPIDNS: pr.PIDNSErr}
	}
	return Verdict{Mode: ModeLandlock, Why: pr.NamespacesErr, WhyNoPIDNS: pr.PIDNSErr}
}

// landlockABI is the kernel's Landlock ABI version, or why Landlock cannot be used.
func landlockABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err == nil && v >= 1 {
		return v, nil
	}
	if err == nil {
		err = fmt.Errorf("ABI version %d", v)
	}
	return 0, fmt.Errorf("Landlock is not available on this kernel (landlock_create_ruleset: %v): it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK and landlock in the active security modules (the lsm= boot parameter), and a container's seccomp profile must allow its system calls", err)
}

// probe runs the launcher once in probe mode and keeps the answer for the life of the
// process: facts about the binary and the kernel, like the Landlock ABI.
var probe = sync.OnceValue(func() probeResult {
	exe, err := os.Executable()
	if err != nil {
		return probeResult{}
	}
	return probeBinary(exe)
})

// probeBinary starts exe in probe mode: first in new user, mount and PID namespaces, then
// without the PID namespace, and where neither answered, without namespaces, only to see
// that exe acts as the launcher (the Landlock-only mode needs no namespace). Each failure is kept with what failed, in the words the
// user can act on (see namespaceFailure).
func probeBinary(exe string) probeResult {
	// The bound only matters for a binary that does not act as the launcher and runs
	// something else instead, or for a launcher that hangs, which would be a bug.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := func(pidNS bool) (launcher bool, failure string) {
		cmd, err := commandFor(ctx, exe, Policy{}, modeProbe, pidNS, "")
		if err != nil {
			return false, err.Error()
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		launcher = bytes.HasPrefix(out, []byte(probeToken+"\n"))
		switch {
		case err == nil && launcher:
			return true, ""
		case err == nil:
			return false, fmt.Sprintf("%s does not act as the sandbox launcher", exe)
		}
		return launcher, namespaceFailure(pidNS, err, strings.TrimSpace(stderr.String()))
	}
	launcher, failure := run(true)
	if failure == "" {
		return probeResult{Launcher: true, Namespaces: true, PIDNS: true}
	}
	l2, failure2 := run(false)
	if failure2 == "" {
		return probeResult{Launcher: true, Namespaces: true, PIDNSErr: failure}
	}
	if !launcher && !l2 {
		// Neither started far enough to answer: without namespaces it may still.
		cmd, err := commandFor(ctx, exe, Policy{}, modeHello, false, "")
		if err == nil {
			out, err := cmd.Output()
			launcher = err == nil && bytes.HasPrefix(out, []byte(probeToken+"\n"))
		}
	}
	return probeResult{Launcher: launcher || l2, NamespacesErr: failure2, PIDNSErr: failure}
}

// namespaceFailure says what failed when the probe launcher could not start or set up
// its namespaces: the step (starting the process in the namespaces, or a mount the
// launcher reported on stderr) with its error, and what the machine's settings say.
func namespaceFailure(pidNS bool, err error, stderr string) string {
	flags := "CLONE_NEWUSER|CLONE_NEWNS"
	if pidNS {
		flags += "|CLONE_NEWPID"
	}
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		// The launcher started and reported the call that failed on stderr.
		msg := strings.TrimPrefix(stderr, "ouro sandbox: ")
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Sprintf("in new namespaces (%s), %s", flags, msg) + hint(msg)
	}
	msg := fmt.Sprintf("starting a process in new namespaces (clone with %s, then writing its uid_map and gid_map) failed: %v", flags, errors.Unwrap(err))
	if errors.Unwrap(err) == nil {
		msg = fmt.Sprintf("starting a process in new namespaces (clone with %s) failed: %v", flags, err)
	}
	return msg + hint(msg)
}

// hint names the machine setting behind a failure, read from /proc/sys, and what changes
// it; "" when none of the known ones applies.
func hint(msg string) string {
	read := func(name string) string {
		b, err := os.ReadFile("/proc/sys/" + name)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	var hints []string
	if read("user/max_user_namespaces") == "0" {
		hints = append(hints, "user.max_user_namespaces is 0 (raise it with sysctl -w user.max_user_namespaces=15000)")
	}
	if read("kernel/unprivileged_userns_clone") == "0" && os.Geteuid() != 0 {
		hints = append(hints, "kernel.unprivileged_userns_clone is 0 (sysctl -w kernel.unprivileged_userns_clone=1 allows them)")
	}
	if read("kernel/apparmor_restrict_unprivileged_userns") == "1" && os.Geteuid() != 0 {
		hints = append(hints, "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns is 1; an AppArmor profile for ouro with the userns permission, or setting it to 0, lifts it)")
	}
	if len(hints) == 0 && (strings.Contains(msg, syscall.EPERM.Error()) || strings.Contains(msg, syscall.EACCES.Error())) {
		hints = append(hints, "a container's seccomp profile or a security module may forbid them (Docker: --security-opt seccomp=unconfined, or a profile that allows clone with CLONE_NEWUSER)")
	}
	if len(hints) == 0 {
		return ""
	}
	return "; " + strings.Join(hints, "; ")
}
