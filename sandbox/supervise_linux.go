//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// Where the command runs in a PID namespace of its own, nothing stays beside it: the
// launcher applies the sandbox and execs the command, which is then PID 1 of the
// namespace. When PID 1 of a namespace ends, for whatever reason, the kernel kills every
// other process in it; a double fork, setsid, nohup or disown changes nothing, and no
// process of the command can kill PID 1 (it ignores signals from inside its namespace
// that it has no handler for, SIGKILL included). ouro kills it with SIGKILL, and its
// parent-death signal is SIGKILL too, so it dies with ouro. A resident launcher cost
// about 10 MB RSS (4.4 MB PSS) per running command, for supervision the kernel does.
//
// Elsewhere the launcher does not exec the command: it starts it as its child and stays
// as its supervisor, so that no process the command starts outlives it.
//
//   - In mount mode without a PID namespace, in the Landlock-only mode, and for
//     unsandboxed commands started with [Supervised], the launcher is a child subreaper
//     (PR_SET_CHILD_SUBREAPER): every orphaned descendant is re-parented to it rather
//     than to init, so it can find them all and kill them. Here a command could still
//     escape by killing the launcher first, which Availability reports.
//
// When the command's shell ends, every descendant left is killed with SIGKILL
// before the launcher exits with the shell's status, so a background process cannot act
// after the command has returned (say, plant a settings file once the command is judged
// done). The launcher is started with SIGHUP as its parent-death signal: when ouro dies,
// even by SIGKILL, the launcher kills the command's whole tree the same way and exits.
// SIGHUP sent by ouro means the same: stop everything now. SIGTERM, SIGINT and SIGQUIT
// are passed on to the descendants that left the launcher's process group (those in it
// got the group signal already), so that a timed-out command can still clean up.

// killSignal is the signal the launcher takes as "kill the whole tree now": ouro sends it
// when a command's grace period is over, and the kernel sends it when ouro dies.
const killSignal = syscall.SIGHUP

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// supervise starts path with argv as the launcher's child, waits for it, kills what is
// left of its process tree and exits with its status. It returns only when the child
// cannot be started. pidNS says the launcher is PID 1 of its own PID namespace.
func supervise(path string, argv []string, pidNS bool) error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errors.New("prctl(PR_SET_CHILD_SUBREAPER): " + errno.Error())
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, killSignal)
	// The child dies with this launcher (thread): if the launcher is killed outright, the
	// shell at least does not live on; in a PID namespace the kernel takes the rest.
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return err
	}
	exited := make(chan syscall.WaitStatus, 1)
	allGone := make(chan struct{})
	go reap(proc.Pid, exited, allGone)

	self := os.Getpid()
	pgid := syscall.Getpgrp()
	var status syscall.WaitStatus
wait:
	for {
		select {
		case status = <-exited:
			break wait
		case s := <-sigs:
			sig := s.(syscall.Signal)
			if sig == killSignal {
				killTree(self, pidNS)
				status = syscall.WaitStatus(uint32(syscall.SIGKILL)) // reported as killed
				break wait
			}
			for _, p := range descendants(self) {
				if pg, _ := syscall.Getpgid(p); pg != pgid {
					_ = syscall.Kill(p, sig)
				}
			}
		}
	}
	// The shell is gone: nothing it started may go on. Kill until no child is left (each
	// round catches the processes re-parented to the launcher by the last one).
	for done := false; !done; {
		killTree(self, pidNS)
		select {
		case <-allGone:
			done = true
		case <-time.After(20 * time.Millisecond):
		}
	}
	exitLike(status, pidNS)
	return nil
}

// reap waits for every child of the launcher (the shell, and the orphans re-parented to
// it), reports the shell's status on exited and closes allGone once no child is left.
func reap(shell int, exited chan<- syscall.WaitStatus, allGone chan<- struct{}) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil: // ECHILD: no child left
			close(allGone)
			return
		case pid == shell:
			exited <- ws
		}
	}
}

// killTree sends SIGKILL to every descendant of self. In a PID namespace whose init is
// self, kill(-1) reaches every other process of the namespace at once.
func killTree(self int, pidNS bool) {
	if pidNS && self == 1 {
		_ = syscall.Kill(-1, syscall.SIGKILL)
	}
	for _, p := range descendants(self) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// descendants lists the processes below root, from /proc (the namespace's own in a PID
// namespace). A process that forks while this runs is caught by the next round: its child
// is re-parented to the launcher when it is killed.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if ppid, ok := statPPID(stat); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// statPPID reads the parent PID from a /proc/<pid>/stat line, "pid (comm) state ppid
// ...", counting fields from the last ')' since comm may hold spaces and parentheses.
func statPPID(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// exitLike ends the launcher the way the shell ended: with its exit status, or killed by
// the same signal. PID 1 of a namespace cannot be killed by its own signal (the kernel
// drops it), so there a signal is reported as the shell would: 128 + its number.
func exitLike(ws syscall.WaitStatus, pidNS bool) {
	if !ws.Signaled() {
		os.Exit(ws.ExitStatus())
	}
	sig := ws.Signal()
	if !pidNS || os.Getpid() != 1 {
		signal.Reset()
		setDefaultAction(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond) // the signal is on its way
	}
	os.Exit(128 + int(sig))
}

// setDefaultAction sets sig's disposition to SIG_DFL, so raising it ends the process the
// way it ended the shell (Go's runtime otherwise keeps handlers of its own, and prints a
// stack dump for SIGQUIT). A zeroed struct sigaction is SIG_DFL with no flags and an
// empty mask on every Linux architecture.
func setDefaultAction(sig syscall.Signal) {
	var act [4]uintptr
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}
