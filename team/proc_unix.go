//go:build unix

package team

import (
	"os"
	"syscall"
)

// procAttr puts a teammate process in a process group of its own (the lead ends the
// group, and a Ctrl-C at the lead's terminal reaches the lead only), with the parent-death
// signal where the system has one.
func procAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	deathSignal(a)
	return a
}

// terminate asks a teammate process to stop (its context ends, as at a Ctrl-C).
func terminate(p *os.Process) { _ = p.Signal(syscall.SIGTERM) }

// killGroup kills what is left of a teammate's process group.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
