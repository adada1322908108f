package tools

import "syscall"

// dieWithOuro makes the kernel kill a shell started without the launcher when ouro dies
// (the thread that started it, strictly; Go keeps its threads). What the shell started
// is not covered: that takes the launcher (sandbox.Supervised).
func dieWithOuro(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
