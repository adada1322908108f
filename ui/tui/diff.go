package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/ouroagent/ouro/tool"
)

// diffContext is how many unchanged lines show around a change, as in a unified diff.
const diffContext = 3

// diffLine is one line of a diff: op is ' ', '-', '+' or '~' (skipped lines). n is its
// line number in the file (the old file for ' ' and '-', the new one for '+'), 0 when
// the file is not known.
type diffLine struct {
	op   byte
	n    int
	text string
}

// numberedDiff is the line diff of a file before and after a change, numbered as the
// file's lines, with diffContext lines of context around each change.
func numberedDiff(before, after string) []diffLine { return lineDiff(before, after, 1) }

// lineDiff is the line diff of a and b with diffContext lines of context; first is the
// number of a's (and b's) first line in its file, 0 to show no numbers.
func lineDiff(a, b string, first int) []diffLine {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var all []diffLine
	oldN, newN := first, first
	for _, d := range diffs {
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l == "" {
				continue
			}
			dl := diffLine{op: ' ', n: oldN, text: clean(strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))}
			switch d.Type {
			case diffmatchpatch.DiffDelete:
				dl.op = '-'
				oldN++
			case diffmatchpatch.DiffInsert:
				dl.op, dl.n = '+', newN
				newN++
			default:
				oldN++
				newN++
			}
			if first == 0 {
				dl.n = 0
			}
			all = append(all, dl)
		}
	}
	keep := make([]bool, len(all))
	for i, l := range all {
		if l.op != ' ' {
			for j := max(0, i-diffContext); j <= min(len(all)-1, i+diffContext); j++ {
				keep[j] = true
			}
		}
	}
	var out []diffLine
	skipped := false
	for i, l := range all {
		if keep[i] {
			out = append(out, l)
			skipped = false
		} else if !skipped {
			out = append(out, diffLine{op: '~'})
			skipped = true
		}
	}
	return out
}

// renderDiff draws at most maxLines of d, coloured, indented under a tool line, each
// line after its number in the file when that is known.
func renderDiff(d []diffLine, t *theme, width, maxLines int) []string {
	numW := 0
	for _, l := range d {
		if l.n > 0 {
			numW = max(numW, len(strconv.Itoa(l.n)))
		}
	}
	var out []string
	for i, l := range d {
		if i == maxLines {
			out = append(out, t.dim.Render(fmt.Sprintf("    … %d more diff lines", len(d)-i)))
			break
		}
		num := ""
		if numW > 0 {
			num = strings.Repeat(" ", numW+1)
			if l.n > 0 {
				num = fmt.Sprintf("%*d ", numW, l.n)
			}
		}
		text := ansi.Truncate(strings.ReplaceAll(l.text, "\t", "    "), max(width-2-len(num), 10), "…")
		switch l.op {
		case '-':
			out = append(out, "    "+t.dim.Render(num)+t.removed.Render("- "+text))
		case '+':
			out = append(out, "    "+t.dim.Render(num)+t.added.Render("+ "+text))
		case '~':
			out = append(out, "    "+t.hunk.Render("⋯"))
		default:
			out = append(out, "    "+t.dim.Render(num+"  "+text))
		}
	}
	return out
}

// maxDiffFile is the largest file whose diff is worked out against its content.
const maxDiffFile = 1 << 20

// callDiff is the diff an Edit, MultiEdit or Write call would make, numbered as the
// file on disk is now, or nil for other tools. When the file cannot be read or the
// edit does not apply to it (the call will fail), the diff is of the strings alone,
// without numbers.
func callDiff(c *tool.Call) []diffLine {
	type edit struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	var in struct {
		FilePath string `json:"file_path"`
		Content  *string
		edit
		Edits []edit `json:"edits"`
	}
	if json.Unmarshal(c.Input, &in) != nil {
		return nil
	}
	var edits []edit
	switch c.Name {
	case "Edit":
		edits = []edit{in.edit}
	case "MultiEdit":
		edits = in.Edits
	case "Write":
		if in.Content == nil {
			return nil
		}
		old, _ := readSmall(in.FilePath)
		return numberedDiff(old, *in.Content)
	default:
		return nil
	}
	if len(edits) == 0 {
		return nil
	}
	if content, ok := readSmall(in.FilePath); ok || edits[0].OldString == "" {
		after, applied := content, true
		for _, e := range edits {
			if after, applied = applyEdit(after, e.OldString, e.NewString, e.ReplaceAll); !applied {
				break
			}
		}
		if applied {
			return numberedDiff(content, after)
		}
	}
	var out []diffLine
	for _, e := range edits {
		out = append(out, lineDiff(e.OldString, e.NewString, 0)...)
	}
	return out
}

// readSmall reads a regular file of at most maxDiffFile bytes; "" and false otherwise.
func readSmall(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDiffFile {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// applyEdit makes one Edit replacement as the Edit tool does (old given with \n also
// matches a file written with \r\n); false when it would fail: old not found, or found
// more than once without replaceAll.
func applyEdit(content, old, new string, replaceAll bool) (string, bool) {
	if old == "" {
		return new, strings.TrimSpace(content) == ""
	}
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") {
		if o := strings.ReplaceAll(old, "\n", "\r\n"); strings.Contains(content, o) {
			old, new = o, strings.ReplaceAll(new, "\n", "\r\n")
		}
	}
	switch n := strings.Count(content, old); {
	case n == 0, n > 1 && !replaceAll:
		return "", false
	}
	return strings.ReplaceAll(content, old, new), true
}
