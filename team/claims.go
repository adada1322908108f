package team

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/task"
)

func taskPrompt(t task.Task) string {
	s := fmt.Sprintf("You claimed task #%s of the shared task list: %s", t.ID, t.Subject)
	if d := strings.TrimSpace(t.Description); d != "" {
		s += "\n\n" + d
	}
	return s + "\n\nDo it, verify the result, then mark it completed with TaskUpdate (taskId \"" + t.ID + "\")."
}

// claim takes the lowest-numbered ready task: pending, unowned, every blocker completed.
func (tm *teammate) claim(ctx context.Context) (task.Task, bool) {
	all, err := tm.board.All(ctx)
	if err != nil {
		if ctx.Err() == nil {
			tm.team.cfg.Warn(tm.name + " reading the task list: " + err.Error())
		}
		return task.Task{}, false
	}
	tm.team.recoverReports(ctx, tm.board, all)
	done := map[string]bool{}
	for _, t := range all {
		if t.Status == task.Completed {
			done[t.ID] = true
		}
	}
	owner, status := tm.name, task.InProgress
	for _, t := range all {
		if t.Status != task.Pending || t.Owner != "" || !allDone(t.BlockedBy, done) || tm.gaveUpOn(t.ID) {
			continue
		}
		out, err := tm.board.Update(ctx, t.ID, task.Update{Owner: &owner, Status: &status})
		if err != nil {
			continue // another teammate (or process) took it first
		}
		tm.mu.Lock()
		tm.current = "#" + t.ID + " " + t.Subject
		tm.claims++
		tm.mu.Unlock()
		if !tm.enterTask(ctx, out.Task) {
			return task.Task{}, false
		}
		tm.m.Record("team_claim", map[string]string{"task": t.ID, "teammate": tm.name, "holder": tm.holder()})
		return out.Task, true
	}
	return task.Task{}, false
}

func allDone(ids []string, done map[string]bool) bool {
	for _, id := range ids {
		if !done[id] {
			return false
		}
	}
	return true
}

// tasksChanged sees the list after each change the teammate made: a task it completed
// is reported to the lead with what it unblocked.
func (tm *teammate) tasksChanged(list []task.Task) {
	tm.mu.Lock()
	cur := tm.current
	tm.mu.Unlock()
	id, _, _ := strings.Cut(strings.TrimPrefix(cur, "#"), " ")
	if id == "" {
		// A task its model claimed itself (TaskUpdate owner) is its task as much as one it
		// was given: shown as held, held to completion, given back when its run ends.
		for _, t := range list {
			if t.Open() && t.Owner != "" && t.Holder == tm.holder() {
				tm.mu.Lock()
				if tm.current == "" {
					tm.current = "#" + t.ID + " " + t.Subject
				}
				tm.mu.Unlock()
				tm.team.notify()
				break
			}
		}
		return
	}
	byID := map[string]task.Task{}
	for _, t := range list {
		byID[t.ID] = t
	}
	t, ok := byID[id]
	if !ok || (t.Status != task.Completed && t.Owner == tm.name) {
		return
	}
	tm.mu.Lock()
	tm.current = ""
	tm.mu.Unlock()
	if t.Status != task.Completed || t.Owner != tm.name {
		// Released, or completed by whoever took it over when its claim lapsed: that one
		// reports it.
		tm.team.notify()
		return
	}
	tm.fleet.completed()
	// The completion wrote that its report is owed (task.Config.OweReport): sent now, or,
	// if this process dies first, by whoever looks at the list once a lease has passed.
	tm.team.sendReport(context.Background(), tm.board, t.ID, 0, list)
}

// release gives back every open task it holds (the one it was given, and any its model
// claimed with TaskUpdate), so another teammate can take them; it returns how many. why,
// when not "", is why, told to the lead for each task; the teammate then does not claim
// them again by itself.
func (tm *teammate) release(why string) int {
	ctx := context.Background()
	tm.mu.Lock()
	cur := tm.current
	tm.current = ""
	tm.mu.Unlock()
	held := map[string]string{}
	if id, subject, _ := strings.Cut(strings.TrimPrefix(cur, "#"), " "); id != "" {
		held[id] = subject
	}
	all, err := tm.board.All(ctx)
	if err != nil {
		tm.team.cfg.Warn(fmt.Sprintf("%s reading the tasks it holds: %v", tm.name, err))
	}
	byID := map[string]task.Task{}
	for _, t := range all {
		byID[t.ID] = t
		if t.Open() && t.Owner != "" && t.Holder == tm.holder() {
			held[t.ID] = t.Subject
		}
	}
	ids := make([]string, 0, len(held))
	for id := range held {
		if t, ok := byID[id]; ok && (!t.Open() || t.Holder != tm.holder()) {
			continue // completed, or no longer its claim
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return idOrder(a) - idOrder(b) })
	n := 0
	for _, id := range ids {
		empty, pending := "", task.Pending
		if _, err := tm.board.Update(ctx, id, task.Update{Owner: &empty, Status: &pending}); err != nil {
			tm.team.cfg.Warn(fmt.Sprintf("%s releasing task #%s: %v", tm.name, id, err))
			continue
		}
		n++
		if why == "" {
			continue
		}
		tm.mu.Lock()
		if tm.gaveUp == nil {
			tm.gaveUp = map[string]bool{}
		}
		tm.gaveUp[id] = true
		tm.mu.Unlock()
		tm.report(fmt.Sprintf("Task #%s (%s) is back on the shared list, unowned: %s. Another teammate can take it; %s will not take it again by itself.",
			id, held[id], why, tm.name))
	}
	if n > 0 {
		tm.team.notify()
	}
	return n
}

// gaveUpOn: it gave task id back unfinished.
func (tm *teammate) gaveUpOn(id string) bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.gaveUp[id]
}

func idOrder(id string) int {
	n := 0
	for _, c := range id {
		if c < '0' || c > '9' {
			return 1 << 30
		}
		n = n*10 + int(c-'0')
	}
	return n
}
