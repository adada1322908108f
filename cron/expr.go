// Package cron schedules prompts, as Claude Code's CronCreate, CronDelete, CronList and
// ScheduleWakeup do: 5-field cron expressions in local time, recurring jobs that expire
// after 7 days, one-shot jobs that delete themselves once fired, durable jobs kept in
// .ouro/scheduled_tasks.json (Claude Code's .claude/scheduled_tasks.json is read too).
//
// A Scheduler decides when a job is due and hands it to whoever runs prompts (the REPL's
// wake queue, or `ouro cron run`); a job counts as done only when that runner says the
// model answered, and is tried again after a minute when it did not. Time comes from a
// Clock, so tests move it instead of waiting.
package cron

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	rcron "github.com/robfig/cron/v3"
)

// parser reads the five standard fields (minute, hour, day of month, month, day of
// week); no seconds, no @descriptors, no time zone prefix: jobs run in local time.
var parser = rcron.NewParser(rcron.Minute | rcron.Hour | rcron.Dom | rcron.Month | rcron.Dow)

// Schedule is a parsed cron expression.
type Schedule struct {
	Expr  string
	sched rcron.Schedule
}

// Parse checks a 5-field cron expression ("*/5 * * * *", "0 9 * * 1-5") and returns its
// schedule; the error says what is wrong and what a valid one looks like.
func Parse(expr string) (Schedule, error) {
	expr = strings.TrimSpace(expr)
	const hint = `a cron expression has 5 fields in local time, "minute hour day-of-month month day-of-week", e.g. "*/5 * * * *" (every 5 minutes) or "0 9 * * 1-5" (weekdays at 9:00)`
	if expr == "" {
		return Schedule{}, fmt.Errorf("empty cron expression: %s", hint)
	}
	if strings.HasPrefix(expr, "@") || strings.Contains(expr, "TZ=") {
		return Schedule{}, fmt.Errorf("cron expression %q: descriptors and time zones are not accepted; %s", expr, hint)
	}
	if n := len(strings.Fields(expr)); n != 5 {
		return Schedule{}, fmt.Errorf("cron expression %q has %d fields, not 5: %s", expr, n, hint)
	}
	s, err := parser.Parse(expr)
	if err != nil {
		return Schedule{}, fmt.Errorf("cron expression %q: %v; %s", expr, err, hint)
	}
	sc := Schedule{Expr: expr, sched: s}
	if sc.Next(time.Now()).IsZero() {
		return Schedule{}, fmt.Errorf("cron expression %q never matches a date (e.g. February 30): %s", expr, hint)
	}
	return sc, nil
}

// Next is the first time after t (a whole minute, local time) the schedule matches; zero
// when none comes within five years.
func (s Schedule) Next(t time.Time) time.Time {
	return s.sched.Next(t.In(time.Local))
}

// period estimates the time between two matches following t.
func (s Schedule) period(t time.Time) time.Duration {
	a := s.Next(t)
	if a.IsZero() {
		return 0
	}
	b := s.Next(a)
	if b.IsZero() {
		return 0
	}
	return b.Sub(a)
}

// MaxJitter bounds the delay added to a recurring job's fire times.
const MaxJitter = 15 * time.Minute

// jitter is a recurring job's fixed delay: derived from its ID (the same on every run and
// in every process, so tests can predict it), up to a tenth of its period and at most
// MaxJitter, so jobs created together do not all fire in the same second. One-shot jobs
// and wake-ups fire on time.
func jitter(id string, period time.Duration) time.Duration {
	limit := period / 10
	if limit > MaxJitter {
		limit = MaxJitter
	}
	if limit < time.Second {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return time.Duration(h.Sum32()%uint32(limit/time.Second)) * time.Second
}
