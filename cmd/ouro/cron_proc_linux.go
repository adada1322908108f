package main

import "syscall"

// jobProcAttr makes the kernel stop a job's run when `ouro cron run` dies without
// stopping it (kill -9), so no run outlives the scheduler that started it.
func jobProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
