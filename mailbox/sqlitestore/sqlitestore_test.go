package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/mailbox/sqlitestore"
	"github.com/ouroagent/ouro/mailbox/storetest"
	tasksql "github.com/ouroagent/ouro/task/sqlitestore"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) mailbox.Store {
		s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "state.db"), 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// The mailbox lives in the task list's state.db; undelivered messages survive the
// process, and two stores on one file see each other's messages.
func TestSharesStateDBAndSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	tasks, err := tasksql.Open(path, tasksql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tasks.Close()
	a, err := sqlitestore.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sqlitestore.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	m, err := a.Send(ctx, "team", mailbox.Message{From: "main", To: "w1", Text: "start"})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	got, err := b.Pending(ctx, "team", "w1")
	if err != nil || len(got) != 1 || got[0].ID != m.ID {
		t.Fatalf("after reopening: %+v, %v", got, err)
	}
}
