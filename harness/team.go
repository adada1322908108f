package harness

import (
	"context"
	"time"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/team/fleet"
	"github.com/ouroagent/ouro/team/registry"
)

// TeamsDir is where each team's state is written for `ouro team`.
func TeamsDir(home string) string { return team.TeamsDir(home) }

// WorkerStatusPath is where worker process name of team writes its state (ouro team).
func WorkerStatusPath(teamsDir, name, worker string) string {
	return team.WorkerStatusPath(teamsDir, name, worker)
}

// teamConfig is what the session's team is given: the task list it works on, the
// stores, the lead's hooks and UI, and how a teammate process is launched.
func teamConfig(d dirs, tr *transcript, tl *task.Session, hooks *hook.Runner, agents *subagent.Tool, bg *notify.Work, opts Options) team.JoinConfig {
	jc := team.JoinConfig{Name: tl.Name(), Holder: tr.w.ID(), Agents: agents, Home: d.home, Store: opts.Store,
		Budget: opts.TeamBudget, OnMessage: opts.UI.OnTeamMessage, Hooks: hooks, Seen: tr.messages,
		// Teammates outliving a run must not write after its final result (stream-json).
		Observer: bg.DuringRuns(opts.UI.TeammateObserver), Busy: bg.Busy, StopWait: notify.StopWait,
		OpenRegistry: func(ctx context.Context) (registry.Store, error) {
			return fleet.OpenRegistry(ctx, opts.Store, StatePath(d.home))
		},
		Open: func() (mailbox.Store, task.Store, time.Duration, error) {
			if _, err := tl.Lazy().Board(); err != nil {
				return nil, nil, 0, err
			}
			lease, err := TaskLease()
			if err != nil {
				return nil, nil, 0, err
			}
			ms, err := fleet.OpenMailStore(context.Background(), opts.Store, StatePath(d.home))
			if err != nil {
				return nil, nil, 0, err
			}
			return ms, tl.Store(), lease, nil
		}}
	if opts.TeamProcess {
		jc.Launch = teamLauncher(d, tl.Name(), opts)
	}
	return jc
}

// team is the session's team.
func (s *Session) team() *team.SessionTeam {
	t, _ := mechanism.Handle[*team.SessionTeam](s.parts)
	return t
}

// Team is the state of the session's team: its members, their status, task, tokens and
// cost (the terminal's side panel, `ouro team`); false when no teammate was started.
func (s *Session) Team() (team.Snapshot, bool) { return s.team().Snapshot() }

// TeamWork runs this session as a teammate of its task list's team, in its own process
// (ouro team worker), until it stops; it returns why.
func (s *Session) TeamWork(ctx context.Context, spec team.WorkerSpec) (string, error) {
	return s.team().Work(ctx, spec)
}
