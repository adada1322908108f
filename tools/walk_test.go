package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// makeSearchTree creates files under root: a key ending in "/" is a directory, any
// other key a file with the value as content.
func makeSearchTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// searchWS returns a workspace on a fresh temporary directory holding files.
func searchWS(t testing.TB, files map[string]string) (*workspace.Workspace, string) {
	t.Helper()
	root := realDir(t, t.TempDir())
	makeSearchTree(t, root, files)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, root
}

// runSearchTool runs a tool with input built from in, failing the test on a Go error
// unless wantErr.
func runSearchTool(t testing.TB, tl tool.Tool, in map[string]any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Run(context.Background(), tool.ExecInput(raw))
	if err != nil {
		return "", err
	}
	if res.IsError {
		t.Fatalf("%s returned an error result: %s", tl.Spec().Name, res.Text())
	}
	return res.Text(), nil
}

// walkFiles lists the files a gitignore-aware walk of dir reports, sorted.
func walkFiles(t testing.TB, ws *workspace.Workspace, dir string, ordered bool) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := walkTree(context.Background(), ws, dir, walkOptions{Gitignore: true, Ordered: ordered}, func(e *walkEntry) error {
		if !e.Dir {
			mu.Lock()
			got = append(got, e.Rel)
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// ignoreFixture covers root and nested .gitignore files, negation, directory-only and
// anchored patterns, "**", escapes, a whitelist and .git/info/exclude.
var ignoreFixture = map[string]string{
	".git/info/exclude":        "*.secret\n",
	".git/HEAD":                "ref: refs/heads/main\n",
	".gitignore":               "# comment\n*.log\n!keep.log\n/build\ndist/\ndocs/**/*.pdf\n\\#hash\ntrailing   \nfoo[0-9].txt\nx[!a].txt\ncache/**\n!cache/\n",
	"a.go":                     "package a\n",
	"debug.log":                "",
	"keep.log":                 "",
	"build/out.o":              "",
	"src/build/real.go":        "", // /build is anchored: this one stays
	"dist/x.js":                "",
	"src/dist/y.js":            "", // dist/ matches at any depth
	"dist.txt/z":               "", // a file in a directory called dist.txt is not dist/
	"docs/a/b/c.pdf":           "",
	"docs/a/b/c.md":            "",
	"#hash":                    "",
	"trailing":                 "",
	"foo1.txt":                 "",
	"foox.txt":                 "",
	"xb.txt":                   "",
	"xa.txt":                   "",
	"cache/deep/thing":         "",
	"api.secret":               "",
	"sub/.gitignore":           "*.tmp\n!important.log\n/local\n",
	"sub/a.tmp":                "",
	"sub/important.log":        "", // re-included by the deeper file
	"sub/other.log":            "",
	"sub/local/x":              "",
	"sub/deeper/local/y":       "", // /local is anchored to sub/
	"sub/deeper/b.tmp":         "",
	"white/.gitignore":         "*\n!*/\n!*.go\n",
	"white/w.go":               "",
	"white/w.txt":              "",
	"white/in/v.go":            "",
	"white/in/v.md":            "",
	"node_modules/.gitignore":  "",
	"node_modules/m.js":        "",
	".github/workflows/ci.yml": "",
}

var ignoreFixtureWant = []string{
	".github/workflows/ci.yml", ".gitignore", "a.go", "dist.txt/z", "docs/a/b/c.md", "foox.txt", "keep.log",
	"node_modules/.gitignore", "node_modules/m.js", "src/build/real.go", "sub/.gitignore", "sub/deeper/local/y",
	"sub/important.log", "white/in/v.go", "white/w.go", "xa.txt",
}

func TestWalkGitignore(t *testing.T) {
	ws, root := searchWS(t, ignoreFixture)
	for _, ordered := range []bool{false, true} {
		if got := walkFiles(t, ws, root, ordered); !slices.Equal(got, ignoreFixtureWant) {
			t.Errorf("ordered=%v: walk reported\n%q\nwant\n%q", ordered, got, ignoreFixtureWant)
		}
	}
}

// TestWalkGitignoreMatchesGit checks the same fixture against git itself: the files the
// walk reports must be exactly those git reports as untracked and not ignored.
func TestWalkGitignoreMatchesGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	ws, root := searchWS(t, nil)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
	git := func(args ...string) string {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	files := map[string]string{}
	for k, v := range ignoreFixture {
		if !strings.HasPrefix(k, ".git/") || k == ".git/info/exclude" {
			files[k] = v
		}
	}
	makeSearchTree(t, root, files)
	want := strings.Fields(git("-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard"))
	slices.Sort(want)
	if got := walkFiles(t, ws, root, false); !slices.Equal(got, want) {
		t.Errorf("walk reported\n%q\ngit reports\n%q", got, want)
	}
}

func TestWalkSubdirAppliesParentIgnores(t *testing.T) {
	ws, root := searchWS(t, map[string]string{
		".git/HEAD":       "",
		".gitignore":      "*.log\ngen/\n",
		"pkg/a.go":        "",
		"pkg/a.log":       "",
		"pkg/gen/x.go":    "",
		"pkg/.gitignore":  "!b.log\n",
		"pkg/b.log":       "",
		"pkg/sub/c.log":   "",
		"pkg/sub/keep.go": "",
	})
	got := walkFiles(t, ws, filepath.Join(root, "pkg"), false)
	want := []string{".gitignore", "a.go", "b.log", "sub/keep.go"}
	if !slices.Equal(got, want) {
		t.Errorf("walk of pkg reported %q, want %q", got, want)
	}
}

func TestWalkSymlinks(t *testing.T) {
	outside := realDir(t, t.TempDir())
	makeSearchTree(t, outside, map[string]string{"secret.txt": "password\n", "d/inner.txt": "x\n"})
	ws, root := searchWS(t, map[string]string{"in/real.txt": "hello\n", "top.txt": ""})
	for link, target := range map[string]string{
		"out-file":  filepath.Join(outside, "secret.txt"),
		"out-dir":   filepath.Join(outside, "d"),
		"in/rel-up": "../../" + filepath.Base(outside),
		"in-file":   filepath.Join(root, "in", "real.txt"),
		"in-dir":    "in",
		"dangling":  filepath.Join(root, "nowhere"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	type seen struct {
		rel    string
		link   bool
		target string
	}
	var got []seen
	err := walkTree(context.Background(), ws, root, walkOptions{Gitignore: true, Ordered: true}, func(e *walkEntry) error {
		got = append(got, seen{e.Rel, e.Link, e.Target})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{"in", false, ""},
		{"in-dir", true, filepath.Join(root, "in")},
		{"in-file", true, filepath.Join(root, "in", "real.txt")},
		{"top.txt", false, ""},
		{"in/real.txt", false, ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("walk reported %+v, want %+v", got, want)
	}
}

func TestParseIgnoreLine(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		want ignoreRule
	}{
		{"", false, ignoreRule{}},
		{"# x", false, ignoreRule{}},
		{"/", false, ignoreRule{}},
		{"!", false, ignoreRule{}},
		{"*.o", true, ignoreRule{pattern: "*.o", basename: true, suffix: ".o"}},
		{"!/a/b/", true, ignoreRule{pattern: "a/b", negate: true, dirOnly: true, literal: true}},
		{`\!x`, true, ignoreRule{pattern: "!x", basename: true, literal: true}},
		{`a\ `, true, ignoreRule{pattern: `a\ `, basename: true}},
		{"a/**", true, ignoreRule{pattern: "a/**", inside: "a"}},
		{"{x}", true, ignoreRule{pattern: `\{x\}`, basename: true}},
		{"[", false, ignoreRule{}},
	}
	for _, tt := range tests {
		got, ok := parseIgnoreLine(tt.line)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseIgnoreLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// A panic in a walker goroutine must reach the caller's goroutine, where the tool
// registry turns it into an error result, instead of killing the process.
func TestWalkWorkerPanicReachesCaller(t *testing.T) {
	ws, root := searchWS(t, map[string]string{"a/b.txt": "", "c.txt": ""})
	defer func() {
		v := recover()
		if v == nil || !strings.Contains(fmt.Sprint(v), "boom") || !strings.Contains(fmt.Sprint(v), "search worker") {
			t.Fatalf("recovered %v, want the worker's panic", v)
		}
	}()
	_ = walkTree(context.Background(), ws, root, walkOptions{}, func(*walkEntry) error { panic("boom") })
	t.Fatal("walkTree returned instead of panicking")
}
