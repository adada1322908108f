package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/team/fleet"
	"github.com/ouroagent/ouro/team/repo"
)

// newTeamWorkerCmd is `ouro team worker`: a teammate in its own process, sharing the
// team's task list and mailboxes through state.db or --store.
func newTeamWorkerCmd() *cobra.Command {
	var spec team.WorkerSpec
	var name, store, model, settings, mode, repoURL string
	var allowed, disallowed []string
	var leadPID int
	var budget agent.Limits
	c := &cobra.Command{
		Use:   "worker --team NAME",
		Short: "Join a team as a teammate running in this process",
		Long: `Join team NAME (its task list) as a teammate: read its mailbox, claim the lowest-numbered
ready task with a lease it renews, work it, complete it and report to the lead; repeat.
It stops on the lead's shutdown request, after --max-tasks tasks, or when no open task
remains and no message waits. Permissions come from this directory's settings and the
flags; nobody is asked: a call that would ask is refused and reported to the lead.

With --repo it clones the team's repository (or fetches into the clone it made before,
under ~/.local/share/ouro/fleet/), works each task in a worktree of its own on branch
ouro/<name>/<task>, pushes that branch to the repository and tells the lead its commits
and diffstat. Uncommitted files are reported, never committed or pushed. Nothing the
repository controls runs: not its hooks, config or settings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := task.ValidListName(name); err != nil || name == "" {
				return fmt.Errorf("--team needs the team's name (its task list, as `ouro team` shows it): %q is not one", name)
			}
			if spec.Name == "" {
				spec.Name = fmt.Sprintf("worker-%d", os.Getpid())
			}
			if err := team.CheckName(spec.Name); err != nil {
				return fmt.Errorf("--name: %w", err)
			}
			if spec.MaxTasks < 0 {
				return fmt.Errorf("--max-tasks is %d; give a count of tasks, or 0 for no bound", spec.MaxTasks)
			}
			errOut := cmd.ErrOrStderr()
			home, err := session.Home()
			if err != nil {
				return err
			}
			url, err := harness.CLIStore(store)
			if err != nil {
				return err
			}
			if repoURL != "" && spec.Worktree {
				return fmt.Errorf("--repo gives each task a worktree of its own already; leave out --worktree")
			}
			if repoURL != "" {
				if err := repo.CheckRemote(repoURL); err != nil {
					return err
				}
			}
			reg, err := fleet.OpenRegistry(cmd.Context(), url, harness.StatePath(home))
			if err != nil {
				return err
			}
			defer reg.Close()
			spec.Registry, spec.PID = reg, os.Getpid()
			spec.Host, _ = os.Hostname()
			sess, err := harness.Open(harness.Options{
				Model: harness.ModelOptions{Name: model},
				Access: harness.Access{Settings: settings, Allow: splitRules(allowed), Deny: splitRules(disallowed),
					Mode: mode, SandboxLauncher: true},
				UI:         harness.UI{Warn: errOut},
				Version:    version,
				TaskList:   name,
				Store:      store,
				TeamBudget: budget,
			})
			if err != nil {
				return err
			}
			if os.Getenv(crashAfterPersistEnv) == "1" {
				spec.AfterPersist = crashNow
			}
			if repoURL != "" {
				// After the session opened: its permission rules decide about the git
				// commands (a deny rule on Bash(git push *) holds for the worker too).
				clone, err := cloneFor(cmd.Context(), sess, repoURL, name, spec.Name)
				if err != nil {
					sess.Close()
					return err
				}
				spec.Repo, spec.TaskIsolation = clone.Remote, sess.TaskWorktrees(clone, spec.Name)
			}
			ctx, stop := notifyContext(cmd.Context())
			defer stop()
			if leadPID > 0 {
				// Started by its lead (--team-process): it stays until told to stop, reports
				// to the lead on stdout, and stops when the lead is gone.
				var cancel context.CancelFunc
				ctx, cancel = team.WatchLead(ctx, leadPID, 500*time.Millisecond)
				defer cancel()
				spec.Stay = true
				spec.Report, spec.Observe = leadReport(cmd.OutOrStdout())
			}
			why, err := sess.TeamWork(ctx, spec)
			cerr := sess.Close()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s stopped: %s\n", spec.Name, strings.TrimSpace(why))
			return cerr
		},
	}
	fl := c.Flags()
	fl.StringVar(&name, "team", "", "the team to join (its task list name)")
	fl.StringVar(&spec.Name, "name", "", "this teammate's name (default worker-PID)")
	fl.StringVar(&spec.AgentType, "agent", "", "the agent definition to run (default the general one)")
	fl.IntVar(&spec.MaxTasks, "max-tasks", 0, "stop after this many tasks (0: until none remains)")
	fl.BoolVar(&spec.Worktree, "worktree", false, "work in a git worktree of its own")
	fl.StringVar(&repoURL, "repo", "", "the team's repository (git URL or path): each task in its own worktree, its branch pushed there")
	fl.StringVar(&store, "store", "", "the team's store: nats://HOST:PORT (default $OURO_STORE, else ~/.ouro/state.db)")
	fl.StringVar(&model, "model", "", "the model to use")
	fl.StringVar(&settings, "settings", "", "extra settings: a JSON file or an inline JSON object")
	fl.StringArrayVar(&allowed, "allowedTools", nil, `rules to allow, e.g. "Bash(go test *)" Edit`)
	fl.StringArrayVar(&disallowed, "disallowedTools", nil, `rules to deny`)
	fl.StringVar(&mode, "permission-mode", "", "default, acceptEdits, plan, dontAsk or bypassPermissions")
	fl.Var(budgetFlag{&budget}, "team-budget", "bound this teammate by the team's limits: turns=N,tokens=N,cost=USD,time=DURATION")
	fl.IntVar(&leadPID, "lead-pid", 0, "the lead that started this worker (--team-process): report to it on stdout, stop when it is gone")
	_ = fl.MarkHidden("lead-pid")
	return c
}

// crashAfterPersistEnv is for tests only: set to 1, the worker kills itself (as kill -9
// would) right after a delivered message is persisted in its transcript and before it is
// acknowledged, the window the restart must not deliver twice.
const crashAfterPersistEnv = "OURO_TEST_CRASH_AFTER_PERSIST"

func crashNow() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {} // the kill arrives
}

// leadReport writes a worker's state and conversation for its lead, a JSON line each
// (team.Line).
func leadReport(w io.Writer) (func(team.Member), func(agent.Event)) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	write := func(l team.Line) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(l)
	}
	return func(m team.Member) { write(team.Line{Member: &m}) },
		func(e agent.Event) {
			if l, ok := team.EventLine(e); ok {
				write(l)
			}
		}
}

// cloneFor clones (or fetches) the team's repository for worker name.
func cloneFor(ctx context.Context, sess *harness.Session, remote, team, name string) (*repo.Repo, error) {
	dir, err := fleet.RepoDir(team, name)
	if err != nil {
		return nil, err
	}
	return repo.Sync(ctx, remote, dir, sess.GitOptions())
}
