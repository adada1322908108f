package cron

import (
	"encoding/json"
	"testing"
	"time"
)

// A session's jobs come back on resume from the changes it saved: what was deleted or
// fired stays gone, a recurring job past its 7 days and a wake-up whose time passed are
// dropped, and a one-shot whose time passed while nothing ran waits for the user.
func TestSessionJobsSurviveResume(t *testing.T) {
	clock := NewManualClock(at(10, 0, 30))
	var saved []SessionChange
	s := New(Config{Clock: clock, SaveSession: func(c SessionChange) {
		// Through JSON, as the transcript keeps it.
		data, _ := json.Marshal(c)
		var back SessionChange
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		saved = append(saved, back)
	}})
	every, err := s.Create("*/5 * * * *", "check the build", true, false)
	if err != nil {
		t.Fatal(err)
	}
	once, _ := s.Create("30 10 * * *", "remind me", false, false)
	gone, _ := s.Create("0 12 * * *", "deleted later", false, false)
	old, _ := s.Create("0 9 * * *", "old", true, false)
	if _, err := s.Delete(gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Wakeup(10*time.Minute, "next loop turn", "loop on"); err != nil {
		t.Fatal(err)
	}
	clock.Set(at(10, 5, 50)) // 10:05 plus the job's jitter (under 10% of its period)
	if f, ok := s.Check(); !ok || f.Job.ID != every.ID {
		t.Fatalf("the recurring job should fire after 10:05, got %+v %v", f.Job, ok)
	}
	s.Done(every.ID, true)

	var sj SessionJobs
	for _, c := range saved {
		sj.Apply(c)
	}
	ids := map[string]bool{}
	for _, j := range sj.Jobs {
		ids[j.ID] = true
	}
	if len(sj.Jobs) != 3 || !ids[every.ID] || !ids[once.ID] || !ids[old.ID] || sj.Wake == nil {
		t.Fatalf("the saved jobs should be the recurring, the one-shot, the old one and the wake-up: %+v", sj)
	}
	if !sj.Jobs[0].LastFiredAt.Equal(at(10, 5, 50)) {
		t.Fatalf("the recurring job's fire should be saved: %v", sj.Jobs[0].LastFiredAt)
	}

	// Resumed three minutes later: all come back; nothing is held.
	clock2 := NewManualClock(at(10, 8, 0))
	r := New(Config{Clock: clock2})
	if dropped := r.RestoreSession(sj); len(dropped) != 0 {
		t.Fatalf("nothing expired yet, dropped %+v", dropped)
	}
	if n := len(r.List()); n != 4 {
		t.Fatalf("the resumed session lists %d jobs, want 3 and the wake-up", n)
	}
	clock2.Set(at(10, 30, 5))
	r.Check() // the wake-up at 10:10:30 fires first
	r.Done(sj.Wake.ID, true)
	f, ok := r.Check()
	if !ok || (f.Job.ID != once.ID && f.Job.ID != every.ID) {
		t.Fatalf("the restored jobs should fire: %+v %v", f.Job, ok)
	}

	// Resumed the next day: the one-shot is held for the user, the wake-up is dropped.
	clock3 := NewManualClock(at(10, 0, 0).Add(24 * time.Hour))
	r3 := New(Config{Clock: clock3})
	dropped := r3.RestoreSession(sj)
	if len(dropped) != 1 || !dropped[0].Wakeup() {
		t.Fatalf("only the wake-up should be dropped: %+v", dropped)
	}
	if m := r3.Missed(); len(m) != 1 || m[0].ID != once.ID {
		t.Fatalf("the missed one-shot should wait for the user: %+v", m)
	}
	if err := r3.Decide(once.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, j := range r3.List() {
		if j.ID == once.ID {
			t.Fatal("a declined missed one-shot should be deleted")
		}
	}

	// Resumed eight days later: recurring jobs are past their 7 days.
	clock4 := NewManualClock(at(10, 0, 0).Add(8 * 24 * time.Hour))
	r4 := New(Config{Clock: clock4})
	if dropped := r4.RestoreSession(sj); len(dropped) != 3 {
		t.Fatalf("the two recurring jobs and the wake-up should be dropped: %+v", dropped)
	}
}

// A transcript written by something else cannot make a session hold more than MaxJobs
// jobs, nor a durable or unparsable one.
func TestSessionRestoreIsBounded(t *testing.T) {
	var sj SessionJobs
	for i := range MaxJobs + 10 {
		sj.Apply(SessionChange{Add: &Job{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)), Cron: "* * * * *", Prompt: "p", Recurring: true, CreatedAt: at(9, 0, 0)}})
	}
	if len(sj.Jobs) != MaxJobs {
		t.Fatalf("%d jobs kept, want %d", len(sj.Jobs), MaxJobs)
	}
	sj.Jobs[0].Durable = true
	sj.Jobs[1].Cron = "@reboot"
	r := New(Config{Clock: NewManualClock(at(10, 0, 0))})
	if dropped := r.RestoreSession(sj); len(dropped) != 2 {
		t.Fatalf("the durable and the unparsable job should be dropped: %d", len(dropped))
	}
}
