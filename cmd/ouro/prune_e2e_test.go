//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// TestOldSessionsArePrunedAndSaidSo: a session nobody has written to for longer than
// cleanupPeriodDays is removed at the next start, with its checkpoints, and ouro says so;
// a repository's own settings cannot shorten the retention.
func TestOldSessionsArePrunedAndSaidSo(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "one"}, scripted.Turn{Text: "two"}, scripted.Turn{Text: "three"})
	if _, stderr, code := e.run("", "-p", "first"); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	sessions, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions after one run: %v", sessions)
	}
	old := sessions[0]
	side := strings.TrimSuffix(old, ".jsonl")
	if err := os.MkdirAll(filepath.Join(side, "checkpoints"), 0o700); err != nil {
		t.Fatal(err)
	}
	age := time.Now().Add(-10 * 24 * time.Hour)
	for _, p := range []string{old, side} {
		if err := os.Chtimes(p, age, age); err != nil {
			t.Fatal(err)
		}
	}
	stampFile := filepath.Join(e.home, ".ouro", ".sessions-pruned")
	if err := os.Chtimes(stampFile, age, age); err != nil {
		t.Fatalf("the first run recorded no prune: %v", err)
	}
	// The repository asks for one day: ignored, with a warning; 10 days is within 30.
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, ".claude", "settings.json"), []byte(`{"cleanupPeriodDays": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.run("", "-p", "second")
	if code != 0 || !strings.Contains(stderr, "cleanupPeriodDays is ignored") {
		t.Fatalf("second run: %d %s", code, stderr)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("a repository's cleanupPeriodDays removed the user's session: %v", err)
	}
	// The user's own setting of 7 days removes it (the stamp says a day has passed).
	if err := os.Chtimes(stampFile, age, age); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".claude", "settings.json"), []byte(`{"cleanupPeriodDays": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = e.run("", "-p", "third")
	if code != 0 || !strings.Contains(stderr, "removed 1 session(s) unused for 7 days (cleanupPeriodDays in "+filepath.Join(e.home, ".claude", "settings.json")) {
		t.Fatalf("third run: %d %s", code, stderr)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the old session survived")
	}
	if _, err := os.Stat(side); err == nil {
		t.Error("the old session's checkpoints survived")
	}
	left, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*.jsonl"))
	if len(left) != 2 {
		t.Errorf("the two recent sessions should stay: %v", left)
	}
}
