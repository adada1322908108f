package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/eval"
	"github.com/ouroagent/ouro/eval/fleet"
)

func newEvalCmd() *cobra.Command {
	var (
		tasksDir, model, script, out, baseline, store string
		runs, parallel                                int
		only                                          []string
		keep, asJSON, workers                         bool
		ackWait                                       time.Duration
	)
	c := &cobra.Command{
		Use:   "eval",
		Short: "Run the practice task set and report the six metrics",
		Long: `ouro eval runs each task of a fixed set in a fresh copy of its practice repository,
keeps every trajectory, checks the final state from outside the agent (expected answers,
files allowed to change, secret files never read, the test command passing) and
reports per task and overall:

  success rate            runs whose final state met the acceptance
  invalid call rate       calls that brought no new information (unknown tool, input
                          breaking the schema, a failure repeating an identical failure)
  out of bounds           requests for what was not allowed (a path outside the
                          workspace, an action the rules denied)
  average turns           model calls per run
  context tokens          input tokens per run (fresh, cache writes and reads)
  false completion rate   runs the model ended as done whose check failed

--model scripted plays each task's own trajectory (scripts/reference.json, or the one
--script names): the harness and the metrics, tested offline. A real model
(--model claude-…, --model openai:…) measures the model together with the harness.

Each run is isolated from your own setup: a fresh ouro home and no user-level
configuration (~/.claude settings and hooks, CLAUDE.md, skills, agents), so results
compare across machines; only the task repository's own configuration applies.

Written to --out: results.json, report.html (a chart per metric) and trajectories/.
--baseline compares with an earlier results.json and exits 1 on a regression.

--workers --store nats://HOST:PORT puts the runs on a NATS JetStream work queue instead
of running them here: start any number of "ouro eval worker --store URL" on any
machines with the same task set; the report is the same.`,
		Example: `  ouro eval --model scripted
  ouro eval --model scripted --script false-completion
  ouro eval --model claude-sonnet-5-5 --runs 3 --baseline eval-results/last/results.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if store != "" && !workers {
				return fmt.Errorf("--store without --workers: add --workers to put the runs on the fleet's queue")
			}
			if runs <= 0 {
				return fmt.Errorf("--runs must be at least 1")
			}
			if parallel < 0 {
				return fmt.Errorf("--parallel must not be negative")
			}
			if tasksDir == "" {
				tasksDir = filepath.Join("eval", "tasks")
				if _, err := os.Stat(tasksDir); err != nil {
					return fmt.Errorf("no task set here: pass --tasks DIR (ouro's source tree ships one in eval/tasks)")
				}
			}
			if workers {
				// Workers find the task set by the path the jobs name.
				if abs, err := filepath.Abs(tasksDir); err == nil {
					tasksDir = abs
				}
			}
			tasks, err := eval.LoadTasks(tasksDir)
			if err != nil {
				return err
			}
			if len(only) > 0 {
				var keepTasks []eval.Task
				for _, t := range tasks {
					if slices.Contains(only, t.Name) {
						keepTasks = append(keepTasks, t)
					}
				}
				if len(keepTasks) != len(only) {
					var names []string
					for _, t := range tasks {
						names = append(names, t.Name)
					}
					return fmt.Errorf("--task names a task that is not in %s; the tasks are: %s", tasksDir, strings.Join(names, ", "))
				}
				tasks = keepTasks
			}
			var base *eval.Report
			if baseline != "" {
				b, err := eval.LoadReport(baseline)
				if err != nil {
					return err
				}
				base = &b
			}
			if out == "" {
				out = filepath.Join("eval-results", time.Now().Format("20060102-150405"))
			}
			if model == "" {
				model = eval.Scripted
			}
			errOut := cmd.ErrOrStderr()
			fmt.Fprintf(errOut, "ouro eval: %d tasks × %d runs, model %s, writing to %s\n", len(tasks), runs, model, out)
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			eo := eval.Options{Tasks: tasks, TaskSet: tasksDir, Model: model, Script: script, Runs: runs,
				Out: out, Keep: keep, Parallel: parallel, Progress: errOut, SandboxLauncher: true, Version: version}
			var rep eval.Report
			if workers {
				rep, err = runOnFleet(ctx, store, eo, ackWait)
			} else {
				rep, err = eval.Run(ctx, eo)
			}
			if err != nil {
				return err
			}
			var cmp *eval.Comparison
			if base != nil {
				c := eval.Compare(*base, rep)
				cmp = &c
			}
			if err := writeEvalFiles(out, rep, cmp); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if err := eval.WriteJSON(w, rep); err != nil {
					return err
				}
			} else {
				if err := eval.WriteTable(w, rep); err != nil {
					return err
				}
				fmt.Fprintf(w, "\nresults: %s\nreport:  %s\n", filepath.Join(out, "results.json"), filepath.Join(out, "report.html"))
			}
			if cmp != nil {
				fmt.Fprintln(errOut)
				if err := eval.WriteComparison(errOut, *cmp); err != nil {
					return err
				}
				if len(cmp.Regressions) > 0 {
					return exitError{1}
				}
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&tasksDir, "tasks", "", "the task set folder (default eval/tasks)")
	fl.StringVar(&model, "model", "", "scripted (the tasks' own trajectories, the default), a Claude model name, or openai:NAME")
	fl.StringVar(&script, "script", "reference", "with --model scripted: which trajectory to play (tasks without it are skipped)")
	fl.IntVar(&runs, "runs", 1, "runs per task")
	fl.IntVar(&parallel, "parallel", 0, "runs at once (default: the CPUs, at most 4; use 1 to stay under a provider's rate limit)")
	fl.StringVar(&out, "out", "", "where to write results.json, report.html and the trajectories (default eval-results/TIME)")
	fl.StringVar(&baseline, "baseline", "", "an earlier results.json to compare with; a regression exits 1")
	fl.StringArrayVar(&only, "task", nil, "run only this task (repeatable)")
	fl.BoolVar(&keep, "keep", false, "keep each run's working copy under OUT/work")
	fl.BoolVar(&asJSON, "json", false, "print the results as JSON instead of the table")
	fl.BoolVar(&workers, "workers", false, "queue the runs for `ouro eval worker` processes (with --store or $OURO_STORE)")
	fl.StringVar(&store, "store", "", "with --workers: the NATS JetStream URL, nats://HOST:PORT")
	fl.DurationVar(&ackWait, "ack-wait", fleet.DefaultAckWait, "with --workers: how long a run may go without a sign of life from its worker before another worker gets it")
	c.AddCommand(newEvalWorkerCmd())
	return c
}

func writeEvalFiles(out string, rep eval.Report, cmp *eval.Comparison) error {
	for _, f := range []struct {
		name  string
		write func(*os.File) error
	}{
		{"results.json", func(w *os.File) error { return eval.WriteJSON(w, rep) }},
		{"report.html", func(w *os.File) error { return eval.WriteHTML(w, rep, cmp) }},
	} {
		file, err := os.Create(filepath.Join(out, f.name))
		if err != nil {
			return err
		}
		werr := f.write(file)
		if err := file.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			return fmt.Errorf("write %s: %w", f.name, werr)
		}
	}
	return nil
}
