package team

import (
	"context"
	"testing"
)

// Each kind of teammate answers for itself: only the lead's side of a teammate process
// has a process (and counts what is mailed to it), only a worker stops on a failed run
// and stops on its own once it did its tasks; a teammate that runs here has no process,
// and asking that nil process whether it is alive or ended says no instead of crashing
// (the lead asks it of every teammate).
func TestEachKindOfMemberAnswersForItself(t *testing.T) {
	p := &proc{stderr: &tailBuffer{}}
	kinds := map[string]member{"in process": inProcess{}, "process": ownProcess{p: p}, "worker": worker{maxTasks: 1}}
	for name, k := range kinds {
		if got, want := k.process() != nil, name == "process"; got != want {
			t.Errorf("%s: has a process %v, want %v", name, got, want)
		}
		if got, want := k.failureStops(), name == "worker"; got != want {
			t.Errorf("%s: a failed run stops it %v, want %v", name, got, want)
		}
		if k.process().alive() || k.process().ended() {
			t.Errorf("%s: a process not started reads as alive or ended", name)
		}
	}
	ownProcess{p: p}.mailed("00000000000000000005")
	p.last.LastRead = "00000000000000000004"
	if !p.behind() {
		t.Error("a message mailed to a teammate process after what it last read does not count as behind")
	}
	// A worker started for one task stops once it claimed one; the others go on.
	tm := &teammate{claims: 1}
	if why := (worker{maxTasks: 1}).idleDone(context.Background(), tm); why == "" {
		t.Error("a worker that did its one task goes on")
	}
	for name, k := range map[string]member{"in process": inProcess{}, "process": ownProcess{p: p}} {
		if why := k.idleDone(context.Background(), tm); why != "" {
			t.Errorf("%s stops when idle: %s", name, why)
		}
	}
}
