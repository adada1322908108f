package mcpclient

import "syscall"

// dieWithOuro makes the kernel kill a server started without the launcher when ouro dies.
func dieWithOuro(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
