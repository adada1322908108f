package cron

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/flock"
)

// Fired is a due job handed to the runner, with its prompt marked for the model.
type Fired struct {
	Job    Job
	Prompt string
}

// Config says where a scheduler finds jobs and how it hands them over.
type Config struct {
	// Clock is the time; nil is the real clock.
	Clock Clock
	// Store holds the project's durable jobs and Ledger what the user approved; with
	// Store nil there are session jobs only.
	Store  *Store
	Ledger *Ledger
	// OwnerLock is a lock file: only the process that holds it fires durable jobs, so two
	// ouro sessions (or a session and `ouro cron run`) in one project do not both fire
	// the same job. "" fires them without a lock.
	OwnerLock string
	// Run receives a due job. It must not block: the runner reports the outcome later
	// with Done. Nothing else fires while a job is handed over and not done.
	Run func(Fired)
	// Busy, when set, reports that the session is in a turn: nothing fires then.
	Busy func() bool
	// Warn receives what the user should know (a job skipped, a file ignored), each
	// message once.
	Warn func(string)
	// SaveSession, when set, receives each change to the session's jobs and wake-up, so
	// that a resumed session gets them back (SessionJobs.Apply, RestoreSession). It is
	// called without the scheduler's lock held, in the order of the changes.
	SaveSession func(SessionChange)
}

// Scheduler decides when jobs are due. It fires one job at a time, only while the
// session is idle, each job at most once a minute.
type Scheduler struct {
	cfg   Config
	clock Clock

	mu       sync.Mutex
	session  []Job
	wake     *Job
	inflight string
	tried    map[string]time.Time // last hand-over of each job
	anchor   map[string]time.Time // where the next fire time is counted from, when not the file's
	seen     map[string]bool      // durable jobs already looked at by this process
	held     map[string]Job       // missed one-shot durable jobs waiting for the user's decision
	warned   map[string]bool
	scheds   map[string]Schedule
	owner    *os.File
	ownerAt  time.Time
	saveMu   sync.Mutex // orders SaveSession calls with the changes
	stop     chan struct{}
	stopped  chan struct{}
}

// New returns a scheduler; Start runs it.
func New(cfg Config) *Scheduler {
	s := &Scheduler{cfg: cfg, clock: cfg.Clock, tried: map[string]time.Time{}, anchor: map[string]time.Time{},
		seen: map[string]bool{}, held: map[string]Job{}, warned: map[string]bool{}, scheds: map[string]Schedule{}}
	if s.clock == nil {
		s.clock = RealClock{}
	}
	return s
}

// Now is the scheduler's clock.
func (s *Scheduler) Now() time.Time { return s.clock.Now() }

// Start looks at the jobs every Poll of the clock until Stop.
func (s *Scheduler) Start() {
	s.mu.Lock()
	if s.stop != nil {
		s.mu.Unlock()
		return
	}
	s.stop, s.stopped = make(chan struct{}), make(chan struct{})
	s.mu.Unlock()
	go func() {
		defer close(s.stopped)
		t := time.NewTicker(s.clock.Poll())
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.Check()
			}
		}
	}()
}

// Stop ends Start's loop and gives up the durable jobs' lock. Session jobs die with it.
func (s *Scheduler) Stop() {
	s.mu.Lock()
	stop, stopped := s.stop, s.stopped
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-stopped
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner != nil {
		s.owner.Close()
		s.owner = nil
	}
}

// Check fires the first due job, if nothing is handed over already and the session is
// idle. It returns the job fired.
func (s *Scheduler) Check() (Fired, bool) {
	now := s.clock.Now()
	if now.IsZero() {
		return Fired{}, false
	}
	durable := s.durable(now)
	if s.cfg.Busy != nil && s.cfg.Busy() {
		return Fired{}, false
	}
	s.mu.Lock()
	if s.inflight != "" && absDiff(now, s.tried[s.inflight]) > lostAfter {
		// Handed over long ago and the session idle since: the turn never ran (a hook
		// blocked its prompt, the REPL never took it). It counts as failed.
		s.inflight = ""
	}
	if s.inflight != "" {
		s.mu.Unlock()
		return Fired{}, false
	}
	var due *Job
	if s.wake != nil && !now.Before(s.wake.At) && s.rested(s.wake.ID, now) {
		due = s.wake
	}
	for _, list := range [][]Job{s.session, durable} {
		for i := range list {
			if due == nil && s.isDue(list[i], now) {
				due = &list[i]
			}
		}
	}
	if due == nil {
		s.mu.Unlock()
		return Fired{}, false
	}
	j := *due
	s.inflight = j.ID
	s.tried[j.ID] = now
	s.mu.Unlock()
	f := Fired{Job: j, Prompt: Mark(j, now)}
	if s.cfg.Run != nil {
		s.cfg.Run(f)
	}
	return f, true
}

// lostAfter is how long a job handed over may go unreported while the session is idle.
const lostAfter = 5 * time.Minute

// rested reports that id was not handed over within the last minute (either way: a
// clock that jumped back does not make a job fire again at once).
func (s *Scheduler) rested(id string, now time.Time) bool {
	t, ok := s.tried[id]
	return !ok || absDiff(now, t) >= time.Minute
}

func absDiff(a, b time.Time) time.Duration {
	if d := a.Sub(b); d >= 0 {
		return d
	}
	return b.Sub(a)
}

// isDue reports whether cron job j should fire at now. s.mu is held.
func (s *Scheduler) isDue(j Job, now time.Time) bool {
	if _, held := s.held[j.ID]; held || !s.rested(j.ID, now) {
		return false
	}
	if !j.LastFiredAt.IsZero() && absDiff(now, j.LastFiredAt) < time.Minute {
		return false
	}
	next, ok := s.next(j, now)
	return ok && !now.Before(next)
}

// next is j's next fire time, counted from its last fire (or creation). A clock that
// went back more than a minute before that point counts from now instead: the job waits
// for its next time rather than for the lost hours, and does not fire twice. s.mu is held.
func (s *Scheduler) next(j Job, now time.Time) (time.Time, bool) {
	sc, ok := s.scheds[j.Cron]
	if !ok {
		var err error
		if sc, err = Parse(j.Cron); err != nil {
			return time.Time{}, false
		}
		s.scheds[j.Cron] = sc
	}
	from := j.CreatedAt
	if j.LastFiredAt.After(from) {
		from = j.LastFiredAt
	}
	if a, ok := s.anchor[j.ID]; ok && (a.After(from) || from.After(now.Add(time.Minute))) {
		from = a
	}
	if from.After(now.Add(time.Minute)) {
		s.anchor[j.ID] = now
		from = now
	}
	n := sc.Next(from)
	if n.IsZero() {
		return time.Time{}, false
	}
	if j.Recurring {
		n = n.Add(jitter(j.ID, sc.period(from)))
	}
	return n, true
}

// durable loads the durable jobs this process may fire: none unless it holds the owner
// lock; only approved ones; missed one-shots held back. Jobs seen for the first time
// (at launch) skip the runs they missed: recurring ones count from now, one-shots whose
// time passed wait for the user (Missed, Decide).
func (s *Scheduler) durable(now time.Time) []Job {
	if s.cfg.Store == nil || !s.own() {
		return nil
	}
	jobs, problems := s.cfg.Store.Load()
	for _, p := range problems {
		s.warnOnce(p, p)
	}
	out := jobs[:0:0]
	for _, j := range jobs {
		if j.Disabled {
			continue
		}
		if s.claude(j) {
			m := s.cfg.Ledger.mark(j)
			if m.Done {
				continue
			}
			if m.LastFiredAt > 0 && time.UnixMilli(m.LastFiredAt).After(j.LastFiredAt) {
				j.LastFiredAt = time.UnixMilli(m.LastFiredAt)
			}
		}
		if s.cfg.Ledger == nil || !s.cfg.Ledger.Approved(j) {
			s.warnOnce("approve:"+Digest(j), fmt.Sprintf("scheduled job %s in %s is not run: you have not approved it (it was not created by your ouro; a cloned repository or another program may have put it there). Review it, then: ouro cron approve %s",
				j.ID, j.Source, j.ID))
			continue
		}
		s.mu.Lock()
		if !s.seen[j.ID] {
			s.seen[j.ID] = true
			if j.Recurring {
				s.anchor[j.ID] = now
			} else if n, ok := s.next(j, now); ok && n.Before(now.Add(-time.Minute)) {
				s.held[j.ID] = j
			}
		}
		s.mu.Unlock()
		out = append(out, j)
	}
	return out
}

// own reports whether this process fires the project's durable jobs, taking the owner
// lock when it is free (looked at most every few seconds).
func (s *Scheduler) own() bool {
	if s.cfg.OwnerLock == "" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner != nil {
		return true
	}
	if time.Since(s.ownerAt) < 3*time.Second {
		return false
	}
	s.ownerAt = time.Now()
	f, err := os.OpenFile(s.cfg.OwnerLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return false
	}
	if busy, err := flock.TryLock(f); err != nil || busy {
		f.Close()
		return false
	}
	s.owner = f
	return true
}

// Owns reports whether this process fires the project's durable jobs now (it takes the
// owner lock when it is free).
func (s *Scheduler) Owns() bool { return s.cfg.Store != nil && s.own() }

func (s *Scheduler) claude(j Job) bool {
	return j.Durable && s.cfg.Store != nil && j.Source == s.cfg.Store.ClaudePath()
}

func (s *Scheduler) warnOnce(key, msg string) {
	s.mu.Lock()
	seen := s.warned[key]
	s.warned[key] = true
	s.mu.Unlock()
	if !seen && s.cfg.Warn != nil {
		s.cfg.Warn(msg)
	}
}

// Done reports how the job handed over last went: ok when the model answered its prompt.
// A job that failed stays scheduled and is tried again a minute later. A one-shot job
// that succeeded is deleted, a recurring one remembers when it fired (and is deleted
// once older than MaxAge).
func (s *Scheduler) Done(id string, ok bool) error {
	now := s.clock.Now()
	s.mu.Lock()
	if s.inflight != id || id == "" {
		s.mu.Unlock()
		return nil
	}
	s.inflight = ""
	if !ok {
		s.mu.Unlock()
		return nil
	}
	if s.wake != nil && s.wake.ID == id {
		s.mu.Unlock()
		s.removeSession(id)
		return nil
	}
	for _, j := range s.session {
		if j.ID == id {
			if finished(j, now) {
				s.mu.Unlock()
				s.removeSession(id)
				return nil
			}
			s.mu.Unlock()
			s.change(func() SessionChange {
				for k := range s.session {
					if s.session[k].ID == id {
						s.session[k].LastFiredAt = now
						return SessionChange{Fired: id, FiredAt: now}
					}
				}
				return SessionChange{}
			})
			return nil
		}
	}
	s.mu.Unlock()
	return s.fired(id, now)
}

// finished reports that j is not to fire again once it fired at now.
func finished(j Job, now time.Time) bool {
	return !j.Recurring || (!j.Permanent && now.Sub(j.CreatedAt) >= MaxAge)
}

// fired records a durable job's fire: in ouro's file, or for Claude Code's file (which
// ouro does not write) in the ledger.
func (s *Scheduler) fired(id string, now time.Time) error {
	if s.cfg.Store == nil {
		return nil
	}
	jobs, _ := s.cfg.Store.Load()
	for _, j := range jobs {
		if j.ID != id {
			continue
		}
		if s.claude(j) {
			return s.cfg.Ledger.setMark(j, claudeMark{LastFiredAt: now.UnixMilli(), Done: finished(j, now)})
		}
		return s.cfg.Store.Update(func(cur []Job) ([]Job, error) {
			for i := range cur {
				if cur[i].ID == id {
					if finished(cur[i], now) {
						return slices.Delete(cur, i, i+1), nil
					}
					cur[i].LastFiredAt = now
				}
			}
			return cur, nil
		})
	}
	return nil
}

// Create schedules a job; durable ones are written to the project's file and approved,
// since the user's own session made them.
func (s *Scheduler) Create(expr, prompt string, recurring, durable bool) (Job, error) {
	sc, err := Parse(expr)
	if err != nil {
		return Job{}, err
	}
	if strings.TrimSpace(prompt) == "" {
		return Job{}, errors.New("the prompt is empty: say what the model should do when the job fires")
	}
	if len(prompt) > MaxPrompt {
		return Job{}, fmt.Errorf("the prompt is %d bytes; a scheduled prompt may have at most %d", len(prompt), MaxPrompt)
	}
	now := s.clock.Now()
	j := Job{ID: newID(), Cron: sc.Expr, Prompt: prompt, Recurring: recurring, Durable: durable, CreatedAt: now}
	if n := len(s.List()); n >= MaxJobs {
		return Job{}, fmt.Errorf("%d jobs are scheduled already, the most there may be; delete one (CronDelete) first", n)
	}
	s.mu.Lock()
	s.seen[j.ID] = true
	s.mu.Unlock()
	if !durable {
		s.change(func() SessionChange {
			s.session = append(s.session, j)
			return SessionChange{Add: &j}
		})
		return j, nil
	}
	if s.cfg.Store == nil {
		return Job{}, errors.New("durable jobs need a project folder; this session has none")
	}
	j.Source = s.cfg.Store.Path()
	if err := s.cfg.Ledger.Approve(now, j); err != nil {
		return Job{}, fmt.Errorf("recording the job as yours in %s: %w", s.cfg.Ledger.Path(), err)
	}
	err = s.cfg.Store.Update(func(cur []Job) ([]Job, error) {
		if len(cur) >= MaxJobs {
			return nil, fmt.Errorf("%s holds %d jobs already, the most there may be", s.cfg.Store.Path(), len(cur))
		}
		return append(cur, j), nil
	})
	if err != nil {
		return Job{}, err
	}
	return j, nil
}

// Wakeup schedules the model's next turn of a /loop in delay (clamped to 60..3600 s),
// replacing the one it scheduled before.
func (s *Scheduler) Wakeup(delay time.Duration, reason, prompt string) (Job, error) {
	if strings.TrimSpace(prompt) == "" {
		return Job{}, errors.New("the prompt is empty: pass the prompt the next turn of the loop starts with")
	}
	if len(prompt) > MaxPrompt {
		return Job{}, fmt.Errorf("the prompt is %d bytes; at most %d", len(prompt), MaxPrompt)
	}
	delay = max(MinWakeup, min(MaxWakeup, delay))
	now := s.clock.Now()
	j := Job{ID: "w" + newID(), Prompt: prompt, Reason: reason, CreatedAt: now, At: now.Add(delay)}
	s.change(func() SessionChange {
		s.wake = &j
		return SessionChange{Wake: &j}
	})
	return j, nil
}

// Delete removes a job. A job in Claude Code's file stays there (ouro does not write
// that file) but ouro no longer fires it.
func (s *Scheduler) Delete(id string) (string, error) {
	s.mu.Lock()
	if s.wake != nil && s.wake.ID == id {
		s.mu.Unlock()
		s.removeSession(id)
		return "Cancelled wake-up " + id + ".", nil
	}
	for _, j := range s.session {
		if j.ID == id {
			s.mu.Unlock()
			s.removeSession(id)
			return "Deleted job " + id + ".", nil
		}
	}
	delete(s.held, id)
	s.mu.Unlock()
	if s.cfg.Store != nil {
		jobs, _ := s.cfg.Store.Load()
		for _, j := range jobs {
			if j.ID != id {
				continue
			}
			if s.claude(j) {
				if err := s.cfg.Ledger.setMark(j, claudeMark{LastFiredAt: j.LastFiredAt.UnixMilli(), Done: true}); err != nil {
					return "", err
				}
				return fmt.Sprintf("Job %s will no longer run in ouro; it stays in %s, which ouro does not change.", id, j.Source), nil
			}
			err := s.cfg.Store.Update(func(cur []Job) ([]Job, error) {
				return slices.DeleteFunc(cur, func(c Job) bool { return c.ID == id }), nil
			})
			if err != nil {
				return "", err
			}
			return "Deleted durable job " + id + ".", nil
		}
	}
	var ids []string
	for _, j := range s.List() {
		ids = append(ids, j.ID)
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("no job has the id %q; no jobs are scheduled", id)
	}
	return "", fmt.Errorf("no job has the id %q; the jobs are %s", id, strings.Join(ids, ", "))
}

// List returns every job: the wake-up, session jobs, then durable ones (those Claude
// Code's file holds and ouro no longer runs left out).
func (s *Scheduler) List() []Job {
	s.mu.Lock()
	var out []Job
	if s.wake != nil {
		out = append(out, *s.wake)
	}
	out = append(out, s.session...)
	s.mu.Unlock()
	if s.cfg.Store != nil {
		jobs, _ := s.cfg.Store.Load()
		for _, j := range jobs {
			if s.claude(j) && s.cfg.Ledger != nil && s.cfg.Ledger.mark(j).Done {
				continue
			}
			out = append(out, j)
		}
	}
	return out
}

// NextFire is when j fires next as far as this scheduler knows (zero if never).
func (s *Scheduler) NextFire(j Job) time.Time {
	if j.Wakeup() {
		return j.At
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, _ := s.next(j, s.clock.Now())
	return n
}

// Missed returns the one-shot durable jobs whose time passed while no ouro ran them;
// they do not fire until Decide says so.
func (s *Scheduler) Missed() []Job {
	s.durable(s.clock.Now())
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Job, 0, len(s.held))
	for _, j := range s.held {
		out = append(out, j)
	}
	now := s.clock.Now()
	sort.Slice(out, func(a, b int) bool {
		na, _ := s.next(out[a], now)
		nb, _ := s.next(out[b], now)
		return na.Before(nb)
	})
	return out
}

// Decide runs a missed one-shot job now (run) or deletes it.
func (s *Scheduler) Decide(id string, run bool) error {
	s.mu.Lock()
	_, ok := s.held[id]
	delete(s.held, id)
	s.mu.Unlock()
	if !ok || run {
		return nil
	}
	_, err := s.Delete(id)
	return err
}

// Unapproved returns the durable jobs the user has not approved.
func (s *Scheduler) Unapproved() []Job {
	if s.cfg.Store == nil {
		return nil
	}
	jobs, _ := s.cfg.Store.Load()
	var out []Job
	for _, j := range jobs {
		if j.Disabled || s.claude(j) && s.cfg.Ledger.mark(j).Done {
			continue
		}
		if !s.cfg.Ledger.Approved(j) {
			out = append(out, j)
		}
	}
	return out
}

// Approve lets durable jobs run.
func (s *Scheduler) Approve(jobs ...Job) error {
	return s.cfg.Ledger.Approve(s.clock.Now(), jobs...)
}

// change applies f to the session's jobs under the lock and hands the change it
// returns to Config.SaveSession, changes in order.
func (s *Scheduler) change(f func() SessionChange) {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.Lock()
	c := f()
	s.mu.Unlock()
	if s.cfg.SaveSession != nil && (c.Add != nil || c.Wake != nil || c.Remove != "" || c.Fired != "") {
		s.cfg.SaveSession(c)
	}
}

// removeSession deletes session job (or wake-up) id.
func (s *Scheduler) removeSession(id string) {
	s.change(func() SessionChange {
		if s.wake != nil && s.wake.ID == id {
			s.wake = nil
			return SessionChange{Remove: id}
		}
		n := len(s.session)
		s.session = slices.DeleteFunc(s.session, func(j Job) bool { return j.ID == id })
		delete(s.held, id)
		if len(s.session) == n {
			return SessionChange{}
		}
		return SessionChange{Remove: id}
	})
}

// RestoreSession gives a resumed session back the jobs it had (its saved changes,
// applied in order). Recurring jobs past MaxAge are dropped, as they would have been
// had the session gone on; a one-shot whose time passed while no ouro ran is held back
// like a missed durable one (Missed, Decide); a wake-up whose time passed is dropped
// (its loop stopped with the process). It returns what it dropped, for the user.
func (s *Scheduler) RestoreSession(sj SessionJobs) (dropped []Job) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range sj.Jobs {
		if _, err := Parse(j.Cron); err != nil || j.ID == "" || j.Durable || len(s.session) >= MaxJobs || len(j.Prompt) > MaxPrompt {
			dropped = append(dropped, j)
			continue
		}
		if j.Recurring && !j.Permanent && now.Sub(j.CreatedAt) >= MaxAge {
			dropped = append(dropped, j)
			continue
		}
		if !j.Recurring {
			if n, ok := s.next(j, now); ok && !now.Before(n) {
				s.held[j.ID] = j
			}
		}
		s.seen[j.ID] = true
		s.session = append(s.session, j)
	}
	if w := sj.Wake; w != nil {
		if w.At.After(now) && w.At.Sub(now) <= MaxWakeup+time.Minute && len(w.Prompt) <= MaxPrompt {
			wake := *w
			s.wake = &wake
		} else {
			dropped = append(dropped, *w)
		}
	}
	return dropped
}
