package scout

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

func TestDiffLines(t *testing.T) {
	cases := []struct {
		old, repl string
		want      int
	}{
		{"a\nb\n", "a\nc\n", 2},
		{"a\nb\n", "a\nb\n", 0},
		{"a\n", "a\nb\n", 1},          // one line added
		{"a\nb\n", "a\n", 1},          // one line removed
		{"a\nb\nc\n", "a\nc\n", 1},    // one line removed in the middle
		{"a\nb\nc\n", "a\nB\nC\n", 4}, // two lines replaced
		{"a", "b", 2},                 // no trailing newline: one line replaced
		{"a\nb", "a\nc", 2},           // no trailing newline, last line replaced
		{"x := 1", "x := 2", 2},
		{"", "a\n", 1},
		{"a\n", "", 1},
	}
	for _, c := range cases {
		if got := diffLines(c.old, c.repl); got != c.want {
			t.Errorf("diffLines(%q, %q) = %d, want %d", c.old, c.repl, got, c.want)
		}
	}
}

// TestDiffLinesWithoutTrailingNewline shows a bug: when neither old_string nor
// new_string ends in a newline (the usual shape of an Edit), adding or removing a line
// also counts the unchanged last line of old_string as removed and added again.
func TestDiffLinesWithoutTrailingNewline(t *testing.T) {
	cases := []struct {
		old, repl string
		want      int
	}{
		{"a", "a\nb", 1},
		{"x := 1", "x := 1\ny := 2", 1},
		{"a\nb", "a", 1},
	}
	for _, c := range cases {
		if got := diffLines(c.old, c.repl); got != c.want {
			t.Errorf("diffLines(%q, %q) = %d, want %d", c.old, c.repl, got, c.want)
		}
	}
}

func TestTestWords(t *testing.T) {
	ok := []struct {
		cmd  string
		want []string
	}{
		{"go test ./...", []string{"go", "test", "./..."}},
		{"  go   test  ./...  ", []string{"go", "test", "./..."}},
		{"go test -run 'TestA|TestB' ./...", []string{"go", "test", "-run", "TestA|TestB", "./..."}},
		{`go test -run "TestA" ./...`, []string{"go", "test", "-run", "TestA", "./..."}},
		{`go test -run=Test"A"'B'`, []string{"go", "test", "-run=TestAB"}},
		{"python3 -B -m unittest", []string{"python3", "-B", "-m", "unittest"}},
		{"sh check.sh", []string{"sh", "check.sh"}},
	}
	for _, c := range ok {
		got, err := testWords(c.cmd)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("testWords(%q) = %q, %v; want %q", c.cmd, got, err, c.want)
		}
	}
	bad := []string{
		"",
		"   ",
		"go test $HOME",
		`go test "$HOME"`,
		"go test ${PKG}",
		"go test $(ls)",
		`go test "$(ls)"`,
		"go test `ls`",
		"go test $((1+1))",
		"a|b",
		"go test ./... | tee log",
		"go test ./... && rm -rf x",
		"go test ./... || true",
		"go test ./...; rm x",
		"go test ./...\nrm x",
		"go test ./... > out",
		"go test ./... 2>&1",
		"go test ./... < in",
		"go test ./... &",
		"! go test ./...",
		"FOO=1 go test",
		"FOO=1",
		"(go test ./...)",
		"{ go test ./...; }",
		"if true; then go test; fi",
		"go test <(ls)",
		"go test 'unterminated",
	}
	for _, c := range bad {
		if got, err := testWords(c); err == nil {
			t.Errorf("testWords(%q) = %q, want it refused", c, got)
		}
	}
}

func TestCheckTestCommand(t *testing.T) {
	s := &Check{fix: &FixConfig{Test: "go test ./..."}}
	for _, c := range []string{"go test ./...", "go test ./... -run TestX", "go test ./... -run 'TestX'", "  go  test ./...  -count=1",
		"go test ./... -v -race -run=TestX -timeout 30s", "go test ./... --failfast"} {
		if err := s.checkTestCommand(c); err != nil {
			t.Errorf("checkTestCommand(%q) = %v, want allowed", c, err)
		}
	}
	for _, c := range []string{
		"rm -rf x", "go test ./... && rm x", "go test ./... > out", "go test $(x)", "go test",
		"go test ./calc", "go vet ./...", "go build ./...", "FOO=1 go test ./...", "go test ./... | cat",
		"gotest ./...", "go test ./...x",
		// Flags that run other programs, or write where they like.
		"go test ./... -exec /bin/sh", "go test ./... -toolexec=evil", "go test ./... -o /tmp/x", "go test ./... -coverprofile=/etc/x",
	} {
		if err := s.checkTestCommand(c); err == nil {
			t.Errorf("checkTestCommand(%q) allowed, want refused", c)
		}
	}
}

func TestEditLogUntested(t *testing.T) {
	const test = "go test ./..."
	ok := llm.Block{}
	fail := llm.Block{IsError: true}
	editCall := func(file string) tool.Call {
		raw, _ := json.Marshal(map[string]any{"file_path": file, "old_string": "a\n", "new_string": "b\n"})
		return tool.Call{Name: "Edit", Input: raw}
	}
	bash := tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}
	read := tool.Call{Name: "Read", Input: json.RawMessage(`{"file_path":"x.go"}`)}

	var l editLog
	clean := func(p string) string { return filepath.ToSlash(filepath.Clean(p)) }
	if m := l.untested(test); m != "" {
		t.Errorf("no edit: %q, want nothing", m)
	}
	l.observe(bash, fail, clean)
	if m := l.untested(test); m != "" {
		t.Errorf("a failing run without an edit: %q, want nothing", m)
	}
	l.observe(editCall("x.go"), fail, clean) // a failed edit changes nothing
	if m := l.untested(test); m != "" || len(l.files) != 0 || l.diff != 0 {
		t.Errorf("failed edit: %q files %v diff %d", m, l.files, l.diff)
	}
	l.observe(editCall("./x.go"), ok, clean)
	if m := l.untested(test); !strings.Contains(m, "have not run the tests") || !strings.Contains(m, test) {
		t.Errorf("after an edit: %q", m)
	}
	l.observe(read, ok, clean)
	l.observe(bash, fail, clean)
	if m := l.untested(test); !strings.Contains(m, "last run of `"+test+"` failed") {
		t.Errorf("after a failing run: %q", m)
	}
	l.observe(bash, ok, clean)
	if m := l.untested(test); m != "" {
		t.Errorf("after a passing run: %q, want nothing", m)
	}
	l.observe(editCall("x.go"), ok, clean)
	if m := l.untested(test); !strings.Contains(m, "have not run the tests") {
		t.Errorf("after a second edit: %q", m)
	}
	if !slices.Equal(l.files, []string{"x.go"}) || l.diffTotal() != 4 {
		t.Errorf("files %v diff %d, want [x.go] 4", l.files, l.diffTotal())
	}
}

func TestGateEdit(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"a.go": "package a\n\nvar x = 1\nvar y = 1\n", "b.go": "package a\n", "sub/c.go": "package sub\n", "d.json": "{}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &Check{ws: ws, fix: &FixConfig{Test: "go test ./...", Allowed: []string{"a.go", "sub/**"}}, maxDiff: 4}
	edit := func(file, old, repl string) map[string]any {
		return map[string]any{"file_path": file, "old_string": old, "new_string": repl}
	}
	cases := []struct {
		name string
		tool string
		in   map[string]any
		want string // "" → allowed
	}{
		{"allowed", "Edit", edit("a.go", "var x = 1", "var x = 2"), ""},
		{"allowed by a ** glob", "Edit", edit("sub/c.go", "package sub", "package sub2"), ""},
		{"absolute path", "Edit", edit(filepath.Join(ws.CWD(), "a.go"), "var x = 1", "var x = 2"), ""},
		{"not allowed", "Edit", edit("b.go", "package a", "package b"), "a.go, sub/**"},
		{"wrong type", "Edit", edit("d.json", "{}", "[]"), `".json"`},
		{"twice", "Edit", edit("a.go", " = 1", " = 2"), "occurs 2 times"},
		{"absent", "Edit", edit("a.go", "var z", "var w"), "occurs 0 times"},
		{"empty old_string", "Edit", edit("a.go", "", "package a\n"), "exactly once"},
		{"missing file", "Edit", edit("sub/new.go", "", "package sub\n"), "sub/new.go"},
		{"replace_all", "Edit", map[string]any{"file_path": "a.go", "old_string": "var x = 1", "new_string": "var x = 2", "replace_all": true}, "replace_all"},
		{"too large", "Edit", edit("a.go", "package a\n\nvar x = 1\nvar y = 1\n", "package b\n\nvar x = 2\nvar y = 2\n"), "at most 4 lines"},
		{"at the limit", "Edit", edit("a.go", "package a\n\nvar x = 1\n", "package b\n\nvar x = 2\n"), ""},
		{"Write", "Write", map[string]any{"file_path": "a.go", "content": "x"}, "use Edit"},
		{"MultiEdit", "MultiEdit", map[string]any{"file_path": "a.go"}, "use Edit"},
		{"Bash other", "Bash", map[string]any{"command": "rm a.go"}, "only the test command"},
		{"Bash test", "Bash", map[string]any{"command": "go test ./... -run TestX"}, ""},
		{"Read", "Read", map[string]any{"file_path": "d.json"}, ""},
	}
	for _, c := range cases {
		d := s.gateEdit(callOf(c.tool, c.in), c.in)
		switch {
		case c.want == "" && d.Deny:
			t.Errorf("%s: denied (%s), want allowed", c.name, d.Reason)
		case c.want != "" && (!d.Deny || !strings.Contains(d.Reason, c.want)):
			t.Errorf("%s: deny=%v reason %q, want a denial containing %q", c.name, d.Deny, d.Reason, c.want)
		}
	}
	// The limit is over the whole run: what earlier edits changed counts.
	s.edits.diff = 3
	in := edit("a.go", "var x = 1", "var x = 2")
	if d := s.gateEdit(callOf("Edit", in), in); !d.Deny || !strings.Contains(d.Reason, "3 were already changed") {
		t.Errorf("cumulative limit: deny=%v %q", d.Deny, d.Reason)
	}
}

func TestMatchAny(t *testing.T) {
	for _, c := range []struct {
		globs []string
		rel   string
		want  bool
	}{
		{[]string{"a.go"}, "a.go", true},
		{[]string{"./a.go"}, "a.go", true},
		{[]string{"*.go"}, "sub/a.go", false},
		{[]string{"**/*.go"}, "sub/a.go", true},
		{[]string{"sub/*"}, "sub/deep/a.go", false},
		{[]string{"x.go", "sub/**"}, "sub/deep/a.go", true},
	} {
		if got := MatchAny(c.globs, c.rel); got != c.want {
			t.Errorf("MatchAny(%q, %q) = %v, want %v", c.globs, c.rel, got, c.want)
		}
	}
}

// TestGateRefusesOutside checks the scout's own gate, independent of the harness's
// permission rules (which refuse most of these too).
func TestGateRefusesOutside(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.go"), []byte("package in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	gate := func(s *Check, name string, in map[string]any) (bool, string) {
		raw, _ := json.Marshal(in)
		d := s.Gate(t.Context(), tool.Call{Name: name, Input: raw})
		return d.Deny, d.Reason
	}
	scoutState := &Check{ws: ws}
	fixState := &Check{ws: ws, fix: &FixConfig{Test: "go test ./..."}, maxDiff: DefaultMaxDiffLines}
	for _, s := range []*Check{scoutState, fixState} {
		for _, c := range []struct {
			name string
			in   map[string]any
		}{
			{"Read", map[string]any{"file_path": "../x"}},
			{"Read", map[string]any{"file_path": "/etc/hostname"}},
			{"Read", map[string]any{"file_path": filepath.Join(outside, "secret")}},
			{"Read", map[string]any{"file_path": "link/secret"}},
			{"Grep", map[string]any{"pattern": "x", "path": ".."}},
			{"Glob", map[string]any{"pattern": "*", "path": "/"}},
			{"Edit", map[string]any{"file_path": "../in.go", "old_string": "a", "new_string": "b"}},
		} {
			deny, reason := gate(s, c.name, c.in)
			if !deny || !strings.Contains(reason, "outside the workspace") {
				t.Errorf("fix=%v %s %v: deny=%v %q, want outside the workspace", s.fix != nil, c.name, c.in, deny, reason)
			}
		}
	}
	for _, c := range []map[string]any{{"file_path": "in.go"}, {"file_path": filepath.Join(ws.CWD(), "in.go")}, {"file_path": "missing.go"}} {
		if deny, reason := gate(scoutState, "Read", c); deny {
			t.Errorf("Read %v: denied %q", c, reason)
		}
	}
	if deny, reason := gate(scoutState, "Grep", map[string]any{"pattern": "x"}); deny {
		t.Errorf("Grep without a path: denied %q", reason)
	}
}

// callOf is the call of tool with input in.
func callOf(name string, in map[string]any) tool.Call {
	b, _ := json.Marshal(in)
	return tool.Call{Name: name, Input: b}
}

// A fix offers Edit and Bash next to the read-only tools, and allows only the test
// command for Bash.
func TestFixOffersEditAndBash(t *testing.T) {
	p, err := Prepare(Config{Dir: t.TempDir(), Prompt: "make TestX pass", Fix: &FixConfig{Test: "go test ./..."}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Glob", "Grep", "Read", "Edit", "Bash"}; !slices.Equal(p.Tools, want) {
		t.Errorf("tools %q, want %q", p.Tools, want)
	}
	if !slices.Contains(p.Allow, "Bash(go test ./... *)") || p.Mode != "acceptEdits" {
		t.Errorf("allow %q mode %q", p.Allow, p.Mode)
	}
}
