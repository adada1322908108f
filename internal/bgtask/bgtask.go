// Package bgtask holds what the starter of background tasks (package background, s11)
// and the tools that hand it work (tools, s02; subagent, s06) must agree on, so that
// neither of those lower chapters imports the manager: the process a background shell
// command runs as, how it ended, and the mark on a background agent's context.
package bgtask

import "context"

// Proc is a running process a background shell command has started.
type Proc interface {
	// Wait blocks until the process has ended and its output is flushed.
	Wait() Exit
	// Stop ends the process and everything it started, and returns once it is gone.
	Stop()
}

// Exit is how a process ended.
type Exit struct {
	Code   int
	Signal string // the signal that killed it, "" when it exited
	Err    error  // waiting failed
}

type inBackground struct{}

// InBackground reports whether ctx is that of a background agent: nobody waits on its
// calls, so an approver should refuse what it would ask a person about (the REPL's
// prompt is busy with other things) and say why.
func InBackground(ctx context.Context) bool {
	v, _ := ctx.Value(inBackground{}).(bool)
	return v
}

// Context marks ctx as a background agent's (InBackground reports true under it).
func Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, inBackground{}, true)
}
