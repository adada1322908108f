package team_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/mailbox"
	mailnats "github.com/ouroagent/ouro/mailbox/natsstore"
	mailsqlite "github.com/ouroagent/ouro/mailbox/sqlitestore"
	"github.com/ouroagent/ouro/task"
	tasknats "github.com/ouroagent/ouro/task/natsstore"
	tasksqlite "github.com/ouroagent/ouro/task/sqlitestore"
	"github.com/ouroagent/ouro/team/registry"
	regnats "github.com/ouroagent/ouro/team/registry/natsstore"
	regsqlite "github.com/ouroagent/ouro/team/registry/sqlitestore"
)

// stores is a team's shared stores, as a real session opens them.
type stores struct {
	mail  mailbox.Store
	tasks task.Store
	// reopen opens the mailboxes again, as another process would.
	reopen func(t *testing.T) mailbox.Store
	// reg is the worker registry on the same store.
	reg registry.Store
	// warn, when set, receives the team's warnings.
	warn func(string)
}

var storeNS atomic.Int64

// eachStore runs fn on SQLite (state.db) and on the embedded 3-node JetStream cluster,
// the two stores a team shares in production.
func eachStore(t *testing.T, fn func(t *testing.T, s stores)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		ts, err := tasksqlite.Open(path, tasksqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := mailsqlite.Open(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := regsqlite.Open(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ts.Close(); reg.Close() })
		fn(t, stores{mail: ms, tasks: ts, reg: reg, reopen: func(t *testing.T) mailbox.Store {
			ms, err := mailsqlite.Open(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ms.Close() })
			return ms
		}})
	})
	t.Run("nats", func(t *testing.T) {
		if testing.Short() {
			t.Skip("3-node cluster")
		}
		url := fmt.Sprintf("%s?ns=team%d", natstest.Start3(t).URL(), storeNS.Add(1))
		ts, err := tasknats.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := mailnats.Open(context.Background(), url, mailnats.Options{})
		if err != nil {
			t.Fatal(err)
		}
		reg, err := regnats.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ts.Close(); reg.Close() })
		fn(t, stores{mail: ms, tasks: ts, reg: reg, reopen: func(t *testing.T) mailbox.Store {
			ms, err := mailnats.Open(context.Background(), url, mailnats.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ms.Close() })
			return ms
		}})
	})
}
