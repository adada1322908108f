package scout

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// Evidence records which parts of which files a run has actually seen, so that the
// report's citations can be checked against what the model was shown rather than what
// it claims. It is safe for concurrent use: read-only calls run in parallel and each
// records its result as it finishes.
type Evidence struct {
	ws *workspace.Workspace

	mu    sync.RWMutex
	files map[string]*seen // by real path
}

// seen is what a run saw of one file.
type seen struct {
	// matched: the file was shown as a whole fact (a Grep listing it, an empty file, an
	// image) without necessarily any of its lines.
	matched bool
	lines   spans
}

// NewEvidence returns an empty record for a run in ws.
func NewEvidence(ws *workspace.Workspace) *Evidence {
	if ws == nil {
		panic("scout: NewEvidence needs a workspace")
	}
	return &Evidence{ws: ws, files: map[string]*seen{}}
}

// Record notes what a finished call showed. Only successful Read and Grep results count:
// an error showed nothing of the file, and Glob lists names, never content.
//
// A Read shows exactly the lines whose numbers its output prints; they are parsed from
// the output rather than computed from offset and limit, because the file may be shorter
// than asked, the output may stop early at its size cap, and the registry may cut the
// middle out of an oversized result. An empty file or an image counts as the file seen
// as a whole (line 0) with no lines.
//
// A Grep in content mode shows the matching and context lines it printed
// ("path:12:text", "path-11-text"); with -n false the lines carry no numbers, so only
// the file counts. files_with_matches and count modes show only that a file matched:
// file-level evidence, no lines.
//
// Paths are resolved with the workspace (relative ones from its working directory) and
// stored by real path, so "a.go", "./a.go" and "/abs/a.go" are the same file.
func (e *Evidence) Record(c tool.Call, result llm.Block) {
	if result.IsError {
		return
	}
	text := resultText(result)
	switch c.Name {
	case "Read":
		e.recordRead(c.Input, result, text)
	case "Grep":
		e.recordGrep(c.Input, text)
	}
}

// resultText joins the text of a tool_result block (or of a bare text block).
func resultText(b llm.Block) string {
	if len(b.Content) == 0 {
		return b.Text
	}
	var sb strings.Builder
	for _, c := range b.Content {
		if c.Type == llm.BlockText {
			sb.WriteString(c.Text)
		}
	}
	return sb.String()
}

func (e *Evidence) recordRead(input json.RawMessage, result llm.Block, text string) {
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(input, &in) != nil || in.FilePath == "" {
		return
	}
	real, err := e.ws.Resolve(in.FilePath)
	if err != nil {
		return
	}
	var lines spans
	prev := 0
	for _, part := range budgetParts(text) {
		for l := range strings.SplitSeq(part, "\n") {
			// The Read tool prints each line as the number right-aligned in six columns,
			// a tab, then the text. Numbers only ever increase; one that does not is a
			// fragment of a line cut by the registry, not a line of the file.
			n, ok := readLineNumber(l)
			if !ok || n <= prev {
				continue
			}
			lines.add(n, n)
			prev = n
		}
	}
	wholeFile := false
	if len(lines) == 0 {
		// What an empty file or an image looks like: the file was seen, it has no lines
		// to show.
		wholeFile = strings.Contains(text, " exists but is empty (0 bytes).") || hasImage(result)
		if !wholeFile {
			return
		}
	}
	e.add(real, wholeFile, lines)
}

// budgetParts undoes the registry's cut of an oversized result (head, a note saying how
// much was left out, tail): the line the head ends in and the one the tail starts in are
// fragments, and a fragment's digits could pass for a line number, so both are dropped.
func budgetParts(text string) []string {
	i := strings.Index(text, "\n\n[… ")
	if i < 0 {
		return []string{text}
	}
	j := strings.Index(text[i:], " left out of this view; ")
	if j < 0 {
		return []string{text}
	}
	k := strings.Index(text[i+j:], "]\n\n")
	if k < 0 {
		return []string{text}
	}
	head, tail := text[:i], text[i+j+k+len("]\n\n"):]
	if nl := strings.LastIndexByte(head, '\n'); nl >= 0 {
		head = head[:nl]
	} else {
		head = ""
	}
	if nl := strings.IndexByte(tail, '\n'); nl >= 0 {
		tail = tail[nl+1:]
	} else {
		tail = ""
	}
	return []string{head, tail}
}

// readLineNumber parses the "    12\t" prefix of a line of Read output.
func readLineNumber(l string) (int, bool) {
	tab := strings.IndexByte(l, '\t')
	if tab <= 0 {
		return 0, false
	}
	num := strings.TrimLeft(l[:tab], " ")
	if num == "" || len(num) > 10 || strings.Trim(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil && n > 0
}

func hasImage(b llm.Block) bool {
	return slices.ContainsFunc(b.Content, func(c llm.Block) bool { return c.Type == llm.BlockImage })
}

func (e *Evidence) recordGrep(input json.RawMessage, text string) {
	var in struct {
		OutputMode string `json:"output_mode"`
		Numbers    *bool  `json:"-n"`
	}
	if json.Unmarshal(input, &in) != nil {
		return
	}
	mode := in.OutputMode
	if mode == "" {
		mode = "files_with_matches"
	}
	numbers := in.Numbers == nil || *in.Numbers
	found := map[string]*seen{}
	lookup := e.fileLookup()
	note := func(real string, line int) {
		s := found[real]
		if s == nil {
			s = &seen{}
			found[real] = s
		}
		if line == 0 {
			s.matched = true
		} else {
			s.lines.add(line, line)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if l == "" || l == "--" {
			continue
		}
		switch mode {
		case "files_with_matches":
			if real, ok := lookup(l); ok {
				note(real, 0)
			}
		case "count":
			if i := strings.LastIndexByte(l, ':'); i > 0 && isDigits(l[i+1:]) {
				if real, ok := lookup(l[:i]); ok {
					note(real, 0)
				}
			}
		case "content":
			if real, n, ok := grepContentLine(l, numbers, lookup); ok {
				note(real, n)
			}
		}
	}
	for real, s := range found {
		// A content line is evidence of the file as a whole too: it showed the file
		// holds what was searched for.
		e.add(real, true, s.lines)
	}
}

// grepContentLine splits a line of Grep content output into the file and line number.
// The separator is ':' for a match and '-' for context, and file names may contain both,
// so each candidate split is tried from the left and the first whose path names an
// existing file wins. Without numbers the line shows the file but no line number (0).
func grepContentLine(l string, numbers bool, lookup func(string) (string, bool)) (real string, line int, ok bool) {
	for i := 1; i < len(l); i++ {
		sep := l[i]
		if sep != ':' && sep != '-' {
			continue
		}
		n := 0
		if numbers {
			j := i + 1
			for j < len(l) && '0' <= l[j] && l[j] <= '9' {
				j++
			}
			if j == i+1 || j >= len(l) || l[j] != sep {
				continue
			}
			var err error
			if n, err = strconv.Atoi(l[i+1 : j]); err != nil || n <= 0 {
				continue
			}
		}
		if real, ok := lookup(l[:i]); ok {
			return real, n, true
		}
	}
	return "", 0, false
}

// fileLookup returns a function resolving a displayed path to the real path of an
// existing regular file, remembering answers: a Grep names the same file on many lines.
func (e *Evidence) fileLookup() func(string) (string, bool) {
	type answer struct {
		real string
		ok   bool
	}
	cache := map[string]answer{}
	return func(p string) (string, bool) {
		if a, hit := cache[p]; hit {
			return a.real, a.ok
		}
		var a answer
		if real, err := e.ws.Resolve(p); err == nil {
			if st, err := os.Stat(real); err == nil && st.Mode().IsRegular() {
				a = answer{real, true}
			}
		}
		cache[p] = a
		return a.real, a.ok
	}
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func (e *Evidence) add(real string, whole bool, lines spans) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.files[real]
	if s == nil {
		s = &seen{}
		e.files[real] = s
	}
	s.matched = s.matched || whole
	for _, sp := range lines {
		s.lines.add(sp.lo, sp.hi)
	}
}

// Check says whether line of path was seen in this run; line 0 asks about the file as a
// whole, which any Read or Grep evidence of it satisfies. With endLine > line the range
// line-endLine is checked by its two ends only: requiring every line in between would
// fail a fair citation of a long function read in two calls that overlap, and the ends
// are what a reader checks. path is relative to the workspace's working directory or
// absolute. When ok is false, why says what is missing in words the model can act on.
func (e *Evidence) Check(path string, line, endLine int) (ok bool, why string) {
	name := filepath.ToSlash(filepath.Clean(path))
	real, err := e.ws.Resolve(path)
	if err != nil {
		return false, fmt.Sprintf("%s is outside the workspace", name)
	}
	if filepath.IsAbs(path) {
		name = filepath.ToSlash(e.ws.Rel(real)) // the model cites by relative path
	}
	if line < 0 || (endLine != 0 && endLine < line) {
		return false, fmt.Sprintf("%s: %s is not a valid line or range", name, lineRange(line, endLine))
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	s := e.files[real]
	if s == nil || (!s.matched && len(s.lines) == 0) {
		return false, fmt.Sprintf("%s was never read in this run", name)
	}
	if line == 0 {
		return true, ""
	}
	for _, n := range []int{line, endLine} {
		if n == 0 || s.lines.has(n) {
			continue
		}
		what := fmt.Sprintf("line %d of %s was not shown", n, name)
		if endLine > line {
			what += fmt.Sprintf(" (a range %d-%d needs both ends seen)", line, endLine)
		}
		if len(s.lines) == 0 {
			return false, what + fmt.Sprintf(": this run only saw %s listed by a search, none of its lines; Read it to cite lines", name)
		}
		return false, what + ": this run saw lines " + s.lines.String()
	}
	return true, ""
}

func lineRange(line, endLine int) string {
	if endLine != 0 && endLine != line {
		return fmt.Sprintf("lines %d-%d", line, endLine)
	}
	return fmt.Sprintf("line %d", line)
}

// Files lists the files seen, relative to the workspace's working directory (absolute
// for one in another allowed root), slash-separated and sorted.
func (e *Evidence) Files() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]string, 0, len(e.files))
	for real := range e.files {
		out = append(out, filepath.ToSlash(e.ws.Rel(real)))
	}
	slices.Sort(out)
	return out
}

// Verify checks every citation of every conclusion against the evidence, setting its
// Verified and Problem in place, and returns the unverified ones, each Raw once, in the
// order they first appear. A citation ParseReport already marked with a Problem (no such
// file, outside the workspace, a bad line) stays unverified with that problem; any other
// is checked afresh, so verifying again after more reads reflects them.
func (e *Evidence) Verify(cs []Conclusion) []Citation {
	var bad []Citation
	reported := map[string]bool{}
	for i := range cs {
		for j := range cs[i].Citations {
			c := &cs[i].Citations[j]
			if !parseProblem(c.Problem) {
				c.Verified, c.Problem = e.Check(c.Path, c.Line, c.EndLine)
			} else {
				c.Verified = false
			}
			if !c.Verified && !reported[c.Raw] {
				reported[c.Raw] = true
				bad = append(bad, *c)
			}
		}
	}
	return bad
}

func parseProblem(p string) bool {
	switch p {
	case ProblemNoSuchFile, ProblemOutside, ProblemBadLine, ProblemBackwards:
		return true
	}
	return false
}

// span is the lines lo..hi, inclusive.
type span struct{ lo, hi int }

// spans is a sorted list of disjoint, non-adjacent spans.
type spans []span

func (s *spans) add(lo, hi int) {
	ss := *s
	// Find the first span that ends at or after lo-1 (it may touch the new one).
	i, _ := slices.BinarySearchFunc(ss, lo-1, func(sp span, t int) int { return sp.hi - t })
	j := i
	for j < len(ss) && ss[j].lo <= hi+1 {
		lo, hi = min(lo, ss[j].lo), max(hi, ss[j].hi)
		j++
	}
	*s = slices.Replace(ss, i, j, span{lo, hi})
}

func (s spans) has(n int) bool {
	i, _ := slices.BinarySearchFunc(s, n, func(sp span, t int) int { return sp.hi - t })
	return i < len(s) && s[i].lo <= n
}

// String lists the spans as "1-40, 88, 90-95", the first few only: the point is to
// show the model where it has looked, not to enumerate a hundred Grep hits.
func (s spans) String() string {
	const most = 8
	parts := make([]string, 0, min(len(s), most)+1)
	for i, sp := range s {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more ranges", len(s)-most))
			break
		}
		if sp.lo == sp.hi {
			parts = append(parts, strconv.Itoa(sp.lo))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", sp.lo, sp.hi))
		}
	}
	return strings.Join(parts, ", ")
}
