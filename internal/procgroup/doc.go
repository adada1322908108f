// Package procgroup keeps a child process and everything it starts together on Windows,
// where there are no process groups to signal: the child starts suspended, joins a Job
// Object of its own before it runs a single instruction, and from then on whatever it
// starts joins the job too. Killing the job kills the whole tree; the job is set to kill
// its processes when its last handle closes, so the tree also dies with ouro (even when
// ouro is killed), and when the child itself ends, what it left behind is killed, as the
// sandbox launcher does on Linux.
//
// On Unix the callers use process groups (Setpgid) and signals instead; this package
// has nothing to offer there.
package procgroup
