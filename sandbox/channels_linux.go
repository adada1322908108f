//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Channels besides files and TCP, by which a sandboxed command could reach what runs
// outside the sandbox:
//
//   - /dev/shm (POSIX shared memory, Python's multiprocessing): in the mount mode each
//     command gets a /dev/shm of its own (a tmpfs in its mount namespace), so nothing
//     there is shared with other sessions or left behind; in the Landlock-only mode it
//     stays the machine's, writable.
//   - Abstract Unix sockets (@name, no file: X11, D-Bus on some systems, many daemons):
//     with the network confined, Landlock (ABI 6, Linux 6.12) refuses connecting to one
//     that a process outside the sandbox listens on.
//   - What stays open with the network confined, as Landlock cannot refuse it: UDP
//     (DNS included; needs ABI 10), and Unix sockets that have a path (/run/docker.sock,
//     an ssh-agent's, /tmp/.X11-unix/X0), which a command can connect to wherever the
//     file is readable. Availability says so, so ouro doctor and the session show it.

// confinedScopes are the Landlock scopes asked for when the network is confined.
// Signals are not scoped: a command may still signal processes of the user's outside
// it, as any program of the user's can.
const confinedScopes = landlock.ScopedSet(ll.ScopeAbstractUnixSocket)

// privateShm mounts a tmpfs of the command's own on /dev/shm, in the launcher's mount
// namespace. Where it cannot (no /dev/shm, or the kernel refuses), the machine's stays.
func privateShm() {
	if st, err := os.Stat("/dev/shm"); err != nil || !st.IsDir() {
		return
	}
	_ = syscall.Mount("tmpfs", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777")
}

// channelWarning says what stays open to sandboxed commands when the network is
// confined, for the kernel's Landlock ABI.
func channelWarning(abi int) string {
	open := "UDP (DNS included) and Unix-domain sockets that have a path (such as /run/docker.sock or an ssh-agent's) stay open to sandboxed commands although the network is confined: Landlock cannot refuse them"
	if abi < 6 {
		open += fmt.Sprintf("; so do abstract Unix sockets (Landlock ABI %d; scoping them needs ABI 6, Linux 6.12)", abi)
	} else {
		open += "; abstract Unix sockets of processes outside the sandbox are refused"
	}
	return open + "."
}

// shmWarning is shown in the Landlock-only mode.
const shmWarning = "Without a mount namespace /dev/shm is the machine's: sandboxed commands can write there, and what they leave is seen by other sessions and programs."
