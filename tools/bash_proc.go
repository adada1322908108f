//go:build linux || darwin

package tools

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ouroagent/ouro/sandbox"
)

// defaultShell is bash when it is on PATH, else sh.
func defaultShell() (string, error) {
	if p, err := exec.LookPath("bash"); err == nil {
		return p, nil
	} else if p, err := exec.LookPath("sh"); err == nil {
		return p, nil
	}
	return "/bin/sh", nil
}

// platformNote adds nothing to the description here.
func platformNote(string, error) string { return "" }

// wrapperCall is the shell's arguments for one command: bashWrapper, with the command,
// the cwd file and the env folder as its positional parameters.
func wrapperCall(shell, command, cwdPath, envDir string) (args, env []string) {
	return []string{"-c", bashWrapper, filepath.Base(shell), command, cwdPath, envDir}, nil
}

// nativePath is the directory the wrapper recorded, as it wrote it.
func nativePath(dir string) string { return dir }

// ownGroup makes the shell the leader of a new process group (named after it: Pgid 0).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr.Setpgid = true }

// procTree is a command's process group.
type procTree struct{ pgid int }

// startTree starts cmd, the leader of its group (of its session, where ouro supervises
// the command itself: see sandbox.Start; sandbox.End must follow its Wait).
func startTree(cmd *exec.Cmd) (procTree, error) {
	if err := sandbox.Start(cmd); err != nil {
		return procTree{}, err
	}
	return procTree{pgid: cmd.Process.Pid}, nil
}

// terminate stops the whole group (see terminateGroup).
func (t procTree) terminate(supervised bool, grace time.Duration) {
	terminateGroup(t.pgid, supervised, grace)
}

// groupPollInterval paces the checks for whether a signalled process group is gone.
const groupPollInterval = 20 * time.Millisecond

// terminateGroup stops every process in the group: SIGTERM so they can clean up, then
// SIGKILL for whatever still runs after grace. When the group leader is the launcher
// (supervised), it is first told with SIGHUP to kill the command's whole process tree,
// which reaches the processes that left the group (setsid) too. It returns once the group
// is gone or, should something survive SIGKILL (a process stuck in the kernel), after
// another grace.
func terminateGroup(pgid int, supervised bool, grace time.Duration) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return // no such group: already gone
	}
	if awaitGroupGone(pgid, grace) {
		return
	}
	if supervised {
		_ = syscall.Kill(pgid, syscall.SIGHUP)
		if awaitGroupGone(pgid, grace) {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	awaitGroupGone(pgid, grace)
}

// awaitGroupGone polls until no process of the group runs or limit has passed.
func awaitGroupGone(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(groupPollInterval)
	}
}

// groupAlive reports whether a process of the group still runs. Zombies do not count:
// they are dead and only wait for their parent to reap them, and an orphan's new parent
// (init, or whatever runs as PID 1 in a container) may take seconds to do so, which
// would otherwise hold up every timeout by the whole grace period.
func groupAlive(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no procfs (macOS): kill's answer is all there is
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		state, pgrp, ok := parseProcStat(stat)
		if ok && pgrp == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseProcStat reads the state and process group from a /proc/<pid>/stat line,
// "pid (comm) state ppid pgrp ...". The command name may contain spaces and
// parentheses, so fields are counted from the last ')'.
func parseProcStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}
