package statedb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenSharesOneFileAndExplainsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "state.db")
	a, err := Open(path, time.Second, "task store", "the tasks in it", `CREATE TABLE IF NOT EXISTS a (x INTEGER)`)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path, time.Second, "workflow journal", "the runs in it", `CREATE TABLE IF NOT EXISTS b (y INTEGER)`)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.Exec(`INSERT INTO b (y) VALUES (1)`); err != nil {
		t.Fatalf("one file holds both stores' tables: %v", err)
	}

	bad := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(bad, []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(bad, time.Second, "task store", "the tasks in it", `CREATE TABLE IF NOT EXISTS a (x INTEGER)`)
	if err == nil || !strings.Contains(err.Error(), "damaged or not an SQLite database") || !strings.Contains(err.Error(), "the tasks in it are lost") {
		t.Fatalf("a damaged file: %v", err)
	}
}
