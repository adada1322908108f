// Package wfserve is the workflow engine mode of ouro's binary (chapter: workflows): the
// journal (state.db, or JetStream for a nats:// store) and the JavaScript engine behind
// wfproc's protocol. A program calls MaybeServe first thing in main; started again by
// wfproc.Self with wfproc.ModeArg, it then serves one request and exits, under the
// memory limit of the script it runs.
package wfserve

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/engine"
	"github.com/ouroagent/ouro/workflow/natsstore"
	"github.com/ouroagent/ouro/workflow/sqlitestore"
	"github.com/ouroagent/ouro/workflow/wfproc"
)

// MaybeServe serves the workflow engine mode when the program was started in it, and
// returns otherwise (see wfproc.MaybeServe).
func MaybeServe() { wfproc.MaybeServe(Backend) }

// Backend is the engine's journal and JavaScript engine.
func Backend() wfproc.Backend {
	return wfproc.Backend{
		Open: func(path string) (workflow.Store, error) {
			if natsjs.IsURL(path) {
				return natsstore.Open(context.Background(), path)
			}
			return sqlitestore.Open(path)
		},
		Engine: func(s workflow.Store) workflow.Engine { return engine.Local{Store: s} },
		Check:  engine.Check,
		// The engine's process is the run's, so its heap is the script's: the engine's
		// watchdog stops the script past the limit, and the collector is told the same
		// limit so that garbage is collected before it counts against it.
		MemoryLimit: func() (int64, error) {
			n, err := engine.MemoryLimitFromEnv(os.Getenv)
			if err == nil {
				debug.SetMemoryLimit(n)
				capMemory(n)
			}
			return n, err
		},
	}
}
