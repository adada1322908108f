package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// git runs git in dir with a clean configuration; the test is skipped without git.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repoWithGitlink makes a repository with one file and a submodule entry at "vendor/lib".
func repoWithGitlink(t *testing.T, initArgs ...string) (dir, head string) {
	dir = t.TempDir()
	git(t, dir, append([]string{"init", "-q"}, initArgs...)...)
	os.MkdirAll(filepath.Join(dir, "deep", "er"), 0o755)
	os.WriteFile(filepath.Join(dir, "deep", "er", "a-long-file-name.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "one")
	head = git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",vendor/lib")
	return dir, head
}

// The index parser finds submodule entries in every index version git writes, and in a
// SHA-256 repository.
func TestGitlinksInEveryIndexVersion(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		dir, _ := repoWithGitlink(t)
		git(t, dir, "update-index", "--index-version", v)
		if v == "3" {
			git(t, dir, "update-index", "--skip-worktree", "b.txt") // an extended flag
		}
		links, err := Gitlinks(filepath.Join(dir, ".git", "index"), hashLenOf(filepath.Join(dir, ".git")))
		if err != nil || len(links) != 1 || !links["vendor/lib"] {
			t.Errorf("index version %s: %v, %v", v, links, err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", "--object-format=sha256", t.TempDir()).CombinedOutput(); err == nil {
		dir, _ := repoWithGitlink(t, "--object-format=sha256")
		links, err := Gitlinks(filepath.Join(dir, ".git", "index"), hashLenOf(filepath.Join(dir, ".git")))
		if err != nil || !links["vendor/lib"] || len(links) != 1 {
			t.Errorf("sha256: %v, %v", links, err)
		}
	} else {
		t.Logf("no sha256 repositories here: %s", out)
	}
	if links, err := Gitlinks(filepath.Join(t.TempDir(), "index"), 20); err != nil || len(links) != 0 {
		t.Errorf("a missing index: %v, %v", links, err)
	}
	for _, bad := range [][]byte{nil, []byte("DIRC"), []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x01"), append([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05"), make([]byte, 30)...)} {
		if _, err := parseGitlinks(bad, 20); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A submodule's .git stays read-only in the sandbox policy, wherever it points.
func TestPolicyKeepsSubmoduleGitReadOnly(t *testing.T) {
	dir, _ := repoWithGitlink(t)
	os.MkdirAll(filepath.Join(dir, "vendor", "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "vendor", "lib", ".git"), []byte("gitdir: ../../.git/modules/lib\n"), 0o644)
	p := FromSettings(settings.Sandbox{}, []string{dir}, "", "")
	if p.Writable(filepath.Join(dir, "vendor", "lib", ".git")) || !p.Writable(filepath.Join(dir, "vendor", "lib", "x.go")) {
		t.Errorf("policy: %+v", p.ReadOnly)
	}
	if !slices.Contains(p.ReadOnly, realPath(filepath.Join(dir, "vendor", "lib", ".git"))) {
		t.Errorf("read-only paths lack the submodule's .git: %v", p.ReadOnly)
	}
}

// A command that adds a submodule entry to the index gets the index put back; one that
// only adds files keeps its change.
func TestIndexGuardTakesBackNewGitlinks(t *testing.T) {
	dir, head := repoWithGitlink(t)
	p := FromSettings(settings.Sandbox{}, []string{dir}, "", "")

	g := p.GuardIndexes()
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte("c\n"), 0o644)
	git(t, dir, "add", "c.txt")
	if note := g.Restore(); note != "" {
		t.Fatalf("an ordinary git add was undone: %s", note)
	}
	if !strings.Contains(git(t, dir, "ls-files"), "c.txt") {
		t.Fatal("c.txt left the index")
	}

	g = p.GuardIndexes()
	os.MkdirAll(filepath.Join(dir, "evil"), 0o755)
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",evil")
	note := g.Restore()
	if !strings.Contains(note, "new submodule entries: evil") || !strings.Contains(note, "put back") {
		t.Fatalf("note = %q", note)
	}
	staged := git(t, dir, "ls-files", "-s")
	if strings.Contains(staged, "\tevil") || !strings.Contains(staged, "\tvendor/lib") || !strings.Contains(staged, "c.txt") {
		t.Errorf("index after restore:\n%s", staged)
	}
}
