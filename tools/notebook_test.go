package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realNotebook is nbformat's own 4.5 test notebook (testdata/notebooks/SOURCES.md).
func realNotebook(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/notebooks/test4.5.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

type nbCell struct {
	ID             string            `json:"id"`
	CellType       string            `json:"cell_type"`
	Source         []string          `json:"source"`
	Outputs        []json.RawMessage `json:"outputs"`
	ExecutionCount *int              `json:"execution_count"`
	Metadata       json.RawMessage   `json:"metadata"`
}

func cellsOf(t *testing.T, text string) []nbCell {
	t.Helper()
	var nb struct {
		Cells []nbCell `json:"cells"`
	}
	if err := json.Unmarshal([]byte(text), &nb); err != nil {
		t.Fatalf("the notebook is no longer JSON: %v\n%s", err, text)
	}
	return nb.Cells
}

// Read shows a notebook's cells with the ids NotebookEdit takes, their sources and
// their outputs; rich outputs are named, not dumped.
func TestReadShowsANotebooksCells(t *testing.T) {
	e := newFileEnv(t)
	p := e.put("nb.ipynb", realNotebook(t))
	got := e.ok(e.read, map[string]any{"file_path": p})
	for _, want := range []string{
		"9 cells",
		`<cell id="2fcdfa53" type="markdown">`, "# nbconvert latex test",
		`<cell id="38f37a24" type="code" execution_count="1">`, "```python", `print("hello")`,
		`<output type="stdout">`, "hello",
		"<IPython.core.display.HTML at 0x1112757d0>", "[also text/html, not shown]",
		"[also image/png, not shown]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Read of the notebook lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "iVBORw0KGgo") {
		t.Error("Read dumped the base64 of an image output")
	}
	// Paging works over the rendering.
	if got := e.ok(e.read, map[string]any{"file_path": p, "offset": 3, "limit": 2}); strings.Count(got, "\n") > 4 {
		t.Errorf("offset/limit over a notebook: %q", got)
	}
}

// Replace sets a cell's source and clears its outputs; the rest of the file stays as
// Jupyter wrote it, byte for byte where nothing changed.
func TestNotebookEditReplaceInsertDelete(t *testing.T) {
	e := newFileEnv(t)
	orig := realNotebook(t)
	p := e.put("nb.ipynb", orig)
	nbe := NewNotebookEdit(e.ws, e.files)
	if err := e.fails(nbe, map[string]any{"notebook_path": p, "cell_id": "38f37a24", "new_source": "x"}); !strings.Contains(err.Error(), "Read") {
		t.Fatalf("an edit before Read: %v", err)
	}
	e.ok(e.read, map[string]any{"file_path": p})

	res, err := e.run(nbe, map[string]any{"notebook_path": p, "cell_id": "38f37a24", "new_source": "print('bye')\nprint(2)"})
	if err != nil || !strings.Contains(res.Text(), "Replaced the source of code cell 38f37a24") || len(res.Files) != 1 {
		t.Fatalf("replace: %v %q", err, res.Text())
	}
	after := e.get("nb.ipynb")
	cells := cellsOf(t, after)
	c := cells[3]
	if c.ID != "38f37a24" || strings.Join(c.Source, "") != "print('bye')\nprint(2)" || len(c.Source) != 2 || len(c.Outputs) != 0 || c.ExecutionCount != nil {
		t.Fatalf("the replaced cell: %+v", c)
	}
	// Jupyter's layout is kept: the untouched cells' text is as it was.
	if !strings.HasPrefix(after, "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"2fcdfa53\",") || !strings.HasSuffix(after, "}\n") {
		t.Errorf("the layout changed:\n%.300s", after)
	}
	if !strings.Contains(after, `"<script>\n",`) {
		t.Error("HTML in outputs was escaped (\\u003c) instead of kept as Jupyter writes it")
	}
	for _, kept := range []string{`"nbformat": 4`, `"nbformat_minor": 5`, `"display_name": "Python 3 (ipykernel)"`} {
		if !strings.Contains(after, kept) {
			t.Errorf("%s lost", kept)
		}
	}

	// Insert after a cell named by position, then at the top; new ids are 8 characters.
	got := e.ok(nbe, map[string]any{"notebook_path": p, "cell_id": "cell-0", "new_source": "## Setup", "cell_type": "markdown", "edit_mode": "insert"})
	if !strings.Contains(got, "Inserted markdown cell ") || !strings.Contains(got, "after cell-0") {
		t.Fatalf("insert: %q", got)
	}
	e.ok(nbe, map[string]any{"notebook_path": p, "new_source": "import os", "cell_type": "code", "edit_mode": "insert"})
	cells = cellsOf(t, e.get("nb.ipynb"))
	if len(cells) != 11 || cells[0].CellType != "code" || strings.Join(cells[0].Source, "") != "import os" || cells[0].Outputs == nil || len(cells[0].ID) != 8 {
		t.Fatalf("insert at the top: %+v", cells[0])
	}
	if cells[2].CellType != "markdown" || strings.Join(cells[2].Source, "") != "## Setup" || len(cells[2].ID) != 8 || cells[2].Outputs != nil {
		t.Fatalf("insert after cell-0: %+v", cells[2])
	}

	// Replace that changes the type drops a markdown cell's outputs fields.
	e.ok(nbe, map[string]any{"notebook_path": p, "cell_id": "8206b3b9", "new_source": "Just text.", "cell_type": "markdown"})
	if !strings.Contains(e.get("nb.ipynb"), `"cell_type": "markdown",`+"\n   \"id\": \"8206b3b9\"") {
		t.Errorf("the cell did not become markdown without outputs:\n%s", e.get("nb.ipynb"))
	}

	// Delete.
	e.ok(nbe, map[string]any{"notebook_path": p, "cell_id": "88d8965b", "new_source": "", "edit_mode": "delete"})
	for _, c := range cellsOf(t, e.get("nb.ipynb")) {
		if c.ID == "88d8965b" {
			t.Fatal("the deleted cell is still there")
		}
	}
}

// Bad inputs get errors that say what to do.
func TestNotebookEditRefusals(t *testing.T) {
	e := newFileEnv(t)
	p := e.put("nb.ipynb", realNotebook(t))
	txt := e.put("notes.txt", "plain")
	broken := e.put("broken.ipynb", `{"cells": 3}`)
	nbe := NewNotebookEdit(e.ws, e.files)
	for _, f := range []string{p, txt, broken} {
		e.ok(e.read, map[string]any{"file_path": f})
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"notebook_path": p, "cell_id": "nope", "new_source": "x"}, `there is no cell "nope" (its cells are 2fcdfa53, 0bc81532`},
		{map[string]any{"notebook_path": p, "cell_id": "cell-99", "new_source": "x"}, `there is no cell "cell-99"`},
		{map[string]any{"notebook_path": p, "cell_id": "cell-01", "new_source": "x"}, `there is no cell "cell-01"`},
		{map[string]any{"notebook_path": p, "new_source": "x", "edit_mode": "insert"}, "needs cell_type"},
		{map[string]any{"notebook_path": p, "new_source": "x"}, "replace needs cell_id"},
		{map[string]any{"notebook_path": p, "cell_id": "2fcdfa53", "new_source": "x", "edit_mode": "append"}, `edit_mode "append" is not one of`},
		{map[string]any{"notebook_path": p, "cell_id": "2fcdfa53", "new_source": "x", "cell_type": "raw"}, `cell_type "raw" is not one of`},
		{map[string]any{"notebook_path": p, "cell_id": "2fcdfa53"}, "new_source is required"},
		{map[string]any{"cell_id": "2fcdfa53", "new_source": "x"}, "notebook_path is required"},
		{map[string]any{"notebook_path": txt, "cell_id": "cell-0", "new_source": "x"}, "not a Jupyter notebook (.ipynb); edit other files with Edit"},
		{map[string]any{"notebook_path": broken, "cell_id": "cell-0", "new_source": "x"}, `"cells" is not a list of cells`},
		{map[string]any{"notebook_path": e.outside + "/x.ipynb", "cell_id": "cell-0", "new_source": "x"}, "outside"},
	} {
		if err := e.fails(nbe, c.in); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.in, err, c.want)
		}
	}
	if e.get("nb.ipynb") != realNotebook(t) {
		t.Error("a refused edit changed the notebook")
	}
	// A notebook changed behind the model's back must be read again.
	e.put("nb.ipynb", strings.Replace(realNotebook(t), "nbconvert latex test", "changed", 1))
	if err := e.fails(nbe, map[string]any{"notebook_path": p, "cell_id": "cell-0", "new_source": "x"}); !strings.Contains(err.Error(), "Read") {
		t.Errorf("an edit of a changed notebook: %v", err)
	}
	// A .ipynb that is no notebook reads as text.
	if got := e.ok(e.read, map[string]any{"file_path": broken}); !strings.Contains(got, `{"cells": 3}`) {
		t.Errorf("Read of a broken notebook: %q", got)
	}
}

// A notebook linked from outside the workspace is neither read nor edited through the link.
func TestNotebookEditRefusesALinkOutOfTheWorkspace(t *testing.T) {
	e := newFileEnv(t)
	outside := filepath.Join(e.outside, "secret.ipynb")
	if err := os.WriteFile(outside, []byte(realNotebook(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	link := e.path("nb.ipynb")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	nbe := NewNotebookEdit(e.ws, e.files)
	if _, err := e.run(e.read, map[string]any{"file_path": link}); err == nil {
		t.Error("Read followed the link out of the workspace")
	}
	if err := e.fails(nbe, map[string]any{"notebook_path": link, "cell_id": "cell-0", "new_source": "pwned"}); err == nil {
		t.Fatal("no error")
	}
	if data, _ := os.ReadFile(outside); string(data) != realNotebook(t) {
		t.Fatal("the notebook outside the workspace was changed")
	}
}
