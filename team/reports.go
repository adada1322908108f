package team

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/task"
)

// completionText is the report of task t's completion: what it unblocked in list.
func completionText(t task.Task, list []task.Task) string {
	byID := map[string]task.Task{}
	for _, x := range list {
		byID[x.ID] = x
	}
	var unblocked []string
	blocks := append([]string(nil), t.Blocks...)
	slices.SortFunc(blocks, func(a, b string) int { return idOrder(a) - idOrder(b) })
	for _, bid := range blocks {
		b, ok := byID[bid]
		if !ok || !b.Open() {
			continue
		}
		ready := true
		for _, x := range b.BlockedBy {
			if bx, ok := byID[x]; ok && bx.Open() && bx.ID != t.ID {
				ready = false
			}
		}
		if ready {
			unblocked = append(unblocked, "#"+b.ID+" "+b.Subject)
		}
	}
	text := fmt.Sprintf("Completed task #%s: %s.", t.ID, t.Subject)
	if len(unblocked) > 0 {
		text += " Unblocked: " + strings.Join(unblocked, ", ") + "."
	}
	return text
}

// sendReport sends the lead the completion report of task id if it is due (stale 0: owed
// and just completed by this process; else owed, or being sent, for longer than stale:
// its completer ended before it could say so) and records it sent, in the task.
func (t *Team) sendReport(ctx context.Context, b *task.Board, id string, stale time.Duration, list []task.Task) {
	x, ok, err := b.TakeReport(ctx, id, stale)
	if err != nil {
		t.cfg.Warn(fmt.Sprintf("reporting task #%s's completion: %v", id, err))
		return
	}
	if !ok || x.Owner == "" {
		return
	}
	text := completionText(x, list)
	if stale > 0 {
		// Its completer may have sent it and ended before recording that (a moment before:
		// the team's last messages hold it).
		if ms, err := t.mail.Recent(ctx, t.cfg.Name, recentReports); err == nil {
			for _, m := range ms {
				if m.To == Lead && m.From == x.Owner && strings.HasPrefix(m.Text, fmt.Sprintf("Completed task #%s:", x.ID)) {
					if err := b.MarkReported(ctx, x.ID, m.ID); err != nil {
						t.cfg.Warn(fmt.Sprintf("recording task #%s's report: %v", id, err))
					}
					return
				}
			}
		} else {
			t.cfg.Warn(fmt.Sprintf("reporting task #%s's completion: %v", id, err))
			return // the report stays owed: looked at again later
		}
		text += fmt.Sprintf(" (Sent on %s's behalf: it completed the task and ended before it could report it.)", x.Owner)
	}
	m, err := t.Send(ctx, mailbox.Message{From: x.Owner, To: Lead, Text: text, Summary: textcut.OneLine(text, 60, "…")})
	if err != nil {
		t.cfg.Warn(x.Owner + " reporting to the lead: " + err.Error())
		return // stays "sending": taken over once stale
	}
	if err := b.MarkReported(ctx, x.ID, m.ID); err != nil {
		t.cfg.Warn(fmt.Sprintf("recording task #%s's report: %v", id, err))
	}
}

// recentReports is how many of the team's last messages are searched for a report its
// sender sent and did not record.
const recentReports = 200

// recoverReports sends the completion reports owed for longer than a lease in all: their
// completers ended (kill -9) between completing and reporting.
func (t *Team) recoverReports(ctx context.Context, b *task.Board, all []task.Task) {
	for _, x := range all {
		if x.Status == task.Completed && x.Report != "" && !strings.HasPrefix(x.Report, "sent ") {
			t.sendReport(ctx, b, x.ID, t.lease, all)
		}
	}
}

// report sends the lead a message from the teammate (the team's own notices).
func (tm *teammate) report(text string) {
	if _, err := tm.team.Send(context.Background(), mailbox.Message{From: tm.name, To: Lead, Text: text, Summary: textcut.OneLine(text, 60, "…")}); err != nil {
		tm.team.cfg.Warn(tm.name + " reporting to the lead: " + err.Error())
	}
}
