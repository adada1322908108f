package tools

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/tool"
)

// A Jupyter notebook (nbformat 4) as the tools read and change it. Every field ouro does
// not touch is kept as the file had it (json.RawMessage), so an edit changes only the
// cell it names; the file is written back as Jupyter writes it (keys sorted, one-space
// indent, no HTML escaping, a final newline).
type notebook struct {
	fields map[string]json.RawMessage // everything but cells
	cells  []map[string]json.RawMessage
}

// maxNotebookBytes bounds what Read renders and NotebookEdit loads.
const maxNotebookBytes = maxEditBytes

func parseNotebook(data []byte) (*notebook, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("it is not a Jupyter notebook (not a JSON object: %v)", err)
	}
	raw, ok := top["cells"]
	if !ok {
		return nil, errors.New(`it is not a Jupyter notebook (no "cells" list)`)
	}
	nb := &notebook{fields: top}
	if err := json.Unmarshal(raw, &nb.cells); err != nil {
		return nil, fmt.Errorf(`its "cells" is not a list of cells: %v`, err)
	}
	delete(nb.fields, "cells")
	return nb, nil
}

// encode is the notebook as Jupyter writes it.
func (nb *notebook) encode() ([]byte, error) {
	top := make(map[string]any, len(nb.fields)+1)
	for k, v := range nb.fields {
		top[k] = v
	}
	top["cells"] = nb.cells
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(top); err != nil {
		return nil, err
	}
	return b.Bytes(), nil // Encode ends with the newline Jupyter writes
}

// language is the notebook's kernel language, for the fences of code cells.
func (nb *notebook) language() string {
	var meta struct {
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
		Kernelspec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
	}
	_ = json.Unmarshal(nb.fields["metadata"], &meta)
	for _, l := range []string{meta.LanguageInfo.Name, meta.Kernelspec.Language} {
		if l = strings.TrimSpace(l); l != "" && !strings.ContainsAny(l, "` \n") {
			return l
		}
	}
	return "python"
}

// hasCellIDs reports whether cells of this nbformat carry ids (4.5 and later).
func (nb *notebook) hasCellIDs() bool {
	var major, minor int
	_ = json.Unmarshal(nb.fields["nbformat"], &major)
	_ = json.Unmarshal(nb.fields["nbformat_minor"], &minor)
	return major > 4 || major == 4 && minor >= 5
}

// find is the index of the cell cell_id names: a cell's id, or cell-N (0-based).
func (nb *notebook) find(id string) (int, bool) {
	for i, c := range nb.cells {
		if cellString(c, "id") == id {
			return i, true
		}
	}
	if n, ok := strings.CutPrefix(id, "cell-"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < len(nb.cells) && strconv.Itoa(i) == n {
			return i, true
		}
	}
	return 0, false
}

// ids lists how each cell can be named, for an error that says which exist.
func (nb *notebook) ids() string {
	var out []string
	for i, c := range nb.cells {
		if id := cellString(c, "id"); id != "" {
			out = append(out, id)
		} else {
			out = append(out, "cell-"+strconv.Itoa(i))
		}
	}
	if len(out) == 0 {
		return "the notebook has no cells"
	}
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("… (%d cells)", len(nb.cells)))
	}
	return "its cells are " + strings.Join(out, ", ")
}

func cellString(c map[string]json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(c[key], &s)
	return s
}

// multiline is nbformat's multiline string: one string or a list of lines.
func multiline(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	_ = json.Unmarshal(raw, &lines)
	return strings.Join(lines, "")
}

// sourceLines is text as Jupyter stores a source: lines that keep their newlines.
func sourceLines(text string) json.RawMessage {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if lines == nil {
		lines = []string{}
	}
	return mustRaw(lines)
}

func mustRaw(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings, lists and nulls are encoded here
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// newCellID is a fresh 8-character cell id, unlike any in the notebook.
func (nb *notebook) newCellID() string {
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if _, taken := nb.find(id); !taken {
			return id
		}
	}
}

// maxCellOutputChars bounds what one output of a cell shows in Read.
const maxCellOutputChars = 4000

// render is the notebook as Read shows it: each cell with the id NotebookEdit takes, its
// type, its source, and what a code cell printed (text outputs; images and other rich
// outputs are named, not shown).
func (nb *notebook) render(path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Jupyter notebook %s: %d cells. NotebookEdit names a cell by the id shown.\n", path, len(nb.cells))
	lang := nb.language()
	for i, c := range nb.cells {
		id := cellString(c, "id")
		if id == "" {
			id = "cell-" + strconv.Itoa(i)
		}
		typ := cellString(c, "cell_type")
		fmt.Fprintf(&b, "\n<cell id=%q type=%q", id, typ)
		var count *int
		if json.Unmarshal(c["execution_count"], &count) == nil && count != nil {
			fmt.Fprintf(&b, " execution_count=\"%d\"", *count)
		}
		b.WriteString(">\n")
		src := multiline(c["source"])
		if typ == "code" {
			fmt.Fprintf(&b, "```%s\n%s\n```\n", lang, strings.TrimRight(src, "\n"))
		} else {
			b.WriteString(strings.TrimRight(src, "\n") + "\n")
		}
		renderOutputs(&b, c["outputs"])
		b.WriteString("</cell>\n")
	}
	return b.String()
}

func renderOutputs(b *strings.Builder, raw json.RawMessage) {
	var outs []struct {
		OutputType string                     `json:"output_type"`
		Name       string                     `json:"name"`
		Text       json.RawMessage            `json:"text"`
		Data       map[string]json.RawMessage `json:"data"`
		Ename      string                     `json:"ename"`
		Evalue     string                     `json:"evalue"`
	}
	if json.Unmarshal(raw, &outs) != nil {
		return
	}
	for _, o := range outs {
		var text, label string
		switch o.OutputType {
		case "stream":
			label, text = o.Name, multiline(o.Text)
		case "execute_result", "display_data":
			label = o.OutputType
			if t, ok := o.Data["text/plain"]; ok {
				text = multiline(t)
			}
			var rich []string
			for mime := range o.Data {
				if mime != "text/plain" {
					rich = append(rich, mime)
				}
			}
			if len(rich) > 0 {
				slices.Sort(rich)
				text += fmt.Sprintf("\n[also %s, not shown]", strings.Join(rich, ", "))
			}
		case "error":
			label, text = "error", o.Ename+": "+o.Evalue
		default:
			continue
		}
		if len(text) > maxCellOutputChars {
			text = textcut.Bytes(text, maxCellOutputChars, "") + fmt.Sprintf("\n[output cut: %s characters in all]", groupDigits(int64(len(text))))
		}
		fmt.Fprintf(b, "<output type=%q>\n%s\n</output>\n", label, strings.TrimRight(text, "\n"))
	}
}

// readNotebookFile reads a notebook whole (bounded), for NotebookEdit.
func readNotebookFile(f *os.File, size int64) ([]byte, error) {
	if size > maxNotebookBytes {
		return nil, fmt.Errorf("it has %s bytes, more than the %s NotebookEdit loads", groupDigits(size), groupDigits(maxNotebookBytes))
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxNotebookBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxNotebookBytes {
		return nil, fmt.Errorf("it has grown past the %s bytes NotebookEdit loads", groupDigits(maxNotebookBytes))
	}
	return buf.Bytes(), nil
}

// readNotebook is Read of a .ipynb file: the cells with their ids, sources and outputs,
// paged by offset and limit over that rendering. ok is false (with the bytes read) when
// the file is no notebook, so that Read shows it as text instead.
func (r *Read) readNotebook(path string, info os.FileInfo, br *bufio.Reader, h hash.Hash, offset, limit int) (res tool.Result, raw []byte, ok bool, err error) {
	if info.Size() > maxNotebookBytes {
		return tool.Result{}, nil, false, fmt.Errorf("Read: %s is a notebook of %s bytes, more than the %s Read renders; page through it with offset and limit after converting it (jupyter nbconvert --to script)",
			path, groupDigits(info.Size()), groupDigits(maxNotebookBytes))
	}
	raw, err = io.ReadAll(io.LimitReader(br, maxNotebookBytes+1))
	if err != nil {
		return tool.Result{}, nil, false, fmt.Errorf("Read %s: %w", path, err)
	}
	nb, perr := parseNotebook(raw)
	if perr != nil {
		return tool.Result{}, raw, false, nil
	}
	v, err := scanText(bufio.NewReader(strings.NewReader(nb.render(path))), offset, limit)
	if err != nil {
		return tool.Result{}, nil, false, fmt.Errorf("Read %s: %w", path, err)
	}
	if offset > v.total {
		return tool.Result{}, nil, false, fmt.Errorf("Read: offset %d is past the end of notebook %s, which renders as %s lines. Use an offset from 1 to %d",
			offset, path, groupDigits(int64(v.total)), v.total)
	}
	res = tool.Text(v.text + v.notice(offset, limit))
	res.ChangedState = r.files.record(path, newStamp(info, sumOf(h)))
	return res, nil, true, nil
}
