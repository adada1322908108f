package permission

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// decidingPackages are where permissions are decided: the policy and its gate, the names
// rules and agent files are read with, grants, the sandbox, the loop, the session's
// guard, the goal's check; decidingFiles the files elsewhere that wire those decisions
// or act on what calls do (a hook's `if`, the session's sandbox, the shell of skills'
// commands, the files on-demand instructions follow, the scout's fix guard).
var (
	decidingPackages = []string{"permission", "tool/toolnames", "grant", "sandbox", "agent", "guard", "goal"}
	decidingFiles    = []string{"hook/cond.go", "harness/guard.go", "harness/sandbox.go", "harness/goal.go", "harness/context.go",
		"harness/skills.go", "skill/shell.go", "memory/seam.go", "scout/guard.go"}
)

// No permission is decided by a tool's name outside the tools: the policy decides on
// what a call does (tool.Action), and every list of names comes from the registry. The
// scan reads the Go files where permissions are decided (decidingPackages, decidingFiles;
// generated files aside) and fails on a tool's name written as a string and compared
// (==, !=), switched on (case "Bash":), kept in a list or map literal, passed to a call
// (Hidden("Bash")) or naming a call (tool.Call{Name: "Bash"}).
func TestNoDecisionByToolName(t *testing.T) {
	root := moduleRoot(t)
	names := map[string]bool{}
	for _, cc := range tool.ClaudeCode() {
		names[cc.Name] = true
	}
	var paths []string
	for _, pkg := range decidingPackages {
		ents, err := os.ReadDir(filepath.Join(root, pkg))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				paths = append(paths, filepath.Join(pkg, n))
			}
		}
	}
	paths = append(paths, decidingFiles...)
	fset := token.NewFileSet()
	var found []string
	for _, p := range paths {
		f, err := parser.ParseFile(fset, filepath.Join(root, p), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if ast.IsGenerated(f) {
			continue // written from the registry (tool/toolnames/ouro.go)
		}
		found = append(found, nameDecisions(fset, f, names)...)
	}
	if len(paths) < 60 {
		t.Fatalf("scanned %d files; the scan lost its way", len(paths))
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: a tool's name decides here; decide on the call's tool.Action (or ask the registry) instead", f)
	}
}

// TestNameScanCatches makes sure the scan sees each form it looks for.
func TestNameScanCatches(t *testing.T) {
	src := `package p
func f(name string, in struct{ Durable bool }) bool {
	if name == "Bash" { return true }
	switch name {
	case "Read", "x":
		return true
	}
	_ = map[string]bool{"Write": true}
	_ = []string{"a", "CronCreate"}
	_ = hidden("Bash") || hidden("Bashful")
	_ = call{Name: "Read", Input: "Bash"}
	return "WebFetch" != name || name == "Bashful"
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := nameDecisions(fset, f, map[string]bool{"Bash": true, "Read": true, "Write": true, "CronCreate": true, "WebFetch": true})
	if len(got) != 7 {
		t.Errorf("found %d of 7: %q", len(got), got)
	}
}

// The scan catches the name checks it used to miss, as they were written before they
// went (the goal's check in harness/goal.go, the on-demand instructions' fileTools in
// memory/seam.go, the scout's fix guard in scout/guard.go).
func TestNameScanCatchesTheOldChecks(t *testing.T) {
	for file, src := range map[string]string{
		"harness/goal.go": `package harness
func goalConfig() goal.JoinConfig {
	return goal.JoinConfig{ShellHidden: func() bool { return g.policy.Hidden("Bash") }}
}
func run() { call := tool.Call{ID: id, Name: "Bash", Input: in}; _ = call }
func (u userCommand) Approve(p permission.Prompt) bool {
	return p.Call.Name == "Bash" && in.Command == u.command
}`,
		"memory/seam.go": `package memory
var fileTools = map[string]bool{"Read": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}`,
		"scout/guard.go": `package scout
func (s *Check) gateEdit(name string) {
	p.Tools = []string{"Glob", "Grep", "Read", "Edit", "Bash"}
	switch name {
	case "Bash":
	case "Edit":
	case "Write", "MultiEdit", "NotebookEdit":
	}
}`,
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, cc := range tool.ClaudeCode() {
			names[cc.Name] = true
		}
		want := map[string]int{"harness/goal.go": 3, "memory/seam.go": 5, "scout/guard.go": 10}[file]
		if got := nameDecisions(fset, f, names); len(got) != want {
			t.Errorf("%s: found %d of %d: %q", file, len(got), want, got)
		}
	}
}

// nameDecisions finds the tool names of names that f compares, switches on or lists.
func nameDecisions(fset *token.FileSet, f *ast.File, names map[string]bool) []string {
	var out []string
	hit := func(e ast.Expr, how string) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || !names[s] {
			return
		}
		out = append(out, fset.Position(lit.Pos()).String()+": "+how+" "+lit.Value)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				hit(n.X, "compares")
				hit(n.Y, "compares")
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				hit(e, "switches on")
			}
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					hit(kv.Key, "lists")
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
						hit(kv.Value, "names a call") // tool.Call{Name: "Bash"}
					}
					continue
				}
				hit(e, "lists")
			}
		case *ast.CallExpr:
			for _, e := range n.Args {
				hit(e, "passes") // policy.Hidden("Bash")
			}
		}
		return true
	})
	return out
}

// moduleRoot is the folder holding go.mod above the package's.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}
