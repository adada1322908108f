package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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
