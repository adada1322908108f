package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Update is what TaskUpdate asks to change; nil fields stay as they are.
type Update struct {
	Subject      *string
	Description  *string
	ActiveForm   *string
	Status       *Status
	AddBlocks    []string
	AddBlockedBy []string
	// Owner set to a name claims the task (atomically: only if it is unowned and every
	// blocker is completed); set to "" it releases the claim.
	Owner *string
	// Metadata is merged; a key set to null is removed.
	Metadata map[string]json.RawMessage
}

// Outcome is what an update did.
type Outcome struct {
	Task    Task     // the task after the update (before, when Deleted)
	Fields  []string // what changed, in TaskUpdate's field names
	Deleted bool
	// Unblocked are the open tasks whose last open blocker this update completed.
	Unblocked []Task
}

// Update applies u to task id atomically, retrying when another process changed the
// tasks it read meanwhile. Its errors are written for the model: what was wrong, what
// to do instead.
func (b *Board) Update(ctx context.Context, id string, u Update) (Outcome, error) {
	id, err := ParseID(id)
	if err != nil {
		return Outcome{}, err
	}
	if u.Status != nil {
		switch *u.Status {
		case Pending, InProgress, Completed, Deleted:
		default:
			return Outcome{}, fmt.Errorf("status %q is not one of pending, in_progress, completed, deleted", *u.Status)
		}
	}
	if u.Status != nil && *u.Status == Completed && b.cfg.Completing != nil {
		t, err := b.Get(ctx, id)
		if err != nil {
			return Outcome{}, err
		}
		if t.Status != Completed && !b.heldByOther(t) {
			if err := b.cfg.Completing(ctx, t); err != nil {
				return Outcome{}, err
			}
		}
	}
	out, err := retry(ctx, func() (Outcome, error) { return b.update(ctx, id, u) })
	if err == nil && len(out.Fields) > 0 {
		b.changed(ctx)
	}
	return out, err
}

// tx is one attempt's reads and writes.
type tx struct {
	b       *Board
	ctx     context.Context
	tasks   map[string]Task // read (and changed) tasks, by id
	all     bool            // tasks holds the whole list
	changes map[string]Op
	order   []string
}

func (x *tx) get(id string) (Task, error) {
	if t, ok := x.tasks[id]; ok {
		return t, nil
	}
	if x.all {
		return Task{}, x.b.unknown(x.ctx, id)
	}
	t, err := x.b.cfg.Store.Get(x.ctx, x.b.cfg.List, id)
	if errors.Is(err, ErrNotFound) {
		return Task{}, x.b.unknown(x.ctx, id)
	}
	if err != nil {
		return Task{}, err
	}
	x.tasks[id] = t
	return t, nil
}

func (x *tx) loadAll() error {
	if x.all {
		return nil
	}
	ts, err := x.b.cfg.Store.All(x.ctx, x.b.cfg.List)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if old, ok := x.tasks[t.ID]; ok {
			if old.Rev != t.Rev {
				return ErrConflict // changed since it was read: start again
			}
			continue
		}
		x.tasks[t.ID] = t
	}
	x.all = true
	return nil
}

// mark records what is done to id (Check < Put < Delete: the strongest wins).
func (x *tx) mark(id string, op Op) {
	if x.changes == nil {
		x.changes = map[string]Op{}
	}
	prev, seen := x.changes[id]
	if !seen {
		x.order = append(x.order, id)
	}
	if !seen || op > prev {
		x.changes[id] = op
	}
}

func (x *tx) put(t Task) {
	t.Updated = x.b.cfg.Now()
	x.tasks[t.ID] = t
	x.mark(t.ID, Put)
}

// apply writes the changes, each compared with the revision read (put keeps it: only
// the store sets Rev).
func (x *tx) apply() error {
	var cs []Change
	for _, id := range x.order {
		t := x.tasks[id]
		cs = append(cs, Change{Op: x.changes[id], ID: id, Rev: t.Rev, Task: t})
	}
	if len(cs) == 0 {
		return nil
	}
	return x.b.cfg.Store.Apply(x.ctx, x.b.cfg.List, cs)
}

func (b *Board) update(ctx context.Context, id string, u Update) (Outcome, error) {
	x := &tx{b: b, ctx: ctx, tasks: map[string]Task{}}
	needAll := len(u.AddBlocks)+len(u.AddBlockedBy) > 0 || (u.Status != nil && *u.Status == Deleted)
	if needAll {
		if err := x.loadAll(); err != nil {
			return Outcome{}, err
		}
	}
	t, err := x.get(id)
	if err != nil {
		return Outcome{}, err
	}
	if b.lapsed(t) {
		t = released(t, b.cfg.Now())
		x.put(t)
	}
	if u.Owner == nil || strings.TrimSpace(*u.Owner) == "" {
		// A write by a claimant that lost its claim is refused (claiming again is not).
		if err := b.lost(t); err != nil {
			return Outcome{}, err
		}
	}
	orig := t.Clone()
	var fields []string
	renewed := false
	note := func(f string) {
		if !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}

	// Plain fields.
	if u.Subject != nil && strings.TrimSpace(*u.Subject) != t.Subject {
		if strings.TrimSpace(*u.Subject) == "" {
			return Outcome{}, errors.New("subject cannot be made empty")
		}
		t.Subject = strings.TrimSpace(*u.Subject)
		note("subject")
	}
	if u.Description != nil && *u.Description != t.Description {
		t.Description = *u.Description
		note("description")
	}
	if u.ActiveForm != nil && strings.TrimSpace(*u.ActiveForm) != t.ActiveForm {
		t.ActiveForm = strings.TrimSpace(*u.ActiveForm)
		note("activeForm")
	}
	if err := checkText(t.Subject, t.Description, t.ActiveForm); err != nil {
		return Outcome{}, err
	}
	if len(u.Metadata) > 0 {
		md, err := mergeMetadata(t.Metadata, u.Metadata)
		if err != nil {
			return Outcome{}, err
		}
		t.Metadata = md
		note("metadata")
	}
	x.tasks[id] = t

	// Dependencies, kept symmetric; a cycle is refused.
	for _, raw := range u.AddBlockedBy {
		if err := x.link(raw, id); err != nil {
			return Outcome{}, err
		}
		note("blockedBy")
	}
	for _, raw := range u.AddBlocks {
		if err := x.link(id, raw); err != nil {
			return Outcome{}, err
		}
		note("blocks")
	}
	t = x.tasks[id]

	// Ownership: claiming is compare-and-set on the task and its blockers.
	if u.Owner != nil {
		owner := strings.TrimSpace(*u.Owner)
		switch {
		case owner == t.Owner && (owner == "" || t.Holder == b.cfg.Holder):
			if owner != "" {
				t.LeaseUntil = b.cfg.Now().Add(b.cfg.Lease) // a claim repeated renews it
				renewed = true
			}
		case owner == "":
			if b.heldByOther(t) {
				return Outcome{}, fmt.Errorf("task #%s is claimed by %q in another session; only its owner can release it", id, t.Owner)
			}
			t.Owner, t.Holder, t.LeaseUntil = "", "", time.Time{}
			note("owner")
		default:
			if len(owner) > MaxSubject {
				return Outcome{}, fmt.Errorf("owner is %d bytes; use a short name", len(owner))
			}
			if t.Status == Completed {
				return Outcome{}, fmt.Errorf("task #%s is already completed; it cannot be claimed", id)
			}
			if b.heldByOther(t) {
				return Outcome{}, fmt.Errorf("task #%s is already claimed by %q; pick another task (TaskList shows the free ones)", id, t.Owner)
			}
			if err := x.checkReady(t, "claimed"); err != nil {
				return Outcome{}, err
			}
			t.Owner, t.Holder, t.LeaseUntil, t.Note = owner, b.cfg.Holder, b.cfg.Now().Add(b.cfg.Lease), ""
			note("owner")
		}
	}

	out := Outcome{}
	if u.Status != nil && *u.Status != t.Status {
		st := *u.Status
		if st != Pending && b.heldByOther(t) {
			verb := map[Status]string{InProgress: "start", Completed: "complete", Deleted: "delete"}[st]
			return Outcome{}, fmt.Errorf("task #%s is claimed by %q in another session; only its owner can %s it. Pick another task, or wait until its owner releases it", id, t.Owner, verb)
		}
		switch st {
		case Deleted:
			for _, other := range x.tasks {
				if other.ID == id {
					continue
				}
				if slices.Contains(other.Blocks, id) || slices.Contains(other.BlockedBy, id) {
					o := other.Clone()
					o.Blocks = remove(o.Blocks, id)
					o.BlockedBy = remove(o.BlockedBy, id)
					x.put(o)
				}
			}
			x.mark(id, Delete)
			if err := x.apply(); err != nil {
				return Outcome{}, err
			}
			return Outcome{Task: orig, Fields: []string{"status"}, Deleted: true}, nil
		case InProgress:
			if err := x.checkReady(t, "started"); err != nil {
				return Outcome{}, err
			}
		case Completed:
			t.Holder, t.LeaseUntil = "", time.Time{}
			if b.cfg.OweReport {
				t.Report = ReportOwed
			}
			for _, bid := range t.Blocks {
				bt, err := x.get(bid)
				if err != nil {
					continue // unlinked meanwhile
				}
				if bt.Open() && x.openBlockers(bt, id) == 0 {
					out.Unblocked = append(out.Unblocked, bt)
				}
			}
		}
		t.Status = st
		note("status")
	}
	if len(fields) == 0 && !renewed && x.changes[id] != Put {
		return Outcome{Task: t}, nil
	}
	x.put(t)
	if err := x.apply(); err != nil {
		return Outcome{}, err
	}
	b.hold(t)
	out.Task, out.Fields = t, fields
	return out, nil
}

// link makes blocker block blocked, on both sides; self-links, unknown ids and cycles
// are errors.
func (x *tx) link(blockerRaw, blockedRaw string) error {
	blocker, err := ParseID(blockerRaw)
	if err != nil {
		return err
	}
	blocked, err := ParseID(blockedRaw)
	if err != nil {
		return err
	}
	if blocker == blocked {
		return fmt.Errorf("task #%s cannot block itself", blocker)
	}
	bt, err := x.get(blocker)
	if err != nil {
		return err
	}
	dt, err := x.get(blocked)
	if err != nil {
		return err
	}
	if slices.Contains(bt.Blocks, blocked) && slices.Contains(dt.BlockedBy, blocker) {
		return nil
	}
	if path := x.path(blocked, blocker); path != nil {
		cycle := "#" + strings.Join(append(path, blocked), " → #")
		return fmt.Errorf("#%s blocking #%s would make a cycle: %s (each task blocks the next); drop one of these dependencies instead", blocker, blocked, cycle)
	}
	if len(bt.Blocks) >= MaxLinks || len(dt.BlockedBy) >= MaxLinks {
		return fmt.Errorf("a task may have at most %d dependencies each way", MaxLinks)
	}
	bt, dt = bt.Clone(), dt.Clone()
	if !slices.Contains(bt.Blocks, blocked) {
		bt.Blocks = append(bt.Blocks, blocked)
	}
	if !slices.Contains(dt.BlockedBy, blocker) {
		dt.BlockedBy = append(dt.BlockedBy, blocker)
	}
	x.put(bt)
	x.put(dt)
	return nil
}

// path returns the ids from a to b following blocks (a blocks … blocks b), or nil.
func (x *tx) path(a, b string) []string {
	prev := map[string]string{a: ""}
	queue := []string{a}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == b {
			var p []string
			for n := b; n != ""; n = prev[n] {
				p = append([]string{n}, p...)
			}
			return p
		}
		for _, next := range x.tasks[cur].Blocks {
			if _, seen := prev[next]; !seen {
				prev[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// checkReady refuses to claim or start t while a blocker is open; the blockers read
// join the atomic write as checks, so one completed meanwhile is not missed.
func (x *tx) checkReady(t Task, verb string) error {
	var open []string
	for _, bid := range t.BlockedBy {
		bt, err := x.get(bid)
		if err != nil {
			continue // deleted: no longer blocks
		}
		x.mark(bid, Check)
		if bt.Open() {
			open = append(open, fmt.Sprintf("#%s (%s)", bid, bt.Status))
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("task #%s is blocked by %s; it can be %s once they are completed. Pick a task with no open blockers (TaskList shows them)", t.ID, strings.Join(open, ", "), verb)
	}
	return nil
}

// openBlockers counts t's blockers still open, not counting except.
func (x *tx) openBlockers(t Task, except string) int {
	n := 0
	for _, bid := range t.BlockedBy {
		if bid == except {
			continue
		}
		if bt, err := x.get(bid); err == nil && bt.Open() {
			n++
		}
	}
	return n
}

func remove(ids []string, id string) []string {
	out := make([]string, 0, len(ids))
	for _, v := range ids {
		if v != id {
			out = append(out, v)
		}
	}
	return out
}
