package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestStoreSaveGetListForget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	s := Open(dir, "project")
	s.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	r := Record{Name: "test-command", Description: "Run tests with make check, not go test", Type: TypeFeedback, Source: "session s1 turn 2", Body: "Use `make check`."}
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("test-command")
	if err != nil {
		t.Fatal(err)
	}
	if got.Description != r.Description || got.Source != r.Source || got.Body != r.Body || got.Scope != "project" || !got.Updated.Equal(s.Now()) {
		t.Errorf("got %+v", got)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "test-command.md"))
	for _, k := range []string{"name: test-command", "type: feedback", "source: session s1 turn 2", "scope: project", "updated:"} {
		if !strings.Contains(string(data), k) {
			t.Errorf("file lacks %q:\n%s", k, data)
		}
	}
	idx, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if !strings.Contains(string(idx), "[test-command](test-command.md)") {
		t.Errorf("index:\n%s", idx)
	}
	if err := s.Save(Record{Name: "test-command", Description: "other"}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("same name: %v", err)
	}
	if err := s.Save(Record{Name: "other", Description: "run tests with make check, not go test!"}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("near-identical description: %v", err)
	}
	if err := s.Save(Record{Name: "db", Description: "The database is Postgres 16", Type: TypeProject}); err != nil {
		t.Fatal(err)
	}
	r.Description = "Run tests with make check"
	if err := s.Update(r); err != nil {
		t.Fatal(err)
	}
	all, _ := s.List()
	if len(all) != 2 || all[0].Name != "db" {
		t.Errorf("list = %+v", all)
	}
	if err := s.Forget("db"); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget("db"); !errors.Is(err, ErrNotFound) {
		t.Errorf("forget twice: %v", err)
	}
	idx, _ = os.ReadFile(filepath.Join(dir, IndexFile))
	if strings.Contains(string(idx), "[db]") {
		t.Errorf("index still lists forgotten record:\n%s", idx)
	}
}

func TestSecret(t *testing.T) {
	bad := []string{
		"key is sk-ant-api03-abcdefghijklmnopqrstuv",
		"token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"AKIAIOSFODNN7EXAMPLE",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
		"-----BEGIN RSA PRIVATE KEY-----",
		"xoxb-123456789012-abcdefghij",
		"api_key=Zx9kQ2mP7vL4rT8wN3bY6cH1",
		"password: Hunter2!x",
		"DATABASE_URL=postgres://admin:s3cretpw@db:5432/app",
	}
	for _, s := range bad {
		if Secret(s) == "" {
			t.Errorf("not caught: %q", s)
		}
	}
	good := []string{
		"The project uses Go 1.26 and make check",
		"key=value pairs are parsed by settings.Load",
		"the user prefers tabs; token budget is 2000",
		"password reset flow lives in auth/reset.go",
	}
	for _, s := range good {
		if w := Secret(s); w != "" {
			t.Errorf("false positive %q: %s", s, w)
		}
	}
	s := Open(t.TempDir(), "user")
	if err := s.Save(Record{Name: "k", Description: "the key is sk-abcdefghijklmnopqrstuvwx"}); !errors.Is(err, ErrSecret) {
		t.Errorf("secret saved: %v", err)
	}
}

// Two stores over one directory (as two ouro processes would have) write at the same
// time: the directory lock serializes them, and the index lists every record.
func TestStoresOverOneDirectoryDoNotLoseWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	a, b := Open(dir, "project"), Open(dir, "project")
	var wg sync.WaitGroup
	for i := range 20 {
		for _, s := range []*Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				side := map[*Store]string{a: "a", b: "b"}[s]
				name := fmt.Sprintf("fact-%s-%d", side, i)
				// Distinct words, so no two descriptions look like duplicates.
				desc := fmt.Sprintf("note%03d%s about topic%03d%s", i, side, i, side)
				if err := s.Save(Record{Name: name, Description: desc, Type: TypeProject}); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	all, err := a.List()
	if err != nil || len(all) != 40 {
		t.Fatalf("%d records, %v", len(all), err)
	}
	index, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(index), "](fact-"); n != 40 {
		t.Errorf("the index lists %d of 40 records:\n%s", n, index)
	}
	if _, err := os.Stat(dir + ".lock"); err != nil {
		t.Errorf("no lock file beside the store: %v", err)
	}
}

// The directory lock holds across Store values (as across processes): a write waits
// while another holds the store.
func TestDirectoryLockHoldsAcrossStores(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	a, b := Open(dir, "project"), Open(dir, "project")
	unlock, err := a.lock(true)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- b.Save(Record{Name: "waits", Description: "written after the lock is released", Type: TypeProject})
	}()
	select {
	case err := <-done:
		t.Fatalf("the write went through while another store held the lock (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get("waits"); err != nil {
		t.Fatal(err)
	}
}
