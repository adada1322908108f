//go:build !unix && !windows

package helperbin

import "os/exec"

// OwnGroup: no process groups to leave here.
func OwnGroup(*exec.Cmd) {}
