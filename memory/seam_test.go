package memory

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

type describeAll func(tool.Call) ([]tool.Action, error)

func (f describeAll) Describe(c tool.Call) ([]tool.Action, error) { return f(c) }

// The seam follows what calls do: the files a Read, Edit or NotebookEdit worked on,
// not a folder searched, a command or a failed call; a tool of another name that
// describes a write counts too.
func TestSeamNotesFilesCallsWorkedOn(t *testing.T) {
	call := func(name string, in map[string]any) tool.Call {
		b, _ := json.Marshal(in)
		return tool.Call{Name: name, Input: b}
	}
	s := NewSeam(&OnDemand{}, "/w", nil, func(string, ...any) {})
	ok, failed := &tool.Result{}, &tool.Result{IsError: true}
	s.AfterTool(context.Background(), call("Read", map[string]any{"file_path": "a.go"}), ok)
	s.AfterTool(context.Background(), call("Edit", map[string]any{"file_path": "/x/b.go"}), ok)
	s.AfterTool(context.Background(), call("NotebookEdit", map[string]any{"notebook_path": "n.ipynb"}), ok)
	s.AfterTool(context.Background(), call("Grep", map[string]any{"pattern": "x", "path": "/w/dir"}), ok)
	s.AfterTool(context.Background(), call("Bash", map[string]any{"command": "cat c.go"}), ok)
	s.AfterTool(context.Background(), call("Write", map[string]any{"file_path": "d.go"}), failed)
	if want := []string{"/w/a.go", "/x/b.go", "/w/n.ipynb"}; !slices.Equal(s.touched, want) {
		t.Fatalf("touched %q, want %q", s.touched, want)
	}
	s.touched = nil
	patch := describeAll(func(c tool.Call) ([]tool.Action, error) {
		return []tool.Action{{Kind: tool.ActWrite, Paths: []string{"p.go", "q.go"}}}, nil
	})
	s = NewSeam(&OnDemand{}, "/w", patch, func(string, ...any) {})
	s.AfterTool(context.Background(), call("ApplyPatch", map[string]any{"patch": "…"}), ok)
	if want := []string{"/w/p.go", "/w/q.go"}; !slices.Equal(s.touched, want) {
		t.Fatalf("a tool describing a write: touched %q, want %q", s.touched, want)
	}
}
