//go:build !unix

package team

import (
	"os"
	"syscall"
)

func procAttr() *syscall.SysProcAttr { return nil }

// terminate: without signals, a teammate process is killed.
func terminate(p *os.Process) { _ = p.Kill() }

// killGroup: no process groups here; terminate killed the process.
func killGroup(int) {}

func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
