package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// DefaultLease is how long a claim holds without renewal. A live holder renews its
// claims every third of it (Board.KeepAlive); a holder that dies (kill -9) stops
// renewing, and its tasks go back to pending once the lease runs out.
const DefaultLease = time.Minute

// maxAttempts bounds the compare-and-set retries of one operation.
const maxAttempts = 200

// Config says which list a Board works on and for whom.
type Config struct {
	Store Store
	// List names the task list (a session ID, or a name shared by several sessions).
	List string
	// Holder identifies the caller in claims (a session ID; "cli" for the command line):
	// only the holder of a claim may complete, release or delete the task.
	Holder string
	// Lease is how long a claim holds without renewal (0: DefaultLease).
	Lease time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// OnChange, if set, receives the whole list after each change this Board makes.
	OnChange func([]Task)
	// Created, if set, sees each task this Board creates: an error rolls the creation
	// back (the task is deleted) and is what Create returns (TaskCreated hooks).
	Created func(context.Context, Task) error
	// Completing, if set, sees each task before this Board marks it completed: an error
	// leaves it as it was and is what Update returns (TaskCompleted hooks).
	Completing func(context.Context, Task) error
	// OweReport: a task this Board completes owes its completion report (Task.Report),
	// set in the same write (a teammate's board).
	OweReport bool
}

// Board is one caller's view of one task list: it applies the task list's rules on the
// store. It is safe for concurrent use.
type Board struct {
	cfg Config
	mu  sync.Mutex // serialises OnChange calls

	heldMu sync.Mutex
	held   map[string]bool // tasks this board claimed and has not let go
}

// hold notes whether this board holds a claim on t after it wrote it.
func (b *Board) hold(t Task) {
	b.heldMu.Lock()
	defer b.heldMu.Unlock()
	if b.held == nil {
		b.held = map[string]bool{}
	}
	if t.Open() && t.Owner != "" && t.Holder == b.cfg.Holder {
		b.held[t.ID] = true
	} else {
		delete(b.held, t.ID)
	}
}

// lost reports a claim this board had on t that it holds no more: its
// lease ran out without renewal, and the task was released, claimed by another or
// completed meanwhile. The error says so, for the model.
func (b *Board) lost(t Task) error {
	b.heldMu.Lock()
	gone := b.held[t.ID] && (t.Holder != b.cfg.Holder || !t.Open() || t.Owner == "")
	b.heldMu.Unlock()
	if !gone {
		return nil
	}
	now := "it is back on the list, unclaimed: claim it again (TaskUpdate owner) before you change it, if it still needs doing"
	switch {
	case t.Status == Completed:
		now = fmt.Sprintf("it was completed meanwhile (owner %q): do not report it as done", t.Owner)
	case t.Owner != "":
		now = fmt.Sprintf("%q claimed it: it is theirs to finish; do not report it as done", t.Owner)
	}
	return fmt.Errorf("task #%s is no longer yours: your claim on it ended (its lease ran out without renewal), and %s. Nothing was changed. Tell the lead with SendMessage what you did on it, if that matters", t.ID, now)
}

// NewBoard returns a Board on cfg.Store.
func NewBoard(cfg Config) *Board {
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Board{cfg: cfg}
}

// List is the name of the board's list.
func (b *Board) List() string { return b.cfg.List }

// Holder is who this board claims as.
func (b *Board) Holder() string { return b.cfg.Holder }

// Lease is how long this board's claims hold without renewal.
func (b *Board) Lease() time.Duration { return b.cfg.Lease }

// Create adds a pending task and returns it with its id.
func (b *Board) Create(ctx context.Context, subject, description, activeForm string, metadata map[string]json.RawMessage) (Task, error) {
	t := Task{Subject: strings.TrimSpace(subject), Description: description, ActiveForm: strings.TrimSpace(activeForm), Status: Pending,
		Blocks: []string{}, BlockedBy: []string{}}
	if err := checkText(t.Subject, t.Description, t.ActiveForm); err != nil {
		return Task{}, err
	}
	if t.Subject == "" {
		return Task{}, errors.New("subject is empty; say in a few words what the task is")
	}
	md, err := mergeMetadata(nil, metadata)
	if err != nil {
		return Task{}, err
	}
	t.Metadata = md
	now := b.cfg.Now()
	t.Created, t.Updated = now, now
	t, err = b.cfg.Store.Create(ctx, b.cfg.List, t)
	if err != nil {
		return Task{}, err
	}
	if b.cfg.Created != nil {
		if herr := b.cfg.Created(ctx, t); herr != nil {
			del := Deleted
			if _, err := retry(ctx, func() (Outcome, error) { return b.update(ctx, t.ID, Update{Status: &del}) }); err != nil {
				return Task{}, fmt.Errorf("%w (and rolling task #%s back failed: %v)", herr, t.ID, err)
			}
			b.changed(ctx)
			return Task{}, herr
		}
	}
	b.changed(ctx)
	return t, nil
}

// Get returns one task (a lapsed claim is released first).
func (b *Board) Get(ctx context.Context, id string) (Task, error) {
	id, err := ParseID(id)
	if err != nil {
		return Task{}, err
	}
	t, err := b.cfg.Store.Get(ctx, b.cfg.List, id)
	if errors.Is(err, ErrNotFound) {
		return Task{}, b.unknown(ctx, id)
	}
	if err != nil {
		return Task{}, err
	}
	if b.lapsed(t) {
		r, err := b.release(ctx, t)
		if errors.Is(err, ErrConflict) {
			// Someone else released (or renewed) it first: read what they wrote.
			r, err = b.cfg.Store.Get(ctx, b.cfg.List, id)
		}
		if errors.Is(err, ErrNotFound) {
			return Task{}, b.unknown(ctx, id)
		}
		return r, err
	}
	return t, nil
}

// All returns every task of the list in id order, releasing lapsed claims first.
func (b *Board) All(ctx context.Context) ([]Task, error) {
	ts, err := b.cfg.Store.All(ctx, b.cfg.List)
	if err != nil {
		return nil, err
	}
	released := false
	out := ts[:0]
	for _, t := range ts {
		if b.lapsed(t) {
			r, err := b.release(ctx, t)
			if errors.Is(err, ErrConflict) {
				r, err = b.cfg.Store.Get(ctx, b.cfg.List, t.ID) // someone else released (or renewed) it first
			}
			if errors.Is(err, ErrNotFound) {
				continue // deleted meanwhile
			}
			if err != nil {
				return nil, err
			}
			t, released = r, true
		}
		out = append(out, t)
	}
	if released {
		b.changed(ctx)
	}
	return out, nil
}

// lapsed reports whether t's claim ran out without renewal.
func (b *Board) lapsed(t Task) bool {
	return t.Owner != "" && !t.LeaseUntil.IsZero() && t.Open() && b.cfg.Now().After(t.LeaseUntil)
}

// heldByOther reports whether someone other than this board holds a live claim on t (a
// completed task is held by nobody: completing it ends the claim).
func (b *Board) heldByOther(t Task) bool {
	return t.Owner != "" && t.Holder != "" && t.Holder != b.cfg.Holder && !b.lapsed(t)
}

// release puts a lapsed task back to pending, with a note saying why.
func (b *Board) release(ctx context.Context, t Task) (Task, error) {
	r := released(t, b.cfg.Now())
	if err := b.cfg.Store.Apply(ctx, b.cfg.List, []Change{{Op: Put, ID: t.ID, Rev: t.Rev, Task: r}}); err != nil {
		return Task{}, err
	}
	return b.cfg.Store.Get(ctx, b.cfg.List, t.ID)
}

func released(t Task, now time.Time) Task {
	r := t.Clone()
	r.Note = fmt.Sprintf("the claim by %q lapsed at %s: its holder (%s) stopped renewing it, so it probably ended; the task went back to pending",
		t.Owner, t.LeaseUntil.UTC().Format(time.RFC3339), t.Holder)
	r.Owner, r.Holder, r.LeaseUntil, r.Status, r.Updated = "", "", time.Time{}, Pending, now
	return r
}

// Renew extends the leases of every open task this board's holder has claimed and
// returns how many it renewed.
func (b *Board) Renew(ctx context.Context) (int, error) {
	ts, err := b.cfg.Store.All(ctx, b.cfg.List)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range ts {
		for attempt := 0; t.Owner != "" && t.Holder == b.cfg.Holder && t.Open(); attempt++ {
			r := t.Clone()
			r.LeaseUntil = b.cfg.Now().Add(b.cfg.Lease)
			err := b.cfg.Store.Apply(ctx, b.cfg.List, []Change{{Op: Put, ID: t.ID, Rev: t.Rev, Task: r}})
			if err == nil {
				n++
				break
			}
			if !errors.Is(err, ErrConflict) || attempt > 10 {
				return n, err
			}
			if t, err = b.cfg.Store.Get(ctx, b.cfg.List, t.ID); err != nil {
				break // deleted meanwhile
			}
		}
	}
	return n, nil
}

// KeepAlive renews this holder's claims every third of the lease until ctx ends; errors
// go to warn (which may be nil).
func (b *Board) KeepAlive(ctx context.Context, warn func(error)) {
	tick := time.NewTicker(b.cfg.Lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if _, err := b.Renew(ctx); err != nil && warn != nil && ctx.Err() == nil {
				warn(err)
			}
		}
	}
}

// changed calls OnChange with the current list.
func (b *Board) changed(ctx context.Context) {
	if b.cfg.OnChange == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if ts, err := b.cfg.Store.All(ctx, b.cfg.List); err == nil {
		b.cfg.OnChange(ts)
	}
}

// unknown is the error for an id the list does not have.
func (b *Board) unknown(ctx context.Context, id string) error {
	ts, err := b.cfg.Store.All(ctx, b.cfg.List)
	if err != nil || len(ts) == 0 {
		return fmt.Errorf("there is no task #%s: the task list is empty (TaskCreate adds tasks)", id)
	}
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = "#" + t.ID
	}
	if len(ids) > 20 {
		ids = append(ids[:20], "…")
	}
	return fmt.Errorf("there is no task #%s in this list; its tasks are %s", id, strings.Join(ids, ", "))
}

// retry runs op until it does not meet a concurrent change, at most maxAttempts times.
func retry[T any](ctx context.Context, op func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		out, err := op()
		if !errors.Is(err, ErrConflict) || attempt >= maxAttempts {
			if errors.Is(err, ErrConflict) {
				err = fmt.Errorf("the task kept changing under %d attempts (other sessions are updating it); try again: %w", attempt, err)
			}
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(time.Duration(rand.IntN(attempt*200+100)) * time.Microsecond):
		}
	}
}

func checkText(subject, description, activeForm string) error {
	switch {
	case len(subject) > MaxSubject:
		return fmt.Errorf("subject is %d bytes; keep it under %d and put details in description", len(subject), MaxSubject)
	case len(activeForm) > MaxSubject:
		return fmt.Errorf("activeForm is %d bytes; keep it under %d", len(activeForm), MaxSubject)
	case len(description) > MaxDescription:
		return fmt.Errorf("description is %d bytes; keep it under %d (write long notes to a file and name it)", len(description), MaxDescription)
	}
	return nil
}

// mergeMetadata merges patch into md: a key set to null is removed. The result, as
// JSON, must stay under MaxMetadata.
func mergeMetadata(md, patch map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	if len(patch) == 0 {
		return md, nil
	}
	out := make(map[string]json.RawMessage, len(md)+len(patch))
	for k, v := range md {
		out[k] = v
	}
	for k, v := range patch {
		if s := strings.TrimSpace(string(v)); s == "" || s == "null" {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if len(data) > MaxMetadata {
		return nil, fmt.Errorf("metadata would be %d bytes; it is for small facts (at most %d bytes): put large content in a file and store its path", len(data), MaxMetadata)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
