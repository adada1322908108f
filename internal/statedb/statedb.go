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
}

// Open opens (creating it and its folder if needed) the database at path, in WAL mode,
// waiting up to busy for another process's lock, with write transactions that take the
// lock when they begin (BEGIN IMMEDIATE), and makes schema's tables.
func Open(path string, busy time.Duration, what, lost, schema string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
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
	d := &DB{DB: db, Path: path, What: what, Lost: lost, Busy: busy}
	// The first statement of a connection switches the file to WAL, which needs a lock
	// SQLite does not wait for (the busy timeout does not apply): two processes opening
	// one new file at once see SQLITE_BUSY at once. Try again within the busy timeout.
	deadline := time.Now().Add(busy)
	for {
		_, err := db.Exec(schema)
		if err == nil {
			return d, nil
		}
		if !isBusy(err) || time.Now().After(deadline) {
			db.Close()
			return nil, d.Explain(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("the %s %s is damaged or not an SQLite database (%v); move it aside and ouro starts a new one (%s are lost)", d.What, d.Path, err, d.Lost)
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
