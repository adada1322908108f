//go:build darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// On macOS the sandbox is Seatbelt: each command starts as /usr/bin/sandbox-exec with
// the profile SeatbeltProfile writes from the policy, which applies it to itself and
// execs the command (see seatbelt.go for what the profile confines). No launcher of
// ouro's own is involved, so there is nothing for MaybeRunLauncher to do.

// noSeatbelt says why there is no sandbox on this Mac.
var noSeatbelt = seatbeltExec + " is missing, so Bash runs unsandboxed, with permission rules only"

// Supported reports whether sandbox-exec is there. There is no ABI to report: 0.
func Supported() (abi int, ok bool) {
	st, err := os.Stat(seatbeltExec)
	return 0, err == nil && st.Mode().IsRegular()
}

// Availability says whether commands can run under Seatbelt here and what of p it
// leaves open.
func Availability(p Policy) (ok bool, warnings []string) {
	if _, ok := Supported(); !ok {
		return false, []string{noSeatbelt}
	}
	if _, err := SeatbeltProfile(p); err != nil {
		// Said now, once; every sandboxed command fails with it until the setting changes
		// (running them without the rule it cannot write would widen the policy).
		warnings = append(warnings, fmt.Sprintf("%v; sandboxed Bash commands fail until that is changed", err))
	}
	if p.NetworkRestricted() {
		warnings = append(warnings, "Seatbelt confines sockets, not Mach services: a sandboxed command that asks a system service to connect for it is not stopped by the network confinement.")
	}
	return true, warnings
}

// Command returns a command that runs name with args under Seatbelt with policy p:
// sandbox-exec with the generated profile, then /usr/bin/env for the variables the
// sandbox needs (TMPDIR, the proxy's), then name. The caller may set Dir, Env, Stdin,
// Stdout, Stderr and WaitDelay; SysProcAttr is set (empty) and must be amended, not
// replaced. As with exec.CommandContext, ctx being done kills the process.
func Command(ctx context.Context, p Policy, name string, args ...string) (*exec.Cmd, error) {
	if _, ok := Supported(); !ok {
		return nil, errors.New("sandbox: " + noSeatbelt)
	}
	if !filepath.IsAbs(name) {
		path, err := exec.LookPath(name)
		if err != nil {
			return nil, fmt.Errorf("sandbox: start %s: %w", name, err)
		}
		name = path
	}
	p.MakeCaches() // a command is about to run: the caches it may need must exist to be written
	p.Content = p.openContent()
	profile, err := SeatbeltProfile(p)
	if err != nil {
		return nil, err
	}
	argv, err := seatbeltArgs(profile, seatbeltEnv(p), name, args...)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, seatbeltExec, argv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	return cmd, nil
}

// MaybeRunLauncher does nothing on macOS: sandbox-exec is the launcher.
func MaybeRunLauncher() {}

// Supervised is not available on macOS: the caller runs the command itself, in a
// process group of its own.
func Supervised(context.Context, string, ...string) (*exec.Cmd, error) {
	return nil, errors.New("sandbox: process supervision is only available on Linux")
}

// Placeholders are not needed under Seatbelt: its rules name paths, so a missing
// protected path is refused like an existing one.
type Placeholders struct{}

// HoldPlaceholders does nothing under Seatbelt.
func (p Policy) HoldPlaceholders() *Placeholders { return nil }

// Release does nothing under Seatbelt.
func (g *Placeholders) Release() {}

// RefuseWithoutSandbox is whether sandboxed commands are refused when sandbox-exec is
// missing, unless the person's settings say otherwise (sandbox.failIfUnavailable): not
// on macOS, where it is always there in practice and Bash otherwise runs under the
// permission rules, as the warning says.
const RefuseWithoutSandbox = false

// Probe says how sandboxed commands run on this Mac: Seatbelt, or none without
// sandbox-exec. (Verdict's modes are Linux's; Seatbelt counts as the namespace mode's
// peer: a whole policy enforced by the kernel.)
func Probe() Verdict {
	if _, ok := Supported(); !ok {
		return Verdict{Mode: ModeUnavailable, Why: noSeatbelt}
	}
	return Verdict{Mode: ModeSeatbelt}
}

// Resident is false: sandbox-exec becomes the command; no launcher stays beside it.
func Resident(*exec.Cmd) bool { return false }

// Start starts cmd: there is no supervision in ouro on this system.
func Start(cmd *exec.Cmd) error { return cmd.Start() }

// End does nothing on this system.
func End(*exec.Cmd) {}
