package main

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/ouroagent/ouro/workflow/sqlitestore"
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
	c.AddCommand(&cobra.Command{
		Use: "list", Short: "List the saved workflows and the recent runs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			dirs := workflow.SavedDirs(cwd)
			saved := workflow.ListSaved(dirs)
			if len(saved) == 0 {
				fmt.Fprintf(w, "No saved workflows (in %s).\n", strings.Join(dirs, " or "))
			} else {
				fmt.Fprintln(w, "Saved workflows:")
			}
			for _, s := range saved {
				if s.Err != nil {
					fmt.Fprintf(w, "  %-20s (does not parse: %v)\n", s.Name, s.Err)
					continue
				}
				fmt.Fprintf(w, "  %-20s %s\n", s.Name, s.Meta.Description)
			}
			store, err := openJournal()
			if err != nil {
				return err
			}
			defer store.Close()
			runs, err := store.Runs(cmd.Context())
			if err != nil {
				return err
			}
			if len(runs) > 0 {
				fmt.Fprintln(w, "Runs:")
			}
			for i, r := range runs {
				if i == 20 {
					fmt.Fprintf(w, "  … and %d older\n", len(runs)-20)
					break
				}
				fmt.Fprintf(w, "  %s  %-16s %-10s %7d tokens  %s\n", r.ID, r.Status, r.Name, r.Tokens, r.Started.Local().Format("2006-01-02 15:04"))
			}
			return nil
		},
	})
	c.AddCommand(&cobra.Command{
		Use: "show RUNID", Short: "Show a run: its phases, each agent's status, tokens and result", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := openJournal()
			if err != nil {
				return err
			}
			defer store.Close()
			return showRun(cmd.Context(), cmd.OutOrStdout(), store, args[0])
		},
	})
	return c
}

func openJournal() (*sqlitestore.Store, error) {
	home, err := session.Home()
	if err != nil {
		return nil, err
	}
	return sqlitestore.Open(sqlitestore.Path(home))
}

func showRun(ctx context.Context, w io.Writer, store workflow.Store, id string) error {
	r, err := store.Run(ctx, id)
	if errors.Is(err, workflow.ErrNotFound) {
		return fmt.Errorf("there is no workflow run %s ('ouro workflow list' shows the runs)", id)
	}
	if err != nil {
		return err
	}
	calls, err := store.Calls(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s  %s  %s  %d tokens\n", r.ID, r.Name, r.Status, r.Tokens)
	if r.ScriptPath != "" {
		fmt.Fprintf(w, "script: %s\n", r.ScriptPath)
	}
	if r.ResumedFrom != "" {
		fmt.Fprintf(w, "resumed from: %s\n", r.ResumedFrom)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	phase := "\x00"
	for _, c := range calls {
		if c.Phase != phase {
			phase = c.Phase
			title := phase
			if title == "" {
				title = "(no phase)"
			}
			fmt.Fprintf(w, "%s\n", title)
		}
		label := c.Label
		if label == "" {
			label = oneLine(c.Prompt, 50)
		}
		status := c.Status
		if c.Replayed {
			status += " (replayed)"
		}
		out := c.Result
		if c.Status != workflow.CallDone {
			out = c.Error
		}
		fmt.Fprintf(w, "  #%-3d %-28s %-20s %6d tokens  %s\n", c.Index, label, status, c.Tokens, oneLine(out, 100))
	}
	if r.Result != "" {
		fmt.Fprintf(w, "result: %s\n", r.Result)
	}
	return nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
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
			if _, err := workflow.Check(script.Source); err != nil {
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
			store, err := openJournal()
			if err != nil {
				return err
			}
			defer store.Close()
			var mu sync.Mutex
			errw := cmd.ErrOrStderr()
			res, err := workflow.Run(ctx, script, workflow.Options{
				Runner: s.WorkflowRunner(), Store: store, Args: json.RawMessage(argsJSON), Resume: resume, Budget: maxTokens,
				Resolve: func(name string) (workflow.Script, error) { return workflow.FindSaved(workflow.SavedDirs(cwd), name) },
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
