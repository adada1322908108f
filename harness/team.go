package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/mailbox"
	mailnats "github.com/ouroagent/ouro/mailbox/natsstore"
	mailsql "github.com/ouroagent/ouro/mailbox/sqlitestore"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// teamWork is the session's team (s13): Agent with run_in_background and a name starts a
// teammate; SendMessage is offered to the lead; the lead's messages join its next
// request and a headless lead waits for its team before it ends. Nothing is opened until
// a teammate is spawned or a message sent.
type teamWork struct {
	t    *team.Team
	part mechanism.Part
	bg   *backgroundWork
	wake func(Wake)
	// statusPath is the team's status file (a worker process writes its own, beside
	// the lead's, so neither overwrites the other).
	statusPath string
	roster     *roster
}

// TeamsDir is where each team's state is written for `ouro team`.
func TeamsDir(home string) string { return filepath.Join(home, "teams") }

func openTeam(d dirs, tr *transcript, tl *task.Session, hooks *hook.Runner, sub subagents, bg *backgroundWork, opts Options, warn io.Writer) *teamWork {
	var statusMu sync.Mutex
	// Teammates outliving a run must not write after its final result (stream-json).
	obs := bg.duringRuns(opts.UI.TeammateObserver)
	tw := &teamWork{bg: bg, wake: opts.UI.Wake, statusPath: filepath.Join(TeamsDir(d.home), tl.Name()+".json"),
		roster: &roster{dir: TeamsDir(d.home), team: tl.Name(), store: opts.Store, home: d.home}}
	var launch func(team.WorkerSpec) (*exec.Cmd, error)
	if opts.TeamProcess {
		launch = teamLauncher(d, tl.Name(), opts)
	}
	t := team.New(team.Config{
		Name: tl.Name(), Holder: tr.w.ID(), Agents: sub.task,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) {
			if _, err := tl.Lazy().Board(); err != nil {
				return nil, nil, 0, err
			}
			lease, err := TaskLease()
			if err != nil {
				return nil, nil, 0, err
			}
			var ms mailbox.Store
			if opts.Store != "" {
				ms, err = mailnats.Open(context.Background(), opts.Store, mailnats.Options{})
			} else {
				ms, err = mailsql.Open(StatePath(d.home), 0)
			}
			if err != nil {
				return nil, nil, 0, err
			}
			return ms, tl.Store(), lease, nil
		},
		Persist: tr.w.Sync,
		Budget:  opts.TeamBudget,
		OnMessage: func(m mailbox.Message) {
			if opts.UI.OnTeamMessage != nil {
				opts.UI.OnTeamMessage(m)
			}
			tw.wakeIfIdle()
		},
		OnChange: func(s team.Snapshot) {
			statusMu.Lock()
			defer statusMu.Unlock()
			writeTeamStatus(tw.statusPath, s, warn)
		},
		Observer: obs,
		Hooks:    &teamHooks{r: hooks, team: tl.Name()},
		Roster:   tw.roster.names,
		Warn:     func(s string) { fmt.Fprintf(warn, "ouro: team: %s\n", s) },
		Launch:   launch,
	})
	t.SeenByLead(mailbox.IDsIn(tr.messages)...)
	sub.task.SetSpawner(t)
	// SendMessage is loaded on demand: a lead needs it only once it has a team.
	p := mechanism.Part{Name: "team", Phase: mechanism.PhaseDelegation, Deferred: []tool.Tool{t.NewSendTool()},
		BeforeModel: []agent.BeforeModel{t.LeadInbox()}}
	if opts.UI.Wake == nil {
		p.BeforeStop = []agent.BeforeStop{t.LeadWaiter(stopWait)}
	}
	tw.t, tw.part = t, p
	return tw
}

// wakeIfIdle hands the lead's messages to the REPL as a turn of their own when no run is
// under way; during a run they join its next request. They count as delivered once that
// turn's first request has them (a REPL that quits first leaves them pending).
func (tw *teamWork) wakeIfIdle() {
	if tw == nil || tw.wake == nil || tw.t == nil || tw.bg.isBusy() {
		return
	}
	if text := tw.t.Take(context.Background()); text != "" {
		tw.wake(Wake{Source: "team", Prompt: text})
	}
}

// writeTeamStatus replaces the team's status file (written whole, then renamed, so a
// reader never sees half of it).
func writeTeamStatus(path string, s team.Snapshot, warn io.Writer) {
	data, err := json.MarshalIndent(s, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, data, 0o600); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		fmt.Fprintf(warn, "ouro: team status %s: %v\n", path, err)
	}
}

func (tw *teamWork) close() {
	if tw != nil {
		tw.t.Close()
		tw.roster.close()
	}
}

// Team is the state of the session's team: its members, their status, task, tokens and
// cost (the terminal's side panel, `ouro team`); false when no teammate was started.
func (s *Session) Team() (team.Snapshot, bool) {
	if s.team == nil || s.team.t == nil {
		return team.Snapshot{}, false
	}
	snap := s.team.t.Snapshot()
	return snap, len(snap.Members) > 0
}

// TeamWork runs this session as a teammate of its task list's team, in its own process
// (ouro team worker), until it stops; it returns why.
func (s *Session) TeamWork(ctx context.Context, spec team.WorkerSpec) (string, error) {
	if s.team == nil || s.team.t == nil {
		return "", fmt.Errorf("this session has no team")
	}
	s.team.statusPath = WorkerStatusPath(filepath.Dir(s.team.statusPath), s.team.t.Name(), spec.Name)
	unlock, err := lockWorker(s.team.statusPath, s.team.t.Name(), spec.Name)
	if err != nil {
		return "", err
	}
	defer unlock()
	// A worker restarted under the same name first reads what its last run delivered.
	ids, err := deliveredBefore(s.team.statusPath, spec.Name, filepath.Dir(filepath.Dir(s.team.statusPath)))
	if err != nil {
		fmt.Fprintf(s.warn, "ouro: team: the last run of %s: %v (messages it received but did not acknowledge are delivered again)\n", spec.Name, err)
	}
	spec.Delivered = append(spec.Delivered, ids...)
	return s.team.t.Work(ctx, spec)
}

// WorkerStatusPath is where worker process name of team writes its state (ouro team).
func WorkerStatusPath(teamsDir, team, name string) string {
	return filepath.Join(teamsDir, team+".worker-"+name+".json")
}
