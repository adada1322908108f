package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/tool"
)

// checkSearchSpec checks a tool's name, read-only flag and schema shape.
func checkSearchSpec(t *testing.T, tl tool.Tool, name string, props, required []string) {
	t.Helper()
	spec := tl.Spec()
	if spec.Name != name || !tl.ReadOnly() || spec.Description == "" {
		t.Fatalf("spec %q read-only %v; want %q, read-only, with a description", spec.Name, tl.ReadOnly(), name)
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(spec.InputSchema, &s); err != nil {
		t.Fatalf("%s schema is not valid JSON: %v", name, err)
	}
	if s.Type != "object" || s.Additional == nil || *s.Additional {
		t.Errorf("%s schema must be an object with additionalProperties false", name)
	}
	var got []string
	for p, raw := range s.Properties {
		got = append(got, p)
		var prop struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		}
		if err := json.Unmarshal(raw, &prop); err != nil || prop.Type == "" || prop.Description == "" {
			t.Errorf("%s.%s needs a type and a description: %s", name, p, raw)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, props) || !slices.Equal(s.Required, required) {
		t.Errorf("%s properties %q required %q; want %q and %q", name, got, s.Required, props, required)
	}
}

func TestGlobSpec(t *testing.T) {
	ws, _ := searchWS(t, nil)
	checkSearchSpec(t, NewGlob(ws), "Glob", []string{"path", "pattern"}, []string{"pattern"})
}

// globLines runs Glob and returns its output lines.
func globLines(t *testing.T, g *Glob, in map[string]any) []string {
	t.Helper()
	out, err := runSearchTool(t, g, in)
	if err != nil {
		t.Fatalf("Glob %v: %v", in, err)
	}
	return strings.Split(out, "\n")
}

func TestGlobPatterns(t *testing.T) {
	ws, root := searchWS(t, map[string]string{
		".gitignore":          "vendor/\n*.gen.go\n",
		"main.go":             "",
		"main_test.go":        "",
		"z.gen.go":            "",
		"cmd/app/app.go":      "",
		"src/a.ts":            "",
		"src/ui/b.tsx":        "",
		"src/ui/c.css":        "",
		"vendor/dep/dep.go":   "",
		"docs/readme.md":      "",
		"a/x/b/one.go":        "",
		"a/y/b/two.go":        "",
		"a/y/c/three.go":      "",
		".github/ci.yml":      "",
		"space dir/file 1.go": "",
	})
	g := NewGlob(ws)
	tests := []struct {
		in   map[string]any
		want []string
	}{
		{map[string]any{"pattern": "**/*.go"}, []string{"a/x/b/one.go", "a/y/b/two.go", "a/y/c/three.go", "cmd/app/app.go", "main.go", "main_test.go", "space dir/file 1.go"}},
		{map[string]any{"pattern": "*.go"}, []string{"main.go", "main_test.go"}},
		{map[string]any{"pattern": "src/**/*.{ts,tsx}"}, []string{"src/a.ts", "src/ui/b.tsx"}},
		{map[string]any{"pattern": "**/*.ts*"}, []string{"src/a.ts", "src/ui/b.tsx"}},
		{map[string]any{"pattern": "a/*/b/*.go"}, []string{"a/x/b/one.go", "a/y/b/two.go"}},
		{map[string]any{"pattern": "*.go", "path": "cmd/app"}, []string{"cmd/app/app.go"}},
		{map[string]any{"pattern": "**/*.go", "path": filepath.Join(root, "a", "y")}, []string{"a/y/b/two.go", "a/y/c/three.go"}},
		{map[string]any{"pattern": filepath.Join(root, "src") + "/**/*.css"}, []string{"src/ui/c.css"}},
		{map[string]any{"pattern": "**/ci.yml"}, []string{".github/ci.yml"}},
		{map[string]any{"pattern": "{cmd,a/y}/*/*.go"}, []string{"a/y/b/two.go", "a/y/c/three.go", "cmd/app/app.go"}},
		{map[string]any{"pattern": "a/[xy]/b/*.go"}, []string{"a/x/b/one.go", "a/y/b/two.go"}},
		{map[string]any{"pattern": "**/dep.go"}, nil},                                // ignored
		{map[string]any{"pattern": "vendor/**/*.go"}, []string{"vendor/dep/dep.go"}}, // named explicitly
		{map[string]any{"pattern": "docs/readme.md", "path": "null"}, []string{"docs/readme.md"}},
	}
	for _, tt := range tests {
		got := globLines(t, g, tt.in)
		if tt.want == nil {
			if len(got) != 1 || !strings.HasPrefix(got[0], "No files found matching") {
				t.Errorf("Glob %v = %q, want no files found", tt.in, got)
			}
			continue
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Glob %v = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGlobNewestFirstAndCap(t *testing.T) {
	files := map[string]string{}
	for i := range 130 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = ""
	}
	ws, root := searchWS(t, files)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 130 {
		// Older as i grows, except that f005 and f006 share a time (ties go by path).
		at := base.Add(-time.Duration(i) * time.Minute)
		if i == 6 {
			at = base.Add(-5 * time.Minute)
		}
		p := filepath.Join(root, fmt.Sprintf("d%d/f%03d.txt", i%7, i))
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	got := globLines(t, NewGlob(ws), map[string]any{"pattern": "**/*.txt"})
	if len(got) != 101 {
		t.Fatalf("got %d lines, want 100 paths and a note", len(got))
	}
	for i := range 100 {
		want := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
		if got[i] != want {
			t.Fatalf("line %d = %q, want %q (newest first)", i, got[i], want)
		}
	}
	if !strings.Contains(got[100], "100 most recently modified of 130") || !strings.Contains(got[100], "30 more") {
		t.Errorf("note %q does not say how many more matched", got[100])
	}
}

func TestGlobErrors(t *testing.T) {
	outside := realDir(t, t.TempDir())
	ws, root := searchWS(t, map[string]string{"a.go": "", "sub/b.go": ""})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	g := NewGlob(ws)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"missing pattern", `{}`, "pattern is required"},
		{"empty pattern", `{"pattern": " "}`, "pattern must not be empty"},
		{"mistyped pattern", `{"pattern": 3}`, "pattern must be a string"},
		{"mistyped path", `{"pattern": "*", "path": ["a"]}`, "path must be a string"},
		{"unknown field", `{"pattern": "*", "recursive": true}`, "unknown field"},
		{"bad glob", `{"pattern": "src/[a"}`, "not a valid glob"},
		{"dotdot", `{"pattern": "*", "path": "../.."}`, "outside the workspace"},
		{"absolute", `{"pattern": "*", "path": "/etc"}`, "outside the workspace"},
		{"absolute pattern", `{"pattern": "/etc/*.conf"}`, "outside the workspace"},
		{"symlink", `{"pattern": "*", "path": "out"}`, "outside the workspace"},
		{"missing dir", `{"pattern": "*", "path": "nope"}`, "does not exist"},
		{"file", `{"pattern": "*", "path": "a.go"}`, "is a file"},
	}
	for _, tt := range tests {
		_, err := g.Run(t.Context(), tool.ExecInput(json.RawMessage(tt.in)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestGlobNeverListsOutside(t *testing.T) {
	outside := realDir(t, t.TempDir())
	makeSearchTree(t, outside, map[string]string{"secret.go": "", "d/inner.go": ""})
	ws, root := searchWS(t, map[string]string{"in.go": ""})
	for _, l := range []string{"link.go", "dir"} {
		target := filepath.Join(outside, "secret.go")
		if l == "dir" {
			target = filepath.Join(outside, "d")
		}
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	got := globLines(t, NewGlob(ws), map[string]any{"pattern": "**/*.go"})
	if !slices.Equal(got, []string{"in.go"}) {
		t.Errorf("Glob listed %q, want only in.go", got)
	}
}

func TestGlobOtherRootShowsAbsolutePaths(t *testing.T) {
	ws, _ := searchWS(t, map[string]string{"a.go": ""})
	other := realDir(t, t.TempDir())
	makeSearchTree(t, other, map[string]string{"lib/b.go": ""})
	if err := ws.AddRoot(other); err != nil {
		t.Fatal(err)
	}
	got := globLines(t, NewGlob(ws), map[string]any{"pattern": "**/*.go", "path": other})
	if want := filepath.Join(other, "lib", "b.go"); !slices.Equal(got, []string{want}) {
		t.Errorf("Glob in another root = %q, want [%q]", got, want)
	}
}
