//go:build !unix

package openaiproc

import "os/exec"

func ownGroup(*exec.Cmd) {}
