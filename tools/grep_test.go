package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

func TestGrepSpec(t *testing.T) {
	ws, _ := searchWS(t, nil)
	checkSearchSpec(t, NewGrep(ws), "Grep",
		[]string{"-A", "-B", "-C", "-i", "-n", "glob", "head_limit", "multiline", "output_mode", "path", "pattern", "type"}, []string{"pattern"})
}

// grepFixture is a small project with every kind of file Grep must handle.
var grepFixture = map[string]string{
	".gitignore":        "*.log\nbuild/\n",
	"main.go":           "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello\")\n}\n",
	"util.go":           "package main\n\n// Hello says hello.\nfunc hello() string { return \"hello\" }\n",
	"app.py":            "def hello():\n    return 'HELLO'\n",
	"web/app.ts":        "export const hello = () => 'hello';\n",
	"web/app.test.ts":   "test('hello', () => {});\n",
	"web/.gitignore":    "gen/\n!keep.log\n",
	"web/gen/out.ts":    "hello generated\n",
	"web/keep.log":      "hello from a kept log\n",
	"debug.log":         "hello from an ignored log\n",
	"build/x.go":        "hello in build\n",
	"README.md":         "# Hello\nSay hello.\n",
	"bin/blob":          "hello\x00binary\n",
	"notes/context.txt": "one\ntwo\nthree MATCH\nfour\nfive\nsix\nseven\neight MATCH\nnine MATCH\nten\neleven\ntwelve\n",
}

func grep(t *testing.T, g *Grep, in map[string]any) string {
	t.Helper()
	out, err := runSearchTool(t, g, in)
	if err != nil {
		t.Fatalf("Grep %v: %v", in, err)
	}
	return out
}

func TestGrepModes(t *testing.T) {
	ws, _ := searchWS(t, grepFixture)
	g := NewGrep(ws)
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"files default", map[string]any{"pattern": "hello"},
			"Found 6 files\nREADME.md\napp.py\nutil.go\nweb/app.test.ts\nweb/app.ts\nweb/keep.log"},
		{"case insensitive", map[string]any{"pattern": "HELLO", "-i": true},
			"Found 7 files\nREADME.md\napp.py\nmain.go\nutil.go\nweb/app.test.ts\nweb/app.ts\nweb/keep.log"},
		{"regex", map[string]any{"pattern": `func \w+\(\)`, "output_mode": "content"},
			"main.go:5:func main() {\nutil.go:4:func hello() string { return \"hello\" }"},
		{"no numbers", map[string]any{"pattern": "Hello", "output_mode": "content", "-n": false},
			"README.md:# Hello\nmain.go:\tfmt.Println(\"Hello\")\nutil.go:// Hello says hello."},
		{"count", map[string]any{"pattern": "hello", "output_mode": "count", "-i": true},
			"README.md:2\napp.py:2\nmain.go:1\nutil.go:2\nweb/app.test.ts:1\nweb/app.ts:1\nweb/keep.log:1\n\nFound 10 matching lines in 7 files."},
		{"type", map[string]any{"pattern": "hello", "type": "ts"},
			"Found 2 files\nweb/app.test.ts\nweb/app.ts"},
		{"type go", map[string]any{"pattern": "hello", "type": "GO"},
			"Found 1 file\nutil.go"},
		{"glob", map[string]any{"pattern": "hello", "glob": "*.{py,go}"},
			"Found 2 files\napp.py\nutil.go"},
		{"glob exclude", map[string]any{"pattern": "hello", "glob": "*.ts !*.test.ts"},
			"Found 1 file\nweb/app.ts"},
		{"glob with slash", map[string]any{"pattern": "hello", "glob": "web/*.ts"},
			"Found 2 files\nweb/app.test.ts\nweb/app.ts"},
		{"exclude directory", map[string]any{"pattern": "hello", "glob": "!web"},
			"Found 3 files\nREADME.md\napp.py\nutil.go"},
		{"path dir", map[string]any{"pattern": "hello", "path": "web"},
			"Found 3 files\nweb/app.test.ts\nweb/app.ts\nweb/keep.log"},
		{"path ignored dir named", map[string]any{"pattern": "hello", "path": "build"},
			"Found 1 file\nbuild/x.go"},
		{"path file", map[string]any{"pattern": "hello", "path": "debug.log", "output_mode": "content"},
			"debug.log:1:hello from an ignored log"},
		{"no match files", map[string]any{"pattern": "nothing-like-this"}, "No files found"},
		{"no match content", map[string]any{"pattern": "nothing-like-this", "output_mode": "content"}, "No matches found"},
		{"head_limit files", map[string]any{"pattern": "hello", "head_limit": 2},
			"Found 6 files\nREADME.md\napp.py\n[Showing 2 of 6 files (head_limit 2). Narrow the search with path, glob, type or a more specific pattern to see the rest.]"},
		{"head_limit count", map[string]any{"pattern": "hello", "output_mode": "count", "head_limit": 1},
			"README.md:1\n[Showing 1 of 6 files (head_limit 1). Narrow the search with path, glob, type or a more specific pattern to see the rest.]\n\nFound 7 matching lines in 6 files."},
		{"head_limit content", map[string]any{"pattern": "MATCH", "output_mode": "content", "head_limit": 2},
			"notes/context.txt:3:three MATCH\nnotes/context.txt:8:eight MATCH\n[Output cut (head_limit 2): 3 lines in 1 file matched. Narrow the search with path, glob, type or a more specific pattern, or use output_mode \"files_with_matches\" or \"count\" first.]"},
		{"head_limit zero", map[string]any{"pattern": "MATCH", "output_mode": "count", "head_limit": 0},
			"notes/context.txt:3\n\nFound 3 matching lines in 1 file."},
	}
	for _, tt := range tests {
		if got := grep(t, g, tt.in); got != tt.want {
			t.Errorf("%s: Grep %v =\n%s\nwant\n%s", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestGrepContext(t *testing.T) {
	ws, _ := searchWS(t, map[string]string{
		"notes/context.txt": grepFixture["notes/context.txt"],
		"notes/other.txt":   "a\nb MATCH\nc\n",
	})
	g := NewGrep(ws)
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"-C 1", map[string]any{"-C": 1},
			"notes/context.txt-2-two\nnotes/context.txt:3:three MATCH\nnotes/context.txt-4-four\n--\nnotes/context.txt-7-seven\nnotes/context.txt:8:eight MATCH\nnotes/context.txt:9:nine MATCH\nnotes/context.txt-10-ten\n--\nnotes/other.txt-1-a\nnotes/other.txt:2:b MATCH\nnotes/other.txt-3-c"},
		{"-A 2 merges", map[string]any{"-A": 2, "path": "notes/context.txt"},
			"notes/context.txt:3:three MATCH\nnotes/context.txt-4-four\nnotes/context.txt-5-five\n--\nnotes/context.txt:8:eight MATCH\nnotes/context.txt:9:nine MATCH\nnotes/context.txt-10-ten\nnotes/context.txt-11-eleven"},
		{"-B 3 stops at the start and at the last line shown", map[string]any{"-B": 3, "path": "notes/context.txt"},
			"notes/context.txt-1-one\nnotes/context.txt-2-two\nnotes/context.txt:3:three MATCH\n--\nnotes/context.txt-5-five\nnotes/context.txt-6-six\nnotes/context.txt-7-seven\nnotes/context.txt:8:eight MATCH\nnotes/context.txt:9:nine MATCH"},
		{"-C with -A overriding", map[string]any{"-C": 5, "-A": 0, "-B": 1, "path": "notes/context.txt", "-n": false},
			"notes/context.txt-two\nnotes/context.txt:three MATCH\n--\nnotes/context.txt-seven\nnotes/context.txt:eight MATCH\nnotes/context.txt:nine MATCH"},
		{"context at the end of a file without newline", map[string]any{"-A": 3, "pattern": "last", "path": "notes/end.txt"},
			"notes/end.txt:2:last"},
	}
	if err := os.WriteFile(filepath.Join(ws.CWD(), "notes", "end.txt"), []byte("first\nlast"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		in := map[string]any{"pattern": "MATCH", "output_mode": "content"}
		for k, v := range tt.in {
			in[k] = v
		}
		if got := grep(t, g, in); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

func TestGrepMultiline(t *testing.T) {
	ws, _ := searchWS(t, map[string]string{
		"s.go": "type T struct {\n\tA int\n\tB string\n}\n\nfunc f() {}\n",
	})
	g := NewGrep(ws)
	got := grep(t, g, map[string]any{"pattern": `struct \{.*?B string`, "multiline": true, "output_mode": "content"})
	want := "s.go:1:type T struct {\ns.go:2:\tA int\ns.go:3:\tB string"
	if got != want {
		t.Errorf("multiline =\n%s\nwant\n%s", got, want)
	}
	// Without multiline, "." stops at the end of the line and so does a negated class.
	for _, p := range []string{`struct \{.*B string`, `struct \{[^x]*B string`, `struct \{\s*\tA`} {
		if got := grep(t, g, map[string]any{"pattern": p}); got != "No files found" {
			t.Errorf("pattern %q matched across lines without multiline: %s", p, got)
		}
	}
	if got := grep(t, g, map[string]any{"pattern": `^\tB`, "output_mode": "count"}); got != "s.go:1\n\nFound 1 matching line in 1 file." {
		t.Errorf("^ must match at line starts: %s", got)
	}
	if got := grep(t, g, map[string]any{"pattern": `\}\n\nfunc`, "multiline": true, "output_mode": "count"}); got != "s.go:3\n\nFound 3 matching lines in 1 file." {
		t.Errorf("a literal newline in multiline mode: %s", got)
	}
}

func TestGrepSkipsBinaryAndLargeFiles(t *testing.T) {
	ws, root := searchWS(t, map[string]string{
		"text.txt":  "needle\n",
		"bin.dat":   "needle\x00\x01\x02",
		"late.bin":  strings.Repeat("x", grepBinarySniff) + "\x00needle\n", // NUL after the sniffed part
		"small.txt": "no\n",
	})
	big, err := os.Create(filepath.Join(root, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := big.WriteString("needle\n"); err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(grepMaxFileSize + 1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	big.Close()
	if got := grep(t, NewGrep(ws), map[string]any{"pattern": "needle", "path": "bin.dat"}); !strings.HasPrefix(got, "No files found (the file is binary") {
		t.Errorf("a binary file named as path: %s", got)
	}
	got := grep(t, NewGrep(ws), map[string]any{"pattern": "needle"})
	want := "Found 2 files\nlate.bin\ntext.txt\n\n(1 file larger than 20 MiB not searched: huge.txt. Search them with Bash, e.g. grep -n PATTERN FILE | head.)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGrepLongLinesAndInvalidUTF8(t *testing.T) {
	ws, _ := searchWS(t, map[string]string{
		"min.js":  strings.Repeat("é", 600) + "needle" + strings.Repeat("a", 100) + "\n",
		"bad.txt": "needle \xff\xfe end\n",
	})
	got := grep(t, NewGrep(ws), map[string]any{"pattern": "needle", "output_mode": "content"})
	want := "bad.txt:1:needle \uFFFD end\nmin.js:1:" + strings.Repeat("é", 500) + " [… 206 more characters]"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestGrepOutputCap(t *testing.T) {
	files := map[string]string{}
	line := strings.Repeat("z", 60) + " needle\n"
	for i := range 300 {
		files[fmt.Sprintf("f%03d.txt", i)] = strings.Repeat(line, 10)
	}
	ws, _ := searchWS(t, files)
	g := NewGrep(ws)
	got := grep(t, g, map[string]any{"pattern": "needle", "output_mode": "content"})
	if len(got) > grepMaxOutput+500 {
		t.Fatalf("output is %d characters, cap is %d", len(got), grepMaxOutput)
	}
	lines := strings.Split(got, "\n")
	note := lines[len(lines)-1]
	if !strings.Contains(note, "output capped at 30000 characters") || !strings.Contains(note, "3000 lines in 300 files matched") {
		t.Errorf("note %q does not give the cap and the totals", note)
	}
	// The lines shown are the first ones in path order, without a gap.
	for i, l := range lines[:len(lines)-1] {
		want := fmt.Sprintf("f%03d.txt:%d:%s", i/10, i%10+1, strings.TrimSuffix(line, "\n"))
		if l != want {
			t.Fatalf("line %d = %q, want %q", i, l, want)
		}
	}
	if again := grep(t, g, map[string]any{"pattern": "needle", "output_mode": "content"}); again != got {
		t.Error("two identical searches gave different output")
	}
	files100 := grep(t, g, map[string]any{"pattern": "needle"})
	if !strings.HasPrefix(files100, "Found 300 files\nf000.txt\n") || strings.Count(files100, "\n") != 300 {
		t.Errorf("files_with_matches lists every file while under the cap: %.80q", files100)
	}
}

func TestGrepErrors(t *testing.T) {
	outside := realDir(t, t.TempDir())
	makeSearchTree(t, outside, map[string]string{"secret.txt": "password\n"})
	ws, root := searchWS(t, map[string]string{"a.txt": "password\n"})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	g := NewGrep(ws)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"missing pattern", `{}`, "pattern is required"},
		{"empty pattern", `{"pattern": ""}`, "pattern must not be empty"},
		{"mistyped pattern", `{"pattern": 1}`, "pattern must be a string"},
		{"mistyped -A", `{"pattern": "x", "-A": "2"}`, "-A must be a number"},
		{"mistyped -i", `{"pattern": "x", "-i": "yes"}`, "-i must be a boolean"},
		{"negative -C", `{"pattern": "x", "-C": -1}`, "-C must be a whole number of 0 or more"},
		{"fractional head_limit", `{"pattern": "x", "head_limit": 1.5}`, "head_limit must be a whole number"},
		{"bad mode", `{"pattern": "x", "output_mode": "lines"}`, `output_mode must be "files_with_matches", "content" or "count", got "lines"`},
		{"unknown type", `{"pattern": "x", "type": "cobol"}`, `unknown type "cobol"; the types are c, cpp,`},
		{"bad glob", `{"pattern": "x", "glob": "*.{go"}`, "not a valid glob"},
		{"unknown field", `{"pattern": "x", "-r": true}`, "unknown field"},
		{"invalid regex", `{"pattern": "func (a"}`, "invalid regular expression \"func (a\": missing closing ) in `func (a`"},
		{"lookahead", `{"pattern": "a(?=b)"}`, "invalid or unsupported Perl syntax"},
		{"newline without multiline", `{"pattern": "a\\nb"}`, "set multiline to true"},
		{"dotdot", `{"pattern": "x", "path": "../.."}`, "outside the workspace"},
		{"absolute", `{"pattern": "x", "path": "/etc/passwd"}`, "outside the workspace"},
		{"symlink", `{"pattern": "x", "path": "out/secret.txt"}`, "outside the workspace"},
		{"missing path", `{"pattern": "x", "path": "nope"}`, "does not exist"},
	}
	for _, tt := range tests {
		_, err := g.Run(t.Context(), tool.ExecInput(json.RawMessage(tt.in)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	// The link inside the tree is not followed into the results.
	if got := grep(t, g, map[string]any{"pattern": "password"}); got != "Found 1 file\na.txt" {
		t.Errorf("search followed a symlink out of the workspace: %s", got)
	}
}

func TestGrepCancelled(t *testing.T) {
	ws, _ := searchWS(t, grepFixture)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewGrep(ws).Run(ctx, tool.ExecInput(json.RawMessage(`{"pattern": "hello"}`))); err == nil {
		t.Error("a cancelled search returned no error")
	}
}

// TestGrepMatcherAgainstRegexp compares the matcher's lines with a plain line-by-line
// regexp search over random text, for patterns that take every path through it:
// exact literals, folded literals, required literals and no literal at all.
func TestGrepMatcherAgainstRegexp(t *testing.T) {
	patterns := []string{"ab", "abc", "a", "Ab", "b+c", "a.c", `^ab`, `c$`, `\bab\b`, `[ab]c`, `x?y`, `(ab|ca)b`, `a[^b]`, `\s+b`, `ab.*ab`, `(?:ab)+c`, `ABC`, `k`, `é`}
	type pair struct {
		name string
		m    *grepMatcher
		ref  *regexp.Regexp
	}
	var pairs []pair
	for _, p := range patterns {
		for _, fold := range []bool{false, true} {
			m, err := compileGrep(p, fold, false)
			if err != nil {
				t.Fatal(err)
			}
			prefix := "(?m)"
			if fold {
				prefix = "(?mi)"
			}
			pairs = append(pairs, pair{fmt.Sprintf("%q fold %v", p, fold), m, regexp.MustCompile(prefix + p)})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcABC \n\n\txyzk")
	for i := range 150 {
		data := make([]byte, rng.IntN(300))
		for j := range data {
			data[j] = alphabet[rng.IntN(len(alphabet))]
		}
		if i%7 == 0 {
			data = append(data, "é"...)
		}
		lines := strings.Split(string(data), "\n")
		if strings.HasSuffix(string(data), "\n") {
			lines = lines[:len(lines)-1]
		}
		for _, pr := range pairs {
			var got []string
			pr.m.eachMatch(data, func(s, e int) bool { got = append(got, string(data[s:e])); return true })
			var want []string
			for _, l := range lines {
				if pr.ref.MatchString(l) {
					want = append(want, l)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pattern %s on %q:\ngot  %q\nwant %q", pr.name, data, got, want)
			}
		}
	}
}

func TestCompileGrepPrefilter(t *testing.T) {
	tests := []struct {
		pattern string
		fold    bool
		needle  string
		exact   bool
	}{
		{"needle", false, "needle", true},
		{`foo\.bar`, false, "foo.bar", true},
		{"Needle", true, "needle", true},
		{`func \w+Handler`, false, "Handler", false},
		{`^import`, false, "import", false},
		{`(foo|bar)`, false, "", false},
		{`a.b`, false, "", false},
		{`(?:Error)+`, false, "Error", false},
		{`ÉTÉ`, true, "", false},
	}
	for _, tt := range tests {
		m, err := compileGrep(tt.pattern, tt.fold, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.needle) != tt.needle || m.exact != tt.exact || (m.re == nil) != tt.exact {
			t.Errorf("compileGrep(%q): needle %q exact %v regexp %v; want %q, %v", tt.pattern, m.needle, m.exact, m.re != nil, tt.needle, tt.exact)
		}
	}
}

func TestGrepLeavesOutFilesItMayNotRead(t *testing.T) {
	ws, root := searchWS(t, grepFixture)
	g := NewGrep(ws)
	g.SetReadFilter(func(abs string) bool { return abs == filepath.Join(root, "app.py") })
	out := grep(t, g, map[string]any{"pattern": "hello"})
	if strings.Contains(out, "app.py") && !strings.Contains(out, "web/app") {
		t.Errorf("a denied file was searched:\n%s", out)
	}
	if strings.Contains(out, "\napp.py") || !strings.Contains(out, "1 file left out: reading them is denied") {
		t.Errorf("output = %q, want app.py left out and said so", out)
	}
	if _, err := runSearchTool(t, g, map[string]any{"pattern": "hello", "path": "app.py"}); err == nil || !strings.Contains(err.Error(), "denied") {
		t.Errorf("Grep of a denied file named explicitly: err = %v", err)
	}
}
