package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

func TestEditSpec(t *testing.T) {
	e := newFileEnv(t)
	if e.edit.Spec().Name != "Edit" || e.edit.ReadOnly() {
		t.Fatalf("name %q, read-only %v; want Edit, false", e.edit.Spec().Name, e.edit.ReadOnly())
	}
	props, required := schemaOf(t, e.edit)
	if len(props) != 4 || props["replace_all"] == nil || !strings.Contains(string(props["replace_all"]), `"boolean"`) {
		t.Errorf("properties %v, want file_path, old_string, new_string, replace_all (boolean)", props)
	}
	if strings.Join(required, ",") != "file_path,old_string,new_string" {
		t.Errorf("required = %v", required)
	}
	for _, want := range []string{"Read", "exactly once", "replace_all", "line-number prefix", "CRLF"} {
		if !strings.Contains(e.edit.Spec().Description, want) {
			t.Errorf("description does not mention %q", want)
		}
	}
}

const goFile = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("hello")
}
`

func TestEdit(t *testing.T) {
	cases := []struct {
		name       string
		before     string
		old, new   string
		replaceAll bool
		after      string
		result     string // the whole result after the first line
	}{
		{
			name: "one line", before: "a\nb\nc\n", old: "b", new: "B", after: "a\nB\nc\n",
			result: numbered(1, "a", "B", "c"),
		},
		{
			name: "multi-line to more lines", before: goFile,
			old:    "func main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"hello\")\n}",
			new:    "func main() {\n\tgreet()\n}\n\nfunc greet() {\n\tfmt.Println(\"hi\")\n}",
			after:  "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tgreet()\n}\n\nfunc greet() {\n\tfmt.Println(\"hi\")\n}\n",
			result: numbered(2, "", `import "fmt"`, "", "func main() {", "\tgreet()", "}", "", "func greet() {", "\tfmt.Println(\"hi\")", "}"),
		},
		{
			name: "replace all", before: goFile, old: `"hello"`, new: `"bye"`, replaceAll: true,
			after:  strings.ReplaceAll(goFile, `"hello"`, `"bye"`),
			result: numbered(3, `import "fmt"`, "", "func main() {", "\tfmt.Println(\"bye\")", "\tfmt.Println(\"bye\")", "}"),
		},
		{
			name: "delete", before: "a\nb\nc\n", old: "b\n", new: "", after: "a\nc\n",
			result: numbered(1, "a", "c"),
		},
		{
			name: "distant changes are separated", before: "x\n" + strings.Repeat("-\n", 10) + "x\n", old: "x", new: "y", replaceAll: true,
			after:  "y\n" + strings.Repeat("-\n", 10) + "y\n",
			result: numbered(1, "y", "-", "-", "-") + "...\n" + numbered(9, "-", "-", "-", "y"),
		},
		{
			name: "empty old_string fills an empty file", before: "", old: "", new: "hello\n", after: "hello\n",
			result: numbered(1, "hello"),
		},
		{
			name: "everything deleted", before: "only\n", old: "only\n", new: "", after: "",
			result: "(the file is now empty)",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newFileEnv(t)
			p := e.put("f.txt", tc.before)
			e.readFile("f.txt")
			got := e.ok(e.edit, map[string]any{"file_path": p, "old_string": tc.old, "new_string": tc.new, "replace_all": tc.replaceAll})
			if after := e.get("f.txt"); after != tc.after {
				t.Errorf("file:\n%q\nwant:\n%q", after, tc.after)
			}
			n := strings.Count(tc.before, tc.old)
			if tc.old == "" {
				n = 1
			}
			head := fmt.Sprintf("The file %s has been updated (%s). Here is the edited part, numbered as the file is now:\n", p, plural(n, "replacement"))
			if got != head+tc.result {
				t.Errorf("result:\n%s\nwant:\n%s", got, head+tc.result)
			}
		})
	}
}

func TestEditCreatesFile(t *testing.T) {
	e := newFileEnv(t)
	p := e.path("new/dir/file.go")
	got := e.ok(e.edit, map[string]any{"file_path": p, "old_string": "", "new_string": "package dir\n"})
	if want := "Created " + p + " with 1 line."; got != want {
		t.Errorf("result %q, want %q", got, want)
	}
	if e.get("new/dir/file.go") != "package dir\n" {
		t.Errorf("content %q", e.get("new/dir/file.go"))
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v %v, want 0644", st.Mode(), err)
	}
	// What Edit created can be edited right away.
	e.ok(e.edit, map[string]any{"file_path": p, "old_string": "dir", "new_string": "other"})
}

func TestEditErrors(t *testing.T) {
	e := newFileEnv(t)
	p := e.put("main.go", goFile)
	e.put("list.txt", "x\nitem\ny\nitem\nz\nitem\n")
	e.put("bin.dat", "ab\x00cd")
	if err := os.Mkdir(e.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.readFile("main.go")
	e.readFile("list.txt")
	cases := []struct {
		name  string
		input string
		want  []string
	}{
		{"missing fields", `{"file_path": "main.go"}`, []string{"old_string, new_string are required"}},
		{"missing new_string", `{"file_path": "main.go", "old_string": "x"}`, []string{"new_string is required"}},
		{"missing everything", `{}`, []string{"file_path, old_string, new_string are required"}},
		{"old_string not a string", `{"file_path": "main.go", "old_string": 1, "new_string": "x"}`, []string{"old_string must be a string, got number"}},
		{"replace_all not a boolean", `{"file_path": "main.go", "old_string": "a", "new_string": "b", "replace_all": "yes"}`, []string{"replace_all must be a boolean, got string"}},
		{"unknown field", `{"file_path": "main.go", "old_string": "a", "new_string": "b", "all": true}`, []string{`unknown field "all"`}},
		{"no change", `{"file_path": "main.go", "old_string": "main", "new_string": "main"}`, []string{"No changes to make: old_string and new_string are exactly the same."}},
		{"repeated", `{"file_path": "list.txt", "old_string": "item", "new_string": "thing"}`,
			[]string{"old_string occurs 3 times in " + e.path("list.txt") + ", at lines 2, 4 and 6, and replace_all is false", "replace_all to true", "surrounding lines"}},
		{"repeated multi-line", `{"file_path": "main.go", "old_string": "\tfmt.Println(\"hello\")\n", "new_string": ""}`, []string{"occurs 2 times", "at lines 6 and 7"}},
		{"indentation differs", `{"file_path": "main.go", "old_string": "func main() {\n    fmt.Println(\"hello\")\n    fmt.Println(\"hello\")", "new_string": "x"}`,
			[]string{"old_string was not found in " + p, "The closest text in the file is lines 5-7:\n" + numbered(5, "func main() {", "\tfmt.Println(\"hello\")", "\tfmt.Println(\"hello\")"),
				"line 6 is indented with 1 tab in the file, but with 4 spaces in old_string; line 7 is indented"}},
		{"trailing space", `{"file_path": "main.go", "old_string": "func main() { \n", "new_string": "x"}`,
			[]string{"closest text in the file is line 5:", "line 5 ends with nothing in the file, but with 1 space in old_string"}},
		{"word differs", `{"file_path": "main.go", "old_string": "import \"fmtt\"", "new_string": "x"}`,
			[]string{"line 3:\n" + numbered(3, `import "fmt"`), `line 3 is "import \"fmt\"" in the file, but "import \"fmtt\"" in old_string`}},
		{"line-number prefixes copied", `{"file_path": "main.go", "old_string": "     5\tfunc main() {\n     6\t\tfmt.Println(\"hello\")", "new_string": "x"}`,
			[]string{"includes the line-number prefixes of Read's output"}},
		{"nothing close", `{"file_path": "main.go", "old_string": "zzzzqqqq", "new_string": "x"}`, []string{"Nothing in the file is close to it. Read the file again"}},
		{"empty old_string on a file with content", `{"file_path": "main.go", "old_string": "", "new_string": "x"}`, []string{"already exists and has content", "Write"}},
		{"missing file", `{"file_path": "nope.go", "old_string": "a", "new_string": "b"}`, []string{e.path("nope.go") + " does not exist", "Write"}},
		{"directory", `{"file_path": "dir", "old_string": "a", "new_string": "b"}`, []string{"is a directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := e.fails(e.edit, tc.input)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%s\ndoes not contain:\n%s", err, w)
				}
			}
		})
	}
	if e.get("main.go") != goFile || e.get("list.txt") != "x\nitem\ny\nitem\nz\nitem\n" {
		t.Errorf("a refused edit changed a file")
	}
	t.Run("binary", func(t *testing.T) {
		// A binary file cannot be read, so it cannot be edited either; record it as read to
		// reach Edit's own check.
		info, err := os.Stat(e.path("bin.dat"))
		if err != nil {
			t.Fatal(err)
		}
		e.files.record(e.path("bin.dat"), newStamp(info, sha256Of("ab\x00cd")))
		err = e.fails(e.edit, `{"file_path": "bin.dat", "old_string": "ab", "new_string": "x"}`)
		if !strings.Contains(err.Error(), "is a binary file") {
			t.Errorf("error %q", err)
		}
	})
}

// TestEditCRLF edits a Windows file with \n in old_string and new_string: the match works
// and the file keeps \r\n everywhere.
func TestEditCRLF(t *testing.T) {
	cases := []struct {
		name, before, old, new, after string
	}{
		{"multi-line", "a\r\nb\r\nc\r\n", "a\nb\n", "x\ny\nz\n", "x\r\ny\r\nz\r\nc\r\n"},
		{"one line becomes two", "a\r\nb\r\n", "b", "b1\nb2", "a\r\nb1\r\nb2\r\n"},
		{"old_string given with CRLF", "a\r\nb\r\n", "a\r\nb", "a\nc", "a\r\nc\r\n"},
		{"mixed file: LF part matched as given", "a\r\nb\r\nc\r\nd\ne\r\n", "d\ne", "D\nE", "a\r\nb\r\nc\r\nD\nE\r\n"},
		{"LF file untouched", "a\nb\n", "a\nb", "x\ny", "x\ny\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newFileEnv(t)
			e.put("win.txt", tc.before)
			e.readFile("win.txt")
			got := e.ok(e.edit, map[string]any{"file_path": "win.txt", "old_string": tc.old, "new_string": tc.new})
			if after := e.get("win.txt"); after != tc.after {
				t.Errorf("file %q, want %q", after, tc.after)
			}
			if strings.Contains(got, "\r") {
				t.Errorf("result shows carriage returns: %q", got)
			}
		})
	}
}

func TestEditKeepsModeAndLeavesNoTempFiles(t *testing.T) {
	for _, mode := range []os.FileMode{0o755, 0o600, 0o640} {
		e := newFileEnv(t)
		p := e.put("script.sh", "echo a\n")
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		e.readFile("script.sh")
		e.ok(e.edit, map[string]any{"file_path": p, "old_string": "a", "new_string": "b"})
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("mode %v after edit, want %v", st.Mode().Perm(), mode)
		}
		if left := tempFiles(t, e.root); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
}

func TestNearMissLargeFileAnswersWithinBudget(t *testing.T) {
	// 200,000 lines against a 50-line old_string: the sample keeps the comparisons bounded,
	// and the one similar block is still found.
	var sb strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&sb, "row %d = compute(%d)\n", i, i*7)
	}
	content := sb.String()
	oldLines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")[150_000:150_050]
	oldLines[10] = "row 150010 = compute(999)" // one changed line
	got := nearMiss(content, strings.Join(oldLines, "\n"))
	if !strings.Contains(got, "lines 150001-150050") || !strings.Contains(got, `line 150011 is "row 150010 = compute(1050070)" in the file, but "row 150010 = compute(999)"`) {
		t.Errorf("nearMiss = %s", got[:min(len(got), 500)])
	}
}

func BenchmarkEdit(b *testing.B) {
	e := newFileEnv(b)
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "line %d of a source file with some code on it\n", i)
	}
	p := e.put("big.go", sb.String())
	e.readFile("big.go")
	inputs := [2]json.RawMessage{}
	for i, pair := range [2][2]string{{"line 2500 of", "LINE 2500 of"}, {"LINE 2500 of", "line 2500 of"}} {
		raw, err := json.Marshal(map[string]any{"file_path": p, "old_string": pair[0], "new_string": pair[1]})
		if err != nil {
			b.Fatal(err)
		}
		inputs[i] = raw
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		res, err := e.edit.Run(context.Background(), tool.ExecInput(inputs[i%2]))
		if err != nil || res.IsError {
			b.Fatal(err, res.Text())
		}
		i++
	}
}

// TestEditSnippetIsBounded replaces a line many times over: the result shows the start
// of the edited part and says the rest is not shown.
func TestEditSnippetIsBounded(t *testing.T) {
	e := newFileEnv(t)
	e.put("many.txt", strings.Repeat("old\n", 500))
	e.readFile("many.txt")
	got := e.ok(e.edit, map[string]any{"file_path": "many.txt", "old_string": "old", "new_string": strings.Repeat("new", 100), "replace_all": true})
	if !strings.Contains(got, "(500 replacements)") || !strings.HasSuffix(got, "... (the rest of the edited part is not shown; Read the file to see it)\n") {
		t.Errorf("result does not end with the omission note: ...%s", got[max(0, len(got)-200):])
	}
	if n := strings.Count(got, "\n"); n > editShownLines+2 || len(got) > editShownBytes+400 {
		t.Errorf("result has %d lines and %d bytes", n, len(got))
	}
}
