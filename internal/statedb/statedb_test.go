package statedb

import (
	"bytes"
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

const testSchema = `CREATE TABLE IF NOT EXISTS a (x TEXT)`

// fill makes a database at path with many pages of rows and closes it (its WAL folded in).
func fill(t *testing.T, path string) {
	t.Helper()
	db, err := Open(path, time.Second, "task store", "the tasks in it", testSchema)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := db.Exec(`INSERT INTO a (x) VALUES (?)`, strings.Repeat(string(rune('a'+i%26)), 500)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the WAL outlived the last connection")
	}
}

// A database with a damaged page in its middle (its header and schema intact, so SQLite
// opens it) is refused when a store opens it, with the way out, and nothing is written
// into it: not even the schema of a store whose tables it lacks.
func TestOpenRefusesADamagedMiddlePage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	fill(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(data) < 20*page {
		t.Fatalf("the database has only %d bytes", len(data))
	}
	copy(data[10*page:11*page], bytes.Repeat([]byte{0xA5}, page))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, schema := range []string{testSchema, `CREATE TABLE IF NOT EXISTS other (y INTEGER)`} {
		_, err := Open(path, time.Second, "task store", "the tasks in it", schema)
		if err == nil {
			t.Fatal("a damaged database was opened")
		}
		for _, want := range []string{"is damaged", path, "move it aside", "-wal", "the tasks in it are lost", ".recover"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error lacks %q: %v", want, err)
			}
		}
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, data) {
		t.Error("the damaged database was written to")
	}
	// An intact database passes the check.
	good := filepath.Join(t.TempDir(), "state.db")
	fill(t, good)
	db, err := Open(good, time.Second, "task store", "the tasks in it", testSchema)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// A zero-byte file where a database existed (known from the marker Open leaves, or from
// a write-ahead log beside it) is refused, not taken for a new, empty database; once it
// is moved aside a new one starts, and an empty file nobody wrote is a new database.
func TestOpenRefusesAnEmptiedDatabase(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	fill(t, path)
	if _, err := os.Stat(path + MarkerSuffix); err != nil {
		t.Fatalf("no marker beside the database: %v", err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, time.Second, "task store", "the tasks in it", testSchema)
	if err == nil || !strings.Contains(err.Error(), "is empty (0 bytes)") || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("an emptied database: %v", err)
	}
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Error("the emptied file was written to")
	}
	if err := os.Rename(path, path+".damaged"); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, time.Second, "task store", "the tasks in it", testSchema)
	if err != nil {
		t.Fatalf("after moving it aside: %v", err)
	}
	db.Close()

	// Without a marker, a write-ahead log beside an empty file says one existed.
	other := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other+"-wal", bytes.Repeat([]byte{1}, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(other, time.Second, "task store", "the tasks in it", testSchema); err == nil || !strings.Contains(err.Error(), "write-ahead log") {
		t.Fatalf("an empty file with a WAL: %v", err)
	}
	// An empty file with neither is a new database.
	fresh := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(fresh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err = Open(fresh, time.Second, "task store", "the tasks in it", testSchema)
	if err != nil {
		t.Fatalf("an empty new file: %v", err)
	}
	db.Close()
}
