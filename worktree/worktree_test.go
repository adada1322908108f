package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// gitT runs git for a test's setup (with an identity, outside the code under test).
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// repo makes a repository with one commit and returns its real path.
func repo(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	gitT(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "README"), "hello\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-qm", "init")
	return dir
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCreateSummaryRemoveUnchanged(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	m := New(root, Options{})
	w, err := m.Create(ctx, "feature-a")
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != filepath.Join(root, ".ouro", "worktrees", "feature-a") || w.Branch != "ouro/feature-a" || w.BaseRef != "main" {
		t.Fatalf("worktree = %+v", w)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "README")); err != nil {
		t.Fatal("the worktree has no checkout:", err)
	}
	// The main checkout does not see the worktrees as untracked files.
	if st := gitT(t, root, "status", "--porcelain"); st != "" {
		t.Fatalf("main checkout status = %q", st)
	}
	s, err := m.Summary(ctx, "feature-a")
	if err != nil || s.Changed() || !strings.Contains(s.String(), "no changes") {
		t.Fatalf("summary = %+v, %v", s, err)
	}
	removed, err := m.RemoveIfUnchanged(ctx, "feature-a")
	if err != nil || !removed {
		t.Fatalf("RemoveIfUnchanged = %v, %v", removed, err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Fatal("folder still there")
	}
	if out := gitT(t, root, "branch", "--list", "ouro/*"); out != "" {
		t.Fatalf("branch left: %q", out)
	}
	if _, err := m.Get(ctx, "feature-a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after removal: %v", err)
	}
}

func TestSummaryAndRefusedRemoval(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	m := New(root, Options{})
	w, err := m.Create(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.go"), "package a\n")
	gitT(t, w.Path, "add", "a.go")
	gitT(t, w.Path, "commit", "-qm", "add a.go")
	write(t, filepath.Join(w.Path, "README"), "changed\n")
	write(t, filepath.Join(w.Path, "notes.txt"), "untracked\n")

	s, err := m.Summary(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Commits) != 1 || !strings.HasSuffix(s.Commits[0], " add a.go") || !strings.Contains(s.Diffstat, "a.go") || len(s.Dirty) != 2 {
		t.Fatalf("summary = %+v", s)
	}
	if removed, err := m.RemoveIfUnchanged(ctx, "work"); removed || err != nil {
		t.Fatalf("a changed worktree was removed: %v %v", removed, err)
	}
	err = m.Remove(ctx, "work", false)
	var loss *LossError
	if !errors.As(err, &loss) {
		t.Fatalf("Remove = %v, want a LossError", err)
	}
	msg := err.Error()
	for _, want := range []string{"README", "notes.txt", "add a.go", "discard_changes"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not name %q", msg, want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Path, "notes.txt")); err != nil {
		t.Fatal("the refusal touched the files:", err)
	}

	// Once the commit is merged and the files are committed or gone, nothing is lost.
	os.Remove(filepath.Join(w.Path, "notes.txt"))
	gitT(t, w.Path, "checkout", "--", "README")
	gitT(t, root, "merge", "-q", "--ff-only", "ouro/work")
	if err := m.Remove(ctx, "work", false); err != nil {
		t.Fatalf("Remove of a merged worktree: %v", err)
	}
}

func TestDiscardRemovesEverything(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	m := New(root, Options{})
	w, _ := m.Create(ctx, "x")
	write(t, filepath.Join(w.Path, "b"), "b\n")
	gitT(t, w.Path, "add", "b")
	gitT(t, w.Path, "commit", "-qm", "b")
	write(t, filepath.Join(w.Path, "c"), "c\n")
	if err := m.Remove(ctx, "x", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Fatal("folder still there")
	}
	if out := gitT(t, root, "worktree", "list"); strings.Contains(out, "/x") {
		t.Fatalf("still registered: %s", out)
	}
}

func TestHostileNames(t *testing.T) {
	root := repo(t)
	m := New(root, Options{})
	for _, name := range []string{"", "../x", "a/../../x", "-b", "a/-b", ".git", "a/.git", strings.Repeat("a", 65),
		"naïve", "a b", "a\nb", "a/", "/a", "a//b", "x.lock", "a..b", "~x", "a:b", "HEAD@{1}", ".", ".."} {
		if _, err := m.Create(context.Background(), name); err == nil || !strings.Contains(err.Error(), "invalid worktree name") {
			t.Errorf("Create(%q) = %v, want a name error", name, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(root, ".ouro", "worktrees")); len(ents) > 0 {
		names := []string{}
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("hostile names left %v", names)
	}
	for _, ok := range []string{"a", "A-1.b_c", "team/alice", strings.Repeat("b", 64)} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v", ok, err)
		}
	}
}

func TestNestedNamesAndExisting(t *testing.T) {
	ctx := context.Background()
	m := New(repo(t), Options{})
	if _, err := m.Create(ctx, "team/alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, "team/alice"); !errors.Is(err, ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	if _, err := m.Create(ctx, "team"); err == nil {
		t.Fatal("a name nesting with another was accepted")
	}
	if err := m.Remove(ctx, "team/alice", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(m.dir, "team")); !os.IsNotExist(err) {
		t.Fatal("empty parent folder left")
	}
}

func TestNotARepoAndNoCommits(t *testing.T) {
	ctx := context.Background()
	_, err := New(t.TempDir(), Options{}).Create(ctx, "a")
	if err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Fatalf("outside a repo: %v", err)
	}
	empty := t.TempDir()
	gitT(t, empty, "init", "-q")
	_, err = New(empty, Options{}).Create(ctx, "a")
	if err == nil || !strings.Contains(err.Error(), "no commits yet") {
		t.Fatalf("no commits: %v", err)
	}
}

func TestBranchAlreadyExists(t *testing.T) {
	root := repo(t)
	gitT(t, root, "branch", "ouro/taken")
	_, err := New(root, Options{}).Create(context.Background(), "taken")
	if err == nil || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), "git branch -D ouro/taken") {
		t.Fatalf("Create = %v", err)
	}
	if out := gitT(t, root, "worktree", "list"); strings.Count(out, "\n") != 1 {
		t.Fatalf("a worktree was made: %s", out)
	}
}

func TestWorktreeReplacedBySymlink(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	m := New(root, Options{})
	w, _ := m.Create(ctx, "s")
	victim := t.TempDir()
	write(t, filepath.Join(victim, "precious"), "keep\n")
	if err := os.RemoveAll(w.Path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, w.Path); err != nil {
		t.Fatal(err)
	}
	for _, discard := range []bool{false, true} {
		err := m.Remove(ctx, "s", discard)
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("Remove(discard=%v) = %v", discard, err)
		}
	}
	if _, err := m.Summary(ctx, "s"); err == nil {
		t.Fatal("Summary went through the link")
	}
	if _, err := os.Stat(filepath.Join(victim, "precious")); err != nil {
		t.Fatal("the link's target was touched:", err)
	}
	// The worktrees folder itself replaced by a link: nothing is made through it.
	root2 := repo(t)
	os.MkdirAll(filepath.Join(root2, ".ouro"), 0o755)
	os.Symlink(victim, filepath.Join(root2, ".ouro", "worktrees"))
	if _, err := New(root2, Options{}).Create(ctx, "a"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Create through a linked folder = %v", err)
	}
}

func TestConcurrentCreateSameName(t *testing.T) {
	root := repo(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = New(root, Options{}).Create(context.Background(), "same")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrExists):
			t.Errorf("a losing Create failed unclearly: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d creations succeeded: %v", ok, errs)
	}
}

// TestHostileRepoConfig: nothing the repository's config names is run, and the caller's
// GIT_* variables do not redirect git.
func TestHostileRepoConfig(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	hooks := filepath.Join(root, "evil-hooks")
	for _, h := range []string{"post-checkout", "reference-transaction", "post-index-change"} {
		write(t, filepath.Join(hooks, h), "#!/bin/sh\necho "+h+" >> "+marker+"\n")
		os.Chmod(filepath.Join(hooks, h), 0o755)
	}
	write(t, filepath.Join(root, ".git", "hooks", "post-checkout"), "#!/bin/sh\necho default-hook >> "+marker+"\n")
	os.Chmod(filepath.Join(root, ".git", "hooks", "post-checkout"), 0o755)
	gitT(t, root, "config", "core.hooksPath", hooks)
	gitT(t, root, "config", "core.fsmonitor", "echo fsmonitor >> "+marker)
	gitT(t, root, "config", "filter.evil.smudge", "echo smudge >> "+marker+"; cat")
	gitT(t, root, "config", "filter.evil.clean", "echo clean >> "+marker+"; cat")
	gitT(t, root, "config", "diff.external", "echo extdiff >> "+marker)
	write(t, filepath.Join(root, ".gitattributes"), "* filter=evil\n")
	gitT(t, root, "-c", "filter.evil.clean=", "-c", "filter.evil.smudge=", "add", ".gitattributes")
	gitT(t, root, "-c", "filter.evil.clean=", "-c", "filter.evil.smudge=", "commit", "-qm", "attrs")
	os.Remove(marker)

	t.Setenv("GIT_DIR", t.TempDir())
	t.Setenv("GIT_WORK_TREE", t.TempDir())
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='"+hooks+"'")
	m := New(root, Options{})
	w, err := m.Create(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "README"), "edit\n")
	gitT(t, w.Path, "-c", "filter.evil.clean=", "-c", "filter.evil.smudge=", "commit", "-qam", "edit")
	write(t, filepath.Join(w.Path, "README"), "edit again\n")
	if _, err := m.Summary(ctx, "h"); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ctx, "h", true); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the repository's config ran commands: %s", b)
	}
}

type fakeHooks struct {
	mu      sync.Mutex
	path    string
	err     error
	created []string
	removed []string
}

func (f *fakeHooks) WorktreeCreate(_ context.Context, name string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created = append(f.created, name)
	return f.path, true, f.err
}

func (f *fakeHooks) WorktreeRemove(_ context.Context, path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, path)
}

func TestCreateHookReplacesGit(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	elsewhere, _ := filepath.EvalSymlinks(t.TempDir())
	h := &fakeHooks{path: elsewhere + "\n"}
	m := New(root, Options{Hooks: h})
	w, err := m.Create(ctx, "hooked")
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != elsewhere || !w.Hooked {
		t.Fatalf("worktree = %+v", w)
	}
	if out := gitT(t, root, "worktree", "list"); strings.Count(out, "\n") != 1 {
		t.Fatalf("git made a worktree too: %s", out)
	}
	if err := m.Remove(ctx, "hooked", false); err != nil {
		t.Fatal(err)
	}
	if len(h.removed) != 1 || h.removed[0] != elsewhere {
		t.Fatalf("WorktreeRemove got %v", h.removed)
	}
	if _, err := os.Stat(elsewhere); err != nil {
		t.Fatal("ouro deleted the hook's folder itself:", err)
	}

	h.err = errors.New("exit status 1: no space")
	if _, err := m.Create(ctx, "fails"); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("a failing hook: %v", err)
	}
	h.err, h.path = nil, "relative/path"
	if _, err := m.Create(ctx, "rel"); err == nil || !strings.Contains(err.Error(), "absolute path") {
		t.Fatalf("a relative path: %v", err)
	}
}

// A commit held by a remote-tracking branch (pushed) is not lost by removal; one held by
// nothing else is. A worktree whose folder was deleted by hand is forgotten with discard.
func TestPushedCommitsAndVanishedFolder(t *testing.T) {
	ctx := context.Background()
	root := repo(t)
	m := New(root, Options{})
	w, _ := m.Create(ctx, "p")
	write(t, filepath.Join(w.Path, "p.txt"), "p\n")
	gitT(t, w.Path, "add", "p.txt")
	gitT(t, w.Path, "commit", "-qm", "unpushed")
	if err := m.Remove(ctx, "p", false); err == nil || !strings.Contains(err.Error(), "unpushed") {
		t.Fatalf("an unpushed commit: %v", err)
	}
	gitT(t, root, "update-ref", "refs/remotes/origin/p", "ouro/p")
	if err := m.Remove(ctx, "p", false); err != nil {
		t.Fatalf("a pushed commit blocked removal: %v", err)
	}

	v, _ := m.Create(ctx, "v")
	if err := os.RemoveAll(v.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Summary(ctx, "v"); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("Summary of a vanished folder: %v", err)
	}
	if err := m.Remove(ctx, "v", false); err == nil {
		t.Fatal("a vanished worktree was removed without discard")
	}
	if err := m.Remove(ctx, "v", true); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, "v"); err != nil {
		t.Fatalf("the name is not free again: %v", err)
	}
}
