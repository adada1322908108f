package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// Write creates a file or replaces one the model has read, atomically.
type Write struct {
	ws    *workspace.Workspace
	files *FileState
}

// NewWrite returns the Write tool; it panics when ws or files is nil, which is a
// programming error. files must be the FileState the session's Read records into.
func NewWrite(ws *workspace.Workspace, files *FileState) *Write {
	if ws == nil || files == nil {
		panic("tools: NewWrite needs a workspace and a FileState")
	}
	return &Write{ws: ws, files: files}
}

// ReadOnly implements tool.Tool.
func (w *Write) ReadOnly() bool { return false }

// Describe implements tool.Describer: a call writes the file it names.
func (w *Write) Describe(input json.RawMessage) ([]tool.Action, error) {
	return describeWrite(input)
}

var describeWrite = tool.DescribeFile(tool.ActWrite, "file_path")

// Spec implements tool.Tool.
func (w *Write) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Write", Description: writeDescription, InputSchema: json.RawMessage(writeSchema)}
}

const writeDescription = `Writes a file, replacing it if it exists.
- file_path should be absolute (relative to the working directory also works); missing parent directories are created. Paths outside the workspace are refused.
- An existing file must have been read with Read in this session and not changed since, or the write is refused. A new file needs no Read.
- To change part of a file, use Edit: it sends only the change and cannot drop content by accident.
- The content is written exactly as given; an existing file keeps its permissions.
- Do not create documentation or README files unless the user asked for them.`

const writeSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The absolute path to the file to write"},
    "content": {"type": "string", "description": "The content to write to the file"}
  },
  "required": ["file_path", "content"],
  "additionalProperties": false
}`

type writeInput struct {
	FilePath *string `json:"file_path"`
	Content  *string `json:"content"`
}

// Run implements tool.Tool.
func (w *Write) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	var in writeInput
	if err := decodeInput("Write", input, &in); err != nil {
		return tool.Result{}, err
	}
	path, err := requireFilePath(w.ws, "Write", in.FilePath)
	if err != nil {
		return tool.Result{}, err
	}
	if in.Content == nil {
		return tool.Result{}, fmt.Errorf("invalid Write input: content is required (use \"\" for an empty file)")
	}
	if strings.HasSuffix(*in.FilePath, "/") {
		return tool.Result{}, fmt.Errorf("Write: file_path %q ends with a slash; it must name a file, not a directory", *in.FilePath)
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, fmt.Errorf("Write %s: not started: %w", path, err)
	}

	unlock := w.files.lock(path)
	defer unlock()
	mode := newFileMode
	created := true
	info, err := os.Stat(path)
	switch {
	case err == nil:
		if !info.Mode().IsRegular() {
			return tool.Result{}, notRegularError("Write", path, info.Mode())
		}
		if err := w.checkUnchanged(ctx, path); err != nil {
			return tool.Result{}, fmt.Errorf("Write %s: %w", path, err)
		}
		if err := ensureWritable("Write", path, info.Mode()); err != nil {
			return tool.Result{}, err
		}
		mode, created = keptMode(info.Mode()), false
	case !isNotExist(err):
		return tool.Result{}, fmt.Errorf("Write: %w", err)
	}

	data := []byte(*in.Content)
	change := tool.FileChange{Path: path}
	if !created {
		// checkUnchanged passed, so the file still holds what was recorded at the read.
		if before, ok := w.files.sumOfSeen(path); ok {
			change.Before = hex.EncodeToString(before[:])
		}
	}
	if err := w.files.beforeChange("Write", path); err != nil {
		return tool.Result{}, err
	}
	written, disk, err := w.files.writeText(ctx, "Write", path, data, mode)
	if err != nil {
		return tool.Result{}, fmt.Errorf("Write %s: %w", path, err)
	}
	after := sha256.Sum256(data)
	w.files.changed(path, after)
	change.After = hex.EncodeToString(after[:])
	w.files.record(path, newStamp(written, disk))
	lines := countLines(*in.Content)
	var res tool.Result
	if created {
		res = tool.Text(fmt.Sprintf("File created successfully at: %s (%s, %s bytes)", path, plural(lines, "line"), groupDigits(int64(len(data)))))
	} else {
		res = tool.Text(fmt.Sprintf("The file %s has been updated: it now has %s (%s bytes).", path, plural(lines, "line"), groupDigits(int64(len(data)))))
	}
	res.Files = []tool.FileChange{change}
	return res, nil
}

// checkUnchanged applies the FileState rule to the existing file at path, hashing it
// only when its time and size match what was recorded.
func (w *Write) checkUnchanged(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	return w.files.check(path, info, func() ([sha256.Size]byte, error) { return hashReader(ctx, f) })
}

// plural renders "1 line", "2 lines", "1,000 lines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return groupDigits(int64(n)) + " " + word + "s"
}
