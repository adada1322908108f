package scout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// fixture is a workspace with files and the real read-only tools, so that the evidence
// is recorded from the output the tools really produce, not from a copy of its format.
type fixture struct {
	t    *testing.T
	ws   *workspace.Workspace
	reg  *tool.Registry
	ev   *Evidence
	dir  string
	next int
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
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
	reg := tool.NewRegistry(tools.NewRead(ws, tools.NewFileState()), tools.NewGrep(ws), tools.NewGlob(ws))
	return &fixture{t: t, ws: ws, reg: reg, ev: NewEvidence(ws), dir: ws.CWD()}
}

// call runs a tool through the registry, as the agent loop does, records the result and
// returns its text.
func (f *fixture) call(name string, input map[string]any) (string, bool) {
	f.t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		f.t.Fatal(err)
	}
	f.next++
	c := tool.Call{ID: fmt.Sprintf("call_%d", f.next), Name: name, Input: raw}
	res := f.reg.Run(context.Background(), c)
	f.ev.Record(c, res.Block(c.ID))
	return res.Text(), res.IsError
}

func (f *fixture) mustCall(name string, input map[string]any) string {
	f.t.Helper()
	out, isErr := f.call(name, input)
	if isErr {
		f.t.Fatalf("%s %v failed: %s", name, input, out)
	}
	return out
}

// numbered returns n lines "line 1" ... "line n".
func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

type probe struct {
	path          string
	line, endLine int
	ok            bool
	why           string // a part of the explanation, when !ok
}

func checkProbes(t *testing.T, ev *Evidence, probes []probe) {
	t.Helper()
	for _, p := range probes {
		ok, why := ev.Check(p.path, p.line, p.endLine)
		if ok != p.ok {
			t.Errorf("Check(%q, %d, %d) = %v (%q), want %v", p.path, p.line, p.endLine, ok, why, p.ok)
			continue
		}
		if ok && why != "" {
			t.Errorf("Check(%q, %d, %d) ok but explains %q", p.path, p.line, p.endLine, why)
		}
		if !ok && !strings.Contains(why, p.why) {
			t.Errorf("Check(%q, %d, %d) explains %q, want it to mention %q", p.path, p.line, p.endLine, why, p.why)
		}
	}
}

func TestRecordRead(t *testing.T) {
	files := map[string]string{
		"a.go":          numbered(50),
		"big.txt":       numbered(300),
		"empty.txt":     "",
		"sub/b.py":      numbered(10),
		"pic.png":       "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 32),
		"short.go":      "package short", // no final newline
		"lib/c-1-d.txt": numbered(3),
	}
	tests := []struct {
		name   string
		calls  []map[string]any
		probes []probe
		files  []string // Files() afterwards
	}{
		{
			name:  "whole file",
			calls: []map[string]any{{"file_path": "a.go"}},
			probes: []probe{
				{"a.go", 0, 0, true, ""},
				{"a.go", 1, 0, true, ""},
				{"a.go", 50, 0, true, ""},
				{"a.go", 10, 20, true, ""},
				{"a.go", 51, 0, false, "line 51 of a.go was not shown: this run saw lines 1-50"},
				{"a.go", 40, 60, false, "line 60 of a.go was not shown (a range 40-60 needs both ends seen)"},
				{"sub/b.py", 1, 0, false, "sub/b.py was never read in this run"},
			},
			files: []string{"a.go"},
		},
		{
			name:  "offset and limit",
			calls: []map[string]any{{"file_path": "big.txt", "offset": 100, "limit": 20}},
			probes: []probe{
				{"big.txt", 0, 0, true, ""},
				{"big.txt", 100, 0, true, ""},
				{"big.txt", 119, 0, true, ""},
				{"big.txt", 99, 0, false, "this run saw lines 100-119"},
				{"big.txt", 120, 0, false, "line 120 of big.txt was not shown"},
				{"big.txt", 1, 0, false, "line 1 of big.txt"},
				{"big.txt", 100, 150, false, "line 150"},
			},
			files: []string{"big.txt"},
		},
		{
			name: "two reads merge",
			calls: []map[string]any{
				{"file_path": "big.txt", "offset": 1, "limit": 10},
				{"file_path": "big.txt", "offset": 200, "limit": 5},
				{"file_path": "big.txt", "offset": 11, "limit": 5},
			},
			probes: []probe{
				{"big.txt", 1, 15, true, ""},
				{"big.txt", 5, 202, true, ""}, // both ends seen: enough by the rule
				{"big.txt", 16, 0, false, "this run saw lines 1-15, 200-204"},
			},
			files: []string{"big.txt"},
		},
		{
			name:  "limit past the end shows what exists",
			calls: []map[string]any{{"file_path": "sub/b.py", "offset": 8, "limit": 100}},
			probes: []probe{
				{"sub/b.py", 8, 10, true, ""},
				{"sub/b.py", 11, 0, false, "saw lines 8-10"},
				{"sub/b.py", 7, 0, false, "saw lines 8-10"},
			},
			files: []string{"sub/b.py"},
		},
		{
			name:  "offset past the end is an error and shows nothing",
			calls: []map[string]any{{"file_path": "a.go", "offset": 60}},
			probes: []probe{
				{"a.go", 0, 0, false, "a.go was never read in this run"},
				{"a.go", 60, 0, false, "never read"},
			},
		},
		{
			name:   "missing file",
			calls:  []map[string]any{{"file_path": "nope.go"}},
			probes: []probe{{"nope.go", 0, 0, false, "nope.go was never read in this run"}},
		},
		{
			name:  "empty file is seen as a whole",
			calls: []map[string]any{{"file_path": "empty.txt"}},
			probes: []probe{
				{"empty.txt", 0, 0, true, ""},
				{"empty.txt", 1, 0, false, "none of its lines"},
			},
			files: []string{"empty.txt"},
		},
		{
			name:   "image is seen as a whole",
			calls:  []map[string]any{{"file_path": "pic.png"}},
			probes: []probe{{"pic.png", 0, 0, true, ""}, {"pic.png", 1, 0, false, "not shown"}},
			files:  []string{"pic.png"},
		},
		{
			name:   "last line without a newline",
			calls:  []map[string]any{{"file_path": "short.go"}},
			probes: []probe{{"short.go", 1, 0, true, ""}, {"short.go", 2, 0, false, "saw lines 1"}},
			files:  []string{"short.go"},
		},
		{
			name:  "absolute path in, relative and ./ out",
			calls: []map[string]any{{"file_path": "ABS/sub/b.py"}},
			probes: []probe{
				{"sub/b.py", 3, 0, true, ""},
				{"./sub/b.py", 3, 0, true, ""},
				{"sub/../sub/b.py", 3, 0, true, ""},
				{"ABS/sub/b.py", 10, 0, true, ""},
				{"ABS/sub/b.py", 11, 0, false, "line 11 of sub/b.py was not shown"},
			},
			files: []string{"sub/b.py"},
		},
		{
			name:  "relative path in, absolute out",
			calls: []map[string]any{{"file_path": "./lib/c-1-d.txt"}},
			probes: []probe{
				{"ABS/lib/c-1-d.txt", 2, 0, true, ""},
				{"lib/c-1-d.txt", 3, 0, true, ""},
			},
			files: []string{"lib/c-1-d.txt"},
		},
		{
			name:   "outside the workspace",
			calls:  []map[string]any{{"file_path": "/etc/hostname"}},
			probes: []probe{{"/etc/hostname", 0, 0, false, "outside the workspace"}, {"../x.go", 1, 0, false, "outside the workspace"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, files)
			abs := func(s string) string { return strings.Replace(s, "ABS", f.dir, 1) }
			for _, c := range tc.calls {
				if p, ok := c["file_path"].(string); ok {
					c["file_path"] = abs(p)
				}
				f.call("Read", c)
			}
			probes := make([]probe, len(tc.probes))
			for i, p := range tc.probes {
				p.path = abs(p.path)
				probes[i] = p
			}
			checkProbes(t, f.ev, probes)
			if got := strings.Join(f.ev.Files(), ","); got != strings.Join(tc.files, ",") {
				t.Errorf("Files() = %q, want %q", got, tc.files)
			}
		})
	}
}

func TestRecordGrep(t *testing.T) {
	src := numbered(30)
	src = strings.Replace(src, "line 5\n", "line 5 needle\n", 1)
	src = strings.Replace(src, "line 20\n", "line 20 needle\n", 1)
	files := map[string]string{
		"pkg/x.go":      src,
		"pkg/y.go":      "package y\n\n// needle here\n",
		"docs/a-2-b.md": "one\ntwo needle\nthree\n",
		"pkg/z.go":      "package z\n",
	}
	tests := []struct {
		name   string
		input  map[string]any
		probes []probe
		files  []string
	}{
		{
			name:  "content with context",
			input: map[string]any{"pattern": "needle", "output_mode": "content", "-C": 1},
			probes: []probe{
				{"pkg/x.go", 0, 0, true, ""},
				{"pkg/x.go", 4, 0, true, ""},
				{"pkg/x.go", 5, 0, true, ""},
				{"pkg/x.go", 6, 0, true, ""},
				{"pkg/x.go", 19, 21, true, ""},
				{"pkg/x.go", 3, 0, false, "line 3 of pkg/x.go was not shown: this run saw lines 4-6, 19-21"},
				{"pkg/x.go", 7, 0, false, "saw lines 4-6, 19-21"},
				{"pkg/y.go", 2, 3, true, ""},
				{"pkg/y.go", 1, 0, false, "saw lines 2-3"},
				// A file name holding "-2-" must not be taken for line 2 of "docs/a".
				{"docs/a-2-b.md", 1, 3, true, ""},
				{"pkg/z.go", 0, 0, false, "never read"},
			},
			files: []string{"docs/a-2-b.md", "pkg/x.go", "pkg/y.go"},
		},
		{
			name:  "content without context",
			input: map[string]any{"pattern": "needle", "output_mode": "content", "path": "pkg"},
			probes: []probe{
				{"pkg/x.go", 5, 0, true, ""},
				{"pkg/x.go", 20, 0, true, ""},
				{"pkg/x.go", 4, 0, false, "saw lines 5, 20"},
				{"docs/a-2-b.md", 0, 0, false, "never read"},
			},
			files: []string{"pkg/x.go", "pkg/y.go"},
		},
		{
			name:  "content without line numbers is file-level",
			input: map[string]any{"pattern": "needle", "output_mode": "content", "-n": false},
			probes: []probe{
				{"pkg/x.go", 0, 0, true, ""},
				{"pkg/x.go", 5, 0, false, "none of its lines"},
			},
			files: []string{"docs/a-2-b.md", "pkg/x.go", "pkg/y.go"},
		},
		{
			name:  "files_with_matches is file-level",
			input: map[string]any{"pattern": "needle"},
			probes: []probe{
				{"pkg/x.go", 0, 0, true, ""},
				{"pkg/x.go", 5, 0, false, "line 5 of pkg/x.go was not shown: this run only saw pkg/x.go listed by a search"},
				{"docs/a-2-b.md", 0, 0, true, ""},
				{"pkg/z.go", 0, 0, false, "never read"},
			},
			files: []string{"docs/a-2-b.md", "pkg/x.go", "pkg/y.go"},
		},
		{
			name:  "count is file-level",
			input: map[string]any{"pattern": "needle", "output_mode": "count"},
			probes: []probe{
				{"pkg/x.go", 0, 0, true, ""},
				{"pkg/x.go", 2, 0, false, "none of its lines"},
			},
			files: []string{"docs/a-2-b.md", "pkg/x.go", "pkg/y.go"},
		},
		{
			name:  "head_limit shows only the first files",
			input: map[string]any{"pattern": "needle", "head_limit": 1},
			probes: []probe{
				{"docs/a-2-b.md", 0, 0, true, ""},
				{"pkg/x.go", 0, 0, false, "never read"},
			},
			files: []string{"docs/a-2-b.md"},
		},
		{
			name:   "one file named",
			input:  map[string]any{"pattern": "needle", "output_mode": "content", "path": "pkg/y.go"},
			probes: []probe{{"pkg/y.go", 3, 0, true, ""}, {"pkg/x.go", 0, 0, false, "never read"}},
			files:  []string{"pkg/y.go"},
		},
		{
			name:   "no matches",
			input:  map[string]any{"pattern": "absent", "output_mode": "content"},
			probes: []probe{{"pkg/x.go", 0, 0, false, "never read"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, files)
			f.mustCall("Grep", tc.input)
			checkProbes(t, f.ev, tc.probes)
			if got := strings.Join(f.ev.Files(), ","); got != strings.Join(tc.files, ",") {
				t.Errorf("Files() = %q, want %q", got, tc.files)
			}
		})
	}
}

func TestRecordIgnores(t *testing.T) {
	f := newFixture(t, map[string]string{"a.go": numbered(5)})
	// Glob names files but shows none of their content.
	if out := f.mustCall("Glob", map[string]any{"pattern": "*.go"}); !strings.Contains(out, "a.go") {
		t.Fatalf("Glob output %q does not list a.go", out)
	}
	// An error result, even one that looks like Read output, shows nothing.
	in := json.RawMessage(`{"file_path":"a.go"}`)
	f.ev.Record(tool.Call{ID: "x", Name: "Read", Input: in}, tool.Result{Content: []llm.Block{llm.TextBlock("     1\tline 1\n")}, IsError: true}.Block("x"))
	// Another tool's output in the Read format is no evidence either.
	f.ev.Record(tool.Call{ID: "y", Name: "Bash", Input: in}, tool.Text("     1\tline 1\n").Block("y"))
	// Malformed input is ignored rather than trusted.
	f.ev.Record(tool.Call{ID: "z", Name: "Read", Input: json.RawMessage(`{`)}, tool.Text("     1\tline 1\n").Block("z"))
	checkProbes(t, f.ev, []probe{{"a.go", 0, 0, false, "never read"}})
	if files := f.ev.Files(); len(files) != 0 {
		t.Errorf("Files() = %q, want none", files)
	}
}

// TestRecordCutResult feeds a Read whose output the registry cut in the middle: the lines
// left out are not seen, and the fragments around the cut are not taken for lines.
func TestRecordCutResult(t *testing.T) {
	f := newFixture(t, map[string]string{"long.txt": numbered(400)})
	f.reg.SetOptions(tool.Options{OutputBudget: 1000})
	out := f.mustCall("Read", map[string]any{"file_path": "long.txt"})
	if !strings.Contains(out, "left out of this view") {
		t.Fatalf("the registry did not cut the output:\n%s", out)
	}
	ok1, _ := f.ev.Check("long.txt", 1, 0)
	ok200, _ := f.ev.Check("long.txt", 200, 0)
	ok400, _ := f.ev.Check("long.txt", 400, 0)
	if !ok1 || ok200 || !ok400 {
		t.Errorf("lines 1, 200, 400 seen = %v, %v, %v; want true, false, true", ok1, ok200, ok400)
	}
	// Every line the evidence claims must appear whole in the output the model saw.
	for n := 1; n <= 400; n++ {
		ok, _ := f.ev.Check("long.txt", n, 0)
		whole := strings.Contains("\n"+out+"\n", fmt.Sprintf("\n%6d\tline %d\n", n, n))
		if ok && !whole {
			t.Errorf("line %d counted as seen but not shown whole", n)
		}
	}
}

// TestRecordCutFragments cuts a Read of long lines where the registry leaves fragments:
// the head stops inside line 1 and the tail starts inside the number of line 22, at
// "2\txxx…", which must not pass for line 2. (Each output line is 505 characters, so
// the last 500 start 5 characters into the last line.)
func TestRecordCutFragments(t *testing.T) {
	f := newFixture(t, map[string]string{"wide.txt": strings.Repeat(strings.Repeat("x", 497)+"\n", 22)})
	f.reg.SetOptions(tool.Options{OutputBudget: 1000})
	out := f.mustCall("Read", map[string]any{"file_path": "wide.txt"})
	if !strings.Contains(out, "]\n\n2\txxx") {
		t.Fatalf("the cut is not where this test needs it:\n%s", out)
	}
	for _, n := range []int{1, 2, 22} {
		if ok, _ := f.ev.Check("wide.txt", n, 0); ok {
			t.Errorf("line %d counted as seen, but only a fragment of it was shown", n)
		}
	}
}

func TestRecordConcurrent(t *testing.T) {
	f := newFixture(t, map[string]string{"big.txt": numbered(1000), "b.go": numbered(40)})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			raw, _ := json.Marshal(map[string]any{"file_path": "big.txt", "offset": i*50 + 1, "limit": 50})
			c := tool.Call{ID: fmt.Sprint(i), Name: "Read", Input: raw}
			f.ev.Record(c, f.reg.Run(context.Background(), c).Block(c.ID))
		})
		wg.Go(func() {
			raw, _ := json.Marshal(map[string]any{"pattern": fmt.Sprintf("^line %d$", i+1), "output_mode": "content"})
			c := tool.Call{ID: fmt.Sprint("g", i), Name: "Grep", Input: raw}
			f.ev.Record(c, f.reg.Run(context.Background(), c).Block(c.ID))
			f.ev.Check("big.txt", i, 0)
			f.ev.Files()
		})
	}
	wg.Wait()
	checkProbes(t, f.ev, []probe{
		{"big.txt", 1, 1000, true, ""},
		{"b.go", 1, 20, true, ""},
		{"b.go", 21, 0, false, "saw lines 1-20"},
	})
	for n := 1; n <= 1000; n++ {
		if ok, why := f.ev.Check("big.txt", n, 0); !ok {
			t.Fatalf("line %d: %s", n, why)
		}
	}
}

func TestSpans(t *testing.T) {
	tests := []struct {
		add  [][2]int
		want string
		in   []int
		out  []int
	}{
		{add: nil, want: "", out: []int{0, 1}},
		{add: [][2]int{{5, 5}}, want: "5", in: []int{5}, out: []int{4, 6}},
		{add: [][2]int{{10, 20}, {1, 3}, {30, 40}}, want: "1-3, 10-20, 30-40", in: []int{1, 3, 10, 20, 35}, out: []int{4, 9, 21, 29, 41}},
		{add: [][2]int{{10, 20}, {21, 25}}, want: "10-25", in: []int{21}},   // adjacent merge
		{add: [][2]int{{10, 20}, {5, 9}}, want: "5-20", in: []int{5, 9}},    // adjacent before
		{add: [][2]int{{1, 3}, {7, 9}, {2, 8}}, want: "1-9", in: []int{5}},  // bridge
		{add: [][2]int{{1, 3}, {7, 9}, {12, 14}, {4, 12}}, want: "1-14"},    // bridge several
		{add: [][2]int{{5, 10}, {6, 7}}, want: "5-10", in: []int{8}},        // inside
		{add: [][2]int{{5, 6}, {1, 2}, {3, 4}}, want: "1-6", out: []int{7}}, // fill a gap
		{add: [][2]int{{1, 1}, {3, 3}, {5, 5}, {7, 7}, {9, 9}, {11, 11}, {13, 13}, {15, 15}, {17, 17}, {19, 19}},
			want: "1, 3, 5, 7, 9, 11, 13, 15, and 2 more ranges"},
	}
	for _, tc := range tests {
		var s spans
		for _, a := range tc.add {
			s.add(a[0], a[1])
		}
		if got := s.String(); got != tc.want {
			t.Errorf("after %v: %q, want %q", tc.add, got, tc.want)
		}
		for _, n := range tc.in {
			if !s.has(n) {
				t.Errorf("after %v: has(%d) false", tc.add, n)
			}
		}
		for _, n := range tc.out {
			if s.has(n) {
				t.Errorf("after %v: has(%d) true", tc.add, n)
			}
		}
	}
}
