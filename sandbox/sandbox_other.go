//go:build !linux && !darwin

package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
)

// unavailable says why there is no sandbox here: not a kernel without Landlock (as
// UnavailableWarning puts it on Linux), but a system ouro has no sandbox for.
var unavailable = "ouro's OS sandbox exists on Linux (Landlock) and macOS (Seatbelt) only; on " + runtime.GOOS + " Bash runs unsandboxed, with permission rules only"

// Supported reports whether the OS sandbox can be used: not on this system.
func Supported() (abi int, ok bool) { return 0, false }

// Availability: without Landlock, Bash runs with the permission rules only.
func Availability(Policy) (ok bool, warnings []string) {
	return false, []string{unavailable}
}

// Command is not available on this system.
func Command(context.Context, Policy, string, ...string) (*exec.Cmd, error) {
	return nil, errors.New("sandbox: " + unavailable)
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
