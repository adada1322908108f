package statedb

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Version changes when the file is written through another connection (another
// process's, here another DB on the same file, or another of this DB's own pool), and
// stays the same while nothing is written.
func TestVersionSeesEveryOtherWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	const schema = `CREATE TABLE IF NOT EXISTS t (x INTEGER)`
	a, err := Open(path, time.Second, "a store", "its rows", schema)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path, time.Second, "b store", "its rows", schema)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	v0, err := a.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Version(ctx); v != v0 {
		t.Fatalf("the version moved from %d to %d with nothing written", v0, v)
	}
	if _, err := b.Exec(`INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	v1, _ := a.Version(ctx)
	if v1 == v0 {
		t.Fatal("a write by another connection to the file did not change the version")
	}
	if _, err := a.Exec(`INSERT INTO t VALUES (2)`); err != nil { // a's own pool
		t.Fatal(err)
	}
	if v2, _ := a.Version(ctx); v2 == v1 {
		t.Fatal("a write through the same DB's pool did not change the version")
	}
	if err := a.Close(); err != nil {
		t.Fatalf("close with the version connection held: %v", err)
	}
}
