package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team/fleet"
	"github.com/ouroagent/ouro/team/registry"
)

// seedFleet gives team crew a worker record and two tasks on the store at url.
func seedFleet(t *testing.T, url, home string) {
	t.Helper()
	ctx := context.Background()
	ts, err := harness.OpenTaskStore(ctx, url, home)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	for _, s := range []string{"parse", "lint"} {
		if _, err := ts.Create(ctx, "crew", task.Task{Subject: s, Status: task.Pending}); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := fleet.OpenRegistry(ctx, url, harness.StatePath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if err := reg.Put(ctx, registry.Worker{Team: "crew", Name: "w1", Heartbeat: time.Now().UTC(), Lease: time.Minute, TasksDone: 3, Tokens: 100}); err != nil {
		t.Fatal(err)
	}
}

// ouro team status shows what it can read and names what it cannot: with the worker
// records unreadable, the task list and the messages are still shown, and the status
// says which part is missing and why, instead of failing outright.
func TestTeamStatusShowsWhatCanBeRead(t *testing.T) {
	home := t.TempDir()
	path := harness.StatePath(home)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// A registry table this ouro cannot read (written by another version, say).
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE team_workers (team TEXT, name TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ctx := context.Background()
	ts, err := harness.OpenTaskStore(ctx, "", home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Create(ctx, "crew", task.Task{Subject: "parse", Status: task.Pending}); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	st, err := readFleet(ctx, "", home, "crew")
	if err != nil {
		t.Fatalf("the status failed outright: %v", err)
	}
	if st.Queue.Total != 1 || st.Queue.Ready != 1 {
		t.Errorf("the task list is not shown: %+v", st.Queue)
	}
	if len(st.Unavailable) != 1 || !strings.Contains(st.Unavailable[0], "the worker records") {
		t.Errorf("what could not be read: %q", st.Unavailable)
	}
	var out strings.Builder
	renderFleet(&out, st)
	if !strings.Contains(out.String(), "Not shown: could not be read") || !strings.Contains(out.String(), "the worker records") {
		t.Errorf("the status does not say what is missing:\n%s", out.String())
	}
}

// On the JetStream cluster, the status reads through a leader election (a node killed),
// and without quorum it shows what still answers and says what does not.
func TestTeamStatusThroughAnElectionAndWithoutQuorum(t *testing.T) {
	c := natstest.Start3(t)
	url := c.URL() + "?ns=status"
	home := t.TempDir()
	seedFleet(t, url, home)
	ctx := context.Background()
	c.Kill(0)
	st, err := readFleet(ctx, url, home, "crew")
	if err != nil || st.Queue.Total != 2 || len(st.Workers) != 1 || st.Workers[0].TasksDone != 3 {
		t.Fatalf("through an election: %+v, %v", st, err)
	}
	c.Kill(1)
	// What still answers depends on how far the last node has noticed the loss: either
	// the status shows what it read and names what it could not, or it says that nothing
	// could be read, and why.
	st, err = readFleet(ctx, url, home, "crew")
	if err != nil && !strings.Contains(err.Error(), "nothing of team crew could be read") {
		t.Fatalf("without quorum: %v", err)
	}
	if err == nil && len(st.Unavailable) == 0 && (st.Queue.Total != 2 || len(st.Workers) != 1) {
		t.Fatalf("without quorum, a status that is neither whole nor says what is missing: %+v", st)
	}
}
