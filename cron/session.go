package cron

import (
	"slices"
	"time"
)

// SessionChange is one change to what a session's scheduler holds that dies with the
// process (the jobs CronCreate made without durable, and the /loop wake-up): a job
// added, a wake-up set (replacing the one before), a job or wake-up removed by id, or a
// recurring job fired (FiredAt: when its next fire is counted from).
type SessionChange struct {
	Add     *Job      `json:"add,omitempty"`
	Wake    *Job      `json:"wake,omitempty"`
	Remove  string    `json:"remove,omitempty"`
	Fired   string    `json:"fired,omitempty"`
	FiredAt time.Time `json:"fired_at,omitzero"`
}

// SessionJobs is a session's jobs and wake-up, rebuilt from its changes.
type SessionJobs struct {
	Jobs []Job
	Wake *Job
}

// Apply folds one change into sj. At most MaxJobs jobs are kept (the oldest go first),
// so a transcript written by something else cannot make a resumed session hold more.
func (sj *SessionJobs) Apply(c SessionChange) {
	if c.Add != nil {
		sj.Jobs = slices.DeleteFunc(sj.Jobs, func(j Job) bool { return j.ID == c.Add.ID })
		sj.Jobs = append(sj.Jobs, *c.Add)
		if len(sj.Jobs) > MaxJobs {
			sj.Jobs = slices.Delete(sj.Jobs, 0, len(sj.Jobs)-MaxJobs)
		}
	}
	if c.Wake != nil {
		w := *c.Wake
		sj.Wake = &w
	}
	if c.Fired != "" {
		for i := range sj.Jobs {
			if sj.Jobs[i].ID == c.Fired && c.FiredAt.After(sj.Jobs[i].LastFiredAt) {
				sj.Jobs[i].LastFiredAt = c.FiredAt
			}
		}
	}
	if c.Remove != "" {
		if sj.Wake != nil && sj.Wake.ID == c.Remove {
			sj.Wake = nil
		}
		sj.Jobs = slices.DeleteFunc(sj.Jobs, func(j Job) bool { return j.ID == c.Remove })
	}
}
