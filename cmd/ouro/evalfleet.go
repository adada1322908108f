package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/eval"
	"github.com/ouroagent/ouro/eval/fleet"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/natsjs"
)

// fleetConn connects to the store the flag, OURO_STORE or store.url names; the fleet
// needs one.
func fleetConn(ctx context.Context, flag, who string) (*natsjs.Conn, error) {
	url, err := harness.CLIStore(flag)
	if err != nil {
		return nil, err
	}
	if url == "" {
		return nil, errors.New("the fleet needs a NATS JetStream server: pass --store nats://HOST:PORT (or set OURO_STORE)")
	}
	cfg, err := natsjs.Parse(url)
	if err != nil {
		return nil, err
	}
	return natsjs.Connect(ctx, cfg, who)
}

func runOnFleet(ctx context.Context, store string, o eval.Options, ackWait time.Duration) (eval.Report, error) {
	c, err := fleetConn(ctx, store, "ouro eval")
	if err != nil {
		return eval.Report{}, err
	}
	defer c.Close()
	return fleet.Coordinate(ctx, c, o, ackWait)
}

func newEvalWorkerCmd() *cobra.Command {
	var (
		store, tasks, out, name string
		idle                    time.Duration
		maxRuns                 int
	)
	c := &cobra.Command{
		Use:   "worker",
		Short: "Run the runs an `ouro eval --workers` queued on NATS JetStream",
		Long: `ouro eval worker takes runs from the evaluation queue on NATS JetStream (--store, else
$OURO_STORE or store.url in your settings), runs each as a local evaluation does and
publishes its result and trajectory. Start any number, on any machines that have the
task set (at the path the coordinator used, or --tasks DIR) and, for a real model, its
key. A worker that dies mid-run loses nothing: its run goes to another worker once the
coordinator's --ack-wait has passed, and is counted once.`,
		Example: `  ouro eval worker --store nats://fleet:4222
  ouro eval worker --store nats://fleet:4222 --tasks ~/src/ouro/eval/tasks --idle 5m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if maxRuns < 0 || idle < 0 {
				return errors.New("--max-runs and --idle must not be negative")
			}
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			c, err := fleetConn(ctx, store, "ouro eval worker")
			if err != nil {
				return err
			}
			defer c.Close()
			errOut := cmd.ErrOrStderr()
			fmt.Fprintf(errOut, "ouro eval worker: waiting for runs at %s\n", c.Cfg.Where())
			n, err := fleet.Work(ctx, c, fleet.WorkerOptions{Name: name, Tasks: tasks, Out: out, Idle: idle, MaxRuns: maxRuns,
				Progress: errOut, SandboxLauncher: true, Version: version})
			fmt.Fprintf(errOut, "ouro eval worker: %d runs done\n", n)
			return err
		},
	}
	fl := c.Flags()
	fl.StringVar(&store, "store", "", "the NATS JetStream URL, nats://HOST:PORT (default $OURO_STORE, store.url in your settings)")
	fl.StringVar(&tasks, "tasks", "", "the task set folder (default: the path each run names)")
	fl.StringVar(&out, "out", "", "where to keep the worker's state and working copies (default a temporary folder)")
	fl.StringVar(&name, "name", "", "the worker's name in the report's progress (default host:pid)")
	fl.DurationVar(&idle, "idle", 0, "stop after no run came for this long (default: run until interrupted)")
	fl.IntVar(&maxRuns, "max-runs", 0, "stop after this many runs (default: no limit)")
	return c
}
