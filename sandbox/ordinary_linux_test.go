//go:build linux

package sandbox

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// shGuarded runs script as Bash does: placeholders held, absent paths noted, the git
// indexes and (in the Landlock-only mode) the protected paths guarded; the note is what
// the tool result would say after it.
func shGuarded(t *testing.T, p Policy, mode, dir, script string) (run, string) {
	t.Helper()
	p.MakeCaches()
	held := p.HoldPlaceholders()
	defer held.Release()
	absent := p.Absent()
	indexes := p.GuardIndexes()
	var protect *ProtectGuard
	if mode == modeLandlock {
		protect = p.guardProtected()
	}
	r := sh(t, p, mode, dir, script)
	var notes []string
	for _, n := range []string{Reclaim(absent, p.TempDir), indexes.Restore(), protect.Restore(), p.MigrateObjects()} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	return r, strings.Join(notes, "\n")
}

// gitRepo makes a repository with one commit, a hook and a config of its own, in a
// workspace that also has .claude, .ouro and .mcp.json; git runs without the user's
// configuration.
func gitRepo(t *testing.T) (ws string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws = realTemp(t)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"AUTHOR", "COMMITTER"} {
		t.Setenv("GIT_"+k+"_NAME", "t")
		t.Setenv("GIT_"+k+"_EMAIL", "t@example.com")
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "advice.ignoredHook", "false"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	tree(t, ws, "README", ".claude/settings.json", ".claude/skills/s/SKILL.md", ".ouro/settings.json", ".mcp.json", ".git/hooks/pre-commit")
	if err := os.Chmod(filepath.Join(ws, ".git", "hooks", "pre-commit"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "README"}, {"commit", "-qm", "first"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return ws
}

// protectedState is what the protected paths hold, to compare before and after.
func protectedState(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range []string{".git/config", ".git/hooks/pre-commit", ".claude/settings.json", ".ouro/settings.json", ".mcp.json"} {
		st, err := os.Lstat(filepath.Join(ws, p))
		if err != nil {
			out[p] = "<missing>"
			continue
		}
		out[p] = st.Mode().String() + " " + content(t, filepath.Join(ws, p))
	}
	for _, d := range []string{".git/hooks", ".claude", ".ouro"} {
		names, _ := os.ReadDir(filepath.Join(ws, d))
		var list []string
		for _, n := range names {
			list = append(list, n.Name())
		}
		out[d+"/"] = strings.Join(list, ",")
	}
	return out
}

// The ordinary commands of a day's work succeed at the root of the workspace and below
// in every mode: files and folders created, written, renamed and removed; git add,
// commit, checkout -b, stash and rebase; go mod init and go build -o; npm init -y;
// python3 -m venv. Landlock alone cannot refuse one name among others in a folder, so
// in the Landlock-only mode this holds because the protected paths are put back after
// the command (see protect_linux.go): the script's own attempts on them are undone.
func TestOrdinaryWorkAtTheRoot(t *testing.T) {
	requireLandlock(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	cleanGoEnv(t)
	home := realTemp(t)
	t.Setenv("HOME", home)
	t.Setenv("GOCACHE", filepath.Join(home, "gocache"))
	t.Setenv("GOMODCACHE", filepath.Join(home, "gomod"))
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "")
	script := `set -e
		echo hello > new.txt; mkdir build; echo o > build/out; mv new.txt renamed.txt; mv build build2
		rm renamed.txt; rm -rf build2; mkdir -p a/b; rmdir a/b a
		git checkout -q -b feature
		echo more >> README; echo f > file.go; git add README file.go; git commit -qm second
		echo wip >> README; git stash -q; git stash pop -q; git checkout -q README
		git checkout -q main; echo m > main.txt; git add main.txt; git commit -qm third
		git checkout -q feature; git rebase -q main
		test "$(git log --format=%s | tr '\n' ,)" = "second,third,first,"
		rm file.go
		printf 'package main\n\nfunc main() { println("built") }\n' > main.go
		"$GO" mod init example.com/app >/dev/null 2>&1
		"$GO" build -o app .; ./app; "$GO" build -o app .
		` + npmLine(t) + `
		` + venvLine(t) + `
		echo ok`
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			ws := gitRepo(t)
			p := FromSettings(settings.Sandbox{}, []string{ws}, home, realTemp(t))
			before := protectedState(t, ws)
			r, note := shGuarded(t, p, mode, ws, "GO="+goBin+"\n"+script)
			if r.code != 0 || !strings.HasSuffix(r.out, "ok\n") {
				t.Fatalf("ordinary work at the root failed in the %s mode: exit %d\n%s", mode, r.code, r.out)
			}
			if note != "" {
				t.Errorf("ordinary work was taken for an attempt on protected paths: %s", note)
			}
			for _, f := range []string{"app", "go.mod", "main.go"} {
				if !exists(filepath.Join(ws, f)) {
					t.Errorf("%s is missing after the command", f)
				}
			}
			if after := protectedState(t, ws); !equalMaps(before, after) {
				t.Errorf("protected paths changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func npmLine(t *testing.T) string {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Log("npm is not on PATH: npm init -y is not tried")
		return ""
	}
	return "npm init -y >/dev/null; test -f package.json"
}

// venvLine uses the interpreter itself, not a shim (pyenv's would write its own state).
func venvLine(t *testing.T) string {
	out, err := exec.Command("python3", "-c", "import sys, venv; print(sys.executable)").Output()
	if err != nil {
		t.Log("python3 with venv is not on PATH: python3 -m venv is not tried")
		return ""
	}
	py := strings.TrimSpace(string(out))
	return "'" + py + "' -m venv --without-pip .venv; .venv/bin/python -c 'print(1)' >/dev/null"
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// What the sandbox protects stays as it was in every mode, however a command goes at it:
// refused outright with the mounts, put back after the command without them (and the
// tool result says so).
func TestProtectedPathsStayAsTheyWere(t *testing.T) {
	requireLandlock(t)
	attacks := []string{
		`echo evil > .git/hooks/pre-commit`,
		`chmod +x .git/hooks/pre-commit`,
		`echo evil > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout`,
		`ln -s ../../evil .git/hooks/pre-push`,
		`rm -rf .git/hooks; ln -s "$PWD/src" .git/hooks`,
		`echo '[core] fsmonitor = touch pwned' >> .git/config`,
		`rm .git/config; echo '[core] fsmonitor = touch pwned' > .git/config`,
		`mv .git/config x; mv x .git/config.bak; echo '[core]' > .git/config`,
		`ln .git/config hardlink; echo evil >> hardlink`,
		`mv .git .git-old && mkdir .git && cp -r .git-old/. .git && echo evil > .git/hooks/pre-commit`,
		`echo '{"mcpServers":{"x":{"command":"touch"}}}' > .mcp.json`,
		`rm .mcp.json; ln -s /etc/passwd .mcp.json`,
		`echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.json`,
		`mv .claude .claude-old; mkdir .claude; echo '{}' > .claude/settings.json`,
		`rm -rf .ouro; ln -s /tmp .ouro`,
		`echo x > .ouro/settings.local.json`,
		`mkdir .claude/hooks`,
	}
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			ws := gitRepo(t)
			tree(t, ws, "src/main.go")
			p := FromSettings(settings.Sandbox{}, []string{ws}, realTemp(t), realTemp(t))
			before := protectedState(t, ws)
			for _, a := range attacks {
				r, note := shGuarded(t, p, mode, ws, a)
				t.Logf("%s: exit %d %q; %s", a, r.code, r.out, note)
				if after := protectedState(t, ws); !equalMaps(before, after) {
					t.Errorf("%s mode, %q (exit %d, %q): protected paths changed:\nbefore %v\nafter  %v", mode, a, r.code, r.out, before, after)
					before = after
				}
				if mode == modeLandlock && r.code == 0 && !strings.Contains(note, "put back") {
					t.Errorf("%q succeeded in the sandbox and the note does not say what was put back: %q", a, note)
				}
				for _, stray := range []string{".git-old", ".claude-old"} {
					os.RemoveAll(filepath.Join(ws, stray))
				}
			}
			// Skills stay ordinary content.
			if r, _ := shGuarded(t, p, mode, ws, `echo new > .claude/skills/s/SKILL.md`); r.code != 0 {
				t.Errorf("a skill could not be written: exit %d %q", r.code, r.out)
			}
			if got := content(t, filepath.Join(ws, ".claude/skills/s/SKILL.md")); got != "new\n" {
				t.Errorf("the skill was put back: %q", got)
			}
		})
	}
}

// BenchmarkProtectGuard measures what check-and-restore costs each command in the
// Landlock-only mode when nothing changed: recording the protected paths of a fresh
// repository (git's sample hooks, config, .claude, .ouro, .mcp.json) and comparing them
// after.
func BenchmarkProtectGuard(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	ws := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	for _, f := range []string{".claude/settings.json", ".claude/agents/a.md", ".ouro/settings.json", ".mcp.json"} {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(ws, f), []byte("{}\n"), 0o644)
	}
	p := FromSettings(settings.Sandbox{}, []string{ws}, b.TempDir(), "")
	g := p.guardProtected()
	files, bytes := 0, 0
	for _, gp := range g.paths {
		for _, n := range gp.nodes {
			files++
			bytes += len(n.data)
		}
	}
	g.Restore()
	for b.Loop() {
		if note := p.guardProtected().Restore(); note != "" {
			b.Fatal(note)
		}
	}
	b.ReportMetric(float64(files), "entries")
	b.ReportMetric(float64(bytes), "bytes-kept")
}

// The history of the workspace's own repository is never rewritten: in the mount mode
// the object store is read-only, in the Landlock-only mode a rewritten object is moved
// away after the command (git then reports it missing, never forged content). New
// objects are still written (into the private folder, copied into the store after the
// command), so commits made in the sandbox are seen from outside.
func TestCheckoutHistoryIsNeverRewritten(t *testing.T) {
	requireLandlock(t)
	attacks := []string{
		`chmod u+w "$1" && printf forged > "$1"`,
		`rm -f "$1" && printf forged > "$1"`,
		`cp "$1" x && rm -f "$1" && mv x "$1" && chmod u+w "$1" && printf forged > "$1"`,
		`echo "$TMPDIR" > .git/objects/info/alternates`,
	}
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			ws := gitRepo(t)
			p := FromSettings(settings.Sandbox{}, []string{ws}, realTemp(t), realTemp(t))
			out, err := exec.Command("git", "-C", ws, "rev-parse", "HEAD:README").Output()
			if err != nil {
				t.Fatal(err)
			}
			blob := strings.TrimSpace(string(out))
			obj := filepath.Join(ws, ".git", "objects", blob[:2], blob[2:])
			before, err := os.ReadFile(obj)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range attacks {
				script := strings.ReplaceAll(a, `"$1"`, "'"+obj+"'")
				r, note := shGuarded(t, p, mode, ws, script)
				now, err := os.ReadFile(obj)
				if err == nil && !bytes.Equal(now, before) {
					t.Errorf("%s mode, %q (exit %d %q): the committed blob was rewritten; note %q", mode, a, r.code, r.out, note)
				}
				if mode == modeLandlock && r.code == 0 && !strings.Contains(note, "git objects") {
					t.Errorf("%q succeeded and the note does not say what happened to the objects: %q", a, note)
				}
				if exists(filepath.Join(ws, ".git", "objects", "info", "alternates")) {
					t.Errorf("%q: an alternates file is left", a)
				}
				if err != nil {
					// Moved away: put back for the next attack, as git fetch would.
					if err := os.WriteFile(obj, before, 0o444); err != nil {
						t.Fatal(err)
					}
				}
			}
			r, note := shGuarded(t, p, mode, ws, `echo two > two.txt && git add two.txt && git commit -qm two && echo ok`)
			if r.out != "ok\n" {
				t.Fatalf("commit in the sandbox: %d %q", r.code, r.out)
			}
			if note != "" {
				t.Errorf("a commit was taken for an attack: %s", note)
			}
			out, err = exec.Command("git", "-C", ws, "log", "--format=%s").CombinedOutput()
			if err != nil || string(out) != "two\nfirst\n" {
				t.Errorf("the commit seen from outside: %v %q", err, out)
			}
			if out, err := exec.Command("git", "-C", ws, "fsck", "--no-dangling").CombinedOutput(); err != nil {
				t.Errorf("git fsck: %v %s", err, out)
			}
		})
	}
}

// Git's hooks and config outside .git stay as they were, in every mode: the folder
// core.hooksPath names (and husky's scripts above its _ folder), the files
// include.path and includeIf.*.path name, and the template folder git init copies hooks
// from.
func TestGitHooksWhereverGitLooks(t *testing.T) {
	requireLandlock(t)
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			ws := gitRepo(t)
			home := realTemp(t)
			global := filepath.Join(home, ".gitconfig")
			t.Setenv("GIT_CONFIG_GLOBAL", global)
			tree(t, ws, ".githooks/pre-commit", ".husky/_/h", ".husky/pre-commit", "shared.gitconfig", "tmpl/hooks/post-checkout", "lib/inc.gitconfig")
			os.WriteFile(filepath.Join(ws, "shared.gitconfig"), []byte("[include]\n\tpath = lib/inc.gitconfig\n"), 0o644)
			os.WriteFile(global, []byte("[init]\n\ttemplateDir = "+filepath.Join(ws, "tmpl")+"\n[core]\n\thooksPath = .husky/_\n"), 0o644)
			cfg, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))
			cfg = append(cfg, []byte("[core]\n\thooksPath = .githooks\n[includeIf \"gitdir:"+ws+"/\"]\n\tpath = ../shared.gitconfig\n")...)
			os.WriteFile(filepath.Join(ws, ".git", "config"), cfg, 0o644)
			p := FromSettings(settings.Sandbox{}, []string{ws}, home, realTemp(t))
			files := []string{".githooks/pre-commit", ".husky/_/h", ".husky/pre-commit", "shared.gitconfig", "lib/inc.gitconfig", "tmpl/hooks/post-checkout"}
			for _, attack := range []string{
				`echo evil > .githooks/pre-commit`,
				`echo evil > .githooks/post-merge`,
				`echo evil > .husky/pre-commit`,
				`echo evil > .husky/_/h`,
				`echo '[core] fsmonitor = touch pwned' >> shared.gitconfig`,
				`echo '[core] fsmonitor = touch pwned' >> lib/inc.gitconfig`,
				`echo evil > tmpl/hooks/post-checkout; echo evil > tmpl/hooks/pre-commit`,
				`mv .githooks x && mkdir .githooks && echo evil > .githooks/pre-commit`,
			} {
				r, note := shGuarded(t, p, mode, ws, attack)
				for _, f := range files {
					if got := content(t, filepath.Join(ws, f)); got != "original\n" && !strings.Contains(got, "path = lib") {
						t.Errorf("%s mode, %q (exit %d %q, note %q): %s is now %q", mode, attack, r.code, r.out, note, f, got)
					}
				}
				for _, f := range []string{".githooks/post-merge", "tmpl/hooks/pre-commit"} {
					if exists(filepath.Join(ws, f)) {
						t.Errorf("%q: %s was created", attack, f)
						os.Remove(filepath.Join(ws, f))
					}
				}
				os.RemoveAll(filepath.Join(ws, "x"))
			}
			// The hooks folder is still git's: a commit outside runs it, and other files
			// in the root stay writable.
			if r, _ := shGuarded(t, p, mode, ws, `echo y > other.txt && echo ok`); r.out != "ok\n" {
				t.Errorf("ordinary work: %d %q", r.code, r.out)
			}
		})
	}
}

// What a sandboxed command writes never becomes code run outside the sandbox through a
// shared cache: the user's module cache, ~/.npm and ~/.cache are read-only to it, and it
// builds offline all the same, its modules copied from the user's downloads into a
// cache of the workspace's own.
func TestSandboxHasItsOwnCaches(t *testing.T) {
	requireLandlock(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	userGoCache, _ := exec.Command(goBin, "env", "GOCACHE").Output()
	cleanGoEnv(t)
	home, ws, proxy := realTemp(t), realTemp(t), realTemp(t)
	userMods := filepath.Join(home, "go", "pkg", "mod")
	t.Setenv("HOME", home)
	t.Setenv("GOCACHE", strings.TrimSpace(string(userGoCache)))
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	// A module in the user's cache, as an earlier `go mod download` outside left it.
	dep := filepath.Join(proxy, "example.com", "dep", "@v")
	os.MkdirAll(dep, 0o755)
	os.WriteFile(filepath.Join(dep, "list"), []byte("v1.0.0\n"), 0o644)
	os.WriteFile(filepath.Join(dep, "v1.0.0.info"), []byte(`{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`), 0o644)
	os.WriteFile(filepath.Join(dep, "v1.0.0.mod"), []byte("module example.com/dep\n"), 0o644)
	writeZip(t, filepath.Join(dep, "v1.0.0.zip"), map[string]string{
		"example.com/dep@v1.0.0/go.mod": "module example.com/dep\n",
		"example.com/dep@v1.0.0/dep.go": "package dep\n\nfunc Hello() string { return \"from the module\" }\n",
	})
	dl := exec.Command(goBin, "mod", "download", "example.com/dep@v1.0.0")
	dl.Env = append(os.Environ(), "GOPROXY=file://"+proxy, "GOMODCACHE="+userMods, "GOFLAGS=-modcacherw")
	dl.Dir = proxy
	if out, err := dl.CombinedOutput(); err != nil {
		t.Fatalf("go mod download: %v %s", err, out)
	}
	t.Setenv("GOPROXY", "off") // offline: only what the user's cache has
	tree(t, home, ".npm/_cacache/index", ".cache/pip/wheel")
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nimport \"example.com/dep\"\n\nfunc main() { println(dep.Hello()) }\n"), 0o644)
	src := filepath.Join(userMods, "example.com", "dep@v1.0.0", "dep.go")
	before := content(t, src)

	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			p := FromSettings(settings.Sandbox{}, []string{ws}, home, realTemp(t))
			// -buildvcs=false: go would ask git about the placeholder .git that holds the name while a command runs, which git refuses
			r, _ := shGuarded(t, p, mode, ws, "'"+goBin+"' build -buildvcs=false -o app . && ./app")
			if r.code != 0 || !strings.Contains(r.out, "from the module") {
				t.Fatalf("an offline build from the user's module cache: exit %d %q", r.code, r.out)
			}
			for _, attack := range []string{
				`chmod -R u+w "$1" && echo 'package dep; func init() { panic("pwned") }' > "$1/evil.go"`,
				`chmod u+w "$1/dep.go"; echo 'package dep; func Hello() string { return "pwned" }' > "$1/dep.go"`,
				`echo evil > ~/.npm/_cacache/index/x`,
				`echo evil > ~/.cache/pip/wheel/x`,
				`echo evil > "$GOCACHE_USER/ouro-sandbox-test-` + strconv.Itoa(os.Getpid()) + `"`,
			} {
				script := strings.ReplaceAll(attack, `"$1`, `"`+filepath.Dir(src))
				script = strings.ReplaceAll(script, "$GOCACHE_USER", os.Getenv("GOCACHE"))
				if r, _ := shGuarded(t, p, mode, ws, script); r.code == 0 {
					t.Errorf("%s: succeeded", attack)
				}
			}
			if leaked := filepath.Join(os.Getenv("GOCACHE"), "ouro-sandbox-test-"+strconv.Itoa(os.Getpid())); exists(leaked) {
				os.Remove(leaked)
				t.Error("the user's build cache was written")
			}
			if ents, _ := filepath.Glob(filepath.Join(p.Env["GOCACHE"], "*", "*-a")); len(ents) == 0 {
				t.Error("the build stored nothing in the sandbox's own build cache (GOCACHEPROG unused?)")
			}
			if got := content(t, src); got != before {
				t.Errorf("the user's module source is now %q", got)
			}
			for _, f := range []string{filepath.Join(filepath.Dir(src), "evil.go"), filepath.Join(home, ".npm/_cacache/index/x"), filepath.Join(home, ".cache/pip/wheel/x")} {
				if exists(f) {
					t.Errorf("%s was written", f)
				}
			}
		})
	}
}

func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// BenchmarkObjectsGuard measures the Landlock-only mode's check of the object store
// around one command, for a repository with 2000 loose objects and one pack.
func BenchmarkObjectsGuard(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	ws := b.TempDir()
	var paths []string
	for i := range 2000 {
		f := filepath.Join(ws, fmt.Sprintf("f%d", i))
		os.WriteFile(f, []byte(fmt.Sprintf("content %d\n", i)), 0o644)
		paths = append(paths, f)
	}
	for _, c := range [][]string{{"init", "-q"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, c...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	hash := exec.Command("git", "-C", ws, "hash-object", "-w", "--stdin-paths")
	hash.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	if out, err := hash.CombinedOutput(); err != nil {
		b.Fatalf("hash-object: %v %s", err, out[:min(len(out), 200)])
	}
	p := FromSettings(settings.Sandbox{}, []string{ws}, b.TempDir(), "")
	if p.Objects == nil {
		b.Fatal("no checkout objects")
	}
	for b.Loop() {
		g := p.guardObjects()
		if rw, rm := g.check(func() string { return b.TempDir() }); len(rw)+len(rm) > 0 {
			b.Fatal(rw, rm)
		}
	}
	b.ReportMetric(float64(len(p.guardObjects().files)), "files")
}
