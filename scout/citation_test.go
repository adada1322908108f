package scout

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoFiles are the files exists knows in the ParseReport tests.
var repoFiles = []string{
	"go.mod",
	"Makefile",
	"README.md",
	"cmd/calc/main.go",
	"calc/eval.go",
	"calc/eval_test.go",
	"calc/lexer.go",
	".github/workflows/ci.yml",
	"tests/test_calc.py",
	"pkg/a_b.py",
	"docs/INSTALL.TXT",
	".gitignore",
}

func existsIn(files []string) func(string) bool {
	return func(rel string) bool { return slices.Contains(files, rel) }
}

// cite renders citations compactly for comparison: path:line-end!problem.
func cite(cs []Citation) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		s := c.Path
		if c.Line != 0 {
			s += fmt.Sprintf(":%d", c.Line)
		}
		if c.EndLine != 0 {
			s += fmt.Sprintf("-%d", c.EndLine)
		}
		if c.Problem != "" {
			s += "!" + c.Problem
		}
		out = append(out, s)
	}
	return out
}

func TestFindCitations(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// Forms of a citation.
		{"`cmd/calc/main.go:12`", []string{"cmd/calc/main.go:12"}},
		{"see cmd/calc/main.go:12-20.", []string{"cmd/calc/main.go:12-20"}},
		{"cmd/calc/main.go:12–20", []string{"cmd/calc/main.go:12-20"}},
		{"cmd/calc/main.go:12:5", []string{"cmd/calc/main.go:12"}},
		{"cmd/calc/main.go#L12", []string{"cmd/calc/main.go:12"}},
		{"cmd/calc/main.go#L12-L20", []string{"cmd/calc/main.go:12-20"}},
		{"cmd/calc/main.go#L12-20", []string{"cmd/calc/main.go:12-20"}},
		{"cmd/calc/main.go:L7", []string{"cmd/calc/main.go:7"}},
		{"[install](README.md#install-it) and docs/INSTALL.TXT#top", []string{"README.md", "docs/INSTALL.TXT"}},
		{"cmd/calc/main.go:7-7", []string{"cmd/calc/main.go:7"}},
		{"(cmd/calc/main.go:3), calc/eval.go;", []string{"cmd/calc/main.go:3", "calc/eval.go"}},
		{"**calc/lexer.go:4**", []string{"calc/lexer.go:4"}},
		{"see calc/lexer.go... and calc/eval.go…", []string{"calc/lexer.go", "calc/eval.go"}},
		{"go test ./calc/... -run X", nil},
		{`"calc/lexer.go"`, []string{"calc/lexer.go"}},
		{"./calc/eval.go:9", []string{"calc/eval.go:9"}},
		{"calc//eval.go:9", []string{"calc/eval.go:9"}},
		{".github/workflows/ci.yml:3", []string{".github/workflows/ci.yml:3"}},
		{"pkg/a_b.py", []string{"pkg/a_b.py"}},
		{"docs/INSTALL.TXT:2", []string{"docs/INSTALL.TXT:2"}},
		{"[the parser](calc/eval.go:30)", []string{"calc/eval.go:30"}},
		{"[eval.go:30](calc/eval.go#L30)", []string{"calc/eval.go:30"}},
		{"[calc/eval.go:30](https://github.com/o/r/blob/main/calc/eval.go#L30)", []string{"calc/eval.go:30"}},
		{"`calc/eval.go:3` and again `calc/eval.go:3`", []string{"calc/eval.go:3"}},
		// Root files named bare count only when they exist.
		{"the module is in go.mod", []string{"go.mod"}},
		{"README.md, .gitignore", []string{"README.md", ".gitignore"}},
		{"config.yaml is read at start", nil},
		{"main.go:12", []string{"main.go:12!no such file"}},
		// Extensionless files need a line and must exist.
		{"Makefile:3", []string{"Makefile:3"}},
		{"run it through the Makefile", nil},
		{"localhost:8080 and step:2", nil},
		{"cmd/calc/Dockerfile:3", nil},
		// Paths that do not exist.
		{"calc/parser.go:10", []string{"calc/parser.go:10!no such file"}},
		{"internal/x.go", []string{"internal/x.go!no such file"}},
		// Outside the workspace.
		{"../x.go", []string{"../x.go!outside the workspace"}},
		{"calc/../../x.go:3", []string{"calc/../../x.go:3!outside the workspace"}},
		{"/etc/passwd.conf:1", []string{"/etc/passwd.conf:1!outside the workspace"}},
		{"~/notes.md", []string{"~/notes.md!outside the workspace"}},
		{"/usr/bin and /tmp", nil},
		// Bad lines.
		{"calc/eval.go:0", []string{"calc/eval.go!line numbers start at 1"}},
		{"calc/eval.go:20-10", []string{"calc/eval.go:20-10!the range ends before it starts"}},
		// Prose that must not become citations.
		{"calls fmt.Println and os.Exit(1) via calc.Eval", nil},
		{"self.assertEqual(x, 3) in unittest.main()", nil},
		{"net/http.Server and encoding/json.Marshal", nil},
		{"Go 1.26, v0.11.2, python3.12, 3.14 and 12:30", nil},
		{"e.g. this, i.e. that, etc.", nil},
		{"go test ./... and go vet ./calc/...", nil},
		{"https://example.com/calc/eval.go:12 www.example.com/a.go", nil},
		{"<https://github.com/o/r/blob/main/calc/eval.go#L3>", nil},
		{"[docs](https://example.com/docs/x.md)", nil},
		{"issue #123, note: see below", nil},
	}
	exists := existsIn(repoFiles)
	for _, tc := range tests {
		got := cite(findCitations(tc.text, "", exists))
		if !slices.Equal(got, tc.want) {
			t.Errorf("findCitations(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestFindCitationsRaw(t *testing.T) {
	cs := findCitations("In `./cmd/calc/main.go:12-20`, see calc/eval.go#L3-L9.", "", existsIn(repoFiles))
	var raws []string
	for _, c := range cs {
		raws = append(raws, c.Raw)
	}
	if want := []string{"./cmd/calc/main.go:12-20", "calc/eval.go#L3-L9"}; !slices.Equal(raws, want) {
		t.Errorf("Raw = %q, want %q", raws, want)
	}
}

const report = `I looked at the calculator. Its module is declared in go.mod.

## Entry points

- ` + "`cmd/calc/main.go:8`" + ` — main reads a line and calls calc.Eval, printing with fmt.Println
  and exiting through os.Exit(1) on error (cmd/calc/main.go:10-14).
- The CI workflow runs go test ./... ([ci](.github/workflows/ci.yml#L5-L7)).

## Core modules

1. **calc/eval.go** evaluates the tokens from calc/lexer.go:4; see
   [the evaluator](https://github.com/example/calc/blob/main/calc/eval.go#L1).
2. Parsing lives in calc/parser.go:10 (a hallucination).

### Tests

| File | What |
|------|------|
| ` + "`calc/eval_test.go:5`" + ` | table tests |
| tests/test_calc.py | self.assertEqual over unittest.main |

` + "```sh" + `
go test ./calc/...
python -m pytest tests/test_calc.py:3
` + "```" + `

**Risks:**

* Reads ../secrets.go:1 — a path outside.
* Nothing guards against Makefile drift; config.yaml is mentioned but absent.

---

Done.
`

func TestParseReport(t *testing.T) {
	got := ParseReport(report, existsIn(repoFiles))
	type want struct {
		section string
		text    string // a prefix of the text
		cites   []string
	}
	wants := []want{
		{"", "I looked at the calculator.", []string{"go.mod"}},
		{"Entry points", "`cmd/calc/main.go:8` — main reads", []string{"cmd/calc/main.go:8", "cmd/calc/main.go:10-14"}},
		{"Entry points", "The CI workflow", []string{".github/workflows/ci.yml:5-7"}},
		{"Core modules", "**calc/eval.go** evaluates", []string{"calc/eval.go", "calc/lexer.go:4"}},
		{"Core modules", "Parsing lives", []string{"calc/parser.go:10!no such file"}},
		{"Tests", "| File | What |", nil},
		{"Tests", "| `calc/eval_test.go:5` |", []string{"calc/eval_test.go:5"}},
		{"Tests", "| tests/test_calc.py |", []string{"tests/test_calc.py"}},
		{"Tests", "go test ./calc/...\npython", []string{"tests/test_calc.py:3"}},
		{"Risks", "Reads ../secrets.go:1", []string{"../secrets.go:1!outside the workspace"}},
		{"Risks", "Nothing guards", nil},
		{"Risks", "Done.", nil},
	}
	if len(got) != len(wants) {
		for i, c := range got {
			t.Logf("%d: [%s] %q %q", i, c.Section, c.Text, cite(c.Citations))
		}
		t.Fatalf("got %d conclusions, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		c := got[i]
		if c.Section != w.section || !strings.HasPrefix(c.Text, w.text) || !slices.Equal(cite(c.Citations), w.cites) {
			t.Errorf("conclusion %d = [%s] %q %q\nwant [%s] %q… %q", i, c.Section, c.Text, cite(c.Citations), w.section, w.text, w.cites)
		}
	}
	// The continuation line belongs to its list item.
	if !strings.Contains(got[1].Text, "and exiting through os.Exit(1)") {
		t.Errorf("continuation lost: %q", got[1].Text)
	}
	// The JSON form is what the harness writes.
	b, err := json.Marshal(got[4].Citations[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"raw":"calc/parser.go:10","path":"calc/parser.go","line":10,"verified":false,"problem":"no such file"}`; string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
}

func TestParseReportStructure(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		sections []string
		texts    []string
	}{
		{"empty", "", nil, nil},
		{"heading only", "# Title\n\n## Risks\n", nil, nil},
		{"paragraph lines join", "one\ntwo\n\nthree", []string{"", ""}, []string{"one two", "three"}},
		{"closing hashes", "## Entry points ##\n- a", []string{"Entry points"}, []string{"a"}},
		{"bold heading", "**Core modules**\n- a\n__Tests:__\n- b", []string{"Core modules", "Tests"}, []string{"a", "b"}},
		{"bold in a bullet is not a heading", "## Risks\n- **Leak:** the pool", []string{"Risks"}, []string{"**Leak:** the pool"}},
		{"nested items are their own", "- a\n  - b\n    more b\n- c", []string{"", "", ""}, []string{"a", "b more b", "c"}},
		{"numbered", "1) a\n2. b", []string{"", ""}, []string{"a", "b"}},
		{"quote", "> quoted\n> text", []string{""}, []string{"quoted text"}},
		{"fence keeps lines", "```\nx\n\ny\n```\nafter", []string{"", ""}, []string{"x\n\ny", "after"}},
		{"unclosed fence", "~~~\nx", []string{""}, []string{"x"}},
		{"crlf", "## A\r\n- x\r\n- y\r\n", []string{"A", "A"}, []string{"x", "y"}},
		{"issue number is not a heading", "#12 is open", []string{""}, []string{"#12 is open"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseReport(tc.text, nil)
			var sections, texts []string
			for _, c := range got {
				sections = append(sections, c.Section)
				texts = append(texts, c.Text)
			}
			if !slices.Equal(sections, tc.sections) || !slices.Equal(texts, tc.texts) {
				t.Errorf("got sections %q texts %q, want %q %q", sections, texts, tc.sections, tc.texts)
			}
		})
	}
}

// TestVerify runs the real Read and Grep tools on a small repository, parses a report
// about it and checks which citations hold.
func TestVerify(t *testing.T) {
	main := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tv, err := eval(os.Args[1])\n\tif err != nil {\n\t\tos.Exit(1)\n\t}\n\tfmt.Println(v)\n}\n"
	f := newFixture(t, map[string]string{
		"go.mod":           "module example.com/calc\n\ngo 1.26\n",
		"cmd/calc/main.go": main,
		"calc/eval.go":     numbered(120),
		"calc/eval_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestEval(t *testing.T) {\n" +
			"\t// needle\n}\n",
		"README.md": "# calc\n",
	})
	f.mustCall("Read", map[string]any{"file_path": filepath.Join(f.dir, "cmd/calc/main.go")})
	f.mustCall("Read", map[string]any{"file_path": "calc/eval.go", "limit": 40})
	f.mustCall("Grep", map[string]any{"pattern": "needle", "output_mode": "content", "-B": 1})
	f.mustCall("Grep", map[string]any{"pattern": "module", "output_mode": "files_with_matches"})
	f.call("Read", map[string]any{"file_path": "calc/missing.go"})

	exists := func(rel string) bool {
		st, err := os.Stat(filepath.Join(f.dir, filepath.FromSlash(rel)))
		return err == nil && st.Mode().IsRegular()
	}
	report := "## Entry points\n" +
		"- `cmd/calc/main.go:8-14` is main; it exits via os.Exit at cmd/calc/main.go:11.\n" +
		"- The module is in go.mod.\n" +
		"## Core modules\n" +
		"- calc/eval.go:1-40 evaluates; the rest is at calc/eval.go:100.\n" +
		"- calc/eval.go:30-90 spans what was and was not read.\n" +
		"- Past the end: cmd/calc/main.go:15.\n" +
		"## Tests\n" +
		"- calc/eval_test.go#L5-L6 tests it, see also calc/eval_test.go:1.\n" +
		"## Risks\n" +
		"- README.md says little; calc/missing.go:1 and ../etc/x.go are cited; `go.mod:1` too.\n" +
		"- `cmd/calc/main.go:8-14` again.\n"
	cs := ParseReport(report, exists)
	bad := f.ev.Verify(cs)

	verdicts := map[string]string{} // Raw -> "ok" or the problem
	for _, c := range cs {
		for _, ct := range c.Citations {
			v := "ok"
			if !ct.Verified {
				v = ct.Problem
			}
			verdicts[ct.Raw] = v
		}
	}
	want := map[string]string{
		"cmd/calc/main.go:8-14":   "ok",
		"cmd/calc/main.go:11":     "ok",
		"go.mod":                  "ok", // listed by Grep files_with_matches
		"calc/eval.go:1-40":       "ok",
		"calc/eval.go:100":        "line 100 of calc/eval.go was not shown: this run saw lines 1-40",
		"calc/eval.go:30-90":      "line 90 of calc/eval.go was not shown (a range 30-90 needs both ends seen): this run saw lines 1-40",
		"cmd/calc/main.go:15":     "line 15 of cmd/calc/main.go was not shown: this run saw lines 1-14",
		"calc/eval_test.go#L5-L6": "ok",
		"calc/eval_test.go:1":     "line 1 of calc/eval_test.go was not shown: this run saw lines 5-6",
		"README.md":               "README.md was never read in this run",
		"calc/missing.go:1":       "no such file",
		"../etc/x.go":             "outside the workspace",
		"go.mod:1":                "line 1 of go.mod was not shown: this run only saw go.mod listed by a search, none of its lines; Read it to cite lines",
	}
	for raw, w := range want {
		if got, ok := verdicts[raw]; !ok {
			t.Errorf("%s: not found as a citation", raw)
		} else if got != w {
			t.Errorf("%s: %q, want %q", raw, got, w)
		}
	}
	for raw := range verdicts {
		if _, ok := want[raw]; !ok {
			t.Errorf("unexpected citation %s", raw)
		}
	}
	var badRaw []string
	for _, c := range bad {
		if c.Verified || c.Problem == "" {
			t.Errorf("Verify returned %+v as unverified", c)
		}
		badRaw = append(badRaw, c.Raw)
	}
	wantBad := []string{"calc/eval.go:100", "calc/eval.go:30-90", "cmd/calc/main.go:15", "calc/eval_test.go:1",
		"README.md", "calc/missing.go:1", "../etc/x.go", "go.mod:1"}
	if !slices.Equal(badRaw, wantBad) {
		t.Errorf("Verify returned %q, want %q", badRaw, wantBad)
	}
	// Verifying again after reading more checks afresh: a miss Verify explained is not
	// mistaken for one of ParseReport's problems, which stay.
	f.mustCall("Read", map[string]any{"file_path": "calc/eval.go", "offset": 41})
	again := f.ev.Verify(cs)
	badRaw = badRaw[:0]
	for _, c := range again {
		badRaw = append(badRaw, c.Raw)
	}
	wantBad = []string{"cmd/calc/main.go:15", "calc/eval_test.go:1", "README.md", "calc/missing.go:1", "../etc/x.go", "go.mod:1"}
	if !slices.Equal(badRaw, wantBad) {
		t.Errorf("second Verify returned %q, want %q", badRaw, wantBad)
	}
	if c := cs[2].Citations[1]; c.Raw != "calc/eval.go:100" || !c.Verified || c.Problem != "" {
		t.Errorf("after reading on, %+v should be verified", c)
	}
}

// A model that cites the absolute paths its tools were given cites the workspace all the
// same; an absolute path elsewhere stays outside.
func TestParseReportInTakesAbsolutePathsInsideTheRoot(t *testing.T) {
	cs := ParseReportIn("- main `/repo/x/cmd/calc/main.go:12`\n- and `/etc/app.conf:1`\n- and `/repo/xy/a.go:1`", "/repo/x", existsIn(repoFiles))
	var all []Citation
	for _, c := range cs {
		all = append(all, c.Citations...)
	}
	got := strings.Join(cite(all), "|")
	want := "cmd/calc/main.go:12|/etc/app.conf:1!outside the workspace|/repo/xy/a.go:1!outside the workspace"
	if got != want {
		t.Errorf("citations = %q, want %q", got, want)
	}
}
