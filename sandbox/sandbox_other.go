//go:build !linux && !darwin

package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
)

// unavailable says why there is no sandbox here: not a kernel without Landlock, but a
// system ouro has no sandbox for.
var unavailable = "ouro's OS sandbox exists on Linux (Landlock) and macOS (Seatbelt) only; on " + runtime.GOOS + " Bash runs unsandboxed, with permission rules only"

// RefuseWithoutSandbox is whether sandboxed commands are refused when no sandbox can be
// had, unless the person's settings say otherwise (sandbox.failIfUnavailable): not on a
// system ouro has no sandbox for, where Bash runs under the permission rules.
const RefuseWithoutSandbox = false

// Supported reports whether the OS sandbox can be used: not on this system.
func Supported() (abi int, ok bool) { return 0, false }

// Availability: there is no sandbox on this system.
func Availability(Policy) (ok bool, warnings []string) {
	return false, []string{unavailable}
}

// Probe: there is no sandbox on this system.
func Probe() Verdict { return Verdict{Mode: ModeUnavailable, Why: unavailable} }

// Command is not available on this system.
func Command(context.Context, Policy, string, ...string) (*exec.Cmd, error) {
	return nil, errors.New("sandbox: " + unavailable + ". " + RefusedAdvice)
}

// MaybeRunLauncher does nothing on this system: there is no launcher mode.
func MaybeRunLauncher() {}

// Supervised is not available on this system: the caller runs the command itself.
func Supervised(context.Context, string, ...string) (*exec.Cmd, error) {
	return nil, errors.New("sandbox: process supervision is only available on Linux")
}

// Placeholders are not needed where there is no sandbox.
type Placeholders struct{}

// HoldPlaceholders does nothing on this system.
func (p Policy) HoldPlaceholders() *Placeholders { return nil }

// Release does nothing on this system.
func (g *Placeholders) Release() {}

// Resident is false: there is no launcher on this system.
func Resident(*exec.Cmd) bool { return false }

// Start starts cmd: there is no supervision in ouro on this system.
func Start(cmd *exec.Cmd) error { return cmd.Start() }

// End does nothing on this system.
func End(*exec.Cmd) {}
