package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/profile"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/wfproc"
)

func newWorkflowCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "workflow",
		Short: "Run, list and inspect workflows (Claude Code's workflow scripts)",
		Long: `A workflow is a JavaScript file beginning with export const meta = {name, description}
that fans work out to agents: agent(), parallel(), pipeline(). Saved workflows live in
.ouro/workflows/ and .claude/workflows/ (NAME.js). Every agent() call is journaled in
<OURO_HOME or ~/.ouro>/state.db, so a stopped run resumes without redoing finished calls:
'ouro workflow show RUNID --resume' (its own script and args), or
'ouro workflow run FILE|NAME --resume RUNID' (another version of the script).
A script may use 1 GiB of memory; past it the run stops with an error. Set
OURO_WORKFLOW_MEMORY (2GiB, 512MB, or bytes) to change the limit.`,
	}
	c.AddCommand(newWorkflowRunCmd(), newWorkflowShowCmd(), &cobra.Command{
		Use: "list", Short: "List the saved workflows and the recent runs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := workflowClient()
			if err != nil {
				return err
			}
			out, err := cl.Text(cmd.Context(), "list", "")
			if err != nil {
				return err
			}
			_, err = io.WriteString(cmd.OutOrStdout(), out)
			return err
		},
	})
	return c
}

func newWorkflowShowCmd() *cobra.Command {
	var resume bool
	var rf wfFlags
	c := &cobra.Command{
		Use:   "show RUNID",
		Short: "Show a run: its phases, each agent's status, tokens and result",
		Long: `RUNID is a run's id (wf_…), the start of one (with or without wf_), or the name of
a workflow that ran once; one that could mean several runs lists them.
--resume resumes the run after showing it: its finished agent() calls are replayed from the
journal and the rest run, with the script and args it was started with (as
'ouro workflow run --resume' does, with this directory's settings and permissions).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, a []string) error {
			cl, err := workflowClient()
			if err != nil {
				return err
			}
			out, err := cl.Text(cmd.Context(), "show", a[0])
			if err != nil {
				return err
			}
			if _, err := io.WriteString(cmd.OutOrStdout(), out); err != nil || !resume {
				return err
			}
			rec, err := cl.Journal(cmd.Context(), a[0])
			if err != nil {
				return err
			}
			if rec.Script == "" {
				return fmt.Errorf("the journal keeps no script for %s; resume it with 'ouro workflow run FILE|NAME --resume %s'", rec.ID, rec.ID)
			}
			rf.resume = rec.ID
			if rf.argsJSON == "" {
				rf.argsJSON = rec.Args
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "resuming %s (%s)\n", rec.ID, rec.Name)
			return runWorkflow(cmd, cl, workflow.Script{Name: rec.Name, Path: rec.ScriptPath, Source: rec.Script}, rf)
		},
	}
	c.Flags().BoolVar(&resume, "resume", false, "resume the run after showing it (its own script and args)")
	rf.register(c, false)
	return c
}

// workflowClient reaches the workflow engine (ouro started again in its engine mode),
// which runs scripts and keeps the journal.
func workflowClient() (wfproc.Client, error) {
	home, err := session.Home()
	if err != nil {
		return wfproc.Client{}, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return wfproc.Client{}, err
	}
	store, err := harness.CLIStore("")
	if err != nil {
		return wfproc.Client{}, err
	}
	c, err := wfproc.Self(harness.JournalLocation(store, home), cwd)
	c.Env = profile.ChildEnv("workflow")
	return c, err
}

// wfFlags are the flags a workflow run takes.
type wfFlags struct {
	model, settings, mode, argsJSON, resume string
	allowed, disallowed                     []string
	maxTokens                               int
}

// register adds the flags to c; withResume adds --args and --resume RUNID (show has its
// own --resume, and the run's own args).
func (f *wfFlags) register(c *cobra.Command, withResume bool) {
	fl := c.Flags()
	if withResume {
		fl.StringVar(&f.argsJSON, "args", "", "JSON value given to the script as args")
		fl.StringVar(&f.resume, "resume", "", "replay this run's finished agent() calls (a wf_… run id)")
	}
	fl.StringVar(&f.model, "model", "", "model for the agents (default $OURO_MODEL)")
	fl.StringVar(&f.settings, "settings", "", "extra settings: a JSON file or an inline JSON object")
	fl.StringArrayVar(&f.allowed, "allowedTools", nil, "rules to allow without asking")
	fl.StringArrayVar(&f.disallowed, "disallowedTools", nil, "rules to deny")
	fl.StringVar(&f.mode, "permission-mode", "", "permission mode: default, acceptEdits, plan, bypassPermissions")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "hard token ceiling for the whole run (0 = none)")
}

func newWorkflowRunCmd() *cobra.Command {
	var rf wfFlags
	c := &cobra.Command{
		Use:   "run FILE|NAME",
		Short: "Run a workflow file or a saved workflow to its end, printing its result",
		Long: `Runs the workflow with this directory's settings and permissions (what would ask is
denied, as in -p) and prints what the script returns as JSON. Progress goes to stderr.
--resume RUNID replays that run's finished agent() calls and runs the rest.
Exit status: 0 completed, 1 failed, 4 budget exhausted, 130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if rf.argsJSON != "" && !json.Valid([]byte(rf.argsJSON)) {
				return fmt.Errorf("--args is not valid JSON: %s", rf.argsJSON)
			}
			if rf.resume != "" && !workflow.ValidRunID(rf.resume) {
				return fmt.Errorf("--resume %q is not a run id (wf_…; 'ouro workflow list' shows the runs)", rf.resume)
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			script, err := loadWorkflow(cwd, a[0])
			if err != nil {
				return err
			}
			cl, err := workflowClient()
			if err != nil {
				return err
			}
			return runWorkflow(cmd, cl, script, rf)
		},
	}
	rf.register(c, true)
	return c
}

// runWorkflow runs script to its end under a session of this directory, printing
// progress to stderr and the script's value to stdout; the exit status follows how the
// run ended.
func runWorkflow(cmd *cobra.Command, cl wfproc.Client, script workflow.Script, rf wfFlags) error {
	if _, err := cl.Check(cmd.Context(), script.Source); err != nil {
		return err
	}
	ctx, stop := notifyContext(cmd.Context())
	defer stop()
	s, err := harness.Open(harness.Options{
		Model:  harness.ModelOptions{Name: rf.model},
		Limits: agent.Limits{MaxTokens: rf.maxTokens},
		Access: harness.Access{Settings: rf.settings, Allow: splitRules(rf.allowed), Deny: splitRules(rf.disallowed),
			Mode: rf.mode, SandboxLauncher: true, Workflows: true},
		Version: version,
	})
	if err != nil {
		return err
	}
	defer s.Close()
	var mu sync.Mutex
	errw := cmd.ErrOrStderr()
	res, err := cl.Run(ctx, script, workflow.Options{
		Runner: s.WorkflowRunner(), Args: json.RawMessage(rf.argsJSON), Resume: rf.resume, Budget: rf.maxTokens,
		Observe: func(e workflow.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Kind {
			case "phase":
				fmt.Fprintf(errw, "== %s\n", e.Label)
			case "log":
				fmt.Fprintf(errw, "   %s\n", e.Label)
			case "agent_start":
				fmt.Fprintf(errw, "   #%d %s started\n", e.Index, e.Label)
			case "agent_end":
				fmt.Fprintf(errw, "   #%d %s %s (%d tokens)\n", e.Index, e.Label, e.Status, e.Tokens)
			}
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "workflow %s %s: %d agents (%d replayed), %d tokens\n", res.RunID, res.Status, res.Agents, res.Replayed, res.Tokens)
	if res.Error != "" {
		fmt.Fprintf(errw, "ouro: %s\n", res.Error)
	}
	fmt.Fprintln(cmd.OutOrStdout(), string(res.Value))
	switch res.Status {
	case workflow.StatusCompleted:
		return nil
	case workflow.StatusBudget:
		return exitError{4}
	case workflow.StatusInterrupted:
		return exitError{130}
	}
	return exitError{1}
}

// loadWorkflow reads FILE, or the saved workflow NAME when no such file exists.
func loadWorkflow(cwd, arg string) (workflow.Script, error) {
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		if st.Size() > workflow.MaxScriptBytes {
			return workflow.Script{}, fmt.Errorf("%s is %d bytes; the limit is %d (512 KiB)", arg, st.Size(), workflow.MaxScriptBytes)
		}
		b, err := os.ReadFile(arg)
		if err != nil {
			return workflow.Script{}, err
		}
		abs, _ := filepath.Abs(arg)
		return workflow.Script{Name: filepath.Base(arg), Path: abs, Source: string(b)}, nil
	}
	if strings.ContainsAny(arg, `/\`) {
		return workflow.Script{}, fmt.Errorf("no workflow file %s", arg)
	}
	s, err := workflow.FindSaved(workflow.SavedDirs(cwd), arg)
	if err != nil {
		return workflow.Script{}, fmt.Errorf("%s is neither a file nor a saved workflow: %v", arg, err)
	}
	return s, nil
}
