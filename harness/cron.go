package harness

import (
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/cron"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// schedules is the session's cron mechanism (package cron): CronCreate, CronDelete,
// CronList and ScheduleWakeup, deferred so they do not grow the first request. With
// someone at a REPL (UI.Wake) a scheduler runs: a due job asks for a turn of its own,
// which the REPL starts when idle; the job counts as done once the model answered that
// turn, and is tried again a minute later if it did not. Headless, nothing fires (the
// run ends when the model stops): durable jobs are for a later session or `ouro cron run`.
type schedules struct {
	sched *cron.Scheduler
	part  mechanism.Part
	warn  io.Writer

	interactive bool

	busy    atomic.Bool
	mu      sync.Mutex
	current string // the job whose turn is running
}

// entryCron is the transcript entry recording one change to the session's jobs (those
// CronCreate made without durable, and the /loop wake-up): a resumed session gets them
// back, as in Claude Code.
const entryCron = "cron"

// OwnerLockName is the lock, in the project's state folder, that the process firing the
// project's durable jobs holds.
const OwnerLockName = "cron.lock"

func openSchedules(d dirs, tr *transcript, ui UI, warn io.Writer) *schedules {
	c := &schedules{warn: warn}
	interactive := ui.Wake != nil
	cfg := cron.Config{Clock: cron.ClockFromEnv(), Store: cron.OpenStore(d.cwd), Ledger: cron.OpenLedger(d.project)}
	cfg.SaveSession = func(c cron.SessionChange) {
		if err := tr.w.AppendEntry(entryCron, c); err != nil {
			fmt.Fprintf(warn, "ouro: saving the session's scheduled jobs: %v; a resumed session will not have them\n", err)
		}
	}
	if interactive {
		cfg.OwnerLock = filepath.Join(d.project, OwnerLockName)
		cfg.Busy = c.busy.Load
		cfg.Warn = func(msg string) { fmt.Fprintf(warn, "ouro: %s\n", msg) }
		cfg.Run = func(f cron.Fired) { ui.Wake(Wake{Source: "cron " + f.Job.ID, Prompt: f.Prompt}) }
	}
	c.sched = cron.New(cfg)
	if len(tr.cron.Jobs) > 0 || tr.cron.Wake != nil {
		for _, j := range c.sched.RestoreSession(tr.cron) {
			what := "job " + j.ID + " (" + j.Cron + ")"
			if j.Wakeup() {
				what = "the /loop wake-up due at " + j.At.Format("2006-01-02 15:04")
			}
			fmt.Fprintf(warn, "ouro: the resumed session's scheduled %s is not restored: it expired while the session was closed\n", what)
		}
	}
	c.part = mechanism.Part{Name: "cron", Deferred: cron.Tools(c.sched, interactive), Observers: []agent.Observer{c.observe}}
	c.interactive = interactive
	c.launch(ui, warn)
	return c
}

// start runs the scheduler once the session is assembled (with someone to run what
// fires).
func (c *schedules) start() {
	if c.interactive {
		c.sched.Start()
	}
}

// launch settles what the last processes left: durable jobs nobody approved (a cloned
// repository's) and one-shots whose time passed while no ouro ran. With someone to ask,
// each is asked about; headless, the missed ones are reported and left for later.
func (c *schedules) launch(ui UI, warn io.Writer) {
	if ui.Wake == nil {
		for _, j := range c.sched.Missed() {
			later := "an interactive ouro in this project offers to run it"
			if !j.Durable {
				later = "resuming this session interactively offers to run it"
			}
			fmt.Fprintf(warn, "ouro: scheduled one-shot job %s (%q) was due at %s and did not run; %s\n",
				j.ID, clipRunes(j.Prompt, 80), c.sched.NextFire(j).Format("2006-01-02 15:04"), later)
		}
		return
	}
	if ui.Confirm != nil {
		for _, j := range c.sched.Unapproved() {
			q := fmt.Sprintf("%s schedules job %s (%s, %s):\n    %s\n  It was not created by your ouro (a cloned repository or another program may have put it there); when it fires it runs as your prompt, with your permissions. Let it run?",
				j.Source, j.ID, j.Cron, recurringWord(j), clipRunes(j.Prompt, 300))
			if ui.Confirm(q) {
				if err := c.sched.Approve(j); err != nil {
					fmt.Fprintf(warn, "ouro: recording the approval: %v\n", err)
				}
			}
		}
	}
	for _, j := range c.sched.Missed() {
		run := ui.Confirm != nil && ui.Confirm(fmt.Sprintf("Scheduled one-shot job %s was due at %s while ouro was not running:\n    %s\n  Run it now? (no deletes it)",
			j.ID, c.sched.NextFire(j).Format("2006-01-02 15:04"), clipRunes(j.Prompt, 300)))
		if err := c.sched.Decide(j.ID, run); err != nil {
			fmt.Fprintf(warn, "ouro: %v\n", err)
		}
	}
}

func recurringWord(j cron.Job) string {
	if j.Recurring {
		return "recurring"
	}
	return "one-shot"
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// observe tracks whether a turn is running (jobs fire only between turns) and reports
// the outcome of a fired job's turn: done once the model answered, failed otherwise.
func (c *schedules) observe(e agent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Type {
	case agent.EventMessage:
		c.busy.Store(true)
		m := e.Message
		switch {
		case m.Role == llm.RoleUser && len(m.Content) > 0 && m.Content[0].Type == llm.BlockText:
			if id, ok := cron.MarkedID(m.Content[0].Text); ok {
				c.current = id
			}
		case m.Role == llm.RoleAssistant && c.current != "":
			c.done(true)
		}
	case agent.EventOutcome:
		if c.current != "" {
			c.done(false)
		}
		c.busy.Store(false)
	default:
		c.busy.Store(true)
	}
}

func (c *schedules) done(ok bool) {
	if err := c.sched.Done(c.current, ok); err != nil {
		fmt.Fprintf(c.warn, "ouro: recording that scheduled job %s fired: %v; it may fire again\n", c.current, err)
	}
	c.current = ""
}

// Schedules is the session's scheduler (the REPL's /loop uses it).
func (s *Session) Schedules() *cron.Scheduler { return s.cron.sched }

// LoadTools offers deferred tools from the next request on, as ToolSearch would.
func (s *Session) LoadTools(names ...string) { s.Tools.Load(names...) }
