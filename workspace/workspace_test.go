package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setup(t *testing.T) (ws *Workspace, root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root + "/src/pkg", outside + "/secret"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "src/main.go"), []byte("package main"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret/key"), []byte("k"), 0o600)
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "escape")))
	must(t, os.Symlink("src/pkg", filepath.Join(root, "inner")))
	must(t, os.Symlink("../outside/secret/key", filepath.Join(root, "relescape")))
	must(t, os.Symlink("loop2", filepath.Join(root, "loop1")))
	must(t, os.Symlink("loop1", filepath.Join(root, "loop2")))
	ws, err = New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, root, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	ws, root, outside := setup(t)
	t.Setenv("HOME", outside)
	ws.home = outside
	cases := []struct {
		in      string
		want    string // resolved path; "" when an error is expected
		errPart string
	}{
		{"src/main.go", root + "/src/main.go", ""},
		{"./src/../src/main.go", root + "/src/main.go", ""},
		{root + "/src/main.go", root + "/src/main.go", ""},
		{"new/dir/file.txt", root + "/new/dir/file.txt", ""},
		{"inner/x.go", root + "/src/pkg/x.go", ""},
		{"inner/../main.go", root + "/src/main.go", ""}, // physical: inner -> src/pkg, .. -> src
		{"../outside/secret/key", "", "outside the workspace"},
		{outside + "/secret/key", "", "outside the workspace"},
		{"escape/key", "", "resolves to " + outside + "/secret/key"},
		{"escape/not-yet", "", "outside the workspace"},
		{"relescape", "", "outside the workspace"},
		{"~/secret/key", "", "outside the workspace"},
		{"/etc/passwd", "", "outside the workspace"},
		{"src/../../outside", "", "outside the workspace"},
		{"loop1/x", "", "too many levels of symbolic links"},
		{"", "", "empty"},
		{"a\x00b", "", "NUL"},
	}
	for _, c := range cases {
		got, err := ws.Resolve(c.in)
		if c.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), c.errPart) {
				t.Errorf("Resolve(%q) = %q, %v; want error containing %q", c.in, got, err, c.errPart)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestOutsideErrorNamesEverything(t *testing.T) {
	ws, root, outside := setup(t)
	_, err := ws.Resolve("escape/key")
	var oe *OutsideError
	if !errors.As(err, &oe) {
		t.Fatalf("error %v is not an OutsideError", err)
	}
	msg := err.Error()
	for _, want := range []string{`"escape/key"`, outside + "/secret/key", root} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
}

func TestAddRoot(t *testing.T) {
	ws, _, outside := setup(t)
	if _, err := ws.Resolve(outside + "/secret/key"); err == nil {
		t.Fatal("outside path allowed before AddRoot")
	}
	must(t, ws.AddRoot(outside))
	if got, err := ws.Resolve("escape/key"); err != nil || got != outside+"/secret/key" {
		t.Fatalf("after AddRoot: %q, %v", got, err)
	}
	if err := ws.AddRoot(outside + "/secret/key"); err == nil {
		t.Fatal("a file was accepted as a root")
	}
	if err := ws.AddRoot(outside + "/missing"); err == nil {
		t.Fatal("a missing directory was accepted as a root")
	}
	if len(ws.Roots()) != 2 {
		t.Fatalf("roots = %v", ws.Roots())
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		root, p string
		want    bool
	}{
		{"/a/b", "/a/b", true}, {"/a/b", "/a/b/c", true}, {"/a/b", "/a/bc", false},
		{"/a/b", "/a", false}, {"/", "/x", true},
	} {
		if got := Within(c.root, c.p); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.root, c.p, got)
		}
	}
}

func TestSymlinkedWorkingDirectory(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	real := filepath.Join(base, "real")
	must(t, os.MkdirAll(real, 0o755))
	link := filepath.Join(base, "link")
	must(t, os.Symlink(real, link))
	ws, err := New(link)
	must(t, err)
	if ws.CWD() != real {
		t.Fatalf("cwd = %s, want the real path %s", ws.CWD(), real)
	}
	if got, err := ws.Resolve(link + "/f"); err != nil || got != real+"/f" {
		t.Fatalf("Resolve via the link: %q, %v", got, err)
	}
}

// resolvesTo checks that Resolve(p) succeeds with want, or, when want is "", that it
// fails.
func resolvesTo(t *testing.T, ws *Workspace, p, want string) {
	t.Helper()
	got, err := ws.Resolve(p)
	if want == "" {
		if err == nil {
			t.Errorf("Resolve(%q) = %q; want it refused", p, got)
		}
		return
	}
	if err != nil || got != want {
		t.Errorf("Resolve(%q) = %q, %v; want %q", p, got, err, want)
	}
}

func TestAddFileReachesExactlyThatFile(t *testing.T) {
	ws, _, outside := setup(t)
	key := outside + "/secret/key"
	sibling := outside + "/secret/sibling"
	must(t, os.WriteFile(sibling, []byte("s"), 0o600))
	resolvesTo(t, ws, key, "")
	must(t, ws.AddFile(key))

	resolvesTo(t, ws, key, key)
	resolvesTo(t, ws, "relescape", key)  // a symlink in the workspace to the file
	resolvesTo(t, ws, "escape/key", key) // a symlinked folder in the workspace
	resolvesTo(t, ws, "../outside/secret/key", key)
	resolvesTo(t, ws, sibling, "")
	resolvesTo(t, ws, "escape/sibling", "")
	resolvesTo(t, ws, outside+"/secret", "")
	resolvesTo(t, ws, outside+"/secret/", "")
	resolvesTo(t, ws, key+"/../sibling", "")
	resolvesTo(t, ws, "relescape/../sibling", "")
	resolvesTo(t, ws, key+"/x", "")
	resolvesTo(t, ws, outside+"/secret/key2", "")
	resolvesTo(t, ws, outside+"/secre", "")

	// Reachable is not part of the workspace: the policy still counts it as outside.
	if ws.Contains(key) || len(ws.Roots()) != 1 {
		t.Fatalf("AddFile widened the workspace: Contains=%v roots=%v", ws.Contains(key), ws.Roots())
	}
	if !ws.Reaches(key) || ws.Reaches(sibling) {
		t.Fatalf("Reaches(key)=%v Reaches(sibling)=%v", ws.Reaches(key), ws.Reaches(sibling))
	}
	if err := ws.AddFile(outside + "/secret"); err == nil {
		t.Fatal("a directory was accepted as a file")
	}
	resolvesTo(t, ws, sibling, "")
	if err := ws.AddFile(""); err == nil {
		t.Fatal("an empty path was accepted")
	}
}

func TestAddFileStoresTheRealPath(t *testing.T) {
	ws, _, outside := setup(t)
	must(t, ws.AddFile("relescape")) // given through a symlink in the workspace
	resolvesTo(t, ws, outside+"/secret/key", outside+"/secret/key")
	resolvesTo(t, ws, outside+"/secret", "")
}

func TestAddFileNotYetCreated(t *testing.T) {
	ws, _, outside := setup(t)
	file := outside + "/new.txt"
	must(t, ws.AddFile(file))
	resolvesTo(t, ws, file, file)
	resolvesTo(t, ws, outside+"/new.txt2", "")
	resolvesTo(t, ws, file+"/below", "")
	// Someone puts a symlink where the file would go: it leads elsewhere, so it stays
	// out of reach.
	must(t, os.Symlink(outside+"/secret/key", file))
	resolvesTo(t, ws, file, "")
}

func TestAddDir(t *testing.T) {
	ws, _, outside := setup(t)
	secret := outside + "/secret"
	must(t, os.WriteFile(outside+"/other", []byte("o"), 0o600))
	must(t, ws.AddDir(secret))
	resolvesTo(t, ws, secret, secret)
	resolvesTo(t, ws, secret+"/key", secret+"/key")
	resolvesTo(t, ws, "escape/new/file", secret+"/new/file")
	resolvesTo(t, ws, outside+"/other", "")
	resolvesTo(t, ws, secret+"/../other", "")
	if ws.Contains(secret+"/key") || len(ws.Roots()) != 1 {
		t.Fatalf("AddDir widened the workspace: roots=%v", ws.Roots())
	}
	if err := ws.AddDir(secret + "/key"); err == nil {
		t.Fatal("a file was accepted as a directory")
	}
	if err := ws.AddDir(outside + "/missing"); err == nil {
		t.Fatal("a missing directory was accepted")
	}
}

func TestMoveConfinesToTheNewDirectory(t *testing.T) {
	main, _ := filepath.EvalSymlinks(t.TempDir())
	extra, _ := filepath.EvalSymlinks(t.TempDir())
	wt := filepath.Join(main, ".ouro", "worktrees", "a")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := New(main, extra)
	if err != nil {
		t.Fatal(err)
	}
	child, err := ws.Clone(wt)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Move(wt); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*Workspace{ws, child} {
		if w.CWD() != wt || !w.Contains(filepath.Join(wt, "f")) || !w.Contains(filepath.Join(extra, "f")) {
			t.Fatalf("cwd %s roots %v", w.CWD(), w.Roots())
		}
		if w.Contains(filepath.Join(main, "f")) {
			t.Fatalf("the main checkout is still inside: %v", w.Roots())
		}
		if _, err := w.Resolve("../../../f"); err == nil {
			t.Fatal("a relative path escaped to the main checkout")
		}
		if p, err := w.Resolve("f"); err != nil || p != filepath.Join(wt, "f") {
			t.Fatalf("Resolve(f) = %q %v", p, err)
		}
	}
	if err := ws.Move(main); err != nil || ws.CWD() != main || ws.Contains(filepath.Join(wt, "..", "x")) == false {
		t.Fatalf("moving back: %v %v", err, ws.Roots())
	}
	if err := ws.Move(filepath.Join(main, "missing")); err == nil {
		t.Fatal("moved to a folder that does not exist")
	}
}
