package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/team"
)

func newTeamCmd() *cobra.Command {
	var list string
	var asJSON bool
	c := &cobra.Command{
		Use:   "team",
		Short: "Show a team: its members, their status, current task, last message, tokens and cost",
		Long: `A team is the teammates a session started (Agent with run_in_background and a name);
it shares that session's task list. The team is --list, else $OURO_TASK_LIST or
$CLAUDE_CODE_TASK_LIST_ID, else the task list of the most recent session in this directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			name, err := cliTaskList(list)
			if err != nil && asJSON && list == "" && errors.Is(err, errNoTaskList) {
				return printNoTeam(cmd, "") // no session here: no team, said in JSON
			}
			if err != nil {
				return err
			}
			home, err := session.Home()
			if err != nil {
				return err
			}
			path := filepath.Join(harness.TeamsDir(home), name+".json")
			data, err := os.ReadFile(path)
			workers := teamWorkers(harness.TeamsDir(home), name)
			if errors.Is(err, fs.ErrNotExist) && len(workers) > 0 && !asJSON {
				fmt.Fprintln(cmd.OutOrStdout(), strings.Join(workers, "\n"))
				return nil
			}
			if errors.Is(err, fs.ErrNotExist) && asJSON {
				return printNoTeam(cmd, name)
			}
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(cmd.OutOrStdout(), "Team %s has no teammates (no session of it started one).\n", name)
				return nil
			}
			if err != nil {
				return err
			}
			var s team.Snapshot
			if err := json.Unmarshal(data, &s); err != nil {
				return fmt.Errorf("the team file %s is damaged (%v); it is rewritten at the team's next change", path, err)
			}
			if asJSON {
				_, err := cmd.OutOrStdout().Write(append(data, '\n'))
				return err
			}
			workers = workersNotShown(harness.TeamsDir(home), name, s)
			fmt.Fprintln(cmd.OutOrStdout(), strings.Join(append([]string{team.Render(s)}, workers...), "\n"))
			return nil
		},
	}
	c.AddCommand(newTeamWorkerCmd(), newTeamStatusCmd())
	c.Flags().StringVar(&list, "list", "", "the team's task list name")
	c.Flags().BoolVar(&asJSON, "json", false, "print the team's state as JSON")
	return c
}

// printNoTeam prints, for --json, a team with no members in the shape a team's state has
// (named when a task list is known), so a script reads one shape whether or not a team
// was ever started.
func printNoTeam(cmd *cobra.Command, name string) error {
	data, err := json.Marshal(team.Snapshot{Team: name, Members: []team.Member{}})
	if err != nil {
		return err
	}
	_, err = cmd.OutOrStdout().Write(append(data, '\n'))
	return err
}

// budgetFlag is --team-budget: parsed as it is given, so a bad value stops at the flags.
type budgetFlag struct{ l *agent.Limits }

func (b budgetFlag) String() string { return "" }
func (b budgetFlag) Type() string   { return "limits" }
func (b budgetFlag) Set(s string) error {
	l, err := team.ParseBudget(s)
	if err == nil {
		*b.l = l
	}
	return err
}

// teamWorkers renders the state each worker process of the team wrote (ouro team worker).
func teamWorkers(dir, name string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, name+".worker-*.json"))
	var out []string
	for _, p := range paths {
		out = append(out, renderWorkerFile(p))
	}
	return out
}

// renderWorkerFile shows the state a worker process wrote.
func renderWorkerFile(p string) string {
	var s team.Snapshot
	data, err := os.ReadFile(p)
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		return fmt.Sprintf("(worker file %s unreadable: %v)", p, err)
	}
	return "Worker process: " + team.Render(s)
}
