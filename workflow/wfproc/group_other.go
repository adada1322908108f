//go:build !unix && !windows

package wfproc

import "os/exec"

// ownGroup: no process groups to leave here.
func ownGroup(*exec.Cmd) {}
