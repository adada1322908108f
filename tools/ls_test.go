package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

func TestLSSpec(t *testing.T) {
	ws, _ := searchWS(t, nil)
	checkSearchSpec(t, NewLS(ws), "LS", []string{"ignore", "path"}, []string{"path"})
}

func TestLSTree(t *testing.T) {
	ws, root := searchWS(t, map[string]string{
		".git/HEAD":          "",
		".gitignore":         "*.log\n/out/\n",
		"README.md":          "",
		"app.log":            "",
		"out/bin":            "",
		"cmd/main.go":        "",
		"cmd/sub/.gitignore": "gen/\n!keep.log\n",
		"cmd/sub/gen/x.go":   "",
		"cmd/sub/keep.log":   "",
		"cmd/sub/z.go":       "",
		"empty/":             "",
		"node_modules/m.js":  "",
		"b.txt":              "",
	})
	if err := os.Symlink("cmd/main.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "outside")); err != nil {
		t.Fatal(err)
	}
	l := NewLS(ws)
	tests := []struct {
		in   map[string]any
		want []string
	}{
		{map[string]any{"path": root}, []string{
			"- " + root + "/",
			"  - .gitignore",
			"  - README.md",
			"  - b.txt",
			"  - cmd/",
			"    - main.go",
			"    - sub/",
			"      - .gitignore",
			"      - keep.log",
			"      - z.go",
			"  - empty/",
			"  - link.go -> cmd/main.go",
			"  - node_modules/",
			"    - m.js",
		}},
		{map[string]any{"path": "cmd", "ignore": []string{"sub"}}, []string{
			"- " + filepath.Join(root, "cmd") + "/",
			"  - main.go",
		}},
		{map[string]any{"path": ".", "ignore": []string{"node_modules", "*.md", "cmd/**", "./empty/", ".*"}}, []string{
			"- " + root + "/",
			"  - b.txt",
			"  - link.go -> cmd/main.go",
		}},
		{map[string]any{"path": "empty"}, []string{
			"- " + filepath.Join(root, "empty") + "/",
			"  (empty)",
		}},
	}
	for _, tt := range tests {
		out, err := runSearchTool(t, l, tt.in)
		if err != nil {
			t.Fatalf("LS %v: %v", tt.in, err)
		}
		if want := strings.Join(tt.want, "\n"); out != want {
			t.Errorf("LS %v =\n%s\nwant\n%s", tt.in, out, want)
		}
	}
}

func TestLSCap(t *testing.T) {
	files := map[string]string{}
	for d := range 30 {
		for f := range 40 {
			files[fmt.Sprintf("d%02d/f%02d.txt", d, f)] = ""
		}
	}
	files["top.txt"] = ""
	ws, root := searchWS(t, files)
	out, err := runSearchTool(t, NewLS(ws), map[string]any{"path": root})
	if err != nil {
		t.Fatal(err)
	}
	// 30 directories + 1200 files + top.txt = 1231 entries; the shallowest come first.
	head, tree, ok := strings.Cut(out, "\n\n")
	if !ok || !strings.Contains(head, "There are 1231 entries") || !strings.Contains(head, "first 1000") {
		t.Fatalf("no note on the cap with the total: %.200q", out)
	}
	lines := strings.Split(tree, "\n")
	if len(lines) != 1001 {
		t.Fatalf("tree has %d lines, want the root and 1000 entries", len(lines))
	}
	if !strings.Contains(tree, "\n  - top.txt") || !strings.Contains(tree, "\n  - d29/") {
		t.Error("the top level must be listed before deeper entries")
	}
	// Breadth first, in name order: d00..d23 are full (24*40 = 960 files), d24 has 9.
	if !strings.Contains(tree, "- d24/\n    - f00.txt") || strings.Contains(tree, "d24/f09") || strings.Count(tree, "\n    - ") != 1000-31 {
		t.Errorf("entries listed are not the first 1000 breadth first:\n%s", tree[len(tree)-300:])
	}
}

func TestLSErrors(t *testing.T) {
	outside := realDir(t, t.TempDir())
	ws, root := searchWS(t, map[string]string{"a.txt": ""})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	l := NewLS(ws)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"missing path", `{}`, "path is required"},
		{"empty path", `{"path": ""}`, "path must not be empty"},
		{"mistyped path", `{"path": 1}`, "path must be a string"},
		{"mistyped ignore", `{"path": ".", "ignore": "*.go"}`, "ignore must be an array"},
		{"bad ignore glob", `{"path": ".", "ignore": ["ok", "[x"]}`, `ignore[1] "[x" is not a valid glob`},
		{"unknown field", `{"path": ".", "depth": 2}`, "unknown field"},
		{"dotdot", `{"path": ".."}`, "outside the workspace"},
		{"absolute", `{"path": "/"}`, "outside the workspace"},
		{"symlink", `{"path": "out"}`, "outside the workspace"},
		{"file", `{"path": "a.txt"}`, "is a file"},
		{"missing", `{"path": "nope"}`, "does not exist"},
	}
	for _, tt := range tests {
		_, err := l.Run(t.Context(), tool.ExecInput(json.RawMessage(tt.in)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
