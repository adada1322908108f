package task_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ouroagent/ouro/task"
)

// Completing keeps a task open when it refuses; Created rolls a creation back.
func TestBoardHooks(t *testing.T) {
	ctx := context.Background()
	s := task.NewMemStore()
	verified := false
	var seen []string
	b := task.NewBoard(task.Config{Store: s, List: "l", Holder: "me", Lease: time.Minute,
		Completing: func(_ context.Context, tk task.Task) error {
			seen = append(seen, "completing "+tk.ID+" "+string(tk.Status))
			if !verified {
				return errors.New("not verified")
			}
			return nil
		},
		Created: func(_ context.Context, tk task.Task) error {
			if tk.Subject == "bad" {
				return errors.New("refused")
			}
			return nil
		}})
	if _, err := b.Create(ctx, "good", "", "", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create(ctx, "bad", "", "", nil); err == nil || err.Error() != "refused" {
		t.Fatalf("Create bad: %v", err)
	}
	if all, _ := b.All(ctx); len(all) != 1 || all[0].Subject != "good" {
		t.Fatalf("the refused task was not rolled back: %+v", all)
	}
	done := task.Completed
	if _, err := b.Update(ctx, "1", task.Update{Owner: ptr("me"), Status: ptr(task.InProgress)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, "1", task.Update{Status: &done}); err == nil || err.Error() != "not verified" {
		t.Fatalf("Update refused: %v", err)
	}
	if tk, _ := b.Get(ctx, "1"); tk.Status != task.InProgress {
		t.Fatalf("the refused task is %s, want in_progress", tk.Status)
	}
	verified = true
	if _, err := b.Update(ctx, "1", task.Update{Status: &done}); err != nil {
		t.Fatal(err)
	}
	// Completing an already completed task asks nobody again.
	if _, err := b.Update(ctx, "1", task.Update{Status: &done}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "completing 1 in_progress" {
		t.Fatalf("Completing saw %q", seen)
	}
}
