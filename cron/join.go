package cron

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// EntrySession is the transcript entry recording one change to the session's jobs
// (those CronCreate made without durable, and the /loop wake-up): a resumed session
// gets them back, as in Claude Code.
const EntrySession = "cron"

// OwnerLockName is the lock, in the project's state folder, that the process firing the
// project's durable jobs holds.
const OwnerLockName = "cron.lock"

// JoinConfig configures the cron mechanism of a session.
type JoinConfig struct {
	// Clock is the time; nil → ClockFromEnv.
	Clock Clock
}

// Join is the session's cron mechanism: CronCreate, CronDelete, CronList and
// ScheduleWakeup, deferred so they do not grow the first request. With someone at a
// REPL (env.Waker) a scheduler runs: a due job asks for a turn of its own, which the
// REPL starts when idle; the job counts as done once the model answered that turn, and
// is tried again a minute later if it did not. Headless, nothing fires (the run ends
// when the model stops): durable jobs are for a later session or `ouro cron run`. The
// Part's Handle is the *Scheduler.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	c := &schedules{warn: env.Warn}
	interactive := env.Waker != nil
	clock := jc.Clock
	if clock == nil {
		clock = ClockFromEnv()
	}
	cfg := Config{Clock: clock, Store: OpenStore(env.CWD), Ledger: OpenLedger(env.Project)}
	cfg.SaveSession = func(c SessionChange) {
		if err := env.Journal.AppendEntry(EntrySession, c); err != nil {
			env.Warn.Warnf("saving the session's scheduled jobs: %v; a resumed session will not have them", err)
		}
	}
	if interactive {
		cfg.OwnerLock = filepath.Join(env.Project, OwnerLockName)
		cfg.Busy = c.busy.Load
		cfg.Warn = func(msg string) { env.Warn.Warnf("%s", msg) }
		cfg.Run = func(f Fired) { env.Waker.Wake("cron "+f.Job.ID, f.Prompt) }
	}
	c.sched = New(cfg)
	var saved SessionJobs
	for _, e := range env.Entries(EntrySession) {
		var ch SessionChange
		if err := json.Unmarshal(e.Data, &ch); err != nil {
			env.Warn.Warnf("a saved change to the session's scheduled jobs could not be read (%v); it is skipped", err)
			continue
		}
		saved.Apply(ch)
	}
	if len(saved.Jobs) > 0 || saved.Wake != nil {
		for _, j := range c.sched.RestoreSession(saved) {
			what := "job " + j.ID + " (" + j.Cron + ")"
			if j.Wakeup() {
				what = "the /loop wake-up due at " + j.At.Format("2006-01-02 15:04")
			}
			env.Warn.Warnf("the resumed session's scheduled %s is not restored: it expired while the session was closed", what)
		}
	}
	c.launch(env)
	p := mechanism.Part{Name: "cron", Phase: mechanism.PhaseState, Deferred: Tools(c.sched, interactive),
		Observers: []agent.Observer{c.observe}, Handle: c.sched,
		Close: func() error { c.sched.Stop(); return nil }} // session-only jobs die with the session
	if interactive {
		p.Start = c.sched.Start
	}
	return p, nil
}

// schedules follows the session's turns for the scheduler.
type schedules struct {
	sched *Scheduler
	warn  mechanism.Warner

	busy    atomic.Bool
	mu      sync.Mutex
	current string // the job whose turn is running
}

// launch settles what the last processes left: durable jobs nobody approved (a cloned
// repository's) and one-shots whose time passed while no ouro ran. With someone to ask,
// each is asked about; headless, the missed ones are reported and left for later.
func (c *schedules) launch(env mechanism.Env) {
	if env.Waker == nil {
		for _, j := range c.sched.Missed() {
			later := "an interactive ouro in this project offers to run it"
			if !j.Durable {
				later = "resuming this session interactively offers to run it"
			}
			env.Warn.Warnf("scheduled one-shot job %s (%q) was due at %s and did not run; %s",
				j.ID, clipRunes(j.Prompt, 80), c.sched.NextFire(j).Format("2006-01-02 15:04"), later)
		}
		return
	}
	confirm := func(q string) bool { return env.Asker != nil && env.Asker.Confirm(q) }
	if env.Asker != nil {
		for _, j := range c.sched.Unapproved() {
			q := fmt.Sprintf("%s schedules job %s (%s, %s):\n    %s\n  It was not created by your ouro (a cloned repository or another program may have put it there); when it fires it runs as your prompt, with your permissions. Let it run?",
				j.Source, j.ID, j.Cron, recurringWord(j), clipRunes(j.Prompt, 300))
			if confirm(q) {
				if err := c.sched.Approve(j); err != nil {
					env.Warn.Warnf("recording the approval: %v", err)
				}
			}
		}
	}
	for _, j := range c.sched.Missed() {
		run := confirm(fmt.Sprintf("Scheduled one-shot job %s was due at %s while ouro was not running:\n    %s\n  Run it now? (no deletes it)",
			j.ID, c.sched.NextFire(j).Format("2006-01-02 15:04"), clipRunes(j.Prompt, 300)))
		if err := c.sched.Decide(j.ID, run); err != nil {
			env.Warn.Warnf("%v", err)
		}
	}
}

func recurringWord(j Job) string {
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
			if id, ok := MarkedID(m.Content[0].Text); ok {
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
		c.warn.Warnf("recording that scheduled job %s fired: %v; it may fire again", c.current, err)
	}
	c.current = ""
}
