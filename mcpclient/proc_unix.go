//go:build linux || darwin

package mcpclient

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// group is a server's process group, named after its leader.
type group struct{ pgid int }

// ownGroup makes the server the leader of a new process group.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr.Setpgid = true }

// startGroup is the group the started server p leads.
func startGroup(p *os.Process) (group, error) { return group{pgid: p.Pid}, nil }

func (g group) kill(supervised bool) {
	if g.pgid > 0 {
		killGroup(g.pgid, supervised)
	}
}

// killGroup stops a server's process group: SIGTERM, then (under the launcher) SIGHUP so
// the launcher kills the whole tree, then SIGKILL for whatever is left.
func killGroup(pgid int, supervised bool) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return
	}
	if gone(pgid, 500*time.Millisecond) {
		return
	}
	if supervised {
		_ = syscall.Kill(pgid, syscall.SIGHUP)
		if gone(pgid, 500*time.Millisecond) {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	gone(pgid, 500*time.Millisecond)
}

func gone(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
