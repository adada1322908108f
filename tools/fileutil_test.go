package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// fileEnv is a workspace in a temporary directory with the three file tools sharing one
// FileState, and a directory outside the workspace to escape to.
type fileEnv struct {
	t       testing.TB
	root    string // real path of the workspace
	outside string
	ws      *workspace.Workspace
	files   *FileState
	read    *Read
	write   *Write
	edit    *Edit
}

func newFileEnv(t testing.TB) *fileEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &fileEnv{t: t, root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{e.root, e.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if e.ws, err = workspace.New(e.root); err != nil {
		t.Fatal(err)
	}
	e.files = NewFileState()
	e.read, e.write, e.edit = NewRead(e.ws, e.files), NewWrite(e.ws, e.files), NewEdit(e.ws, e.files)
	return e
}

// path returns the absolute path of rel inside the workspace.
func (e *fileEnv) path(rel string) string { return filepath.Join(e.root, rel) }

// put writes a file directly, behind the tools' back.
func (e *fileEnv) put(rel, content string) string {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *fileEnv) get(rel string) string {
	e.t.Helper()
	data, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// run calls tl with input, given as a JSON string or as a value to marshal.
func (e *fileEnv) run(tl tool.Tool, input any) (tool.Result, error) {
	e.t.Helper()
	raw, ok := input.(string)
	if !ok {
		b, err := json.Marshal(input)
		if err != nil {
			e.t.Fatal(err)
		}
		raw = string(b)
	}
	return tl.Run(context.Background(), tool.ExecInput(json.RawMessage(raw)))
}

// ok runs tl and fails the test unless it succeeds; it returns the result's text.
func (e *fileEnv) ok(tl tool.Tool, input any) string {
	e.t.Helper()
	res, err := e.run(tl, input)
	if err != nil {
		e.t.Fatalf("%s(%v): %v", tl.Spec().Name, input, err)
	}
	if res.IsError {
		e.t.Fatalf("%s(%v): error result %q", tl.Spec().Name, input, res.Text())
	}
	return res.Text()
}

// fails runs tl and returns its error, failing the test when there is none.
func (e *fileEnv) fails(tl tool.Tool, input any) error {
	e.t.Helper()
	res, err := e.run(tl, input)
	if err == nil {
		e.t.Fatalf("%s(%v) succeeded with %q, want an error", tl.Spec().Name, input, res.Text())
	}
	return err
}

// readFile reads rel with the Read tool, as the model must before changing it.
func (e *fileEnv) readFile(rel string) string {
	e.t.Helper()
	return e.ok(e.read, map[string]any{"file_path": e.path(rel)})
}

// tempFiles lists leftovers of atomic writes in dir.
func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		if strings.Contains(en.Name(), ".ouro-") {
			out = append(out, en.Name())
		}
	}
	return out
}

// schemaOf decodes the parts of a tool's input schema the tests check.
func schemaOf(t *testing.T, tl tool.Tool) (props map[string]json.RawMessage, required []string) {
	t.Helper()
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(tl.Spec().InputSchema, &s); err != nil {
		t.Fatalf("%s schema is not JSON: %v", tl.Spec().Name, err)
	}
	if s.Type != "object" || s.Additional == nil || *s.Additional {
		t.Errorf("%s schema: type %q, additionalProperties %v; want object, false", tl.Spec().Name, s.Type, s.Additional)
	}
	for name, p := range s.Properties {
		var d struct{ Description string }
		if json.Unmarshal(p, &d) != nil || d.Description == "" {
			t.Errorf("%s schema: property %s has no description", tl.Spec().Name, name)
		}
	}
	return s.Properties, s.Required
}

// TestFileToolsRefuseEscapes checks that every file tool goes through the workspace: a
// path leaving it by .., by absolute path or by symlink is refused with the workspace's
// error, which names where the path really leads, and nothing outside is touched.
func TestFileToolsRefuseEscapes(t *testing.T) {
	e := newFileEnv(t)
	secret := filepath.Join(e.outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.outside, e.path("link")); err != nil {
		t.Fatal(err)
	}
	paths := []struct{ name, given string }{
		{"dot-dot", "../outside/secret.txt"},
		{"absolute", secret},
		{"symlink", "link/secret.txt"},
		{"symlink to a new file", "link/new.txt"},
	}
	for _, p := range paths {
		resolved := filepath.Join(e.outside, filepath.Base(p.given))
		inputs := []struct {
			tl    tool.Tool
			input map[string]any
		}{
			{e.read, map[string]any{"file_path": p.given}},
			{e.write, map[string]any{"file_path": p.given, "content": "pwned\n"}},
			{e.edit, map[string]any{"file_path": p.given, "old_string": "secret", "new_string": "pwned"}},
			{e.edit, map[string]any{"file_path": p.given, "old_string": "", "new_string": "pwned"}},
		}
		for _, in := range inputs {
			t.Run(p.name+"/"+in.tl.Spec().Name, func(t *testing.T) {
				err := e.fails(in.tl, in.input)
				var out *workspace.OutsideError
				if !errors.As(err, &out) {
					t.Fatalf("error %v is not the workspace's OutsideError", err)
				}
				if out.Resolved != resolved || !strings.Contains(err.Error(), "resolves to "+resolved) {
					t.Errorf("error %q does not name the resolved path %s", err, resolved)
				}
			})
		}
	}
	if got, _ := os.ReadFile(secret); string(got) != "secret\n" {
		t.Errorf("the file outside was changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.outside, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created outside the workspace: %v", err)
	}
}

// TestFileToolsThroughRegistry runs a read-edit-write session the way the loop does,
// through the registry, so the tools work as registered tools and their errors become
// is_error results.
func TestFileToolsThroughRegistry(t *testing.T) {
	e := newFileEnv(t)
	e.put("main.go", "package main\n\nfunc main() {}\n")
	reg := tool.NewRegistry(e.read, e.write, e.edit)
	if got := strings.Join(reg.Names(), ","); got != "Read,Write,Edit" {
		t.Fatalf("names = %s", got)
	}
	call := func(name string, input map[string]any) tool.Result {
		raw, err := json.Marshal(input)
		if err != nil {
			t.Fatal(err)
		}
		return reg.Run(context.Background(), tool.Call{ID: "id", Name: name, Input: raw})
	}
	steps := []struct {
		name    string
		input   map[string]any
		isError bool
		want    string
	}{
		{"Edit", map[string]any{"file_path": "main.go", "old_string": "{}", "new_string": "{ run() }"}, true, "File has not been read yet"},
		// Without a read in between, the identical call is refused as no new evidence.
		{"Edit", map[string]any{"file_path": "main.go", "old_string": "{}", "new_string": "{ run() }"}, true, "cannot produce new evidence"},
		{"Read", map[string]any{"file_path": "main.go"}, false, "     3\tfunc main() {}\n"},
		// The Read changed what Edit depends on, so the identical Edit may run again.
		{"Edit", map[string]any{"file_path": "main.go", "old_string": "{}", "new_string": "{ run() }"}, false, "     3\tfunc main() { run() }\n"},
		{"Write", map[string]any{"file_path": "run.go", "content": "package main\n\nfunc run() {}\n"}, false, "File created successfully"},
		{"Read", map[string]any{"file_path": "main.go", "offset": "2"}, true, "offset"},
		{"Write", map[string]any{"file_path": "../x.go", "content": ""}, true, "outside the workspace"},
	}
	for i, s := range steps {
		res := call(s.name, s.input)
		if res.IsError != s.isError || !strings.Contains(res.Text(), s.want) {
			t.Errorf("step %d %s: is_error %v, text %q; want is_error %v and %q", i, s.name, res.IsError, res.Text(), s.isError, s.want)
		}
	}
	if got := e.get("main.go"); got != "package main\n\nfunc main() { run() }\n" {
		t.Errorf("main.go = %q", got)
	}
}

func TestWriteFileAtomicFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.MkdirAll(filepath.Join(target, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Renaming a file over a non-empty directory fails after the temporary file exists.
	if _, err := writeFileAtomic(target, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "rename") {
		t.Fatalf("writeFileAtomic over a directory: %v, want a rename error", err)
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestCountLines(t *testing.T) {
	cases := map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\nb\n": 2, "\n": 1, "\n\n": 2, "a\r\nb\r\n": 2}
	for in, want := range cases {
		if got := countLines(in); got != want {
			t.Errorf("countLines(%q) = %d, want %d", in, got, want)
		}
	}
}

// Write and Edit report the files they changed, with hashes before and after, for the
// audit.
func TestFileChangesReported(t *testing.T) {
	e := newFileEnv(t)
	reg := tool.NewRegistry(e.read, e.write, e.edit)
	run := func(name string, input map[string]any) tool.Result {
		raw, _ := json.Marshal(input)
		return reg.Run(context.Background(), tool.Call{ID: "id", Name: name, Input: raw})
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

	res := run("Write", map[string]any{"file_path": "a.txt", "content": "one\n"})
	if len(res.Files) != 1 || res.Files[0].Before != "" || res.Files[0].After != sum("one\n") || !strings.HasSuffix(res.Files[0].Path, "a.txt") {
		t.Fatalf("create: %+v", res.Files)
	}
	run("Read", map[string]any{"file_path": "a.txt"})
	res = run("Edit", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "two"})
	if len(res.Files) != 1 || res.Files[0].Before != sum("one\n") || res.Files[0].After != sum("two\n") {
		t.Fatalf("edit: %+v", res.Files)
	}
	res = run("Write", map[string]any{"file_path": "a.txt", "content": "three\n"})
	if len(res.Files) != 1 || res.Files[0].Before != sum("two\n") || res.Files[0].After != sum("three\n") {
		t.Fatalf("overwrite: %+v", res.Files)
	}
	if res := run("Read", map[string]any{"file_path": "a.txt"}); len(res.Files) != 0 {
		t.Fatalf("a read reported changes: %+v", res.Files)
	}
}

// Write and Edit keep an existing file's permission bits, whatever the umask.
func TestFileToolsKeepMode(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o755, 0o640, 0o444 | 0o200} {
		e := newFileEnv(t)
		p := e.put("f", "a\n")
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		e.readFile("f")
		e.ok(e.edit, map[string]any{"file_path": p, "old_string": "a", "new_string": "b"})
		e.ok(e.write, map[string]any{"file_path": p, "content": "c\n"})
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode() != mode {
			t.Errorf("mode %v after Edit and Write, want %v", info.Mode(), mode)
		}
	}
}

// Write and Edit given a symbolic link change the file it points to and leave the link.
func TestFileToolsWriteThroughSymlink(t *testing.T) {
	e := newFileEnv(t)
	target := e.put("dir/real.txt", "one\n")
	link := e.path("link.txt")
	if err := os.Symlink("dir/real.txt", link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	e.readFile("link.txt")
	e.ok(e.edit, map[string]any{"file_path": link, "old_string": "one", "new_string": "two"})
	if got := e.get("dir/real.txt"); got != "two\n" {
		t.Errorf("target after Edit through the link: %q", got)
	}
	e.ok(e.write, map[string]any{"file_path": link, "content": "three\n"})
	info, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.txt is no longer a symbolic link (mode %v)", info.Mode())
	}
	if dest, _ := os.Readlink(link); dest != "dir/real.txt" {
		t.Errorf("the link now points to %q", dest)
	}
	if data, _ := os.ReadFile(target); string(data) != "three\n" {
		t.Errorf("target after Write through the link: %q", data)
	}
	if left := tempFiles(t, e.root); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
