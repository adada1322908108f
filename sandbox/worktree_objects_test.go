package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/settings"
)

// gitRepoWithWorktree makes a repository with one commit (file a.txt) and a linked
// worktree "w"; it returns the main checkout, the worktree and the worktree's git dir.
func gitRepoWithWorktree(t *testing.T) (main, wt, wtGit string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	main = realTemp(t)
	wt = filepath.Join(realTemp(t), "w")
	gitIn(t, main, nil, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(main, "a.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, main, nil, "add", "a.txt")
	gitIn(t, main, nil, "-c", "user.name=u", "-c", "user.email=u@example.com", "commit", "-q", "-m", "one")
	gitIn(t, main, nil, "worktree", "add", "-q", "-b", "ouro/w", wt)
	return main, wt, filepath.Join(main, ".git", "worktrees", "w")
}

func gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestWithWorktreeObjectsPolicy(t *testing.T) {
	main := realTemp(t)
	git := filepath.Join(main, ".git")
	tree(t, main, ".git/HEAD", ".git/objects/", ".git/worktrees/a/HEAD")
	pol := FromSettings(settings.Sandbox{}, []string{realTemp(t)}, "", "").WithGitDir(git).WithWorktreeObjects(git, filepath.Join(git, "worktrees", "a"))
	if !slices.Contains(pol.ReadOnly, filepath.Join(git, "objects")) {
		t.Errorf("the shared objects are not read-only: %v", pol.ReadOnly)
	}
	private := filepath.Join(git, "worktrees", "a", "ouro-objects")
	if pol.Objects == nil || pol.Objects.Private != private || pol.Objects.Shared != filepath.Join(git, "objects") {
		t.Fatalf("objects %+v", pol.Objects)
	}
	if st, err := os.Stat(filepath.Join(private, "pack")); err != nil || !st.IsDir() {
		t.Errorf("the private folder was not made: %v", err)
	}
	env := pol.Objects.env()
	if env["GIT_OBJECT_DIRECTORY"] != private || env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] != filepath.Join(git, "objects") {
		t.Errorf("env %v", env)
	}
	// A worktree git dir outside the repository's worktrees/ (a lying .git file): the
	// shared objects stay read-only, and no private folder is made there.
	other := realTemp(t)
	pol = FromSettings(settings.Sandbox{}, []string{realTemp(t)}, "", "").WithGitDir(git).WithWorktreeObjects(git, other)
	if pol.Objects != nil || !slices.Contains(pol.ReadOnly, filepath.Join(git, "objects")) {
		t.Errorf("objects %+v, read-only %v", pol.Objects, pol.ReadOnly)
	}
	if _, err := os.Stat(filepath.Join(other, "ouro-objects")); err == nil {
		t.Error("a private folder was made outside the repository")
	}
}

// Objects written to the private folder reach the shared store; a lying one (a file
// named after an object of the user's history, holding other content) does not replace
// that object, and lands, if at all, under its true hash.
func TestMigrateObjectsRecomputesHashes(t *testing.T) {
	main, wt, wtGit := gitRepoWithWorktree(t)
	git := filepath.Join(main, ".git")
	pol := Policy{}.WithWorktreeObjects(git, wtGit)
	if pol.Objects == nil {
		t.Fatal("no private object folder")
	}
	var env []string
	for k, v := range pol.Objects.env() {
		env = append(env, k+"="+v)
	}
	// An ordinary commit in the worktree, with the sandbox's environment.
	if err := os.WriteFile(filepath.Join(wt, "b.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, wt, env, "add", "b.txt")
	gitIn(t, wt, env, "-c", "user.name=u", "-c", "user.email=u@example.com", "commit", "-q", "-m", "two")
	head := gitIn(t, wt, env, "rev-parse", "HEAD")
	if _, err := os.Stat(filepath.Join(git, "objects", head[:2], head[2:])); err == nil {
		t.Fatal("the commit was written to the shared store directly")
	}
	// A lying object: content that is not what its file name says. The name is one
	// the shared store lacks (the shared folder itself is read-only in the sandbox).
	blob := gitIn(t, main, nil, "rev-parse", "HEAD:a.txt")
	evilBlob := writeLoose(t, main, pol.Objects.Private, "evil content\n")
	lie, err := os.ReadFile(filepath.Join(pol.Objects.Private, evilBlob[:2], evilBlob[2:]))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(pol.Objects.Private, evilBlob[:2], evilBlob[2:]))
	fake := strings.Repeat("ab", 20)
	os.MkdirAll(filepath.Join(pol.Objects.Private, fake[:2]), 0o755)
	if err := os.WriteFile(filepath.Join(pol.Objects.Private, fake[:2], fake[2:]), lie, 0o444); err != nil {
		t.Fatal(err)
	}

	note := pol.MigrateObjects()
	if !strings.Contains(note, fake) {
		t.Errorf("the lying object is not reported: %q", note)
	}
	// From the main checkout, without the sandbox's environment: the worktree's commit
	// and its tree are there, the user's blob unchanged, the lie absent under its name.
	if got := gitIn(t, main, nil, "log", "--format=%s", "ouro/w"); got != "two\none" {
		t.Errorf("log of ouro/w from main: %q", got)
	}
	if got := gitIn(t, main, nil, "cat-file", "-p", blob); got != "original" {
		t.Errorf("the user's blob reads %q", got)
	}
	if out, err := exec.Command("git", "-C", main, "cat-file", "-e", fake).CombinedOutput(); err == nil {
		t.Errorf("the lying object was copied under its lying name: %s", out)
	}
	if got := gitIn(t, main, nil, "cat-file", "-p", evilBlob); got != "evil content" {
		t.Errorf("the lying object's content under its true hash: %q", got)
	}
	// The private folder is empty again, and a second migration has nothing to do.
	if files := privateFiles(t, pol.Objects); len(files) != 0 {
		t.Errorf("left in the private folder: %v", files)
	}
	if note := pol.MigrateObjects(); note != "" {
		t.Errorf("second migration: %q", note)
	}
}

// writeLoose writes a blob as a loose object into the object folder dir, with git run
// in the repository repo.
func writeLoose(t *testing.T, repo, dir, content string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Env = append(os.Environ(), "GIT_OBJECT_DIRECTORY="+dir)
	cmd.Dir = repo
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// A private folder a command replaced with a symbolic link (to the shared store, or
// anywhere) is not read: it is made again, empty, and the migration says so.
func TestMigrateObjectsPrivateReplacedBySymlink(t *testing.T) {
	main, _, wtGit := gitRepoWithWorktree(t)
	git := filepath.Join(main, ".git")
	pol := Policy{}.WithWorktreeObjects(git, wtGit)
	if pol.Objects == nil {
		t.Fatal("no private object folder")
	}
	elsewhere := realTemp(t)
	writeLoose(t, main, elsewhere, "from elsewhere\n")
	if err := os.RemoveAll(pol.Objects.Private); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, pol.Objects.Private); err != nil {
		t.Fatal(err)
	}
	if note := pol.MigrateObjects(); !strings.Contains(note, "was not a folder") {
		t.Errorf("note %q", note)
	}
	if st, err := os.Lstat(pol.Objects.Private); err != nil || !st.IsDir() {
		t.Errorf("the private folder was not made again: %v", err)
	}
	if files, _ := os.ReadDir(elsewhere); len(files) == 0 {
		t.Error("the link's target was emptied")
	}
	if out, err := exec.Command("git", "-C", main, "cat-file", "-e", strings.TrimSpace(gitHash(t, "from elsewhere\n"))).CombinedOutput(); err == nil {
		t.Errorf("an object behind the link was copied: %s", out)
	}
}

func gitHash(t *testing.T, content string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A staging folder left by a migration that was killed midway is removed by a later one
// once it cannot be running any more; a recent one is left alone.
func TestMigrateObjectsDropsStaleStaging(t *testing.T) {
	main, _, wtGit := gitRepoWithWorktree(t)
	git := filepath.Join(main, ".git")
	pol := Policy{}.WithWorktreeObjects(git, wtGit)
	stale, recent := filepath.Join(git, "objects", stagingPrefix+"1"), filepath.Join(git, "objects", stagingPrefix+"2")
	tree(t, git, "objects/"+stagingPrefix+"1/ab/x", "objects/"+stagingPrefix+"2/ab/x")
	old := time.Now().Add(-3 * migrateTimeout)
	os.Chtimes(stale, old, old)
	writeLoose(t, main, pol.Objects.Private, "new\n")
	if note := pol.MigrateObjects(); note != "" {
		t.Errorf("note %q", note)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale staging folder is still there")
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a recent staging folder was removed: %v", err)
	}
}

// An unreadable object (not zlib data) fails the pack; the others still get copied one
// by one, and it stays in the private folder, reported, for a later try.
func TestMigrateObjectsUnreadableObject(t *testing.T) {
	main, _, wtGit := gitRepoWithWorktree(t)
	git := filepath.Join(main, ".git")
	pol := Policy{}.WithWorktreeObjects(git, wtGit)
	good := writeLoose(t, main, pol.Objects.Private, "good\n")
	junk := strings.Repeat("cd", 20)
	tree(t, pol.Objects.Private, junk[:2]+"/"+junk[2:])
	note := pol.MigrateObjects()
	if !strings.Contains(note, junk) || strings.Contains(note, good) {
		t.Errorf("note %q", note)
	}
	if got := gitIn(t, main, nil, "cat-file", "-p", good); got != "good" {
		t.Errorf("the readable object reads %q from main", got)
	}
	if files := privateFiles(t, pol.Objects); !slices.Equal(files, []string{filepath.Join(junk[:2], junk[2:])}) {
		t.Errorf("left in the private folder: %v", files)
	}
}

func privateFiles(t *testing.T, o *WorktreeObjects) []string {
	t.Helper()
	root, err := o.openPrivate()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	return objectFiles(root)
}

// A fan-out folder of the private folder swapped for a link into the shared store (say
// while a migration runs, between listing and removing) leads nothing there: the user's
// loose object is neither listed nor removed.
func TestMigrateObjectsFanoutLinkToSharedStore(t *testing.T) {
	main, _, wtGit := gitRepoWithWorktree(t)
	git := filepath.Join(main, ".git")
	pol := Policy{}.WithWorktreeObjects(git, wtGit)
	blob := gitIn(t, main, nil, "rev-parse", "HEAD:a.txt")
	obj := filepath.Join(git, "objects", blob[:2], blob[2:])
	if err := os.Symlink(filepath.Join(git, "objects", blob[:2]), filepath.Join(pol.Objects.Private, blob[:2])); err != nil {
		t.Fatal(err)
	}
	if files := privateFiles(t, pol.Objects); len(files) != 0 {
		t.Errorf("listed through the link: %v", files)
	}
	pol.MigrateObjects()
	root, err := pol.Objects.openPrivate()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	removeAll(root, []string{filepath.Join(blob[:2], blob[2:])}) // as if listed before the swap
	if err := copyOut(root, filepath.Join(blob[:2], blob[2:]), filepath.Join(t.TempDir(), "x")); err == nil {
		t.Error("copied through the link")
	}
	if _, err := os.Stat(obj); err != nil {
		t.Errorf("the user's loose object is gone: %v", err)
	}
}
