package team

import (
	"context"
	"errors"
	"testing"

	"github.com/ouroagent/ouro/task"
)

// failingReads is a task store whose reads fail, as a busy state.db or a NATS leader
// election makes them for a while.
type failingReads struct{ task.Store }

func (failingReads) All(context.Context, string) ([]task.Task, error) {
	return nil, errors.New("database is locked")
}

// A lead cannot tell whether a teammate is about to claim when the list cannot be read:
// that is not idle, so its stop wait goes on (bounded by its limit) instead of ending.
func TestAnUnreadableListIsNotIdle(t *testing.T) {
	tm := &Team{board: task.NewBoard(task.Config{Store: failingReads{task.NewMemStore()}, List: "l"})}
	if !tm.readyTask(context.Background(), []*teammate{{}}) {
		t.Fatal("a failed read of the list counted as no task ready: the lead would stop waiting")
	}
	if tm.readyTask(context.Background(), nil) {
		t.Fatal("with no teammate to claim, nothing is ready whatever the list holds")
	}
}
