package harness

import (
	"github.com/ouroagent/ouro/cron"
	"github.com/ouroagent/ouro/mechanism"
)

// OwnerLockName is the lock, in the project's state folder, that the process firing the
// project's durable jobs holds.
const OwnerLockName = cron.OwnerLockName

// Schedules is the session's scheduler (the REPL's /loop uses it).
func (s *Session) Schedules() *cron.Scheduler {
	sched, _ := mechanism.Handle[*cron.Scheduler](s.parts)
	return sched
}

// LoadTools offers deferred tools from the next request on, as ToolSearch would.
func (s *Session) LoadTools(names ...string) { s.Tools.Load(names...) }
