package trust

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAcceptAndInheritance(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(home, "src", "repo")
	if ok, _, err := Trusted(home, repo); ok || err != nil {
		t.Fatalf("a new folder is trusted: %v %v", ok, err)
	}
	if err := Accept(home, repo); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{repo, filepath.Join(repo, "sub", "dir")} {
		if ok, by, err := Trusted(home, d); !ok || err != nil {
			t.Errorf("%s: not trusted after Accept (%q, %v)", d, by, err)
		}
	}
	if ok, _, _ := Trusted(home, filepath.Join(home, "src", "repo2")); ok {
		t.Error("a sibling folder is trusted")
	}
	// A yes in the home folder covers only the home folder, not every clone inside it.
	if err := Accept(home, home); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := Trusted(home, home); !ok {
		t.Error("the home folder itself is not trusted after Accept")
	}
	if ok, _, _ := Trusted(home, filepath.Join(home, "Downloads", "evil")); ok {
		t.Error("trusting the home folder trusted a folder inside it")
	}
}

// Claude Code's own answers count; other shapes of project entries are no answer, and a
// broken file trusts nothing and says why.
func TestClaudeCodeAnswersAndBrokenFiles(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude.json"), `{"projects": {"/w/a": {"hasTrustDialogAccepted": true}, "/w/b": {"hasTrustDialogAccepted": "yes"}, "/w/c": 7, "rel": {"hasTrustDialogAccepted": true}}}`)
	if ok, by, err := Trusted(home, "/w/a/x"); !ok || err != nil {
		t.Errorf("/w/a/x: %v %q %v", ok, by, err)
	}
	for _, d := range []string{"/w/b", "/w/c", "/w", "rel"} {
		if ok, _, _ := Trusted(home, d); ok {
			t.Errorf("%s is trusted", d)
		}
	}
	write(t, filepath.Join(home, ".ouro.json"), `{"projects": [`)
	ok, _, err := Trusted(home, "/w/a")
	if !ok || err == nil {
		t.Errorf("a broken ~/.ouro.json: ok=%v err=%v (want Claude Code's answer to stand, and the error)", ok, err)
	}
	if err := Accept(home, "/w/z"); err == nil {
		t.Error("Accept rewrote a file it could not read")
	}
}

// Two processes (here goroutines with their own reads) accepting at once both land.
func TestConcurrentAccepts(t *testing.T) {
	home := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := Accept(home, filepath.Join("/w", string(rune('a'+i)))); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	for i := 0; i < 16; i++ {
		if ok, _, _ := Trusted(home, filepath.Join("/w", string(rune('a'+i)))); !ok {
			t.Errorf("accept %d was lost", i)
		}
	}
}

// A home folder reached through a symbolic link (HOME=/home/u, /home a link elsewhere):
// the folder ouro starts in is resolved, so the yes is kept under the resolved name, and
// that name too must not extend to every folder inside the home folder.
func TestHomeBehindSymlinkIsStillNoBlanket(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real-home")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	if err := os.Symlink(real, home); err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := Accept(home, resolved); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := Trusted(home, resolved); !ok {
		t.Error("the home folder itself is not trusted after Accept")
	}
	if ok, by, _ := Trusted(home, filepath.Join(resolved, "Downloads", "evil")); ok {
		t.Errorf("trusting the home folder (by its resolved name) trusted a folder inside it: %s", by)
	}
}
