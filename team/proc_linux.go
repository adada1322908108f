package team

import "syscall"

// deathSignal has the kernel send SIGTERM to a teammate process when its lead dies.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
