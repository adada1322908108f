package ui

import (
	"github.com/google/uuid"

	"github.com/ouroagent/ouro/task"
)

// taskListEvent is ouro's stream-json line for a change of the task list: the whole list
// after the change, each task as TaskList shows it (blockedBy holds only the blockers
// still open).
//
//	{"type":"system","subtype":"task_list","list":"<name>","tasks":[{"id":"1","subject":"…",
//	 "status":"pending","owner":"","blockedBy":[]}],"session_id":"…","uuid":"…"}
type taskListEvent struct {
	Type      string        `json:"type"`
	Subtype   string        `json:"subtype"`
	List      string        `json:"list"`
	Tasks     []taskSummary `json:"tasks"`
	SessionID string        `json:"session_id"`
	UUID      string        `json:"uuid"`
}

type taskSummary struct {
	ID        string      `json:"id"`
	Subject   string      `json:"subject"`
	Status    task.Status `json:"status"`
	Owner     string      `json:"owner"`
	BlockedBy []string    `json:"blockedBy"`
}

// TaskList reports the task list after a change: a system/task_list line in stream-json,
// nothing in the other formats. Safe for concurrent use.
func (h *Headless) TaskList(list string, tasks []task.Task) {
	if h.format != FormatStreamJSON {
		return
	}
	open := map[string]bool{}
	for _, t := range tasks {
		open[t.ID] = t.Open()
	}
	out := make([]taskSummary, 0, len(tasks))
	for _, t := range tasks {
		blocked := []string{}
		for _, b := range t.BlockedBy {
			if open[b] {
				blocked = append(blocked, b)
			}
		}
		out = append(out, taskSummary{ID: t.ID, Subject: t.Subject, Status: t.Status, Owner: t.Owner, BlockedBy: blocked})
	}
	h.line(taskListEvent{Type: "system", Subtype: "task_list", List: list, Tasks: out, SessionID: h.sessionID, UUID: uuid.NewString()})
}
