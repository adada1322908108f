//go:build !linux

package main

import "syscall"

// jobProcAttr: only Linux can tie a child's life to its parent's.
func jobProcAttr() *syscall.SysProcAttr { return nil }
