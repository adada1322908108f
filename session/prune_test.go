package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// oldSession writes a transcript with a side folder (checkpoints inside) last touched at t.
func oldSession(t *testing.T, dir, id string, at time.Time) string {
	t.Helper()
	side := filepath.Join(dir, id, "checkpoints")
	if err := os.MkdirAll(side, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(side, "blob"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"session"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(dir, id), side} {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestPruneRemovesOldSessionsAndKeepsTheRest(t *testing.T) {
	home := t.TempDir()
	dir := SessionsDir(ProjectDir(home, "/w/a"))
	now := time.Now()
	old := oldSession(t, dir, "old", now.Add(-40*24*time.Hour))
	fresh := oldSession(t, dir, "fresh", now.Add(-time.Hour))
	inUse := oldSession(t, dir, "inuse", now.Add(-40*24*time.Hour))
	w, err := OpenAppend(inUse) // a session somebody is writing, however old
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer w.Close()
	_ = os.Chtimes(inUse, now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour))
	orphan := filepath.Join(dir, "orphan")
	if err := os.MkdirAll(orphan, 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(orphan, now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour))
	// A transcript name that is a link to a file elsewhere is never followed or removed.
	outside := filepath.Join(t.TempDir(), "precious.jsonl")
	if err := os.WriteFile(outside, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(outside, now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour))

	p, err := Prune(home, now.Add(-30*24*time.Hour))
	if err != nil || len(p.Errors) > 0 {
		t.Fatalf("prune: %v %v", err, p.Errors)
	}
	if p.Sessions != 1 || p.Orphans != 1 {
		t.Errorf("pruned %+v, want 1 session and 1 orphan", p)
	}
	if exists(old) || exists(filepath.Join(dir, "old")) {
		t.Error("the old session or its side folder survived")
	}
	for _, keep := range []string{fresh, filepath.Join(dir, "fresh", "checkpoints", "blob"), inUse, filepath.Join(dir, "inuse"), link, outside} {
		if !exists(keep) {
			t.Errorf("%s was removed", keep)
		}
	}
	if exists(orphan) {
		t.Error("an old side folder without a transcript survived")
	}
	if PruneDue(home, time.Now()) {
		t.Error("pruning is due again right after a prune")
	}
	if !PruneDue(home, time.Now().Add(25*time.Hour)) {
		t.Error("pruning is not due a day later")
	}
}

func TestPruneWithoutProjects(t *testing.T) {
	home := filepath.Join(t.TempDir(), "fresh-home")
	if _, err := Prune(home, time.Now()); err != nil {
		t.Fatal(err)
	}
	if PruneDue(home, time.Now()) {
		t.Error("no stamp written")
	}
}

// A cutoff in the future (a retention period that overflowed) removes nothing.
func TestPruneRefusesAFutureCutoff(t *testing.T) {
	home := t.TempDir()
	dir := SessionsDir(ProjectDir(home, "/w/a"))
	s := oldSession(t, dir, "recent", time.Now().Add(-time.Hour))
	p, err := Prune(home, time.Now().Add(24*time.Hour))
	if err == nil || p.Sessions != 0 || !exists(s) {
		t.Errorf("a future cutoff: %+v, %v; session kept: %v", p, err, exists(s))
	}
}
