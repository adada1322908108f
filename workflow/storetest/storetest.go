// Package storetest is the contract every workflow.Store must pass.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/workflow"
)

// Run checks the Store that open returns (a fresh, empty one each call).
func Run(t *testing.T, open func(t *testing.T) workflow.Store) {
	ctx := context.Background()
	t.Run("runs", func(t *testing.T) {
		s := open(t)
		if _, err := s.Run(ctx, "wf_missing"); !errors.Is(err, workflow.ErrNotFound) {
			t.Fatalf("missing run: %v", err)
		}
		t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
		a := workflow.RunRecord{ID: "wf_aaaaaa", Name: "a", Script: "s", Args: `{"x":1}`, Status: workflow.StatusRunning, Started: t0}
		b := workflow.RunRecord{ID: "wf_bbbbbb", Name: "b", Status: workflow.StatusRunning, Started: t0.Add(time.Second), Lease: t0.Add(time.Hour)}
		for _, r := range []workflow.RunRecord{a, b} {
			if err := s.CreateRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CreateRun(ctx, a); err == nil {
			t.Fatal("a run id was created twice")
		}
		a.Status, a.Result, a.Tokens, a.Finished = workflow.StatusCompleted, `"ok"`, 42, t0.Add(time.Minute)
		if err := s.UpdateRun(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateRun(ctx, workflow.RunRecord{ID: "wf_nothere"}); !errors.Is(err, workflow.ErrNotFound) {
			t.Fatalf("update of a missing run: %v", err)
		}
		got, err := s.Run(ctx, a.ID)
		if err != nil || got.Status != a.Status || got.Result != a.Result || got.Tokens != 42 || got.Script != "s" || got.Args != a.Args || !got.Finished.Equal(a.Finished) || !got.Started.Equal(t0) {
			t.Fatalf("%+v %v", got, err)
		}
		all, err := s.Runs(ctx)
		if err != nil || len(all) != 2 || all[0].ID != b.ID {
			t.Fatalf("newest first: %+v %v", all, err)
		}
		// The lease is kept: b is alive until it runs out, stopped after.
		if !all[0].Lease.Equal(b.Lease) || all[0].Shown(t0.Add(time.Minute)) != workflow.StatusRunning || all[0].Shown(t0.Add(2*time.Hour)) != workflow.StatusStopped {
			t.Fatalf("lease: %+v", all[0])
		}
	})
	t.Run("calls", func(t *testing.T) {
		s := open(t)
		var wg sync.WaitGroup
		for i := 9; i >= 0; i-- {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := workflow.CallRecord{RunID: "wf_cccccc", Index: i, Hash: fmt.Sprint("h", i), Prompt: "p", Status: workflow.CallRunning}
				if err := s.PutCall(ctx, c); err != nil {
					t.Error(err)
				}
				c.Status, c.Result, c.Tokens, c.Replayed = workflow.CallDone, `{"k":1}`, i, i%2 == 0
				if err := s.PutCall(ctx, c); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		calls, err := s.Calls(ctx, "wf_cccccc")
		if err != nil || len(calls) != 10 {
			t.Fatalf("%d %v", len(calls), err)
		}
		for i, c := range calls {
			if c.Index != i || c.Status != workflow.CallDone || c.Tokens != i || c.Replayed != (i%2 == 0) || c.Result != `{"k":1}` {
				t.Fatalf("call %d: %+v", i, c)
			}
		}
		if other, _ := s.Calls(ctx, "wf_other1"); len(other) != 0 {
			t.Fatalf("calls of another run: %+v", other)
		}
	})
}
