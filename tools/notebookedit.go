package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// NotebookEdit replaces, inserts or deletes one cell of a Jupyter notebook the model has
// read, with Claude Code's input schema.
type NotebookEdit struct {
	ws    *workspace.Workspace
	files *FileState
}

// NewNotebookEdit returns the NotebookEdit tool; files must be the FileState the
// session's Read records into (a notebook is edited only after it was read).
func NewNotebookEdit(ws *workspace.Workspace, files *FileState) *NotebookEdit {
	if ws == nil || files == nil {
		panic("tools: NewNotebookEdit needs a workspace and a FileState")
	}
	return &NotebookEdit{ws: ws, files: files}
}

// ReadOnly implements tool.Tool.
func (n *NotebookEdit) ReadOnly() bool { return false }

// Describe implements tool.Describer: a call writes the notebook it names.
func (n *NotebookEdit) Describe(input json.RawMessage) ([]tool.Action, error) {
	return describeNotebookEdit(input)
}

var describeNotebookEdit = tool.DescribeFile(tool.ActWrite, "notebook_path")

// Spec implements tool.Tool.
func (n *NotebookEdit) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "NotebookEdit", Description: notebookEditDescription, InputSchema: json.RawMessage(notebookEditSchema)}
}

const notebookEditDescription = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb). Read the notebook first: Read shows each cell with its id.
- cell_id is a cell's id (or cell-N, counting from 0). edit_mode replace (the default) sets the cell's source and clears its outputs; insert adds a new cell after cell_id (at the top without one) and needs cell_type; delete removes the cell.`

const notebookEditSchema = `{
  "type": "object",
  "properties": {
    "notebook_path": {"type": "string", "description": "The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"},
    "cell_id": {"type": "string", "description": "The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."},
    "new_source": {"type": "string", "description": "The new source for the cell"},
    "cell_type": {"type": "string", "enum": ["code", "markdown"], "description": "The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required."},
    "edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"], "description": "The type of edit to make (replace, insert, delete). Defaults to replace."}
  },
  "required": ["notebook_path", "new_source"],
  "additionalProperties": false
}`

type notebookEditInput struct {
	NotebookPath *string `json:"notebook_path"`
	CellID       string  `json:"cell_id"`
	NewSource    *string `json:"new_source"`
	CellType     string  `json:"cell_type"`
	EditMode     string  `json:"edit_mode"`
}

// Run implements tool.Tool.
func (n *NotebookEdit) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	var in notebookEditInput
	if err := decodeInput("NotebookEdit", x.Input, &in); err != nil {
		return tool.Result{}, err
	}
	path, err := requirePath(n.ws, "NotebookEdit", "notebook_path", in.NotebookPath)
	if err != nil {
		return tool.Result{}, err
	}
	mode := in.EditMode
	if mode == "" {
		mode = "replace"
	}
	switch mode {
	case "replace", "insert", "delete":
	default:
		return tool.Result{}, fmt.Errorf("NotebookEdit: edit_mode %q is not one of replace, insert, delete", in.EditMode)
	}
	switch in.CellType {
	case "", "code", "markdown":
	default:
		return tool.Result{}, fmt.Errorf("NotebookEdit: cell_type %q is not one of code, markdown", in.CellType)
	}
	if in.NewSource == nil && mode != "delete" {
		return tool.Result{}, fmt.Errorf("invalid NotebookEdit input: new_source is required")
	}
	if mode == "insert" && in.CellType == "" {
		return tool.Result{}, fmt.Errorf("NotebookEdit: inserting a cell needs cell_type (code or markdown)")
	}
	if mode != "insert" && in.CellID == "" {
		return tool.Result{}, fmt.Errorf("NotebookEdit: %s needs cell_id, the id Read shows for the cell", mode)
	}
	if !strings.EqualFold(filepath.Ext(path), ".ipynb") {
		return tool.Result{}, fmt.Errorf("NotebookEdit: %s is not a Jupyter notebook (.ipynb); edit other files with Edit", path)
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit %s: not started: %w", path, err)
	}

	unlock := n.files.lock(path)
	defer unlock()
	f, err := os.Open(path)
	if isNotExist(err) {
		return tool.Result{}, fmt.Errorf("NotebookEdit: %s does not exist (the working directory is %s); create a notebook with Write", path, n.ws.CWD())
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit: %w", err)
	}
	if !info.Mode().IsRegular() {
		return tool.Result{}, notRegularError("NotebookEdit", path, info.Mode())
	}
	data, err := readNotebookFile(f, info.Size())
	if err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit %s: %w", path, err)
	}
	if err := n.files.check(path, info, func() ([sha256.Size]byte, error) { return sha256.Sum256(data), nil }); err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit %s: %w", path, err)
	}
	if err := ensureWritable("NotebookEdit", path, info.Mode()); err != nil {
		return tool.Result{}, err
	}
	nb, err := parseNotebook(data)
	if err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit: %s: %w", path, err)
	}
	done, err := nb.apply(mode, in)
	if err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit %s: %w", path, err)
	}
	out, err := nb.encode()
	if err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit %s: %w", path, err)
	}
	if err := n.files.beforeChange("NotebookEdit", path); err != nil {
		return tool.Result{}, err
	}
	written, disk, err := n.files.writeText(ctx, "NotebookEdit", path, out, keptMode(info.Mode()))
	if err != nil {
		return tool.Result{}, fmt.Errorf("NotebookEdit %s: %w", path, err)
	}
	before, after := sha256.Sum256(data), sha256.Sum256(out)
	n.files.changed(path, after)
	n.files.record(path, newStamp(written, disk))
	res := tool.Text(fmt.Sprintf("%s in %s (%d cells now).", done, path, len(nb.cells)))
	res.Files = []tool.FileChange{{Path: path, Before: hex.EncodeToString(before[:]), After: hex.EncodeToString(after[:])}}
	return res, nil
}

// apply makes the edit and says what it did.
func (nb *notebook) apply(mode string, in notebookEditInput) (string, error) {
	at := -1
	if in.CellID != "" {
		i, ok := nb.find(in.CellID)
		if !ok {
			return "", fmt.Errorf("there is no cell %q (%s)", in.CellID, nb.ids())
		}
		at = i
	}
	switch mode {
	case "delete":
		nb.cells = append(nb.cells[:at], nb.cells[at+1:]...)
		return fmt.Sprintf("Deleted cell %s", in.CellID), nil
	case "insert":
		c := map[string]json.RawMessage{
			"cell_type": mustRaw(in.CellType),
			"metadata":  json.RawMessage(`{}`),
			"source":    sourceLines(*in.NewSource),
		}
		id := ""
		if nb.hasCellIDs() {
			id = nb.newCellID()
			c["id"] = mustRaw(id)
		}
		if in.CellType == "code" {
			c["outputs"], c["execution_count"] = json.RawMessage(`[]`), json.RawMessage(`null`)
		}
		nb.cells = append(nb.cells[:at+1], append([]map[string]json.RawMessage{c}, nb.cells[at+1:]...)...)
		if id == "" {
			id = fmt.Sprintf("cell-%d", at+1)
		}
		where := "at the top"
		if at >= 0 {
			where = "after " + in.CellID
		}
		return fmt.Sprintf("Inserted %s cell %s %s", in.CellType, id, where), nil
	}
	c := nb.cells[at]
	typ := cellString(c, "cell_type")
	if in.CellType != "" && in.CellType != typ {
		typ = in.CellType
		c["cell_type"] = mustRaw(typ)
	}
	c["source"] = sourceLines(*in.NewSource)
	if typ == "code" {
		// The outputs were those of the old source: they go, as in Claude Code.
		c["outputs"], c["execution_count"] = json.RawMessage(`[]`), json.RawMessage(`null`)
	} else {
		delete(c, "outputs")
		delete(c, "execution_count")
	}
	return fmt.Sprintf("Replaced the source of %s cell %s", typ, in.CellID), nil
}
