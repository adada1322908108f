package cron

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Bounds on what a schedule may hold, so a hostile or runaway file or model cannot make
// ouro spend without limit.
const (
	// MaxJobs is how many jobs (session and durable together) may be scheduled, as in
	// Claude Code.
	MaxJobs = 50
	// MaxPrompt bounds one job's prompt, in bytes.
	MaxPrompt = 32 << 10
	// MaxAge is how long a recurring job lives: it fires one last time after it, then is
	// deleted (unless the file marks it permanent, as Claude Code's may).
	MaxAge = 7 * 24 * time.Hour
	// MinWakeup and MaxWakeup clamp ScheduleWakeup's delay.
	MinWakeup = 60 * time.Second
	MaxWakeup = 3600 * time.Second
)

// Job is one scheduled prompt. A job from a cron expression (CronCreate, /loop with an
// interval) has Cron; a wake-up the model asked for (ScheduleWakeup) has At instead.
type Job struct {
	ID        string
	Cron      string
	Prompt    string
	Recurring bool
	// Durable jobs are kept in a file and outlive the process; Source is that file.
	Durable   bool
	Source    string
	Permanent bool // exempt from MaxAge (Claude Code's "permanent")
	// Disabled jobs ("enabled": false in the file) stay listed and never fire.
	Disabled  bool
	CreatedAt time.Time
	// LastFiredAt is when the job last fired and the model answered.
	LastFiredAt time.Time
	// At and Reason are a wake-up's time and the model's reason for it.
	At     time.Time
	Reason string
}

// Wakeup reports whether j is a ScheduleWakeup, not a cron job.
func (j Job) Wakeup() bool { return j.Cron == "" }

// record is a job as scheduled_tasks.json keeps it, in Claude Code's format: times are
// epoch milliseconds, and a job without "recurring": true is one-shot.
type record struct {
	ID          string `json:"id"`
	Cron        string `json:"cron"`
	Prompt      string `json:"prompt"`
	CreatedAt   int64  `json:"createdAt"`
	LastFiredAt int64  `json:"lastFiredAt,omitempty"`
	Recurring   bool   `json:"recurring,omitempty"`
	Permanent   bool   `json:"permanent,omitempty"`
	Enabled     *bool  `json:"enabled,omitempty"`
}

// file is the whole of scheduled_tasks.json.
type file struct {
	Tasks []json.RawMessage `json:"tasks"`
}

func toRecord(j Job) record {
	r := record{ID: j.ID, Cron: j.Cron, Prompt: j.Prompt, CreatedAt: j.CreatedAt.UnixMilli(),
		Recurring: j.Recurring, Permanent: j.Permanent}
	if !j.LastFiredAt.IsZero() {
		r.LastFiredAt = j.LastFiredAt.UnixMilli()
	}
	if j.Disabled {
		r.Enabled = new(bool)
	}
	return r
}

// fromRecord checks one entry of a file; a bad one is reported, never run.
func fromRecord(raw json.RawMessage, source string) (Job, error) {
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		return Job{}, fmt.Errorf("an entry does not parse (%v)", err)
	}
	if !validID(r.ID) {
		return Job{}, fmt.Errorf("an entry has the id %q; ids are 1 to 64 letters, digits, - or _", textcut.Bytes(r.ID, 40, "…"))
	}
	if _, err := Parse(r.Cron); err != nil {
		return Job{}, fmt.Errorf("job %s: %v", r.ID, err)
	}
	if strings.TrimSpace(r.Prompt) == "" || len(r.Prompt) > MaxPrompt {
		return Job{}, fmt.Errorf("job %s: the prompt is empty or longer than %d bytes", r.ID, MaxPrompt)
	}
	j := Job{ID: r.ID, Cron: strings.TrimSpace(r.Cron), Prompt: r.Prompt, Recurring: r.Recurring, Permanent: r.Permanent,
		Durable: true, Source: source, CreatedAt: time.UnixMilli(r.CreatedAt), Disabled: r.Enabled != nil && !*r.Enabled}
	if r.LastFiredAt > 0 {
		j.LastFiredAt = time.UnixMilli(r.LastFiredAt)
	}
	return j, nil
}

func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// newID is 8 hex digits, as Claude Code's job ids.
func newID() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b[:])
}
