//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Supervision in ouro itself. A command started with [Start] costs nothing beyond itself
// where there is no PID namespace to take its processes with it (the Landlock-only mode,
// the mount mode where /proc cannot be mounted again, and unsandboxed commands): the
// launcher applies the sandbox and execs the command, and ouro does what a resident
// launcher did (about 4.4 MB PSS per running command):
//
//   - The launcher makes the command's first process (its shell, the root) a child
//     subreaper before it execs (the setting survives execve). While the root lives,
//     every process the command starts that loses its parent (setsid, a double fork,
//     nohup) is re-parented to the root, not to init: the kernel itself keeps each
//     command's processes below its own root, so concurrent commands never mix.
//   - ouro is a child subreaper too (from its first such command on). When a root
//     ends, whatever it leaves is re-parented to ouro. An orphan there can no longer be
//     attributed to its command by its parent; it is known to be a command's by a mark
//     every process of a command carries and none can shed: the launcher lowers the
//     hard limit of RLIMIT_RTTIME (which only bounds real-time scheduled processes, and
//     is unlimited by default) below ouro's own, and no unprivileged process can raise
//     a hard limit again. A process ouro started itself (git, an MCP server, a hook)
//     keeps ouro's limit, so ouro never waits for or kills one of those: os/exec keeps
//     its waits. Since a living root holds its command's orphans, a marked orphan at
//     ouro belongs to a command whose root has ended, and is killed at once, with
//     everything below it (stopped with SIGSTOP first, so none can fork away while the
//     tree is walked), and reaped. [End] returns once none is left.
//   - When ouro dies, even by SIGKILL, a warden takes every running command with it:
//     one process per ouro (not per command), started at the first such command, which
//     learns each root over a pipe and sees the pipe close when ouro ends. A root's
//     parent-death signal is SIGSTOP: it stops rather than dies, so its processes stay
//     below it, where the warden finds and kills them all.
//
// Signals go through pidfds (pidfd_open, pidfd_send_signal), so a PID that was freed and
// reused is never signalled; where the kernel has none (before Linux 5.3), by PID after
// checking the process's start time, which leaves a window of microseconds.
//
// Where this cannot work, [Start] starts the command as it was made, with the launcher
// resident as its supervisor: where ouro's own hard RLIMIT_RTTIME is 0 (no lower mark
// exists), where it cannot become a subreaper, or where the warden cannot be started.

// wardenMode is the launch mode of the warden (see runWarden).
const wardenMode = "warden"

// rlimitRTTime is RLIMIT_RTTIME.
const rlimitRTTime = unix.RLIMIT_RTTIME

// clockTicks is USER_HZ, the unit of the start time in /proc/PID/stat: 100 on every
// architecture Go runs Linux on.
const clockTicks = 100

type supervisor struct {
	// err, when set, is why commands keep their resident launcher.
	err error
	// mark is the hard RLIMIT_RTTIME a command's processes get; ouro's own is higher.
	mark, own uint64

	mu sync.Mutex
	// roots are the commands started and not ended: PID → start time.
	roots map[int]uint64
	// subreaper: ouro is one now (only while a command of its own may end).
	subreaper bool
	warden    *os.File // the write end of the warden's pipe; nil when it must be started
	wardenPID int
	stale     []*os.File // pipes of wardens given up on (see tellWarden)
	starts    chan startReq

	sweepMu sync.Mutex
}

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	sup     supervisor
	supOnce sync.Once
)

// theSupervisor sets up supervision in ouro at the first command that asks for it.
func theSupervisor() *supervisor {
	supOnce.Do(func() {
		s := &sup
		s.roots = map[int]uint64{}
		if !launcherReady.Load() {
			s.err = errors.New(notLauncher())
			return
		}
		var lim unix.Rlimit
		if err := unix.Prlimit(0, rlimitRTTime, nil, &lim); err != nil {
			s.err = fmt.Errorf("read RLIMIT_RTTIME: %w", err)
			return
		}
		if lim.Max == 0 {
			s.err = errors.New("ouro's hard RLIMIT_RTTIME is 0, so no lower one can mark a command's processes")
			return
		}
		s.own, s.mark = lim.Max, lim.Max-1
		s.starts = make(chan startReq)
		// Commands are started from one thread that never ends: a parent-death signal
		// is sent when the thread that started the process ends, not the process.
		go func() {
			runtime.LockOSThread()
			for r := range s.starts {
				r.done <- r.cmd.Start()
			}
		}()
		chld := make(chan os.Signal, 1)
		signal.Notify(chld, syscall.SIGCHLD)
		go func() {
			for range chld {
				s.mu.Lock()
				busy := s.subreaper
				s.mu.Unlock()
				if busy {
					s.sweep()
				}
			}
		}()
	})
	return &sup
}

// Start starts cmd, made by [Command] or [Supervised] (any other cmd is simply started).
// Where ouro supervises commands itself (see above), the launcher execs the command once
// the sandbox is applied, in a session of its own; cmd must then be passed to [End] once
// its Wait has returned. Elsewhere cmd runs as it was made: the launcher becomes the
// command in a PID namespace of its own, or stays resident as its supervisor ([Resident]
// tells which, after Start).
func Start(cmd *exec.Cmd) error {
	spec, ok := specOf(cmd)
	if !ok || spec.Exec || cmd.SysProcAttr == nil || spec.Mode == modeProbe || spec.Mode == modeHello {
		return cmd.Start()
	}
	s := theSupervisor()
	if s.err != nil {
		return cmd.Start()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready(); err != nil {
		return cmd.Start() // resident, as before
	}
	spec.Exec, spec.Reaped = true, true
	spec.Mark, spec.Parent = s.mark, os.Getpid()
	enc, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("sandbox: encode launch spec: %w", err)
	}
	cmd.Args[2] = string(enc)
	// A session of its own (which is a process group too): the command cannot join
	// ouro's process group, and ouro's death does not turn its group into an orphaned
	// one with stopped members, which the kernel would wake with SIGHUP and SIGCONT.
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, false, 0
	// Until the launcher sets SIGSTOP on the thread that execs (see execReaped).
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	s.starts <- startReq{cmd, done}
	if err := <-done; err != nil {
		return err
	}
	// Registered before any sweep can look at it (s.mu is held): a root is ouro's own
	// child, which os/exec waits for.
	pid := cmd.Process.Pid
	st, _, _, ok := procStat(pid)
	if !ok {
		st = 0
	}
	s.roots[pid] = st
	s.tellWarden(fmt.Sprintf("+%d %d\n", pid, st))
	return nil
}

// ready makes ouro a subreaper and starts the warden where neither is yet. s.mu is held.
func (s *supervisor) ready() error {
	if !s.subreaper {
		if err := setSubreaper(true); err != nil {
			return err
		}
		s.subreaper = true
	}
	if s.warden == nil {
		if err := s.startWarden(); err != nil {
			return err
		}
	}
	return nil
}

// End ends the supervision of cmd, after its Wait returned: every process the command
// left behind is killed, and End returns once none is left. It does nothing for a cmd
// that [Start] did not supervise.
func End(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	s := &sup
	s.mu.Lock()
	st, ok := s.roots[cmd.Process.Pid]
	if ok {
		delete(s.roots, cmd.Process.Pid)
		s.tellWarden(fmt.Sprintf("-%d %d\n", cmd.Process.Pid, st))
	}
	s.mu.Unlock()
	if !ok {
		return
	}
	// Each sweep kills what it found; what those left is re-parented to ouro for the
	// next. Bounded, for a process that SIGKILL cannot end (stuck in the kernel).
	for i := 0; i < 50 && s.sweep() > 0; i++ {
	}
	s.mu.Lock()
	if len(s.roots) == 0 && s.subreaper {
		// No command of ouro's can end now: orphans of ouro's own programs (a git
		// that detached) go to init again, as they did before any command.
		if setSubreaper(false) == nil {
			s.subreaper = false
		}
	}
	s.mu.Unlock()
}

// sweep kills every marked process that was re-parented to ouro, with what runs below
// it, and reaps those that ended. It returns how many it found.
func (s *supervisor) sweep() int {
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	self := os.Getpid()
	var victims []proc
	var dead []int
	s.mu.Lock()
	for _, c := range childrenOf(self) {
		st, state, _, ok := procStat(c)
		if !ok {
			continue
		}
		if rs, root := s.roots[c]; root && (rs == st || rs == 0) {
			continue // a command's root: os/exec waits for it
		}
		if !s.marked(c) {
			continue // ouro's own program
		}
		if state == 'Z' || state == 'X' {
			dead = append(dead, c)
		} else {
			victims = append(victims, proc{pid: c, start: st})
		}
	}
	s.mu.Unlock()
	for _, pid := range dead {
		reapOrphan(pid)
	}
	if len(victims) > 0 {
		freezeKill(victims)
		for _, v := range victims {
			reapOrphan(v.pid)
		}
	}
	return len(dead) + len(victims)
}

// marked reports whether pid carries the mark of a command's processes.
func (s *supervisor) marked(pid int) bool {
	var lim unix.Rlimit
	if err := unix.Prlimit(pid, rlimitRTTime, nil, &lim); err == nil {
		return lim.Max < s.own
	}
	max, ok := limitsHard(pid)
	return ok && max < s.own
}

// limitsHard reads the hard RLIMIT_RTTIME from /proc/PID/limits (readable where
// prlimit is refused, as for a process that changed its user).
func limitsHard(pid int) (uint64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max realtime timeout"); ok {
			f := strings.Fields(rest)
			if len(f) < 2 {
				return 0, false
			}
			if f[1] == "unlimited" {
				return unix.RLIM_INFINITY, true
			}
			v, err := strconv.ParseUint(f[1], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// reapOrphan waits for pid, an orphan re-parented to ouro (never one os/exec started), once it
// has ended; it gives up after a while for one stuck in the kernel.
func reapOrphan(pid int) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || (err != nil && !errors.Is(err, syscall.EINTR)) {
			return
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func setSubreaper(on bool) error {
	v := uintptr(0)
	if on {
		v = 1
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, v, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	return nil
}

// startWarden starts the warden and tells it every root now running. s.mu is held.
func (s *supervisor) startWarden() error {
	exe, err := launcherPath()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	spec, _ := json.Marshal(launchSpec{Mode: wardenMode})
	cmd := exec.Command(exe, launcherArg, string(spec))
	cmd.Stdin = r
	// A session of its own: the terminal's and the process group's signals meant for
	// ouro do not reach it. No parent-death signal: it must outlive ouro.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return fmt.Errorf("start the sandbox warden: %w", err)
	}
	r.Close()
	s.warden, s.wardenPID = w, cmd.Process.Pid
	for pid, st := range s.roots {
		s.tellWarden(fmt.Sprintf("+%d %d\n", pid, st))
	}
	go func() {
		_ = cmd.Wait()
		s.mu.Lock()
		if s.warden == w {
			// Killed: the next command starts another, told of every running root.
			s.warden = nil
			w.Close()
		}
		s.mu.Unlock()
	}()
	return nil
}

// tellWarden writes one line to the warden. s.mu is held. A warden that does not read
// (stopped by someone) is given up on after a while, and the next command starts
// another; its pipe is kept open, since the end of its input would make it kill every
// command it knows while ouro still runs them.
func (s *supervisor) tellWarden(line string) {
	if s.warden == nil {
		return
	}
	_ = s.warden.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := s.warden.WriteString(line); err != nil {
		s.stale = append(s.stale, s.warden)
		s.warden = nil
	}
}

// runWarden is the warden: it reads "+PID START" for each root ouro starts and "-PID
// START" for each that ended, and when its input ends — ouro has exited, or was killed —
// it kills every root still listed with all its processes, and exits.
func runWarden() {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGPIPE)
	roots := map[int]uint64{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		f := strings.Fields(line[1:])
		if len(f) != 2 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		st, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 {
			continue
		}
		if line[0] == '+' {
			roots[pid] = st
		} else {
			delete(roots, pid)
		}
	}
	var tops []proc
	for pid, st := range roots {
		tops = append(tops, proc{pid: pid, start: st, check: true})
	}
	freezeKill(tops)
	os.Exit(0)
}

// proc is a process to kill: its PID and start time; check says the start time must
// match (a process that is not the killer's child, whose PID may have been reused).
type proc struct {
	pid   int
	start uint64
	check bool
}

// freezeKill kills each of tops and every process below it. It stops them first, from
// the top down, waiting until each is stopped before it lists the children (a stopped
// process cannot fork, and cannot reap a child whose PID could then be reused), so no
// process can slip out of the tree while it is walked; then it kills them all with
// SIGKILL and waits until each has died.
func freezeKill(tops []proc) {
	var all []*handle
	seen := map[int]bool{}
	queue := tops
	for len(queue) > 0 {
		var round []*handle
		for _, p := range queue {
			if seen[p.pid] {
				continue
			}
			seen[p.pid] = true
			h := openProc(p)
			if h == nil {
				continue
			}
			h.signal(syscall.SIGSTOP)
			round = append(round, h)
		}
		queue = nil
		for _, h := range round {
			h.awaitStopped()
			for _, c := range childrenOf(h.pid) {
				st, _, ppid, ok := procStat(c)
				if ok && ppid == h.pid {
					queue = append(queue, proc{pid: c, start: st, check: true})
				}
			}
		}
		all = append(all, round...)
	}
	for _, h := range all {
		h.signal(syscall.SIGKILL)
	}
	for _, h := range all {
		h.awaitDead()
		h.close()
	}
}

// handle is a process to signal: a pidfd, or where there is none, its PID and start time.
type handle struct {
	pid   int
	start uint64
	fd    int // -1 without a pidfd
}

// openProc opens p, or returns nil when it is gone or is not the process meant.
func openProc(p proc) *handle {
	h := &handle{pid: p.pid, start: p.start, fd: -1}
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err == nil {
		h.fd = fd
	}
	// Checked after pidfd_open: the pidfd is the process that had the PID then.
	if st, _, _, ok := procStat(p.pid); !ok || (p.check && st != p.start) {
		h.close()
		return nil
	}
	return h
}

func (h *handle) signal(sig syscall.Signal) {
	if h.fd >= 0 {
		_ = unix.PidfdSendSignal(h.fd, sig, nil, 0)
		return
	}
	// No pidfd (Linux before 5.3): the start time is checked just before the signal.
	if st, _, _, ok := procStat(h.pid); ok && st == h.start {
		_ = syscall.Kill(h.pid, sig)
	}
}

// awaitStopped waits until the process is stopped or gone; one in an uninterruptible
// sleep stops when it leaves it, so the wait is bounded.
func (h *handle) awaitStopped() {
	deadline := time.Now().Add(500 * time.Millisecond)
	for {
		st, state, _, ok := procStat(h.pid)
		if !ok || st != h.start || state == 'T' || state == 't' || state == 'Z' || state == 'X' || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// awaitDead waits until the process has died (a zombie, or gone).
func (h *handle) awaitDead() {
	deadline := time.Now().Add(2 * time.Second)
	for {
		st, state, _, ok := procStat(h.pid)
		if !ok || st != h.start || state == 'Z' || state == 'X' || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (h *handle) close() {
	if h.fd >= 0 {
		unix.Close(h.fd)
		h.fd = -1
	}
}

// childrenOf lists pid's children: from /proc/PID/task/*/children where the kernel has
// it (CONFIG_PROC_CHILDREN), else from the parent field of every /proc/*/stat.
func childrenOf(pid int) []int {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if err == nil && len(tasks) > 0 {
		var out []int
		for _, t := range tasks {
			data, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
				}
			}
		}
		return out
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, _, ppid, ok := procStat(c); ok && ppid == pid {
			out = append(out, c)
		}
	}
	return out
}

// procStat reads the start time (in clock ticks since boot), state and parent of pid
// from /proc/PID/stat, counting fields from the last ')' (the command name may hold
// spaces and parentheses).
func procStat(pid int) (start uint64, state byte, ppid int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := bytes.Fields(data[i+1:])
	// state is field 3 of the line, ppid 4, starttime 22.
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, 0, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	return start, f[0][0], ppid, true
}

// specOf reads the launch spec of cmd, when it runs the launcher.
func specOf(cmd *exec.Cmd) (launchSpec, bool) {
	var spec launchSpec
	if len(cmd.Args) < 3 || cmd.Args[1] != launcherArg {
		return spec, false
	}
	return spec, json.Unmarshal([]byte(cmd.Args[2]), &spec) == nil
}

// execReaped becomes the command, supervised by ouro itself (see Start): it marks the
// process with the lowered RLIMIT_RTTIME, makes it a subreaper of its own tree, sets
// SIGSTOP as the parent-death signal of the thread that execs (a root stops when ouro
// dies, for the warden to kill with its tree), and execs. The caller has locked the
// thread.
func execReaped(path string, argv []string, spec launchSpec) error {
	var lim unix.Rlimit
	if err := unix.Prlimit(0, rlimitRTTime, nil, &lim); err != nil {
		return fmt.Errorf("read RLIMIT_RTTIME: %w", err)
	}
	lim.Max = min(lim.Max, spec.Mark)
	lim.Cur = min(lim.Cur, lim.Max)
	if err := unix.Prlimit(0, rlimitRTTime, &lim, nil); err != nil {
		return fmt.Errorf("mark the command's processes (setrlimit RLIMIT_RTTIME): %w; refusing to run %s unsupervised", err, argv[0])
	}
	if spec.Mode != modeSupervise {
		// A sandboxed command run by root keeps its capabilities, and with
		// CAP_SYS_RESOURCE it could raise the mark away again: the capability is
		// dropped from the bounding set, which leaves it to no program the command runs.
		_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_CAPBSET_DROP, unix.CAP_SYS_RESOURCE, 0)
		if in, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_CAPBSET_READ, unix.CAP_SYS_RESOURCE, 0); errno != 0 && in == 1 {
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE): %w; refusing to run %s with it", errno, argv[0])
		}
	}
	if err := setSubreaper(true); err != nil {
		return fmt.Errorf("%w; refusing to run %s unsupervised", err, argv[0])
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGSTOP), 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w; refusing to run %s without it", errno, argv[0])
	}
	if os.Getppid() != spec.Parent {
		return errors.New("ouro ended before the command started")
	}
	return syscall.Exec(path, argv, os.Environ())
}
