package hook

import "syscall"

// dieWithParent has the kernel kill the hook's leader when ouro dies.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
