//go:build unix && !linux

package hook

import "syscall"

// guardsGroup is false: without a parent-death signal the guard would never fire.
const guardsGroup = false

// dieWithParent does nothing: only Linux has a parent-death signal.
func dieWithParent(*syscall.SysProcAttr, syscall.Signal) {}
