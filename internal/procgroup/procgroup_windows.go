//go:build windows

package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Prepare makes cmd start suspended, in a console process group of its own: a Ctrl-C at
// ouro's console reaches ouro, which decides what to stop, not the command behind its
// back (what Setpgid does on Unix). After cmd.Start succeeds, Attach must follow: until
// then the process does not run.
func Prepare(cmd *exec.Cmd) {
	ConsoleGroup(cmd)
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
}

// ConsoleGroup only starts cmd in a console process group of its own (no job, not
// suspended): for a helper ouro stops itself.
func ConsoleGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// Group is a started process and everything it starts: one Job Object.
type Group struct {
	mu     sync.Mutex
	job    windows.Handle
	closed bool
}

// Attach puts p, started suspended after Prepare, into a new job and lets it run. When
// p ends, whatever is left in the job is killed and the job is released. Should the job
// not be made, p is killed (it never ran) and the error says why.
func Attach(p *os.Process) (*Group, error) {
	g, leader, err := attach(p)
	if err != nil {
		_ = p.Kill()
		return nil, fmt.Errorf("procgroup: %w", err)
	}
	go func() {
		// The leader's handle is our own duplicate, so os/exec's Wait, which closes
		// its handle, does not pull it from under this wait.
		_, _ = windows.WaitForSingleObject(leader, windows.INFINITE)
		_ = windows.CloseHandle(leader)
		g.close()
	}()
	return g, nil
}

func attach(p *os.Process) (*Group, windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return nil, 0, fmt.Errorf("set job object limits: %w", err)
	}
	var leader windows.Handle
	var aerr error
	if err := p.WithHandle(func(h uintptr) {
		self := windows.CurrentProcess()
		if aerr = windows.DuplicateHandle(self, windows.Handle(h), self, &leader, windows.SYNCHRONIZE, false, 0); aerr != nil {
			aerr = fmt.Errorf("duplicate process handle: %w", aerr)
			return
		}
		if aerr = windows.AssignProcessToJobObject(job, windows.Handle(h)); aerr != nil {
			aerr = fmt.Errorf("assign process %d to its job object: %w", p.Pid, aerr)
		}
	}); err != nil {
		aerr = err
	}
	if aerr == nil {
		aerr = resume(uint32(p.Pid))
	}
	if aerr != nil {
		if leader != 0 {
			_ = windows.CloseHandle(leader)
		}
		_ = windows.TerminateJobObject(job, 1)
		_ = windows.CloseHandle(job)
		return nil, 0, aerr
	}
	return &Group{job: job}, leader, nil
}

// resume lets the suspended process pid run: os/exec keeps no handle to its main thread,
// so the thread is found among the system's.
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(unsafe.Sizeof(te))
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("list threads: %w", err)
	}
	if resumed == 0 {
		return fmt.Errorf("process %d has no thread to resume", pid)
	}
	return nil
}

// Kill kills every process of the group at once (Windows has no SIGTERM to ask first).
// It does nothing once the group is gone.
func (g *Group) Kill() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		_ = windows.TerminateJobObject(g.job, 1)
	}
}

// close kills what is left and releases the job.
func (g *Group) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	g.closed = true
	_ = windows.TerminateJobObject(g.job, 1)
	_ = windows.CloseHandle(g.job)
}
