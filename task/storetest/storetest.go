// Package storetest is the contract every task.Store must pass: sequential ids per list
// that are never reused, whole-task round trips, and all-or-nothing compare-and-set,
// also under concurrency. A store's tests call Run with a constructor of fresh, empty
// stores.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/task"
)

// Run runs the contract against stores made by open; each call must return an empty
// store, which Run closes.
func Run(t *testing.T, open func(t *testing.T) task.Store) {
	ctx := context.Background()
	fresh := func(t *testing.T) task.Store {
		s := open(t)
		t.Cleanup(func() { s.Close() })
		return s
	}
	t.Run("sequential ids per list", func(t *testing.T) {
		s := fresh(t)
		for i := 1; i <= 3; i++ {
			got, err := s.Create(ctx, "a", task.Task{Subject: "a" + strconv.Itoa(i), Status: task.Pending})
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != strconv.Itoa(i) || got.Rev == 0 {
				t.Fatalf("task %d of list a got id %q rev %d", i, got.ID, got.Rev)
			}
		}
		got, err := s.Create(ctx, "b", task.Task{Subject: "b1"})
		if err != nil || got.ID != "1" {
			t.Fatalf("first task of list b: id %q, %v; lists must number independently", got.ID, err)
		}
	})
	t.Run("ids are never reused", func(t *testing.T) {
		s := fresh(t)
		a, _ := s.Create(ctx, "l", task.Task{Subject: "x"})
		b, _ := s.Create(ctx, "l", task.Task{Subject: "y"})
		if err := s.Apply(ctx, "l", []task.Change{{Op: task.Delete, ID: b.ID, Rev: b.Rev}}); err != nil {
			t.Fatal(err)
		}
		c, err := s.Create(ctx, "l", task.Task{Subject: "z"})
		if err != nil || c.ID != "3" {
			t.Fatalf("after deleting #2, the next id is %q (%v), want 3 (a is #%s)", c.ID, err, a.ID)
		}
	})
	t.Run("round trip and numeric order", func(t *testing.T) {
		s := fresh(t)
		lease := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		for i := 1; i <= 11; i++ {
			in := task.Task{Subject: fmt.Sprintf("s%d", i), Description: "d", ActiveForm: "doing", Status: task.InProgress,
				Owner: "w", Holder: "h", LeaseUntil: lease, Note: "n", Blocks: []string{"2"}, BlockedBy: []string{},
				Metadata: map[string]json.RawMessage{"k": json.RawMessage(`{"x":[1,2]}`)}}
			if _, err := s.Create(ctx, "l", in); err != nil {
				t.Fatal(err)
			}
		}
		all, err := s.All(ctx, "l")
		if err != nil || len(all) != 11 {
			t.Fatalf("All: %d tasks, %v", len(all), err)
		}
		for i, got := range all {
			if got.ID != strconv.Itoa(i+1) {
				t.Fatalf("All is not in numeric id order: position %d holds #%s", i, got.ID)
			}
		}
		got, err := s.Get(ctx, "l", "10")
		if err != nil {
			t.Fatal(err)
		}
		if got.Subject != "s10" || got.Owner != "w" || got.Holder != "h" || !got.LeaseUntil.Equal(lease) || got.Note != "n" ||
			len(got.Blocks) != 1 || string(got.Metadata["k"]) != `{"x":[1,2]}` || got.Status != task.InProgress || got.ActiveForm != "doing" {
			t.Fatalf("round trip lost something: %+v", got)
		}
		if _, err := s.Get(ctx, "l", "12"); !errors.Is(err, task.ErrNotFound) {
			t.Fatalf("Get of a missing id: %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "other", "1"); !errors.Is(err, task.ErrNotFound) {
			t.Fatalf("Get in another list: %v, want ErrNotFound", err)
		}
	})
	t.Run("apply is compare-and-set, all or nothing", func(t *testing.T) {
		s := fresh(t)
		a, _ := s.Create(ctx, "l", task.Task{Subject: "a"})
		b, _ := s.Create(ctx, "l", task.Task{Subject: "b"})
		na := a
		na.Subject = "a2"
		if err := s.Apply(ctx, "l", []task.Change{{Op: task.Put, ID: a.ID, Rev: a.Rev, Task: na}}); err != nil {
			t.Fatal(err)
		}
		a2, _ := s.Get(ctx, "l", a.ID)
		if a2.Subject != "a2" || a2.Rev == a.Rev {
			t.Fatalf("after Put: subject %q rev %d (was %d); a write must change the revision", a2.Subject, a2.Rev, a.Rev)
		}
		// b's write must not happen when a's revision is stale.
		nb := b
		nb.Subject = "b2"
		err := s.Apply(ctx, "l", []task.Change{{Op: task.Put, ID: b.ID, Rev: b.Rev, Task: nb}, {Op: task.Put, ID: a.ID, Rev: a.Rev, Task: na}})
		if !errors.Is(err, task.ErrConflict) {
			t.Fatalf("Apply with a stale revision: %v, want ErrConflict", err)
		}
		if got, _ := s.Get(ctx, "l", b.ID); got.Subject != "b" {
			t.Fatalf("a failed Apply wrote part of its changes: b is %q", got.Subject)
		}
		// A stale Check fails the write too.
		err = s.Apply(ctx, "l", []task.Change{{Op: task.Put, ID: b.ID, Rev: b.Rev, Task: nb}, {Op: task.Check, ID: a.ID, Rev: a.Rev}})
		if !errors.Is(err, task.ErrConflict) {
			t.Fatalf("Apply with a stale Check: %v, want ErrConflict", err)
		}
		if err := s.Apply(ctx, "l", []task.Change{{Op: task.Put, ID: b.ID, Rev: b.Rev, Task: nb}, {Op: task.Check, ID: a.ID, Rev: a2.Rev}}); err != nil {
			t.Fatalf("Apply with a current Check: %v", err)
		}
		if got, _ := s.Get(ctx, "l", a.ID); got.Rev != a2.Rev {
			t.Fatalf("a Check changed the revision of what it checked")
		}
		// A deleted task conflicts; a missing one too.
		b2, _ := s.Get(ctx, "l", b.ID)
		if err := s.Apply(ctx, "l", []task.Change{{Op: task.Delete, ID: b.ID, Rev: b2.Rev}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(ctx, "l", []task.Change{{Op: task.Put, ID: b.ID, Rev: b2.Rev, Task: nb}}); !errors.Is(err, task.ErrConflict) {
			t.Fatalf("Put on a deleted task: %v, want ErrConflict", err)
		}
		if _, err := s.Get(ctx, "l", b.ID); !errors.Is(err, task.ErrNotFound) {
			t.Fatalf("Get after Delete: %v", err)
		}
	})
	t.Run("one winner among concurrent writers", func(t *testing.T) {
		s := fresh(t)
		a, _ := s.Create(ctx, "l", task.Task{Subject: "a"})
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := a
				n.Owner = fmt.Sprint("w", i)
				err := s.Apply(ctx, "l", []task.Change{{Op: task.Put, ID: a.ID, Rev: a.Rev, Task: n}})
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, task.ErrConflict) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("%d writers won the same revision, want exactly 1", wins)
		}
	})
	t.Run("concurrent creates get distinct ids", func(t *testing.T) {
		s := fresh(t)
		var wg sync.WaitGroup
		ids := make([]string, 16)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := s.Create(ctx, "l", task.Task{Subject: "x"})
				if err != nil {
					t.Error(err)
				}
				ids[i] = got.ID
			}()
		}
		wg.Wait()
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("id %s given twice: %v", id, ids)
			}
			seen[id] = true
		}
		for i := 1; i <= len(ids); i++ {
			if !seen[strconv.Itoa(i)] {
				t.Fatalf("ids are not 1..%d: %v", len(ids), ids)
			}
		}
	})
	t.Run("board claims race", func(t *testing.T) {
		s := fresh(t)
		setup := task.NewBoard(task.Config{Store: s, List: "l", Holder: "setup"})
		for range 20 {
			if _, err := setup.Create(ctx, "t", "", "", nil); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		won := make([][]string, 6)
		for w := range won {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := task.NewBoard(task.Config{Store: s, List: "l", Holder: fmt.Sprint("h", w)})
				owner := fmt.Sprint("w", w)
				for id := 1; id <= 20; id++ {
					if _, err := b.Update(ctx, strconv.Itoa(id), task.Update{Owner: &owner}); err == nil {
						won[w] = append(won[w], strconv.Itoa(id))
					}
				}
			}()
		}
		wg.Wait()
		claimed := map[string]int{}
		for w, ids := range won {
			for _, id := range ids {
				if prev, dup := claimed[id]; dup {
					t.Fatalf("task %s was claimed by both w%d and w%d", id, prev, w)
				}
				claimed[id] = w
				got, _ := s.Get(ctx, "l", id)
				if got.Owner != fmt.Sprint("w", w) {
					t.Fatalf("w%d believes it claimed #%s, whose owner is %q", w, id, got.Owner)
				}
			}
		}
		if len(claimed) != 20 {
			t.Fatalf("%d of 20 tasks claimed", len(claimed))
		}
	})
}
