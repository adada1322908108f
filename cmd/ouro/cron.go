package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ouroagent/ouro/cron"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/ui"
)

func newCronCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "cron",
		Short: "List, approve and run the project's durable scheduled prompts",
		Long: `Durable jobs (CronCreate with durable: true) are kept in .ouro/scheduled_tasks.json;
Claude Code's .claude/scheduled_tasks.json is read too. An interactive ouro in the project
fires them while it is idle; 'ouro cron run' fires them with nobody at the keyboard.

A job ouro did not create (one committed in a cloned repository, or written by another
program) runs only once you approve it: the interactive session asks, or use
'ouro cron approve'.`,
	}
	c.AddCommand(newCronListCmd(), newCronApproveCmd(), newCronRunCmd())
	return c
}

// cronProject resolves a project folder (default: here) as a session does, and its
// state folder under ouro's home.
func cronProject(args []string) (dir, state string, err error) {
	dir = "."
	if len(args) > 0 {
		dir = args[0]
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", "", err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", "", fmt.Errorf("%s is not a folder", dir)
	}
	home, err := session.Home()
	if err != nil {
		return "", "", err
	}
	return dir, harness.ProjectDirFor(home, dir), nil
}

func newCronListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list [DIR]",
		Short: "List the durable jobs, with the next time each fires and whether it is approved",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, state, err := cronProject(args)
			if err != nil {
				return err
			}
			s := cron.New(cron.Config{Clock: cron.ClockFromEnv(), Store: cron.OpenStore(dir), Ledger: cron.OpenLedger(state)})
			_, problems := cron.OpenStore(dir).Load()
			for _, p := range problems {
				fmt.Fprintln(cmd.ErrOrStderr(), "ouro:", p)
			}
			fmt.Fprintln(cmd.OutOrStdout(), cron.Describe(s, s.List()))
			return nil
		},
	}
}

func newCronApproveCmd() *cobra.Command {
	var dirFlag string
	var all bool
	c := &cobra.Command{
		Use:   "approve ID... | --all",
		Short: "Let durable jobs you reviewed run (ouro cron list shows them)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !all {
				return errors.New("name the jobs to approve (ouro cron list shows them), or pass --all")
			}
			dir, state, err := cronProject([]string{dirFlag})
			if err != nil {
				return err
			}
			s := cron.New(cron.Config{Clock: cron.ClockFromEnv(), Store: cron.OpenStore(dir), Ledger: cron.OpenLedger(state)})
			pending := s.Unapproved()
			var pick []cron.Job
			for _, j := range pending {
				if all || containsStr(args, j.ID) {
					pick = append(pick, j)
				}
			}
			for _, id := range args {
				if !containsJob(pick, id) {
					return fmt.Errorf("no job awaiting approval has the id %q (ouro cron list shows the jobs)", id)
				}
			}
			if err := s.Approve(pick...); err != nil {
				return err
			}
			for _, j := range pick {
				fmt.Fprintf(cmd.OutOrStdout(), "approved %s (%s): %s\n", j.ID, j.Cron, textcut.OneLine(j.Prompt, 100, "…"))
			}
			if len(pick) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no job awaits approval")
			}
			return nil
		},
	}
	c.Flags().StringVar(&dirFlag, "dir", ".", "the project folder")
	c.Flags().BoolVar(&all, "all", false, "approve every job awaiting approval")
	return c
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsJob(jobs []cron.Job, id string) bool {
	for _, j := range jobs {
		if j.ID == id {
			return true
		}
	}
	return false
}

// notForwarded are the run flags that make no sense for a scheduled run.
var notForwarded = []string{"print", "output-format", "resume", "continue", "session-id", "version"}

func newCronRunCmd() *cobra.Command {
	f := &runFlags{}
	c := &cobra.Command{
		Use:   "run [DIR] [flags]",
		Short: "Fire the project's durable jobs in the foreground, each as a headless run",
		Long: `ouro cron run fires the durable jobs of DIR (default: here) as they fall due, one at a
time, each as 'ouro -p' would run it, with the permission and model flags given here
(--permission-mode, --allowedTools, --model, --max-turns, ...). It logs each outcome on
standard output. A job counts as done once the model answered; a failed run is tried
again a minute later. Jobs nobody approved are skipped (ouro cron approve). One-shot jobs
missed while nothing ran are left for an interactive session to offer. Only one process
fires a project's jobs at a time: while an interactive ouro does, this waits.
SIGTERM or Ctrl-C stops it: a running job is interrupted and stays scheduled.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, n := range notForwarded {
				if cmd.Flags().Changed(n) {
					return fmt.Errorf("--%s does not apply to ouro cron run", n)
				}
			}
			dir, state, err := cronProject(args)
			if err != nil {
				return err
			}
			var fwd []string
			cmd.Flags().Visit(func(fl *pflag.Flag) {
				if sv, ok := fl.Value.(pflag.SliceValue); ok {
					for _, v := range sv.GetSlice() {
						fwd = append(fwd, "--"+fl.Name+"="+v)
					}
					return
				}
				fwd = append(fwd, "--"+fl.Name+"="+fl.Value.String())
			})
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			return runCron(ctx, dir, state, fwd, cmd.OutOrStdout())
		},
	}
	f.register(c)
	for _, n := range notForwarded {
		if fl := c.Flags().Lookup(n); fl != nil {
			fl.Hidden = true
		}
	}
	return c
}

// cronRunner fires jobs as headless child runs, one at a time.
type cronRunner struct {
	dir   string
	fwd   []string
	out   io.Writer
	sched *cron.Scheduler

	mu      sync.Mutex
	running *exec.Cmd
	wg      sync.WaitGroup
}

func (r *cronRunner) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.out, "%s %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

func runCron(ctx context.Context, dir, state string, fwd []string, out io.Writer) error {
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding ouro's own binary to run jobs with: %w", err)
	}
	r := &cronRunner{dir: dir, fwd: fwd, out: out}
	r.sched = cron.New(cron.Config{
		Clock: cron.ClockFromEnv(), Store: cron.OpenStore(dir), Ledger: cron.OpenLedger(state),
		OwnerLock: filepath.Join(state, harness.OwnerLockName),
		Warn:      func(msg string) { r.logf("%s", msg) },
		Run: func(f cron.Fired) {
			r.wg.Add(1)
			go func() { defer r.wg.Done(); r.run(ctx, self, f) }()
		},
	})
	r.logf("ouro cron run: firing the durable jobs of %s (%s); SIGTERM or Ctrl-C stops", dir, cron.OpenStore(dir).Path())
	if !r.sched.Owns() {
		r.logf("another ouro (an interactive session or ouro cron run) fires this project's jobs now; waiting until it ends")
	}
	for _, j := range r.sched.Missed() {
		r.logf("job %s: one-shot missed (due %s); left for an interactive ouro session to offer", j.ID, r.sched.NextFire(j).Format(time.RFC3339))
	}
	r.sched.Start()
	<-ctx.Done()
	r.sched.Stop()
	r.mu.Lock()
	if c := r.running; c != nil && c.Process != nil {
		c.Process.Signal(syscall.SIGTERM)
	}
	r.mu.Unlock()
	r.wg.Wait()
	r.logf("ouro cron run: stopped")
	return nil
}

// run runs one fired job as `ouro -p PROMPT --output-format json` with the forwarded
// flags, and reports the outcome to the scheduler.
func (r *cronRunner) run(ctx context.Context, self string, f cron.Fired) {
	// The parent-death signal follows the OS thread that started the child: this
	// goroutine keeps its thread until the child has ended.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	args := append([]string{"-p", f.Prompt, "--output-format", "json"}, r.fwd...)
	c := exec.Command(self, args...)
	c.Dir = r.dir
	c.SysProcAttr = jobProcAttr()
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	r.mu.Lock()
	if ctx.Err() != nil {
		r.mu.Unlock()
		r.sched.Done(f.Job.ID, false)
		return
	}
	err := c.Start()
	if err == nil {
		r.running = c
	}
	r.mu.Unlock()
	if err == nil {
		r.logf("job %s fired (%s), pid %d: %s", f.Job.ID, f.Job.Cron, c.Process.Pid, textcut.OneLine(f.Job.Prompt, 100, "…"))
	}
	if err == nil {
		// A run that ignores SIGTERM is killed ten seconds after the stop.
		done := make(chan struct{})
		go func() {
			select {
			case <-ctx.Done():
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					c.Process.Kill()
				}
			case <-done:
			}
		}()
		err = c.Wait()
		close(done)
	}
	r.mu.Lock()
	r.running = nil
	r.mu.Unlock()
	var res ui.ResultEvent
	parsed := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &res) == nil && res.Type == "result"
	ok := err == nil || (parsed && res.NumTurns > 0 && res.Status != "interrupted")
	if derr := r.sched.Done(f.Job.ID, ok); derr != nil {
		r.logf("job %s: recording the fire failed: %v; it may fire again", f.Job.ID, derr)
	}
	switch {
	case parsed:
		state := "done"
		if !ok {
			state = "not done; tried again in a minute"
		}
		r.logf("job %s %s: %s, %d turns, $%.4f, session %s%s", f.Job.ID, state, res.Status, res.NumTurns, res.TotalCostUSD, res.SessionID, reasonSuffix(res.Reason))
	default:
		r.logf("job %s not done (%v); tried again in a minute: %s", f.Job.ID, err, textcut.OneLine(strings.TrimSpace(stderr.String()), 300, "…"))
	}
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + textcut.OneLine(reason, 200, "…") + ")"
}
