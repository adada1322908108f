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
<OURO_HOME or ~/.ouro>/state.db, so a stopped run resumes without redoing finished calls.`,
	}
	c.AddCommand(newWorkflowRunCmd())
	for _, sub := range []struct{ use, short, op string }{
		{"list", "List the saved workflows and the recent runs", "list"},
		{"show RUNID", "Show a run: its phases, each agent's status, tokens and result", "show"},
	} {
		args := cobra.NoArgs
		if sub.op == "show" {
			args = cobra.ExactArgs(1)
		}
		c.AddCommand(&cobra.Command{
			Use: sub.use, Short: sub.short, Args: args,
			RunE: func(cmd *cobra.Command, a []string) error {
				cl, err := workflowClient()
				if err != nil {
					return err
				}
				id := ""
				if len(a) > 0 {
					id = a[0]
				}
				out, err := cl.Text(cmd.Context(), sub.op, id)
				if err != nil {
					return err
				}
				_, err = io.WriteString(cmd.OutOrStdout(), out)
				return err
			},
		})
	}
	return c
}

// workflowClient reaches the ouro-workflow helper, which runs scripts and keeps the journal.
func workflowClient() (wfproc.Client, error) {
	bin, err := wfproc.Locate()
	if err != nil {
		return wfproc.Client{}, err
	}
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
	return wfproc.Client{Bin: bin, StatePath: harness.JournalLocation(store, home), CWD: cwd}, nil
}

func newWorkflowRunCmd() *cobra.Command {
	var model, settings, mode, argsJSON, resume string
	var allowed, disallowed []string
	var maxTokens int
	c := &cobra.Command{
		Use:   "run FILE|NAME",
		Short: "Run a workflow file or a saved workflow to its end, printing its result",
		Long: `Runs the workflow with this directory's settings and permissions (what would ask is
denied, as in -p) and prints what the script returns as JSON. Progress goes to stderr.
--resume RUNID replays that run's finished agent() calls and runs the rest.
Exit status: 0 completed, 1 failed, 4 budget exhausted, 130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if argsJSON != "" && !json.Valid([]byte(argsJSON)) {
				return fmt.Errorf("--args is not valid JSON: %s", argsJSON)
			}
			if resume != "" && !workflow.ValidRunID(resume) {
				return fmt.Errorf("--resume %q is not a run id (wf_…; 'ouro workflow list' shows the runs)", resume)
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
			if _, err := cl.Check(cmd.Context(), script.Source); err != nil {
				return err
			}
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			s, err := harness.Open(harness.Options{
				Model:  harness.ModelOptions{Name: model},
				Limits: agent.Limits{MaxTokens: maxTokens},
				Access: harness.Access{Settings: settings, Allow: splitRules(allowed), Deny: splitRules(disallowed),
					Mode: mode, SandboxLauncher: true, Workflows: true},
				Version: version,
			})
			if err != nil {
				return err
			}
			defer s.Close()
			var mu sync.Mutex
			errw := cmd.ErrOrStderr()
			res, err := cl.Run(ctx, script, workflow.Options{
				Runner: s.WorkflowRunner(), Args: json.RawMessage(argsJSON), Resume: resume, Budget: maxTokens,
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
		},
	}
	fl := c.Flags()
	fl.StringVar(&argsJSON, "args", "", "JSON value given to the script as args")
	fl.StringVar(&resume, "resume", "", "replay this run's finished agent() calls (a wf_… run id)")
	fl.StringVar(&model, "model", "", "model for the agents (default $OURO_MODEL)")
	fl.StringVar(&settings, "settings", "", "extra settings: a JSON file or an inline JSON object")
	fl.StringArrayVar(&allowed, "allowedTools", nil, "rules to allow without asking")
	fl.StringArrayVar(&disallowed, "disallowedTools", nil, "rules to deny")
	fl.StringVar(&mode, "permission-mode", "", "permission mode: default, acceptEdits, plan, bypassPermissions")
	fl.IntVar(&maxTokens, "max-tokens", 0, "hard token ceiling for the whole run (0 = none)")
	return c
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
