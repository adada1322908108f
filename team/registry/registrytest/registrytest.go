// Package registrytest is the contract every registry.Store must pass: whole records
// round trip, a worker's Put replaces its record, teams are separate, bad names are
// refused, and many workers writing at once all land.
package registrytest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/team/registry"
)

// Run runs the contract against stores made by open; each call must return an empty
// store, which Run closes.
func Run(t *testing.T, open func(t *testing.T) registry.Store) {
	ctx := context.Background()
	fresh := func(t *testing.T) registry.Store {
		s := open(t)
		t.Cleanup(func() { s.Close() })
		return s
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	t.Run("round trip", func(t *testing.T) {
		s := fresh(t)
		in := registry.Worker{Team: "crew", Name: "w1", Host: "box-a", PID: 4242, Agent: "coder", Repo: "/srv/repo.git",
			Started: at, Heartbeat: at.Add(time.Minute), Lease: 30 * time.Second, Task: "#3 parser",
			TasksDone: 7, Tokens: 12345, CostUSD: 0.25}
		if err := s.Put(ctx, in); err != nil {
			t.Fatal(err)
		}
		got, err := s.List(ctx, "crew")
		if err != nil || len(got) != 1 {
			t.Fatalf("List: %+v, %v", got, err)
		}
		g := got[0]
		if !g.Started.Equal(in.Started) || !g.Heartbeat.Equal(in.Heartbeat) {
			t.Fatalf("times changed: %+v", g)
		}
		g.Started, g.Heartbeat = in.Started, in.Heartbeat
		if g != in {
			t.Fatalf("record changed on the way:\n got %+v\nwant %+v", g, in)
		}
	})
	t.Run("put replaces", func(t *testing.T) {
		s := fresh(t)
		w := registry.Worker{Team: "crew", Name: "w1", Heartbeat: at, Task: "#1 a"}
		for i := 1; i <= 3; i++ {
			w.Heartbeat, w.TasksDone, w.Task = at.Add(time.Duration(i)*time.Second), i, fmt.Sprintf("#%d t", i+1)
			if err := s.Put(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		w.Task, w.Stopped = "", "no open task remains"
		if err := s.Put(ctx, w); err != nil {
			t.Fatal(err)
		}
		got, err := s.List(ctx, "crew")
		if err != nil || len(got) != 1 || got[0].TasksDone != 3 || got[0].Task != "" || got[0].Stopped != "no open task remains" {
			t.Fatalf("after four puts of one worker: %+v, %v", got, err)
		}
	})
	t.Run("teams are separate and listed by name", func(t *testing.T) {
		s := fresh(t)
		for _, w := range []registry.Worker{{Team: "a", Name: "zed"}, {Team: "a", Name: "amy"}, {Team: "b", Name: "bob"}, {Team: "a.b", Name: "x.y"}} {
			if err := s.Put(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		a, err := s.List(ctx, "a")
		if err != nil || len(a) != 2 || a[0].Name != "amy" || a[1].Name != "zed" {
			t.Fatalf("team a: %+v, %v", a, err)
		}
		ab, err := s.List(ctx, "a.b")
		if err != nil || len(ab) != 1 || ab[0].Name != "x.y" {
			t.Fatalf("team a.b: %+v, %v", ab, err)
		}
		none, err := s.List(ctx, "nobody")
		if err != nil || len(none) != 0 {
			t.Fatalf("a team nobody joined: %+v, %v", none, err)
		}
	})
	t.Run("bad names are refused", func(t *testing.T) {
		s := fresh(t)
		for _, w := range []registry.Worker{{Team: "", Name: "w"}, {Team: "t", Name: ""}, {Team: "t", Name: "a b"},
			{Team: "t", Name: "a>*"}, {Team: "t/../x", Name: "w"}, {Team: "t", Name: ".hidden"}} {
			if err := s.Put(ctx, w); err == nil {
				t.Errorf("Put(%q, %q) was accepted", w.Team, w.Name)
			}
		}
	})
	t.Run("concurrent workers", func(t *testing.T) {
		s := fresh(t)
		var wg sync.WaitGroup
		errs := make(chan error, 40)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for beat := range 5 {
					errs <- s.Put(ctx, registry.Worker{Team: "crew", Name: fmt.Sprintf("w%d", i), Heartbeat: at.Add(time.Duration(beat) * time.Second), TasksDone: beat})
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.List(ctx, "crew")
		if err != nil || len(got) != 8 {
			t.Fatalf("8 workers wrote, %d listed (%v)", len(got), err)
		}
		for _, w := range got {
			if w.TasksDone != 4 {
				t.Fatalf("%s's last record has tasks_done %d, want 4", w.Name, w.TasksDone)
			}
		}
	})
	t.Run("state by heartbeat age", func(t *testing.T) {
		w := registry.Worker{Heartbeat: at, Lease: 30 * time.Second}
		if s := w.StateAt(at.Add(29 * time.Second)); s != registry.Alive {
			t.Fatalf("29s after a heartbeat with a 30s lease: %s", s)
		}
		if s := w.StateAt(at.Add(31 * time.Second)); s != registry.Stale {
			t.Fatalf("31s after a heartbeat with a 30s lease: %s", s)
		}
		w.Stopped = "done"
		if s := w.StateAt(at); s != registry.Stopped {
			t.Fatalf("a worker that said it stopped: %s", s)
		}
	})
}
