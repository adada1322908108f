package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/task"
)

// cliHolder is who the command line claims and completes as.
const cliHolder = "cli"

func newTasksCmd() *cobra.Command {
	var list, store string
	c := &cobra.Command{
		Use:   "tasks [list | show ID | add SUBJECT | done ID | rm ID]",
		Short: "Show or edit a task list (TaskCreate/TaskList/TaskUpdate) from the shell",
		Long: `Task lists live in <OURO_HOME or ~/.ouro>/state.db, shared by every session and
process that names the same list. The list is --list, else $OURO_TASK_LIST or
$CLAUDE_CODE_TASK_LIST_ID, else the one the most recent session in this directory used.

  ouro tasks                 list the tasks
  ouro tasks show 3          one task in full
  ouro tasks add Fix the build
  ouro tasks done 3          mark #3 completed (refused while another session holds it)
  ouro tasks rm 3            delete #3 and unlink it from the others`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			verb := "list"
			if len(args) > 0 {
				verb, args = args[0], args[1:]
			}
			need := map[string]int{"list": 0, "show": 1, "done": 1, "rm": 1}
			if n, ok := need[verb]; ok && len(args) != n {
				return fmt.Errorf("ouro tasks %s takes %s", verb, map[int]string{0: "no argument", 1: "one task id"}[n])
			}
			if _, ok := need[verb]; !ok && verb != "add" {
				return fmt.Errorf("unknown tasks command %q: use list, show ID, add SUBJECT, done ID or rm ID", verb)
			}
			if verb == "add" && strings.TrimSpace(strings.Join(args, " ")) == "" {
				return errors.New("ouro tasks add needs a subject: ouro tasks add Fix the build")
			}
			name, err := cliTaskList(list)
			if err != nil {
				return err
			}
			home, err := session.Home()
			if err != nil {
				return err
			}
			lease, err := harness.TaskLease()
			if err != nil {
				return err
			}
			url, err := harness.CLIStore(store)
			if err != nil {
				return err
			}
			s, err := harness.OpenTaskStore(cmd.Context(), url, home)
			if err != nil {
				return err
			}
			defer s.Close()
			b := task.NewBoard(task.Config{Store: s, List: name, Holder: cliHolder, Lease: lease})
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			switch verb {
			case "list":
				ts, err := b.All(ctx)
				if err != nil {
					return err
				}
				if len(ts) == 0 {
					fmt.Fprintf(w, "No tasks in list %s.\n", name)
					return nil
				}
				fmt.Fprintln(w, task.Lines(ts))
			case "show":
				t, err := b.Get(ctx, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintln(w, task.Describe(t))
			case "add":
				t, err := b.Create(ctx, strings.Join(args, " "), "", "", nil)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "Task #%s created in list %s: %s\n", t.ID, name, t.Subject)
			case "done", "rm":
				st := task.Completed
				if verb == "rm" {
					st = task.Deleted
				}
				out, err := b.Update(ctx, args[0], task.Update{Status: &st})
				if err != nil {
					return err
				}
				if out.Deleted {
					fmt.Fprintf(w, "Task #%s deleted.\n", out.Task.ID)
					return nil
				}
				fmt.Fprintf(w, "Task #%s completed.\n", out.Task.ID)
				for _, u := range out.Unblocked {
					fmt.Fprintf(w, "Unblocked #%s %s\n", u.ID, u.Subject)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&list, "list", "", "the task list (default $OURO_TASK_LIST, $CLAUDE_CODE_TASK_LIST_ID, else this directory's latest session's)")
	c.Flags().StringVar(&store, "store", "", "the shared store: nats://HOST:PORT (default $OURO_STORE, store.url in your settings, else ~/.ouro/state.db)")
	return c
}

// errNoTaskList: no task list was named and no session has run in this directory.
var errNoTaskList = errors.New("which task list? no session has run in this directory yet: name one with --list NAME (or $OURO_TASK_LIST)")

// cliTaskList picks the list: the flag, the environment, else the list of the most
// recent session in this directory.
func cliTaskList(flag string) (string, error) {
	if flag != "" {
		if err := task.ValidListName(flag); err != nil {
			return "", fmt.Errorf("--list: %w", err)
		}
	}
	if name, err := harness.TaskListName(flag, "", ""); err != nil || name != "" {
		return name, err
	}
	home, err := session.Home()
	if err != nil {
		return "", err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	info, err := session.Latest(harness.ProjectDirFor(home, cwd))
	if err != nil {
		return "", errNoTaskList
	}
	name := info.ID
	if t, err := session.Load(info.Path); err == nil {
		for _, e := range t.Entries {
			var l struct{ List string }
			if e.Type == harness.EntryTaskList && json.Unmarshal(e.Data, &l) == nil && task.ValidListName(l.List) == nil {
				name = l.List
			}
		}
	}
	return name, nil
}
