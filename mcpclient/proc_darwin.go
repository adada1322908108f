package mcpclient

import "syscall"

// dieWithOuro: macOS has no parent-death signal; a server outlives a killed ouro there.
func dieWithOuro(*syscall.SysProcAttr) {}
