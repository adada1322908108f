// Package statedb opens ouro's state.db, the one SQLite file (modernc.org/sqlite, no cgo)
// that the stores of several mechanisms share — the task list, the workflow journal —
// each in tables of its own, and says what its errors mean for the reader.
package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DB is an open state.db for one store: What names the store in errors ("task store"),
// Lost says what moving a damaged file aside loses ("the tasks in it").
type DB struct {
	*sql.DB
	Path, What, Lost string
	Busy             time.Duration

	vmu   sync.Mutex
	vconn *sql.Conn // the connection Version reads data_version on
}

// Version is SQLite's data_version as one connection of d, kept for it, sees it: it
// changes whenever another connection, of this process or another, commits to the file,
// and costs no read of any table. A watcher compares two readings to learn whether
// anything changed since the first.
func (d *DB) Version(ctx context.Context) (uint64, error) {
	d.vmu.Lock()
	defer d.vmu.Unlock()
	if d.vconn == nil {
		c, err := d.DB.Conn(ctx)
		if err != nil {
			return 0, d.Explain(err)
		}
		d.vconn = c
	}
	var v uint64
	if err := d.vconn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		d.vconn.Close()
		d.vconn = nil
		return 0, d.Explain(err)
	}
	return v, nil
}

// Close releases the connection Version kept, then the database.
func (d *DB) Close() error {
	d.vmu.Lock()
	if d.vconn != nil {
		d.vconn.Close()
		d.vconn = nil
	}
	d.vmu.Unlock()
	return d.DB.Close()
}

// Open opens (creating it and its folder if needed) the database at path, in WAL mode,
// waiting up to busy for another process's lock, with write transactions that take the
// lock when they begin (BEGIN IMMEDIATE), and makes schema's tables.
//
// A damaged database is refused before anything reads or writes it: PRAGMA quick_check
// (every page's structure, at a cost linear in the file's size: milliseconds for the
// few megabytes state.db holds) runs before the schema, which would otherwise write into
// it. So is a database that was emptied (a zero-byte file where one existed), which
// SQLite would silently take for a new, empty one: that one existed is known from the
// marker file Open leaves beside it (path + MarkerSuffix) once the database has content,
// or from a write-ahead log (path-wal) beside the empty file. A path with no file at all
// is a new database, so moving a damaged file aside (what the errors say to do) starts
// afresh.
func Open(path string, busy time.Duration, what, lost, schema string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	d := &DB{Path: path, What: what, Lost: lost, Busy: busy}
	if err := d.refuseEmptied(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	f.Close()
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	d.DB = db
	// The first statement of a connection switches the file to WAL, which needs a lock
	// SQLite does not wait for (the busy timeout does not apply): two processes opening
	// one new file at once see SQLITE_BUSY at once. Try again within the busy timeout.
	deadline := time.Now().Add(busy)
	for {
		err := d.check()
		if err == nil {
			_, err = db.Exec(schema)
		}
		if err == nil {
			d.mark()
			return d, nil
		}
		if !isBusy(err) || time.Now().After(deadline) {
			db.Close()
			return nil, d.Explain(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// MarkerSuffix names the file beside a database that says one was made there.
const MarkerSuffix = ".exists"

// errDamaged carries what quick_check found.
type errDamaged struct{ found string }

func (e *errDamaged) Error() string { return "PRAGMA quick_check found: " + e.found }

// check runs PRAGMA quick_check and returns an *errDamaged for what it found.
func (d *DB) check() error {
	rows, err := d.DB.Query(`PRAGMA quick_check(5)`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		found = append(found, line)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(found) == 1 && found[0] == "ok" {
		return nil
	}
	return &errDamaged{found: strings.Join(found, "; ")}
}

// refuseEmptied refuses a zero-byte file where a database is known to have existed.
func (d *DB) refuseEmptied() error {
	st, err := os.Stat(d.Path)
	if err != nil || st.Size() != 0 {
		return nil // missing: a new database; non-empty: SQLite and check judge it
	}
	var why string
	if m, err := os.Stat(d.Path + MarkerSuffix); err == nil {
		why = fmt.Sprintf("a database was made there (its marker %s is from %s)", d.Path+MarkerSuffix, m.ModTime().Format(time.DateTime))
	} else if w, err := os.Stat(d.Path + "-wal"); err == nil && w.Size() > 0 && emptyFile(d.Path) {
		// Checked again after the log: a process making a new database writes its
		// header before it starts the log, so an empty file with a log was emptied.
		why = fmt.Sprintf("its write-ahead log %s-wal still holds %d bytes of one", d.Path, w.Size())
	} else {
		return nil // an empty file nobody wrote to yet: a new database
	}
	return fmt.Errorf("the %s %s is empty (0 bytes), but %s: the file was truncated (a full disk, an interrupted copy or sync), and opening it would start an empty database in its place, so ouro does not use it: %s",
		d.What, d.Path, why, d.wayOut())
}

func emptyFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() == 0
}

// mark leaves the marker that says a database exists at d.Path, once it has content.
func (d *DB) mark() {
	if _, err := os.Stat(d.Path + MarkerSuffix); err == nil {
		return
	}
	if st, err := os.Stat(d.Path); err != nil || st.Size() == 0 {
		return
	}
	// Best effort: without it an emptied file is only recognised by its -wal.
	_ = os.WriteFile(d.Path+MarkerSuffix, []byte("ouro keeps an SQLite database in "+filepath.Base(d.Path)+
		". While this file is here, an empty "+filepath.Base(d.Path)+" is refused as truncated instead of being taken for a new database.\n"), 0o600)
}

// wayOut says how to get going again with a damaged or emptied database.
func (d *DB) wayOut() string {
	return fmt.Sprintf("move it aside, with the %s-wal and %s-shm files beside it if there are any (e.g. mv %s %s.damaged), and ouro starts a new one: %s are lost unless you restore a copy, or recover what you can first (sqlite3 %s .recover | sqlite3 %s.recovered).",
		d.Path, d.Path, d.Path, d.Path, d.Lost, d.Path, d.Path)
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// Explain turns SQLite's errors into what the reader can act on.
func (d *DB) Explain(err error) error {
	if err == nil {
		return nil
	}
	var dm *errDamaged
	if errors.As(err, &dm) {
		return fmt.Errorf("the %s %s is damaged (%v); ouro neither reads nor writes a damaged database: %s", d.What, d.Path, err, d.wayOut())
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("the %s %s is damaged or not an SQLite database (%v); ouro neither reads nor writes a damaged database: %s", d.What, d.Path, err, d.wayOut())
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("the %s %s stayed locked by another process for %s (%v); try again, or find the process holding it", d.What, d.Path, d.Busy, err)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
			return fmt.Errorf("the %s %s cannot be written (%v); check its permissions", d.What, d.Path, err)
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s %s: %w", d.What, d.Path, err)
}
