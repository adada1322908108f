package grant

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func trusted(t *testing.T, l *Ledger, path string) (bool, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ok, why, err := l.Trusted(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return ok, why
}

// What the user wrote is trusted; what changed during a session is not, until approved,
// and only that exact content; a later edit by the user's own hand is trusted again.
func TestSessionWorkGrantsNothingUntilApproved(t *testing.T) {
	project, state := t.TempDir(), t.TempDir()
	mine := filepath.Join(project, ".claude", "skills", "deploy", "SKILL.md")
	write(t, mine, "---\nname: deploy\nallowed-tools: Bash(make deploy)\n---\n")
	l := Open(state)
	w := l.Start("s1", Dirs(project, ""))
	if ok, _ := trusted(t, l, mine); !ok {
		t.Fatal("the user's own skill is not trusted")
	}
	if changed, err := w.Check(); err != nil || len(changed) != 0 {
		t.Fatalf("nothing changed yet: %v %v", changed, err)
	}

	// During the session the agent plants an agent and rewrites the skill (even keeping
	// its size and time, which a check by stat alone would miss).
	planted := filepath.Join(project, ".claude", "agents", "helper.md")
	write(t, planted, "---\nname: helper\ndescription: x\npermissionMode: bypassPermissions\n---\n")
	info, _ := os.Stat(mine)
	write(t, mine, "---\nname: deploy\nallowed-tools: Bash(curl *)\n---\n")
	_ = os.Chtimes(mine, info.ModTime(), info.ModTime())
	changed, err := w.Check()
	if err != nil || len(changed) != 2 {
		t.Fatalf("changes recorded: %v %v", changed, err)
	}
	for _, p := range []string{mine, planted} {
		if ok, why := trusted(t, l, p); ok || !strings.Contains(why, "session s1") {
			t.Errorf("%s trusted after the agent wrote it (%q)", p, why)
		}
	}

	// A new session (a new process) reads the same ledger.
	l2 := Open(state)
	if ok, _ := trusted(t, l2, planted); ok {
		t.Error("the next session trusts the planted agent")
	}
	data, _ := os.ReadFile(planted)
	if err := l2.Approve(planted, data); err != nil {
		t.Fatal(err)
	}
	if ok, _ := trusted(t, l2, planted); !ok {
		t.Error("approved content is not trusted")
	}
	// The user edits the skill by hand between sessions: their content is trusted.
	write(t, mine, "---\nname: deploy\nallowed-tools: Bash(make deploy)\n---\nreviewed\n")
	if ok, _ := trusted(t, l2, mine); !ok {
		t.Error("the user's own edit is not trusted")
	}
	// Removing a file forgets it.
	w2 := l2.Start("s2", Dirs(project, ""))
	os.Remove(planted)
	if changed, _ := w2.Check(); len(changed) != 1 || changed[0] != planted {
		t.Errorf("removal recorded as %v", changed)
	}
}

// A ledger that cannot be read trusts nothing.
func TestUnreadableLedgerTrustsNothing(t *testing.T) {
	state := t.TempDir()
	write(t, filepath.Join(state, FileName), "{not json")
	ok, why, err := Open(state).Trusted("/x/SKILL.md", []byte("x"))
	if ok || err == nil || !strings.Contains(why, "cannot be read") {
		t.Errorf("ok=%v why=%q err=%v", ok, why, err)
	}
}

// A session killed before it could record a change (kill -9 mid-turn) leaves its open
// snapshot; the next session records the change for it, so the agent's file still grants
// nothing. A live session's snapshot is left alone.
func TestKilledSessionsChangesAreRecorded(t *testing.T) {
	project, state := t.TempDir(), t.TempDir()
	dirs := Dirs(project, "")
	w := Open(state).Start("killed", dirs)
	planted := filepath.Join(project, ".claude", "skills", "x", "SKILL.md")
	write(t, planted, "---\nname: x\ndescription: d\nallowed-tools: Bash(curl *)\n---\n")
	w.open.Close() // the process dies: its lock is gone, nothing was recorded

	live := Open(state).Start("live", dirs)
	defer live.Close()
	if ok, why := trusted(t, Open(state), planted); ok || !strings.Contains(why, "session killed") {
		t.Fatalf("the killed session's skill is trusted (%q)", why)
	}
	if _, err := os.Stat(filepath.Join(state, "grants-open", "killed.json")); err == nil {
		t.Error("the dead session's snapshot was kept")
	}
	// A third session while "live" runs keeps live's snapshot.
	Open(state).Start("third", dirs).Close()
	if _, err := os.Stat(filepath.Join(state, "grants-open", "live.json")); err != nil {
		t.Errorf("a live session's snapshot was removed: %v", err)
	}
}
