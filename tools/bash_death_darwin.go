package tools

import "syscall"

// dieWithOuro: macOS has no parent-death signal; a shell outlives a killed ouro there.
func dieWithOuro(*syscall.SysProcAttr) {}
