package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

const (
	// maxEditBytes bounds the file Edit loads whole; bigger files are for sed.
	maxEditBytes = 64 << 20
	// editContext is how many unchanged lines the result shows around a change.
	editContext = 3
	// editShownLines and editShownBytes bound the snippet in Edit's result, well within
	// the registry's output budget.
	editShownLines = 60
	editShownBytes = 10_000
	// maxListedMatches bounds the line numbers listed for an ambiguous old_string.
	maxListedMatches = 20
)

// Edit replaces exact text in a file the model has read.
type Edit struct {
	ws    *workspace.Workspace
	files *FileState
}

// NewEdit returns the Edit tool; it panics when ws or files is nil, which is a
// programming error. files must be the FileState the session's Read records into.
func NewEdit(ws *workspace.Workspace, files *FileState) *Edit {
	if ws == nil || files == nil {
		panic("tools: NewEdit needs a workspace and a FileState")
	}
	return &Edit{ws: ws, files: files}
}

// ReadOnly implements tool.Tool.
func (e *Edit) ReadOnly() bool { return false }

// Describe implements tool.Describer: a call writes the file it names.
func (e *Edit) Describe(input json.RawMessage) ([]tool.Action, error) {
	return describeWrite(input)
}

// Spec implements tool.Tool.
func (e *Edit) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Edit", Description: editDescription, InputSchema: json.RawMessage(editSchema)}
}

const editDescription = `Replaces exact text in a file: old_string becomes new_string.
- Read the file first in this session: Edit refuses a file not read, or changed on disk since (Read it again then).
- old_string must match the file exactly, whitespace and indentation included, and occur exactly once. Copy it from Read's output without the line-number prefix. Add surrounding lines to make it unique, or set replace_all to replace every occurrence (e.g. to rename a variable).
- When old_string is not found, the result shows the closest text and how it differs: correct old_string from that, do not guess.
- Keep old_string short: the changed lines plus a little context. For separate changes, call Edit several times.
- An empty new_string deletes old_string. An empty old_string creates a new file holding new_string (refused if the file has content).
- Files with CRLF line endings keep them; write old_string and new_string with plain \n.`

const editSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The absolute path to the file to modify"},
    "old_string": {"type": "string", "description": "The text to replace, exactly as in the file"},
    "new_string": {"type": "string", "description": "The text to replace it with (not old_string)"},
    "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence of old_string"}
  },
  "required": ["file_path", "old_string", "new_string"],
  "additionalProperties": false
}`

type editInput struct {
	FilePath   *string `json:"file_path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll *bool   `json:"replace_all"`
}

// Run implements tool.Tool.
func (e *Edit) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	var in editInput
	if err := decodeInput("Edit", input, &in); err != nil {
		return tool.Result{}, err
	}
	var missing []string
	for _, f := range []struct {
		name string
		v    *string
	}{{"file_path", in.FilePath}, {"old_string", in.OldString}, {"new_string", in.NewString}} {
		if f.v == nil {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		verb := "is"
		if len(missing) > 1 {
			verb = "are"
		}
		return tool.Result{}, fmt.Errorf("invalid Edit input: %s %s required", strings.Join(missing, ", "), verb)
	}
	oldS, newS := *in.OldString, *in.NewString
	replaceAll := in.ReplaceAll != nil && *in.ReplaceAll
	if oldS == newS {
		return tool.Result{}, errors.New("Edit: No changes to make: old_string and new_string are exactly the same.")
	}
	path, err := requireFilePath(e.ws, "Edit", in.FilePath)
	if err != nil {
		return tool.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, fmt.Errorf("Edit %s: not started: %w", path, err)
	}

	unlock := e.files.lock(path)
	defer unlock()
	info, err := os.Stat(path)
	if isNotExist(err) {
		if oldS != "" {
			return tool.Result{}, fmt.Errorf("Edit: %s does not exist (the working directory is %s). To create it, use Write, or Edit with an empty old_string", path, e.ws.CWD())
		}
		return e.create(path, newS)
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("Edit: %w", err)
	}
	if !info.Mode().IsRegular() {
		return tool.Result{}, notRegularError("Edit", path, info.Mode())
	}
	content, info, err := e.load(path)
	if err != nil {
		return tool.Result{}, err
	}
	if text, ok, err := e.files.readEditor(ctx, "Edit", path); err != nil {
		return tool.Result{}, err
	} else if ok {
		content = text // what the user has open, unsaved changes included
	}
	if err := ensureWritable("Edit", path, info.Mode()); err != nil {
		return tool.Result{}, err
	}

	var plan editPlan
	if oldS == "" {
		if strings.TrimSpace(content) != "" {
			return tool.Result{}, fmt.Errorf("Edit: old_string is empty, which only creates a new file, but %s already exists and has content. Give the exact text to replace, or use Write to replace the whole file", path)
		}
		plan = editPlan{old: content, new: newS, at: []int{0}}
	} else {
		plan = planEdit(content, oldS, newS)
		switch {
		case len(plan.at) == 0:
			return tool.Result{}, fmt.Errorf("Edit: old_string was not found in %s.%s", path, nearMiss(content, oldS))
		case len(plan.at) > 1 && !replaceAll:
			return tool.Result{}, fmt.Errorf("Edit: old_string occurs %d times in %s, at %s, and replace_all is false. To change every occurrence set replace_all to true; to change one, include more of the surrounding lines in old_string so that it matches only there",
				len(plan.at), path, listLines(content, plan.at))
		}
	}

	updated, regions := plan.apply(content)
	data := []byte(updated)
	if err := e.files.beforeChange("Edit", path); err != nil {
		return tool.Result{}, err
	}
	written, disk, err := e.files.writeText(ctx, "Edit", path, data, keptMode(info.Mode()))
	if err != nil {
		return tool.Result{}, fmt.Errorf("Edit %s: %w", path, err)
	}
	before, after := sha256.Sum256([]byte(content)), sha256.Sum256(data)
	e.files.changed(path, after)
	e.files.record(path, newStamp(written, disk))
	res := tool.Text(fmt.Sprintf("The file %s has been updated (%s). Here is the edited part, numbered as the file is now:\n%s",
		path, plural(len(plan.at), "replacement"), snippet(updated, regions)))
	res.Files = []tool.FileChange{{Path: path, Before: hex.EncodeToString(before[:]), After: hex.EncodeToString(after[:])}}
	return res, nil
}

// load reads the existing file at path whole and applies the FileState rule to exactly
// the bytes that will be edited.
func (e *Edit) load(path string) (string, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("Edit: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", nil, fmt.Errorf("Edit: %w", err)
	}
	if info.Size() > maxEditBytes {
		return "", nil, fmt.Errorf("Edit: %s has %s bytes, more than the %s Edit loads; change it with Bash (sed -i, or a script) instead",
			path, groupDigits(info.Size()), groupDigits(maxEditBytes))
	}
	// Sized from the stat, so the file is read into one allocation, not a doubling series.
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxEditBytes+1)); err != nil {
		return "", nil, fmt.Errorf("Edit: read %s: %w", path, err)
	}
	data := buf.Bytes()
	if len(data) > maxEditBytes { // it grew since the stat
		return "", nil, fmt.Errorf("Edit: %s has grown past the %s bytes Edit loads; change it with Bash instead", path, groupDigits(maxEditBytes))
	}
	if err := e.files.check(path, info, func() ([sha256.Size]byte, error) { return sha256.Sum256(data), nil }); err != nil {
		return "", nil, fmt.Errorf("Edit %s: %w", path, err)
	}
	if looksBinary(data[:min(len(data), sniffBytes)], len(data) <= sniffBytes) {
		kind, _ := describeBinary(data)
		return "", nil, fmt.Errorf("Edit: %s is a binary file (%s); Edit changes text files only", path, kind)
	}
	return string(data), info, nil
}

// create makes a new file holding content, as Edit with an empty old_string does.
func (e *Edit) create(path, content string) (tool.Result, error) {
	data := []byte(content)
	if err := e.files.beforeChange("Edit", path); err != nil {
		return tool.Result{}, err
	}
	written, err := writeFileAtomic(path, data, newFileMode)
	if err != nil {
		return tool.Result{}, fmt.Errorf("Edit %s: %w", path, err)
	}
	after := sha256.Sum256(data)
	e.files.changed(path, after)
	e.files.record(path, newStamp(written, after))
	res := tool.Text(fmt.Sprintf("Created %s with %s.", path, plural(countLines(content), "line")))
	res.Files = []tool.FileChange{{Path: path, After: hex.EncodeToString(after[:])}}
	return res, nil
}

// editPlan is one replacement to make: old (as it appears in the file) at byte offsets at,
// each becoming new.
type editPlan struct {
	old, new string
	at       []int
}

// planEdit finds old in content. In a file whose lines end in CRLF, old and new given
// with plain \n (as models write them) are matched and written with \r\n, so the file
// keeps its line endings; old as given is tried when that does not match (a file with
// mixed endings).
func planEdit(content, oldS, newS string) editPlan {
	if usesCRLF(content) {
		o, n := toCRLF(oldS), toCRLF(newS)
		if at := occurrences(content, o); len(at) > 0 || o == oldS {
			return editPlan{old: o, new: n, at: at}
		}
	}
	return editPlan{old: oldS, new: newS, at: occurrences(content, oldS)}
}

// occurrences lists where s occurs in content without overlaps, as strings.Replace
// counts them.
func occurrences(content, s string) []int {
	var at []int
	for pos := 0; ; {
		i := strings.Index(content[pos:], s)
		if i < 0 {
			return at
		}
		at = append(at, pos+i)
		pos += i + len(s)
	}
}

// apply returns the new content and, for each replacement, the byte range the new text
// occupies in it.
func (p editPlan) apply(content string) (string, [][2]int) {
	var sb strings.Builder
	sb.Grow(len(content) + len(p.at)*(len(p.new)-len(p.old)))
	regions := make([][2]int, 0, len(p.at))
	prev := 0
	for _, at := range p.at {
		sb.WriteString(content[prev:at])
		start := sb.Len()
		sb.WriteString(p.new)
		regions = append(regions, [2]int{start, sb.Len()})
		prev = at + len(p.old)
	}
	sb.WriteString(content[prev:])
	return sb.String(), regions
}

// usesCRLF reports whether most of content's line endings are \r\n.
func usesCRLF(content string) bool {
	crlf := strings.Count(content, "\r\n")
	return crlf > 0 && 2*crlf >= strings.Count(content, "\n")
}

// toCRLF turns every \n not already preceded by \r into \r\n.
func toCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + strings.Count(s, "\n"))
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && (i == 0 || s[i-1] != '\r') {
			sb.WriteByte('\r')
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// listLines renders the line numbers where the offsets fall: "lines 3, 17 and 40".
func listLines(content string, offsets []int) string {
	shown := offsets[:min(len(offsets), maxListedMatches)]
	nums := make([]string, 0, len(shown)+1)
	line, pos := 1, 0
	for _, off := range shown {
		line += strings.Count(content[pos:off], "\n")
		pos = off
		nums = append(nums, groupDigits(int64(line)))
	}
	if rest := len(offsets) - len(shown); rest > 0 {
		nums = append(nums, fmt.Sprintf("%d more", rest))
	}
	if len(nums) == 1 {
		return "line " + nums[0]
	}
	return "lines " + strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
}

// snippet renders the lines of content around the byte regions, with editContext lines
// of context, in `cat -n` form; distant regions are separated by "...".
func snippet(content string, regions [][2]int) string {
	total := countLines(content)
	if total == 0 {
		return "(the file is now empty)"
	}
	var ranges [][2]int // 1-based inclusive line ranges, merged
	line, pos := 1, 0
	for _, r := range regions {
		line += strings.Count(content[pos:r[0]], "\n")
		pos = r[0]
		first := line
		last := first
		if r[1] > r[0] {
			last = first + strings.Count(content[r[0]:r[1]-1], "\n")
		}
		from, to := max(1, first-editContext), min(total, last+editContext)
		if n := len(ranges); n > 0 && from <= ranges[n-1][1]+1 {
			ranges[n-1][1] = max(ranges[n-1][1], to)
		} else {
			ranges = append(ranges, [2]int{from, to})
		}
	}

	var sb strings.Builder
	shown, ri := 0, 0
	line, pos = 1, 0
	for ri < len(ranges) && pos < len(content) {
		end := strings.IndexByte(content[pos:], '\n')
		next := pos + end + 1
		if end < 0 {
			end, next = len(content)-pos, len(content)
		}
		if r := ranges[ri]; line >= r[0] {
			if line == r[0] && ri > 0 {
				sb.WriteString("...\n")
			}
			if shown == editShownLines || sb.Len() >= editShownBytes {
				fmt.Fprintf(&sb, "... (the rest of the edited part is not shown; Read the file to see it)\n")
				break
			}
			appendNumbered(&sb, line, content[pos:pos+end])
			shown++
			if line == r[1] {
				ri++
			}
		}
		line, pos = line+1, next
	}
	return sb.String()
}

// nearMissPairs bounds the line comparisons nearMiss makes, so a failed edit of a large
// file still answers at once.
const nearMissPairs = 1_000_000

// nearMiss explains why old was not found, so the model can correct it instead of
// guessing: the line-number prefixes of Read's output copied along, or the closest run
// of lines in the file with the differences pointed out.
func nearMiss(content, old string) string {
	if stripped, ok := stripLineNumbers(old); ok && (strings.Contains(content, stripped) || strings.Contains(content, toCRLF(stripped))) {
		return " old_string includes the line-number prefixes of Read's output (spaces, a number, a tab); they are not part of the file. Send the same text without them."
	}
	const reread = " Read the file again to see its current content and copy old_string from it exactly."
	fileLines, oldLines := splitLines(content), splitLines(old)
	if strings.TrimSpace(old) == "" || len(fileLines) == 0 {
		return reread
	}
	start, score := closestLines(fileLines, oldLines)
	if score < 0.5 {
		return " Nothing in the file is close to it." + reread
	}
	end := min(len(fileLines), start+len(oldLines)) // exclusive

	var sb strings.Builder
	if end-start == 1 {
		fmt.Fprintf(&sb, "\nThe closest text in the file is line %d:\n", start+1)
	} else {
		fmt.Fprintf(&sb, "\nThe closest text in the file is lines %d-%d:\n", start+1, end)
	}
	for i := start; i < end; i++ {
		if i-start == 20 {
			sb.WriteString("...\n")
			break
		}
		appendNumbered(&sb, i+1, fileLines[i])
	}
	var diffs []string
	for i := range oldLines {
		if start+i >= end {
			diffs = append(diffs, fmt.Sprintf("old_string has %d more lines than the file has from line %d on", len(oldLines)-i, start+1))
			break
		}
		if d := lineDifference(start+i+1, fileLines[start+i], oldLines[i]); d != "" {
			diffs = append(diffs, d)
		}
		if len(diffs) == 5 {
			diffs = append(diffs, "...")
			break
		}
	}
	if len(diffs) == 0 {
		sb.WriteString("The lines are the same, so the difference is in the line endings or in where old_string starts or ends within a line.")
	} else {
		sb.WriteString("How old_string differs: " + strings.Join(diffs, "; ") + ".")
	}
	return sb.String()
}

// splitLines splits s into lines without their endings; a final newline does not start
// another line.
func splitLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// stripLineNumbers removes a `cat -n` prefix (spaces, digits, then a tab or Claude Code's
// →) from every non-empty line; ok is false unless every such line had one.
func stripLineNumbers(s string) (string, bool) {
	var sb strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.TrimSpace(l) == "" {
			sb.WriteString(l)
			continue
		}
		t := strings.TrimLeft(l, " ")
		rest := strings.TrimLeft(t, "0123456789")
		if len(rest) == len(t) {
			return "", false
		}
		switch {
		case strings.HasPrefix(rest, "\t"):
			rest = rest[1:]
		case strings.HasPrefix(rest, "→"):
			rest = rest[len("→"):]
		default:
			return "", false
		}
		sb.WriteString(rest)
	}
	return sb.String(), true
}

// closestLines finds the run of len(old) lines in file most like old, scoring each pair of
// lines by lineSimilarity and averaging. Large inputs compare an even sample of old's
// lines, keeping the work within nearMissPairs.
func closestLines(file, old []string) (start int, score float64) {
	windows := max(1, len(file)-len(old)+1)
	var sample []int
	for i, l := range old {
		if strings.TrimSpace(l) != "" {
			sample = append(sample, i)
		}
	}
	if keep := max(1, nearMissPairs/windows); len(sample) > keep {
		picked := make([]int, keep)
		for k := range picked {
			picked[k] = sample[k*len(sample)/keep]
		}
		sample = picked
	}
	grams := make([][]uint16, len(old))
	for _, i := range sample {
		grams[i] = bigrams(strings.TrimSpace(old[i]))
	}
	var counts [1 << 16]int32
	score = -1
	for j := range windows {
		sum := 0.0
		for _, i := range sample {
			if j+i < len(file) {
				sum += lineSimilarity(old[i], grams[i], file[j+i], &counts)
			}
		}
		if s := sum / float64(len(sample)); s > score {
			start, score = j, s
		}
	}
	return start, score
}

// lineSimilarity scores two lines from 0 to 1: 1 when equal, 0.9 when only whitespace at
// their ends differs, else the Dice coefficient of their character pairs. counts is
// scratch space, all zero on entry and on return.
func lineSimilarity(a string, aGrams []uint16, b string, counts *[1 << 16]int32) float64 {
	if a == b {
		return 1
	}
	b = strings.TrimSpace(b)
	if strings.TrimSpace(a) == b {
		return 0.9
	}
	if len(aGrams) == 0 || len(b) < 2 {
		return 0
	}
	for _, g := range aGrams {
		counts[g]++
	}
	common := 0
	for i := 0; i+1 < len(b); i++ {
		g := uint16(b[i])<<8 | uint16(b[i+1])
		if counts[g] > 0 {
			counts[g]--
			common++
		}
	}
	for _, g := range aGrams {
		counts[g] = 0
	}
	return 2 * float64(common) / float64(len(aGrams)+len(b)-1)
}

func bigrams(s string) []uint16 {
	if len(s) < 2 {
		return nil
	}
	out := make([]uint16, len(s)-1)
	for i := range out {
		out[i] = uint16(s[i])<<8 | uint16(s[i+1])
	}
	return out
}

// lineDifference describes how old differs from line n of the file, or "" when it does
// not; differences in indentation and trailing whitespace are named as such, since they
// are invisible in most renderings.
func lineDifference(n int, file, old string) string {
	if file == old {
		return ""
	}
	if strings.TrimSpace(file) == strings.TrimSpace(old) {
		fi, oi := leadingSpace(file), leadingSpace(old)
		if fi != oi {
			return fmt.Sprintf("line %d is indented with %s in the file, but with %s in old_string", n, describeSpace(fi), describeSpace(oi))
		}
		return fmt.Sprintf("line %d ends with %s in the file, but with %s in old_string",
			n, describeSpace(file[len(strings.TrimRight(file, " \t")):]), describeSpace(old[len(strings.TrimRight(old, " \t")):]))
	}
	return fmt.Sprintf("line %d is %q in the file, but %q in old_string", n, textcut.Runes(file, 160, "…"), textcut.Runes(old, 160, "…"))
}

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// describeSpace names a run of blanks: "2 tabs", "4 spaces", "1 tab and 2 spaces",
// "nothing".
func describeSpace(s string) string {
	if s == "" {
		return "nothing"
	}
	tabs := strings.Count(s, "\t")
	spaces := len(s) - tabs
	switch {
	case tabs == 0:
		return plural(spaces, "space")
	case spaces == 0:
		return plural(tabs, "tab")
	case strings.HasPrefix(s, "\t"):
		return plural(tabs, "tab") + " and " + plural(spaces, "space")
	default:
		return plural(spaces, "space") + " and " + plural(tabs, "tab")
	}
}
