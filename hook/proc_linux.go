package hook

import "syscall"

// guardsGroup: Linux tells a process its parent died, so async hooks run under
// groupGuard.
const guardsGroup = true

// dieWithParent has the kernel send sig to the hook's leader when ouro dies.
func dieWithParent(a *syscall.SysProcAttr, sig syscall.Signal) { a.Pdeathsig = sig }
