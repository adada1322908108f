package task

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ReportOwed marks a completed task whose report nobody has sent yet.
const ReportOwed = "owed"

// reportSending is the Report of a task whose report holder is sending since at.
func reportSending(holder string, at time.Time) string {
	return fmt.Sprintf("sending %s %d", holder, at.Unix())
}

// ReportSent is the Report of a task whose report went out as message id.
func ReportSent(id string) string { return "sent " + id }

// reportDue says whether t's report is for the caller to send now: owed (and, when
// stale is set, owed for longer than stale: its completer had time to send it), or being
// sent by a holder that has not finished within stale.
func (b *Board) reportDue(t Task, stale time.Duration) bool {
	if t.Status != Completed {
		return false
	}
	now := b.cfg.Now()
	switch {
	case t.Report == ReportOwed:
		return stale == 0 || now.Sub(t.Updated) > stale
	case strings.HasPrefix(t.Report, "sending ") && stale > 0:
		f := strings.Fields(t.Report)
		at, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		return err != nil || now.Sub(time.Unix(at, 0)) > stale
	}
	return false
}

// TakeReport makes this Board the sender of task id's completion report, if it is due
// (see reportDue): true when it is now this Board's to send, then MarkReported. Two
// callers never both get it: the change is compared and set.
func (b *Board) TakeReport(ctx context.Context, id string, stale time.Duration) (Task, bool, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		t, err := b.cfg.Store.Get(ctx, b.cfg.List, id)
		if err != nil || !b.reportDue(t, stale) {
			return t, false, err
		}
		r := t.Clone()
		r.Report = reportSending(b.cfg.Holder, b.cfg.Now())
		err = b.cfg.Store.Apply(ctx, b.cfg.List, []Change{{Op: Put, ID: id, Rev: t.Rev, Task: r}})
		if err == nil {
			return r, true, nil
		}
		if !errors.Is(err, ErrConflict) {
			return t, false, err
		}
	}
	return Task{}, false, ErrConflict
}

// MarkReported records that the report of task id, which this Board took, went out as
// message msgID.
func (b *Board) MarkReported(ctx context.Context, id, msgID string) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		t, err := b.cfg.Store.Get(ctx, b.cfg.List, id)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(t.Report, "sending "+b.cfg.Holder+" ") {
			return nil // taken over meanwhile (it was stale): the other sender marks it
		}
		r := t.Clone()
		r.Report = ReportSent(msgID)
		err = b.cfg.Store.Apply(ctx, b.cfg.List, []Change{{Op: Put, ID: id, Rev: t.Rev, Task: r}})
		if !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return ErrConflict
}
