//go:build unix

package memory

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadSoon is LoadInstructions with a deadline, so a hanging read fails the test.
func loadSoon(t *testing.T, cwd, repo, home string, check ReadCheck) (string, []string) {
	t.Helper()
	type res struct {
		text  string
		warns []string
	}
	ch := make(chan res, 1)
	go func() {
		text, _, warns := LoadInstructions(cwd, repo, home, check)
		ch <- res{text, warns}
	}()
	select {
	case r := <-ch:
		return r.text, r.warns
	case <-time.After(10 * time.Second):
		t.Fatal("LoadInstructions hangs")
		return "", nil
	}
}

func hasWarning(warns []string, parts ...string) bool {
	for _, w := range warns {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

func TestProjectImportsReachOnlyTheProjectAndUserMarkdown(t *testing.T) {
	home, repo, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".ssh", "id_rsa"), "SECRET-KEY")
	write(t, filepath.Join(home, ".claude", ".credentials.json"), "SECRET-CREDS")
	write(t, filepath.Join(home, ".claude", "prefs.md"), "my prefs")
	write(t, filepath.Join(home, ".ouro", "projects", "-other", "memory", "key.md"), "SECRET-OTHER-PROJECT")
	write(t, filepath.Join(elsewhere, "shadow"), "SECRET-SHADOW")
	write(t, filepath.Join(repo, "docs", "ok.md"), "project doc")
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(repo, "innocent.md"))
	os.Symlink(filepath.Join(elsewhere, "shadow"), filepath.Join(repo, "CLAUDE.local.md"))
	write(t, filepath.Join(repo, "CLAUDE.md"), strings.Join([]string{
		"@~/.ssh/id_rsa", "@" + filepath.Join(elsewhere, "shadow"), "@../" + filepath.Base(elsewhere) + "/shadow",
		"@/dev/zero", "@fifo", "@innocent.md", "@~/.claude/.credentials.json", "@~/.claude/prefs.md", "@docs/ok.md", "@docs", "@~/.ouro/projects/-other/memory/key.md",
	}, "\n"))

	text, warns := loadSoon(t, repo, repo, home, nil)
	for _, want := range []string{"project doc", "my prefs"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "SECRET") {
		t.Fatalf("a secret reached the instructions:\n%s", text)
	}
	for _, w := range [][]string{
		{"import @~/.ssh/id_rsa skipped", "outside the project"},
		{"import @" + filepath.Join(elsewhere, "shadow") + " skipped"},
		{"/shadow skipped"},
		{"import @/dev/zero skipped", "a character device"},
		{"import @fifo skipped", "a named pipe, not a regular file"},
		{"import @innocent.md skipped", filepath.Join(home, ".ssh", "id_rsa")},
		{"import @~/.claude/.credentials.json skipped"},
		{"import @~/.ouro/projects/-other/memory/key.md skipped"},
		{filepath.Join(repo, "CLAUDE.local.md") + " skipped"},
	} {
		if !hasWarning(warns, w...) {
			t.Errorf("no warning with %q in:\n%s", w, strings.Join(warns, "\n"))
		}
	}
	if hasWarning(warns, "@docs ") || hasWarning(warns, "@docs/ok.md") {
		t.Errorf("a folder or an allowed file was warned about:\n%s", strings.Join(warns, "\n"))
	}
}

func TestImportsFollowTheReadCheck(t *testing.T) {
	home, repo, notes := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(notes, "style.md"), "team style")
	write(t, filepath.Join(notes, "private.md"), "PRIVATE")
	write(t, filepath.Join(repo, ".env"), "SECRET=1")
	write(t, filepath.Join(repo, "CLAUDE.md"), "@"+filepath.Join(notes, "style.md")+"\n@"+filepath.Join(notes, "private.md")+"\n@.env")
	check := func(p string) (Access, string) {
		switch filepath.Base(p) {
		case "style.md":
			return AccessAllow, ""
		case ".env":
			return AccessDeny, "a deny rule forbids reading " + p
		}
		return AccessAsk, "needs approval; add Read(" + p + ")"
	}
	text, warns := loadSoon(t, repo, repo, home, check)
	if !strings.Contains(text, "team style") || strings.Contains(text, "PRIVATE") || strings.Contains(text, "SECRET") {
		t.Fatalf("text:\n%s", text)
	}
	if !hasWarning(warns, "@.env skipped", "deny rule") || !hasWarning(warns, "private.md skipped", "add Read(") {
		t.Errorf("warnings:\n%s", strings.Join(warns, "\n"))
	}
}

func TestInstructionReadsAreBoundedWhileReading(t *testing.T) {
	repo := t.TempDir()
	big := strings.Repeat("é", MaxInstructionFileBytes) // 2 bytes each: twice the bound
	var lines []string
	for i := range 8 {
		name := filepath.Join("big", string(rune('a'+i))+".md")
		write(t, filepath.Join(repo, name), big)
		lines = append(lines, "@"+name)
	}
	write(t, filepath.Join(repo, "CLAUDE.md"), strings.Join(lines, "\n"))
	text, warns := loadSoon(t, repo, repo, "", nil)
	if len(text) > MaxInstructionBytes+200 {
		t.Errorf("text is %d bytes", len(text))
	}
	if !hasWarning(warns, "a.md: only the first") || !hasWarning(warns, "exceed 1 MiB", "were not read") {
		t.Errorf("warnings:\n%s", strings.Join(warns, "\n"))
	}
	if strings.Contains(text, "\ufffd") {
		t.Errorf("a character was cut in half")
	}
}

// The user's own instruction files may import what the user chooses, outside the project.
func TestUserFilesMayImportOutsideTheProject(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "notes", "mine.txt"), "user notes")
	write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "@~/notes/mine.txt\n@/dev/zero")
	text, warns := loadSoon(t, repo, repo, home, func(string) (Access, string) { return AccessAsk, "ask" })
	if !strings.Contains(text, "user notes") {
		t.Fatalf("text:\n%s\nwarnings: %v", text, warns)
	}
	if !hasWarning(warns, "@/dev/zero skipped", "a character device") {
		t.Errorf("warnings: %v", warns)
	}
}

// A dotfiles repository at the home folder does not make the home folder the project.
func TestHomeRepositoryIsNotTheProject(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	write(t, filepath.Join(home, ".ssh", "id_rsa"), "SECRET-KEY")
	write(t, filepath.Join(proj, "CLAUDE.md"), "@~/.ssh/id_rsa\n@../.ssh/id_rsa")
	write(t, filepath.Join(home, "CLAUDE.md"), "home repo rules")
	text, warns := loadSoon(t, proj, home, home, nil)
	if !strings.Contains(text, "home repo rules") {
		t.Errorf("the repository's own CLAUDE.md was not read:\n%s\n%v", text, warns)
	}
	if strings.Contains(text, "SECRET") {
		t.Fatalf("the key reached the instructions:\n%s", text)
	}
	if !hasWarning(warns, "@~/.ssh/id_rsa skipped") || !hasWarning(warns, "@../.ssh/id_rsa skipped") {
		t.Errorf("warnings: %v", warns)
	}
}

// A memory record that is a pipe or a device is left out of List, not waited on.
func TestStoreListSkipsPipesAndDevices(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	s := Open(dir, "project")
	if err := s.Save(Record{Name: "fine", Description: "a fact", Type: TypeProject, Body: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.md"))
	done := make(chan []Record, 1)
	go func() { rs, _ := s.List(); done <- rs }()
	select {
	case rs := <-done:
		if len(rs) != 1 || rs[0].Name != "fine" {
			t.Errorf("records = %+v", rs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("List hangs")
	}
	if _, err := s.Get("zero"); err == nil {
		t.Error("Get read /dev/zero")
	}
}
