// Command ouro-workflow is the helper ouro runs workflow scripts in. It holds the
// JavaScript engine (goja) and the journal (state.db, or JetStream with --store), which
// ouro itself does not link, so that a session running no workflow pays nothing for them. ouro starts it and speaks
// JSON lines with it over stdin and stdout (package workflow/wfproc); it is not meant to
// be run by hand. Install it next to ouro:
//
//	go install github.com/ouroagent/ouro/cmd/ouro github.com/ouroagent/ouro/cmd/ouro-workflow
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/engine"
	"github.com/ouroagent/ouro/workflow/natsstore"
	"github.com/ouroagent/ouro/workflow/sqlitestore"
	"github.com/ouroagent/ouro/workflow/wfproc"
)

func main() {
	err := wfproc.Serve(os.Stdin, os.Stdout, wfproc.Backend{
		Open: func(path string) (workflow.Store, error) {
			if natsjs.IsURL(path) {
				return natsstore.Open(context.Background(), path)
			}
			return sqlitestore.Open(path)
		},
		Engine: func(s workflow.Store) workflow.Engine { return engine.Local{Store: s} },
		Check:  engine.Check,
		// The helper's process is the run's, so its heap is the script's: the engine's
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
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ouro-workflow:", err)
		os.Exit(2)
	}
}
