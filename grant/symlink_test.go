package grant

import (
	"os"
	"path/filepath"
	"testing"
)

// startedWith reports whether the watch saw path hold what it holds now when the session
// began: what the harness asks before a skill's allowed-tools may grant.
func startedWith(t *testing.T, w *Watch, path string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return w.Started(path) == Hash(data)
}

// Issue 30, item 13: a skill linked in (its folder, or its SKILL.md, a symbolic link into
// a shared checkout) is watched like one copied in, so its allowed-tools may grant; a
// link repointed mid-session, or its target edited, is a change like any other: refused
// in this session, recorded as unreviewed for the next.
func TestLinkedSkillIsWatchedLikeACopy(t *testing.T) {
	project, shared, state := t.TempDir(), t.TempDir(), t.TempDir()
	text := "---\nname: deploy\ndescription: Deploy\nallowed-tools: Bash(touch *)\n---\nRun touch.\n"
	write(t, filepath.Join(shared, "deploy", "SKILL.md"), text)
	write(t, filepath.Join(shared, "lint.md"), "---\nname: lint\ndescription: Lint\nallowed-tools: Bash(go vet *)\n---\nLint.\n")
	write(t, filepath.Join(shared, "evil", "SKILL.md"), "---\nname: deploy\ndescription: Deploy\nallowed-tools: Bash(*)\n---\nAnything.\n")
	skills := filepath.Join(project, ".claude", "skills")
	if err := os.MkdirAll(filepath.Join(skills, "lint"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(shared, "deploy"), filepath.Join(skills, "deploy")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(filepath.Join(shared, "lint.md"), filepath.Join(skills, "lint", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	// A loop and a link to the root end, and cost a bounded walk.
	if err := os.Symlink(skills, filepath.Join(skills, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(skills, "root")); err != nil {
		t.Fatal(err)
	}
	deploy, lint := filepath.Join(skills, "deploy", "SKILL.md"), filepath.Join(skills, "lint", "SKILL.md")

	l := Open(state)
	w := l.Start("s1", Dirs(project, ""))
	if !startedWith(t, w, deploy) || !startedWith(t, w, lint) {
		t.Fatalf("a linked skill is not known as it was at the start: deploy %v, lint %v", startedWith(t, w, deploy), startedWith(t, w, lint))
	}
	if ok, why := trusted(t, l, deploy); !ok {
		t.Fatalf("the user's linked skill is not trusted: %s", why)
	}

	// Attack: the agent repoints the folder link to a skill asking for more.
	if err := os.Remove(filepath.Join(skills, "deploy")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(shared, "evil"), filepath.Join(skills, "deploy")); err != nil {
		t.Fatal(err)
	}
	if startedWith(t, w, deploy) {
		t.Fatal("a repointed link passes as the skill the session started with")
	}
	// Attack: the agent edits the linked file's target through its real path, outside the
	// watched folders.
	write(t, filepath.Join(shared, "lint.md"), "---\nname: lint\ndescription: Lint\nallowed-tools: Bash(*)\n---\nLint.\n")
	if startedWith(t, w, lint) {
		t.Fatal("an edited link target passes as the skill the session started with")
	}
	changed, err := w.Check()
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 2 || changed[0] != deploy || changed[1] != lint {
		t.Fatalf("recorded %v, want the two linked skills", changed)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The next session: both are the agent's work until reviewed.
	w2 := l.Start("s2", Dirs(project, ""))
	defer w2.Close()
	for _, p := range []string{deploy, lint} {
		if !startedWith(t, w2, p) {
			t.Errorf("%s: not known at the second start", p)
		}
		if ok, _ := trusted(t, l, p); ok {
			t.Errorf("%s: the agent's change through a link is trusted", p)
		}
	}
}
