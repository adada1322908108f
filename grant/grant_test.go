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

// Settings files are watched like skills: the agent's change is unreviewed. A change ouro
// makes on the person's word (Wrote: an "always" answer saved as a rule) keeps the file's
// standing: the person's file stays trusted, the agent's stays unreviewed; and a file the
// agent changed in the same turn is left for the turn's check to record.
func TestSettingsFilesAndOurosOwnWrites(t *testing.T) {
	project, home, state := t.TempDir(), t.TempDir(), t.TempDir()
	files := SettingsFiles(project, home, filepath.Join(home, ".ouro"))
	local := filepath.Join(project, ".ouro", "settings.local.json")
	shared := filepath.Join(project, ".claude", "settings.json")
	for _, want := range []string{local, shared, filepath.Join(project, ".claude", "settings.local.json"),
		filepath.Join(home, ".ouro", "settings.json"), filepath.Join(home, ".claude", "settings.json")} {
		if !strings.Contains(strings.Join(files, "\n"), want) {
			t.Fatalf("%s is not watched: %v", want, files)
		}
	}
	write(t, local, `{"permissions":{"allow":["Bash(ls)"]}}`)
	l := Open(state)
	w := l.Start("s1", files)

	// The person answers "always": ouro rewrites their own file.
	before, _ := os.ReadFile(local)
	write(t, local, `{"permissions":{"allow":["Bash(ls)","Bash(make)"]}}`)
	after, _ := os.ReadFile(local)
	if err := w.Wrote(local, before, after); err != nil {
		t.Fatal(err)
	}
	if changed, err := w.Check(); err != nil || len(changed) != 0 {
		t.Fatalf("ouro's own write was taken for the agent's: %v %v", changed, err)
	}
	if ok, why := trusted(t, l, local); !ok {
		t.Fatalf("the person's file is no longer trusted: %s", why)
	}

	// The agent writes the shared settings; then the person answers "always" into it in
	// the same turn: the turn's check records the whole as unreviewed.
	write(t, shared, `{"permissions":{"allow":["Bash(curl *)"]}}`)
	before, _ = os.ReadFile(shared)
	write(t, shared, `{"permissions":{"allow":["Bash(curl *)","Bash(make)"]}}`)
	after, _ = os.ReadFile(shared)
	if err := w.Wrote(shared, before, after); err != nil {
		t.Fatal(err)
	}
	if changed, err := w.Check(); err != nil || len(changed) != 1 || changed[0] != shared {
		t.Fatalf("the agent's write was not recorded: %v %v", changed, err)
	}
	if ok, _ := trusted(t, l, shared); ok {
		t.Fatal("the agent's settings are trusted")
	}
	// A later "always" into the agent's file keeps it unreviewed.
	before = after
	write(t, shared, `{"permissions":{"allow":["Bash(curl *)","Bash(make)","Bash(go vet)"]}}`)
	after, _ = os.ReadFile(shared)
	if err := w.Wrote(shared, before, after); err != nil {
		t.Fatal(err)
	}
	if ok, _ := trusted(t, l, shared); ok {
		t.Fatal("ouro's write laundered the agent's settings")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A file recorded through a linked folder is found when asked about through the real one
// (a home folder that is a symbolic link), and the other way round.
func TestLedgerKeysResolveLinkedFolders(t *testing.T) {
	real, state := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	l := Open(state)
	w := l.Start("s1", SettingsFiles("", link, ""))
	write(t, filepath.Join(link, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(curl *)"]}}`)
	if _, err := w.Check(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := trusted(t, l, filepath.Join(real, ".claude", "settings.json")); ok {
		t.Fatal("the agent's file, read through the real folder, is trusted")
	}
}
