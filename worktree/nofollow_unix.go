//go:build unix

package worktree

import "syscall"

const noFollow = syscall.O_NOFOLLOW
