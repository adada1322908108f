package tools

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

const (
	// grepMaxOutput is how many characters of results one call returns at most.
	grepMaxOutput = 30_000
	// grepMaxFileSize: larger files are not searched (and the result says so).
	grepMaxFileSize = 20 << 20
	// grepBinarySniff is how much of a file is checked for a NUL byte.
	grepBinarySniff = 8 << 10
)

// Grep searches file contents with a regular expression.
type Grep struct {
	ws *workspace.Workspace
	// denied, when set, names files whose reading a permission rule forbids; they are
	// left out of every search (and the result says how many were).
	denied func(abs string) bool
}

// SetReadFilter makes searches leave out the files denied says may not be read, so a
// deny rule on reading a file holds for what a search would show of it too.
func (g *Grep) SetReadFilter(denied func(abs string) bool) { g.denied = denied }

// NewGrep returns the Grep tool searching inside ws.
func NewGrep(ws *workspace.Workspace) *Grep { return &Grep{ws: ws} }

// ReadOnly implements tool.Tool.
func (g *Grep) ReadOnly() bool { return true }

// Describe implements tool.Describer: a call searches the folder (or file) its path names.
func (g *Grep) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSearch(input)
}

// Spec implements tool.Tool.
func (g *Grep) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Grep", Description: grepDescription, InputSchema: json.RawMessage(grepSchema)}
}

const grepDescription = `Searches file contents with a regular expression, like ripgrep. Use it for every content search, not grep or rg in Bash.
- The pattern is Go RE2: "log.*Error", "func\\s+\\w+". Escape literal characters ("interface\\{\\}" finds "interface{}"); no lookaround or backreferences.
- A match stays within one line unless multiline is true (then "." matches newlines too).
- Filter files with glob ("*.js", "!*_test.go" excludes) or type ("go", "py", "js", ...; faster for standard types).
- output_mode: "files_with_matches" (default) lists the files; "content" shows matching lines (numbered, -A/-B/-C context); "count" counts matching lines per file.
- Files .gitignore excludes, .git, binary files and files over 20 MiB are skipped.
- Results are sorted by path and capped at 30,000 characters; head_limit keeps the first N lines or entries.`

const grepSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "The regular expression (Go RE2)"},
    "path": {"type": "string", "description": "File or directory to search (default: the working directory)"},
    "glob": {"type": "string", "description": "Files to search, e.g. \"*.js\" or \"*.{ts,tsx}\"; several separated by spaces; a leading ! excludes"},
    "type": {"type": "string", "description": "File type, e.g. go, py, js, ts, rust, java"},
    "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "Default \"files_with_matches\""},
    "-i": {"type": "boolean", "description": "Case insensitive"},
    "-n": {"type": "boolean", "description": "Line numbers (content mode; default true)"},
    "-A": {"type": "number", "description": "Lines after each match (content mode)"},
    "-B": {"type": "number", "description": "Lines before each match (content mode)"},
    "-C": {"type": "number", "description": "Lines before and after each match (content mode)"},
    "head_limit": {"type": "number", "description": "Only the first N lines or entries (0: all)"},
    "multiline": {"type": "boolean", "description": "Let . match newlines so patterns span lines (default false)"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

type grepInput struct {
	Pattern    *string  `json:"pattern"`
	Path       *string  `json:"path"`
	Glob       *string  `json:"glob"`
	Type       *string  `json:"type"`
	OutputMode *string  `json:"output_mode"`
	IgnoreCase bool     `json:"-i"`
	Numbers    *bool    `json:"-n"`
	After      *float64 `json:"-A"`
	Before     *float64 `json:"-B"`
	Context    *float64 `json:"-C"`
	HeadLimit  *float64 `json:"head_limit"`
	Multiline  bool     `json:"multiline"`
}

// grepQuery is a checked Grep call.
type grepQuery struct {
	pattern       string
	matcher       *grepMatcher
	mode          string
	numbers       bool
	before, after int
	headLimit     int
	include       []string // file globs, one must match
	exclude       []string // globs that exclude files and directories
	types         []string // globs of the file type
}

func parseGrepInput(raw json.RawMessage) (grepQuery, string, error) {
	var in grepInput
	if err := decodeInput("Grep", raw, &in); err != nil {
		return grepQuery{}, "", err
	}
	if in.Pattern == nil {
		return grepQuery{}, "", errors.New("invalid Grep input: pattern is required")
	}
	if *in.Pattern == "" {
		return grepQuery{}, "", errors.New("invalid Grep input: pattern must not be empty")
	}
	q := grepQuery{pattern: *in.Pattern, mode: "files_with_matches", numbers: true}
	if in.OutputMode != nil && *in.OutputMode != "" {
		q.mode = *in.OutputMode
	}
	switch q.mode {
	case "files_with_matches", "content", "count":
	default:
		return q, "", fmt.Errorf("invalid Grep input: output_mode must be \"files_with_matches\", \"content\" or \"count\", got %q", q.mode)
	}
	if in.Numbers != nil {
		q.numbers = *in.Numbers
	}
	ctxLines := 0
	for _, c := range []struct {
		name string
		v    *float64
		dst  *int
	}{{"-A", in.After, &q.after}, {"-B", in.Before, &q.before}, {"-C", in.Context, &ctxLines}, {"head_limit", in.HeadLimit, &q.headLimit}} {
		if c.v == nil {
			continue
		}
		if *c.v < 0 || *c.v != float64(int(*c.v)) {
			return q, "", fmt.Errorf("invalid Grep input: %s must be a whole number of 0 or more, got %v", c.name, *c.v)
		}
		*c.dst = int(*c.v)
	}
	// -C sets both sides; -A and -B, when given, win over it.
	if in.Before == nil {
		q.before = ctxLines
	}
	if in.After == nil {
		q.after = ctxLines
	}
	if q.mode != "content" {
		q.before, q.after = 0, 0
	}
	if in.Type != nil && *in.Type != "" {
		t := strings.ToLower(strings.TrimSpace(*in.Type))
		globs, ok := grepTypes[t]
		if !ok {
			names := make([]string, 0, len(grepTypes))
			for n := range grepTypes {
				names = append(names, n)
			}
			slices.Sort(names)
			return q, "", fmt.Errorf("invalid Grep input: unknown type %q; the types are %s (or use glob)", *in.Type, strings.Join(names, ", "))
		}
		q.types = globs
	}
	if in.Glob != nil {
		for _, gl := range strings.Fields(*in.Glob) {
			neg := strings.HasPrefix(gl, "!")
			gl = strings.TrimPrefix(strings.TrimPrefix(gl, "!"), "./")
			if gl == "" || !doublestar.ValidatePattern(gl) {
				return q, "", fmt.Errorf("invalid Grep input: glob %q is not a valid glob pattern", gl)
			}
			if neg {
				q.exclude = append(q.exclude, gl)
			} else {
				q.include = append(q.include, gl)
			}
		}
	}
	var err error
	if q.matcher, err = compileGrep(q.pattern, in.IgnoreCase, in.Multiline); err != nil {
		return q, "", fmt.Errorf("Grep: %w", err)
	}
	return q, optionalPath(in.Path), nil
}

// grepFileResult is what one file produced.
type grepFileResult struct {
	abs   string
	count int    // matching lines
	out   []byte // rendered lines (content mode), possibly cut short
	shown int    // lines in out
	lines int    // lines the file's output has in all
	kept  bool   // out is still held (content mode)
}

// grepRun gathers results from the searchers. In content mode it holds rendered lines
// only for the files that can still be shown: results come in any order but are shown
// sorted by path, so once the files with smaller paths fill the output, the output of
// any file after them is dropped (its counts stay). Memory stays near the cap however
// much matches.
type grepRun struct {
	q        *grepQuery
	mu       sync.Mutex
	results  []*grepFileResult
	kept     grepHeap // max-heap by path of results still holding output
	keptB    int
	keptL    int
	tooLarge []string
	binary   int
	single   bool // one file was named
	denied   int  // files left out by a read deny rule
}

func (r *grepRun) add(res *grepFileResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, res)
	if r.q.mode != "content" {
		return
	}
	res.kept = true
	heap.Push(&r.kept, res)
	r.keptB += len(res.out)
	r.keptL += res.shown
	for len(r.kept) > 1 {
		top := r.kept[0]
		overBytes := r.keptB-len(top.out) >= grepMaxOutput
		overLines := r.q.headLimit > 0 && r.keptL-top.shown >= r.q.headLimit
		if !overBytes && !overLines {
			break
		}
		heap.Pop(&r.kept)
		r.keptB -= len(top.out)
		r.keptL -= top.shown
		top.out, top.kept = nil, false
	}
}

type grepHeap []*grepFileResult

func (h grepHeap) Len() int           { return len(h) }
func (h grepHeap) Less(i, j int) bool { return h[i].abs > h[j].abs }
func (h grepHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *grepHeap) Push(x any)        { *h = append(*h, x.(*grepFileResult)) }
func (h *grepHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

// Run implements tool.Tool.
func (g *Grep) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	q, given, err := parseGrepInput(input)
	if err != nil {
		return tool.Result{}, err
	}
	root, info, err := resolveSearchPath(g.ws, "Grep", given)
	if err != nil {
		return tool.Result{}, err
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return tool.Result{}, fmt.Errorf("Grep: %s is not a regular file or a directory", given)
	}
	run := &grepRun{q: &q, single: !info.IsDir()}
	if !info.IsDir() && g.denied != nil && g.denied(root) {
		return tool.Result{}, fmt.Errorf("Grep: reading %s is denied by a permission rule, so it cannot be searched either", given)
	}
	if info.IsDir() {
		err = g.searchTree(ctx, run, root)
	} else {
		// A file named explicitly is searched whatever the filters say.
		var rd grepReader
		rd.limit = grepMaxFileSize
		g.searchFile(run, &rd, root)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, fmt.Errorf("Grep: %w", err)
	}
	text := g.render(run)
	if run.denied > 0 {
		text += fmt.Sprintf("\n(%s left out: reading them is denied by a permission rule)", grepCount(run.denied, "file"))
	}
	return tool.Text(text), nil
}

// searchTree walks root and searches the files that pass the filters, with as many
// searchers as there are CPUs, fed by the parallel walk.
func (g *Grep) searchTree(ctx context.Context, run *grepRun, root string) error {
	q := run.q
	files := make(chan string, 256)
	workers := runtime.GOMAXPROCS(0)
	var (
		wg       sync.WaitGroup
		panicMu  sync.Mutex
		panicked error
	)
	for range workers {
		wg.Go(func() {
			var err error
			defer func() {
				if err != nil {
					panicMu.Lock()
					panicked = err
					panicMu.Unlock()
					for range files { // keep the walk from waiting on a dead searcher
					}
				}
			}()
			defer catchPanic(&err)
			rd := grepReader{limit: grepMaxFileSize}
			for f := range files {
				if ctx.Err() == nil {
					g.searchFile(run, &rd, f)
				}
			}
		})
	}
	err := walkTree(ctx, g.ws, root, walkOptions{Gitignore: true}, func(e *walkEntry) error {
		if len(q.exclude) > 0 && grepGlobsMatch(q.exclude, e.Rel, e.Name) {
			if e.Dir {
				return fs.SkipDir
			}
			return nil
		}
		if e.Dir || e.Link || !e.Type.IsRegular() {
			return nil
		}
		if len(q.types) > 0 && !grepGlobsMatch(q.types, e.Name, e.Name) {
			return nil
		}
		if g.denied != nil && g.denied(e.Abs) {
			run.mu.Lock()
			run.denied++
			run.mu.Unlock()
			return nil
		}
		if len(q.include) > 0 && !grepGlobsMatch(q.include, e.Rel, e.Name) {
			return nil
		}
		select {
		case files <- e.Abs:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(files)
	wg.Wait()
	raisePanic(panicked)
	return err
}

// grepGlobsMatch reports whether any glob matches: one with a slash against the path
// relative to the searched directory, one without against the file name.
func grepGlobsMatch(globs []string, rel, name string) bool {
	for _, gl := range globs {
		subject := name
		if strings.Contains(gl, "/") {
			subject = rel
		}
		if strings.HasPrefix(gl, "*.") && !strings.ContainsAny(gl[2:], `*?[{\`) {
			if strings.HasSuffix(subject, gl[1:]) {
				return true
			}
			continue
		}
		if ok, _ := doublestar.Match(gl, subject); ok {
			return true
		}
	}
	return false
}

// searchFile searches one file and records what it found.
func (g *Grep) searchFile(run *grepRun, rd *grepReader, abs string) {
	q := run.q
	data, err := rd.read(abs)
	if errors.Is(err, errGrepTooLarge) {
		run.mu.Lock()
		run.tooLarge = append(run.tooLarge, abs)
		run.mu.Unlock()
		return
	}
	if err != nil {
		return // unreadable or gone: skipped, as ripgrep does
	}
	if hasNUL(data[:min(len(data), grepBinarySniff)]) {
		run.mu.Lock()
		run.binary++
		run.mu.Unlock()
		return
	}
	res := &grepFileResult{abs: abs}
	switch q.mode {
	case "files_with_matches":
		q.matcher.eachMatch(data, func(int, int) bool { res.count++; return false })
	case "count":
		q.matcher.eachMatch(data, func(s, e int) bool {
			res.count += 1 + bytes.Count(data[s:e], []byte{'\n'})
			return true
		})
	default:
		w := grepLineWriter{data: data, prefix: displayPath(g.ws, abs), numbers: q.numbers,
			before: q.before, after: q.after, nextNo: 1, maxBytes: grepMaxOutput, maxLines: q.headLimit}
		q.matcher.eachMatch(data, func(s, e int) bool {
			res.count += 1 + bytes.Count(data[s:e], []byte{'\n'})
			w.match(s, e)
			return true
		})
		w.finish()
		res.out, res.shown, res.lines = w.out, w.shown, w.lines
	}
	if res.count > 0 {
		run.add(res)
	}
}

// render writes the results for the model, sorted by path, within the caps.
func (g *Grep) render(run *grepRun) string {
	q := run.q
	results := run.results
	slices.SortFunc(results, func(a, b *grepFileResult) int { return cmp.Compare(a.abs, b.abs) })
	total := 0
	for _, r := range results {
		total += r.count
	}
	var sb strings.Builder
	shown := 0 // files or lines shown
	capped := false
	limitReached := func() bool { return q.headLimit > 0 && shown >= q.headLimit }
	switch q.mode {
	case "files_with_matches", "count":
		if len(results) == 0 {
			sb.WriteString("No files found")
			break
		}
		if q.mode == "files_with_matches" {
			fmt.Fprintf(&sb, "Found %s\n", grepCount(len(results), "file"))
		}
		for _, r := range results {
			line := displayPath(g.ws, r.abs)
			if q.mode == "count" {
				line += fmt.Sprintf(":%d", r.count)
			}
			if limitReached() || sb.Len()+len(line) >= grepMaxOutput {
				capped = true
				break
			}
			sb.WriteString(line)
			sb.WriteByte('\n')
			shown++
		}
		if capped {
			fmt.Fprintf(&sb, "[Showing %d of %d files (%s). Narrow the search with path, glob, type or a more specific pattern to see the rest.]\n",
				shown, len(results), grepCapReason(q, shown))
		}
		if q.mode == "count" {
			fmt.Fprintf(&sb, "\nFound %s in %s.", grepCount(total, "matching line"), grepCount(len(results), "file"))
		}
	default:
		if len(results) == 0 {
			sb.WriteString("No matches found")
			break
		}
		for i, r := range results {
			if !r.kept || r.shown < r.lines {
				capped = true
			}
			if i > 0 && (q.before > 0 || q.after > 0) && len(r.out) > 0 {
				if limitReached() || sb.Len()+3 > grepMaxOutput {
					capped = true
					break
				}
				sb.WriteString("--\n")
				shown++
			}
			out := r.out
			for len(out) > 0 {
				n := bytes.IndexByte(out, '\n') + 1
				if limitReached() || sb.Len()+n > grepMaxOutput {
					capped = true
					break
				}
				sb.Write(out[:n])
				out = out[n:]
				shown++
			}
			if capped {
				break
			}
		}
		if capped {
			fmt.Fprintf(&sb, "[Output cut (%s): %s in %s matched. Narrow the search with path, glob, type or a more specific pattern, or use output_mode \"files_with_matches\" or \"count\" first.]\n",
				grepCapReason(q, shown), grepCount(total, "line"), grepCount(len(results), "file"))
		}
	}
	if run.single && run.binary > 0 {
		sb.WriteString(" (the file is binary: it holds a NUL byte in its first 8 KiB, so it was not searched)")
	}
	if len(run.tooLarge) > 0 {
		slices.Sort(run.tooLarge)
		names := make([]string, 0, 5)
		for _, p := range run.tooLarge[:min(5, len(run.tooLarge))] {
			names = append(names, displayPath(g.ws, p))
		}
		if len(run.tooLarge) > len(names) {
			names = append(names, "…")
		}
		fmt.Fprintf(&sb, "\n(%s larger than %d MiB not searched: %s. Search them with Bash, e.g. grep -n PATTERN FILE | head.)",
			grepCount(len(run.tooLarge), "file"), grepMaxFileSize>>20, strings.Join(names, ", "))
	}
	return strings.TrimRight(sb.String(), "\n")
}

func grepCapReason(q *grepQuery, shown int) string {
	if q.headLimit > 0 && shown >= q.headLimit {
		return fmt.Sprintf("head_limit %d", q.headLimit)
	}
	return fmt.Sprintf("output capped at %d characters", grepMaxOutput)
}

func grepCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// grepTypes maps ripgrep's type names to file name globs.
var grepTypes = map[string][]string{
	"c":          {"*.c", "*.h"},
	"cpp":        {"*.cpp", "*.cc", "*.cxx", "*.c++", "*.hpp", "*.hh", "*.hxx", "*.h++", "*.h", "*.inl"},
	"cs":         {"*.cs"},
	"csharp":     {"*.cs"},
	"css":        {"*.css", "*.scss", "*.sass", "*.less"},
	"dart":       {"*.dart"},
	"docker":     {"Dockerfile", "Dockerfile.*", "*.dockerfile", "Containerfile"},
	"elixir":     {"*.ex", "*.exs"},
	"erlang":     {"*.erl", "*.hrl"},
	"go":         {"*.go"},
	"haskell":    {"*.hs", "*.lhs"},
	"html":       {"*.html", "*.htm", "*.xhtml"},
	"java":       {"*.java"},
	"js":         {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
	"json":       {"*.json", "*.jsonl", "*.jsonc"},
	"kotlin":     {"*.kt", "*.kts"},
	"lua":        {"*.lua"},
	"make":       {"Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"},
	"markdown":   {"*.md", "*.markdown", "*.mdx", "*.mkd", "*.mdown"},
	"md":         {"*.md", "*.markdown", "*.mdx", "*.mkd", "*.mdown"},
	"php":        {"*.php", "*.phtml"},
	"proto":      {"*.proto"},
	"py":         {"*.py", "*.pyi", "*.pyw"},
	"python":     {"*.py", "*.pyi", "*.pyw"},
	"r":          {"*.R", "*.r", "*.Rmd"},
	"rb":         {"*.rb", "*.rake", "*.gemspec", "Gemfile", "Rakefile"},
	"ruby":       {"*.rb", "*.rake", "*.gemspec", "Gemfile", "Rakefile"},
	"rust":       {"*.rs"},
	"scala":      {"*.scala", "*.sc", "*.sbt"},
	"sh":         {"*.sh", "*.bash", "*.zsh", "*.ksh", ".bashrc", ".bash_profile", ".zshrc", ".profile"},
	"sql":        {"*.sql"},
	"swift":      {"*.swift"},
	"terraform":  {"*.tf", "*.tfvars"},
	"toml":       {"*.toml"},
	"ts":         {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"txt":        {"*.txt"},
	"typescript": {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"xml":        {"*.xml", "*.xsd", "*.xsl", "*.xslt", "*.svg"},
	"yaml":       {"*.yaml", "*.yml"},
	"yml":        {"*.yaml", "*.yml"},
	"zig":        {"*.zig"},
}
