package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// tree creates dirs (ending in /) and files under root.
func tree(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// realTemp is t.TempDir without symbolic links (macOS's /var → /private/var).
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// cleanGoEnv makes FromSettings fall back to its defaults.
func cleanGoEnv(t *testing.T) {
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "XDG_CACHE_HOME"} {
		t.Setenv(k, "")
	}
}

func TestFromSettingsDefaults(t *testing.T) {
	cleanGoEnv(t)
	ws, home, tmp := realTemp(t), realTemp(t), realTemp(t)
	tree(t, ws, ".git/hooks/", ".git/config", ".git/HEAD", ".git/objects/", ".git/refs/")
	p := FromSettings(settings.Sandbox{}, []string{ws}, home, tmp)

	own := sandboxCaches(filepath.Join(home, ".cache"), ws)
	want := []string{ws, tmp, filepath.Join(own, "gomod"), filepath.Join(own, "npm"), filepath.Join(own, "xdg"), filepath.Join(own, "go-build")}
	if !slices.Equal(p.WriteRoots, want) {
		t.Errorf("WriteRoots = %q\nwant %q (the user's caches are not written)", p.WriteRoots, want)
	}
	if exe, _ := os.Executable(); p.Env["GOCACHEPROG"] != exe+" "+goCacheArg+" "+filepath.Join(home, ".cache", "go-build")+" "+filepath.Join(own, "go-build") {
		t.Errorf("GOCACHEPROG = %q", p.Env["GOCACHEPROG"])
	}
	for k, v := range map[string]string{"GOMODCACHE": filepath.Join(own, "gomod"), "npm_config_cache": filepath.Join(own, "npm"), "XDG_CACHE_HOME": filepath.Join(own, "xdg"),
		"GOPROXY": "file://" + filepath.Join(home, "go", "pkg", "mod", "cache", "download") + ",https://proxy.golang.org,direct", "GOFLAGS": "-modcacherw"} {
		if p.Env[k] != v {
			t.Errorf("Env[%s] = %q, want %q", k, p.Env[k], v)
		}
	}
	git := filepath.Join(ws, ".git")
	wantRO := []string{filepath.Join(git, "config"), filepath.Join(git, "config.worktree"), filepath.Join(git, "commondir"), filepath.Join(git, "hooks"),
		filepath.Join(git, "worktrees"), filepath.Join(git, "modules"), filepath.Join(ws, ".ouro"), filepath.Join(ws, ".claude"), filepath.Join(ws, ".mcp.json"),
		filepath.Join(git, "objects")} // new objects go to .git/ouro-objects (WithCheckoutObjects)
	if !slices.Equal(p.ReadOnly, wantRO) {
		t.Errorf("ReadOnly = %q\nwant %q (home is no write root, so ~/.ouro is read-only anyway)", p.ReadOnly, wantRO)
	}
	if p.TempDir != tmp {
		t.Errorf("TempDir = %q, want %q", p.TempDir, tmp)
	}
	// A fresh home has no caches yet: computing the policy creates none (a session that
	// runs no command leaves the home folder alone); MakeCaches, before a command, makes
	// them so they can be granted.
	caches := []string{filepath.Join(own, "go-build"), filepath.Join(own, "gomod"), filepath.Join(own, "npm"), filepath.Join(own, "xdg")}
	for _, c := range append(caches, filepath.Join(home, ".cache")) {
		if _, err := os.Lstat(c); err == nil {
			t.Errorf("computing the policy created %s", c)
		}
	}
	p.MakeCaches()
	for _, c := range caches {
		if st, err := os.Stat(c); err != nil || !st.IsDir() {
			t.Errorf("cache %s was not created: %v", c, err)
		}
	}

	for path, want := range map[string]bool{
		filepath.Join(ws, "main.go"):                           true,
		filepath.Join(ws, "sub", "new"):                        true,
		filepath.Join(ws, ".git", "objects", "ab"):             false,
		filepath.Join(ws, ".git", "hooks", "pre-commit"):       false,
		filepath.Join(ws, ".git", "config"):                    false,
		filepath.Join(ws, ".ouro", "settings.json"):            false,
		filepath.Join(ws, ".claude"):                           false,
		filepath.Join(home, ".cache", "go-build", "00", "x"):   false, // read through GOCACHEPROG
		filepath.Join(own, "go-build", "00", "x"):              true,
		filepath.Join(home, "go", "pkg", "mod", "cache"):       false, // the user's: see sandboxCaches
		filepath.Join(home, ".npm", "_cacache"):                false,
		filepath.Join(home, ".cache", "pip"):                   false,
		filepath.Join(own, "gomod", "cache"):                   true,
		filepath.Join(home, "go", "bin", "tool"):               false,
		filepath.Join(home, ".bashrc"):                         false,
		filepath.Join(filepath.Dir(ws), "sibling-of-the-root"): false,
		"/etc/passwd": false,
	} {
		if got := p.Writable(path); got != want {
			t.Errorf("Writable(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestFromSettingsGoEnvironment(t *testing.T) {
	cleanGoEnv(t)
	ws, home, cache, gopath, xdg := realTemp(t), realTemp(t), realTemp(t), realTemp(t), realTemp(t)
	t.Setenv("GOCACHE", cache)
	t.Setenv("GOPATH", gopath+string(filepath.ListSeparator)+"/elsewhere")
	t.Setenv("XDG_CACHE_HOME", xdg)
	p := FromSettings(settings.Sandbox{}, []string{ws}, home, "")
	own := sandboxCaches(xdg, ws)
	want := []string{ws, filepath.Join(own, "gomod"), filepath.Join(own, "npm"), filepath.Join(own, "xdg"), filepath.Join(own, "go-build")}
	if !slices.Equal(p.WriteRoots, want) {
		t.Errorf("WriteRoots = %q\nwant %q", p.WriteRoots, want)
	}
	if got, want := p.Env["GOPROXY"], "file://"+filepath.Join(gopath, "pkg", "mod", "cache", "download")+","; !strings.HasPrefix(got, want) {
		t.Errorf("GOPROXY = %q, want it to start with %q", got, want)
	}
	if p.TempDir != "" {
		t.Errorf("TempDir = %q without a session temp dir", p.TempDir)
	}

	t.Setenv("GOMODCACHE", filepath.Join(cache, "mod"))
	p = FromSettings(settings.Sandbox{}, []string{ws}, home, "")
	if p.Writable(filepath.Join(gopath, "pkg", "mod", "x")) || p.Writable(filepath.Join(cache, "mod", "x")) ||
		!strings.HasPrefix(p.Env["GOPROXY"], "file://"+filepath.Join(cache, "mod", "cache", "download")+",") {
		t.Errorf("GOMODCACHE not honoured: WriteRoots %q, env %q", p.WriteRoots, p.Env)
	}
}

func TestFromSettingsAllowAndDeny(t *testing.T) {
	cleanGoEnv(t)
	ws, home, abs := realTemp(t), realTemp(t), realTemp(t)
	tree(t, ws, "vendor/", "build/")
	s := settings.Sandbox{Filesystem: settings.SandboxFilesystem{
		AllowWrite: []string{"//" + abs, "~/.kube", "/../outside-build", "~"},
		DenyWrite:  []string{"vendor", "/build/keep", "~/.npm", "~/.kube/config"},
	}}
	p := FromSettings(s, []string{ws}, home, "")

	for path, want := range map[string]bool{
		filepath.Join(abs, "x"):                               true,  // "//abs" is absolute
		filepath.Join(home, ".kube", "cache"):                 true,  // "~/" is the home
		filepath.Join(filepath.Dir(ws), "outside-build", "x"): true,  // "/x" is under the project root
		filepath.Join(home, "notes.txt"):                      true,  // "~" allows the whole home…
		filepath.Join(home, ".ouro", "settings.json"):         false, // …but not the user's ouro settings
		filepath.Join(home, ".claude", "settings.json"):       false,
		filepath.Join(home, ".ouro.json"):                     false, // the user's MCP servers and trusted folders
		filepath.Join(home, ".claude.json"):                   false,
		filepath.Join(home, ".bashrc"):                        false, // a shell startup file
		filepath.Join(home, ".git", "hooks", "x"):             false,
		filepath.Join(ws, "vendor", "x"):                      false, // denyWrite inside a root
		filepath.Join(ws, "build", "keep"):                    false,
		filepath.Join(ws, "build", "out"):                     true,
		filepath.Join(home, ".npm", "x"):                      false, // a denied root is dropped, even inside ~
		filepath.Join(home, ".kube", "config"):                false,
	} {
		if got := p.Writable(path); got != want {
			t.Errorf("Writable(%s) = %v, want %v\nWriteRoots %q\nReadOnly %q", path, got, want, p.WriteRoots, p.ReadOnly)
		}
	}
	// ~/.kube and ~/.cache lie inside the allowed home: only the outermost root is listed.
	for _, r := range p.WriteRoots {
		if r != home && within(r, home) {
			t.Errorf("WriteRoots lists %s inside %s", r, home)
		}
	}
}

func TestFromSettingsDeniedRootAndWorktree(t *testing.T) {
	cleanGoEnv(t)
	ws, other, home := realTemp(t), realTemp(t), realTemp(t)
	tree(t, other, ".git") // a worktree: .git is a file pointing at the real git dir
	s := settings.Sandbox{Filesystem: settings.SandboxFilesystem{AllowWrite: []string{"//" + other}, DenyWrite: []string{"//" + ws}}}
	p := FromSettings(s, []string{ws}, home, "")
	if p.Writable(filepath.Join(ws, "x")) {
		t.Errorf("a denied workspace root stays writable: WriteRoots %q", p.WriteRoots)
	}
	if !slices.Contains(p.ReadOnly, filepath.Join(other, ".git")) || p.Writable(filepath.Join(other, ".git")) {
		t.Errorf("the worktree's .git file is not read-only: ReadOnly %q", p.ReadOnly)
	}
	if !p.Writable(filepath.Join(other, "src.go")) {
		t.Errorf("the allowed worktree is not writable")
	}
}

func TestWritableResolvesSymlinks(t *testing.T) {
	ws, elsewhere := realTemp(t), realTemp(t)
	tree(t, ws, ".ouro/")
	if err := os.Symlink(elsewhere, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, ".ouro"), filepath.Join(ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	p := Policy{WriteRoots: []string{ws}, ReadOnly: []string{filepath.Join(ws, ".ouro")}}
	if p.Writable(filepath.Join(ws, "out", "f")) {
		t.Error("a link from the workspace to elsewhere counts as writable")
	}
	if p.Writable(filepath.Join(ws, "cfg", "settings.json")) {
		t.Error("a link to .ouro/ counts as writable")
	}
}

// Everything under .git that changes which programs git runs is read-only, down into
// linked worktrees and (nested) submodules; what ordinary commands write is not. A
// missing .git is protected whole.
func TestFromSettingsGitMetadata(t *testing.T) {
	cleanGoEnv(t)
	ws, other, home := realTemp(t), realTemp(t), realTemp(t)
	tree(t, ws, ".git/hooks/", ".git/config", ".git/HEAD", ".git/objects/", ".git/refs/heads/", ".git/logs/",
		".git/worktrees/wt1/HEAD", ".git/worktrees/wt1/commondir", ".git/worktrees/wt1/gitdir",
		".git/modules/libs/a/HEAD", ".git/modules/libs/a/config", ".git/modules/libs/a/hooks/",
		".git/modules/libs/a/modules/inner/HEAD", ".git/modules/libs/a/modules/inner/config")
	s := settings.Sandbox{Filesystem: settings.SandboxFilesystem{AllowWrite: []string{"//" + other}}}
	p := FromSettings(s, []string{ws}, home, "")
	git := filepath.Join(ws, ".git")
	for path, want := range map[string]bool{
		filepath.Join(git, "config"):                                             false,
		filepath.Join(git, "commondir"):                                          false,
		filepath.Join(git, "config.worktree"):                                    false,
		filepath.Join(git, "hooks", "pre-commit"):                                false,
		filepath.Join(git, "worktrees", "wt1", "commondir"):                      false,
		filepath.Join(git, "worktrees", "wt1", "gitdir"):                         false,
		filepath.Join(git, "worktrees", "wt1", "config.worktree"):                false,
		filepath.Join(git, "modules", "libs", "a", "config"):                     false,
		filepath.Join(git, "modules", "libs", "a", "hooks", "x"):                 false,
		filepath.Join(git, "modules", "libs", "a", "commondir"):                  false,
		filepath.Join(git, "modules", "libs", "a", "modules", "inner", "config"): false,
		filepath.Join(git, "worktrees", "wt1", "HEAD"):                           true,
		filepath.Join(git, "worktrees", "wt1", "index"):                          true,
		filepath.Join(git, "modules", "libs", "a", "HEAD"):                       true,
		filepath.Join(git, "objects", "ab", "cdef"):                              false,
		filepath.Join(git, "refs", "heads", "main"):                              true,
		filepath.Join(git, "logs", "HEAD"):                                       true,
		filepath.Join(git, "index.lock"):                                         true,
		filepath.Join(git, "COMMIT_EDITMSG"):                                     true,
		filepath.Join(git, "rebase-merge", "done"):                               true,
		filepath.Join(other, ".git"):                                             false, // missing: all of it
		filepath.Join(other, ".git", "config"):                                   false,
		filepath.Join(other, "src.go"):                                           true,
	} {
		if got := p.Writable(path); got != want {
			t.Errorf("Writable(%s) = %v, want %v", path, got, want)
		}
	}
}

// WithRoot (/add-dir) makes another directory writable as a workspace root is: its .git
// metadata, .ouro and .claude stay read-only.
func TestWithRootAddsAWritableRoot(t *testing.T) {
	cleanGoEnv(t)
	ws, other, home := realTemp(t), realTemp(t), realTemp(t)
	tree(t, other, ".git/hooks/", ".git/config", ".git/HEAD", ".git/objects/", ".git/refs/")
	p := FromSettings(settings.Sandbox{}, []string{ws}, home, "")
	if p.Writable(filepath.Join(other, "a.go")) {
		t.Fatal("writable before it was added")
	}
	q := p.WithRoot(other)
	for path, want := range map[string]bool{
		filepath.Join(other, "a.go"):                      true,
		filepath.Join(other, ".git", "objects", "ab"):     true,
		filepath.Join(other, ".git", "config"):            false,
		filepath.Join(other, ".git", "hooks", "pre-push"): false,
		filepath.Join(other, ".claude", "settings.json"):  false,
		filepath.Join(ws, "main.go"):                      true,
	} {
		if got := q.Writable(path); got != want {
			t.Errorf("Writable(%s) = %v, want %v", path, got, want)
		}
	}
	if p.Writable(filepath.Join(other, "a.go")) {
		t.Error("WithRoot changed the policy it was called on")
	}
}
