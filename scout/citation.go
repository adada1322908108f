package scout

import (
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Citation is one `path:line` in a report.
type Citation struct {
	Raw     string `json:"raw"`  // as written, e.g. "cmd/calc/main.go:12-20"
	Path    string `json:"path"` // relative to the workspace cwd, slash-separated, cleaned
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	// Verified is set by Evidence.Verify.
	Verified bool   `json:"verified"`
	Problem  string `json:"problem,omitempty"` // why it is not verified
	// Excerpt is the cited text itself (at most a few lines), for a verified line
	// citation: the evidence a reader of --json can check without opening the file.
	Excerpt string `json:"excerpt,omitempty"`
}

// Conclusion is one bullet (or paragraph) of the report, under its section heading.
type Conclusion struct {
	Section   string     `json:"section"` // heading text it sits under ("Entry points"), "" before any heading
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
}

// Problems ParseReport sets on citations that cannot be verified whatever the run saw.
const (
	ProblemNoSuchFile = "no such file"
	ProblemOutside    = "outside the workspace"
	ProblemBadLine    = "line numbers start at 1"
	ProblemBackwards  = "the range ends before it starts"
)

// ParseReport splits a Markdown answer into conclusions and finds their citations.
// exists reports whether a path (relative to the workspace's working directory,
// slash-separated, cleaned) names a file in the workspace; nil means none does.
//
// Conclusions: every list item (-, *, +, 1. or 1)) is one, with the lines that continue
// it; every other paragraph is one; every table row except the delimiter row is one;
// every fenced code block is one (it is scanned too: a command naming a file still names
// it). Each sits under the text of the last heading before it: an ATX heading (## Risks)
// or a line that is only bold text (**Risks**), as models often write them. Headings
// themselves are not conclusions and are not scanned.
//
// Citations: a citation is a token that names a file, optionally followed by a line or a
// range, written as path:N, path:N-M (also with an en dash), path:N:col (the column is
// dropped), path#LN or path#LN-LM (GitHub's form); any other #anchor is dropped. Tokens are separated by white space,
// backticks, quotes, brackets, commas and the like; trailing sentence punctuation is not
// part of one. A Markdown link [text](target) with a local target counts as its target
// alone (the text is usually the same place written shorter); with a URL target the text
// is scanned instead. Whether a token is a citation:
//   - It must look like a file: its last element has an extension of letters and digits,
//     all lower case or all upper case (x.go, a_b.py, .github/workflows/ci.yml, .gitignore,
//     INSTALL.TXT). A mixed-case or capitalised "extension" is an
//     identifier (calc.Eval, net/http.Server, self.assertEqual), and an all-digit one is
//     a version or a number (v1.26, 3.14).
//   - A file-like token with a line number or a "/" is always a citation; when exists
//     says no, its Problem is "no such file".
//   - A bare name.ext (no "/", no line) is a citation only when exists(name) — a file at
//     the root such as go.mod — since prose is full of dotted words that are not files
//     (fmt.Println, os.Exit, unittest.main, config.yaml said of something else, e.g.).
//   - A name without an extension (Makefile, Dockerfile, LICENSE) is a citation only
//     with a line number and when exists says it is a file; otherwise host:port pairs
//     and words like "localhost:8080" or "step:2" would be read as citations. Mentioned
//     without a line, such a file is not checked.
//   - URLs (anything with "://", www., mailto:) and Go package patterns (./..., any
//     token with "/...") are never citations. A leading "./" is dropped.
//   - An absolute path, a ~ path or one with a ".." element that looks like a file (or has
//     a line) is a citation with Problem "outside the workspace": a report cites the
//     workspace by relative path, and it is never resolved outside.
//   - Line 0 and a range whose end is before its start are citations with a Problem.
//
// Each citation appears once per conclusion (by Raw), in the order written.
func ParseReport(text string, exists func(rel string) bool) []Conclusion {
	return ParseReportIn(text, "", exists)
}

// ParseReportIn is ParseReport for a workspace rooted at root (absolute): an absolute
// citation inside root counts as the relative one (models often cite the absolute paths
// their tools were given); anything else absolute is still outside.
func ParseReportIn(text, root string, exists func(rel string) bool) []Conclusion {
	if exists == nil {
		exists = func(string) bool { return false }
	}
	p := reportParser{exists: exists, root: strings.TrimSuffix(filepath.ToSlash(root), "/")}
	fence := ""
	for raw := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line := strings.TrimRight(raw, " \t")
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
				p.flush()
				continue
			}
			p.add(line, "\n")
			continue
		}
		if m := fenceOpen().FindString(trimmed); m != "" {
			p.flush()
			fence = m
			p.start("", "\n")
			continue
		}
		if trimmed == "" || thematicBreak().MatchString(trimmed) {
			p.flush()
			continue
		}
		if h, ok := heading(trimmed); ok {
			p.flush()
			p.section = h
			continue
		}
		if strings.HasPrefix(trimmed, ">") { // a quote reads as its text
			trimmed = strings.TrimSpace(strings.TrimLeft(trimmed, "> "))
		}
		if strings.HasPrefix(trimmed, "|") {
			p.flush()
			if !tableDelimiter().MatchString(trimmed) {
				p.start(trimmed, " ")
				p.flush()
			}
			continue
		}
		if m := listMarker().FindString(trimmed); m != "" {
			p.flush()
			p.start(strings.TrimSpace(trimmed[len(m):]), " ")
			continue
		}
		p.add(trimmed, " ")
	}
	p.flush()
	return p.out
}

// The Markdown patterns are compiled on first use, not at every start of ouro.
var (
	fenceOpen      = lazyRE("^(```+|~~~+)")
	thematicBreak  = lazyRE(`^([-*_])(\s*[-*_]){2,}$`)
	tableDelimiter = lazyRE(`^\|[\s|:-]*$`)
	listMarker     = lazyRE(`^([-*+]|\d{1,9}[.)])(\s+|$)`)
	atxHeading     = lazyRE(`^#{1,6}(\s+|$)`)
	boldHeading    = lazyRE(`^(\*\*|__)([^*_]+?)(\*\*|__):?$`)
)

func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// heading returns the text of a heading line: "## Entry points" or "**Entry points**".
func heading(line string) (string, bool) {
	if m := atxHeading().FindString(line); m != "" {
		h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[len(m):]), "#"))
		return cleanHeading(h), true
	}
	if m := boldHeading().FindStringSubmatch(line); m != nil {
		return cleanHeading(m[2]), true
	}
	return "", false
}

func cleanHeading(h string) string {
	h = strings.Trim(h, "*_` ")
	return strings.TrimSpace(strings.TrimSuffix(h, ":"))
}

type reportParser struct {
	exists  func(string) bool
	root    string // absolute, slash-separated; "" when unknown
	section string
	out     []Conclusion

	open  bool
	sep   string // joins the lines of the current conclusion
	lines []string
}

func (p *reportParser) start(first, sep string) {
	p.open, p.sep, p.lines = true, sep, nil
	if first != "" {
		p.lines = append(p.lines, first)
	}
}

// add continues the current conclusion, or starts a paragraph.
func (p *reportParser) add(line, sep string) {
	if !p.open {
		p.start("", sep)
	}
	p.lines = append(p.lines, line)
}

func (p *reportParser) flush() {
	if !p.open {
		return
	}
	p.open = false
	text := strings.Join(p.lines, p.sep)
	if strings.TrimSpace(text) == "" {
		return
	}
	p.out = append(p.out, Conclusion{Section: p.section, Text: text, Citations: findCitations(text, p.root, p.exists)})
}

var mdLink = lazyRE(`\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// findCitations returns the citations in one conclusion's text.
func findCitations(text, root string, exists func(string) bool) []Citation {
	// A link counts as its target when that is local, else as its text: rewrite it in
	// place so the order of citations stays the order they were written in.
	text = mdLink().ReplaceAllStringFunc(text, func(m string) string {
		sub := mdLink().FindStringSubmatch(m)
		if isURL(sub[2]) {
			return " " + sub[1] + " "
		}
		return " " + sub[2] + " "
	})
	var out []Citation
	seenRaw := map[string]bool{}
	for _, tok := range strings.FieldsFunc(text, isTokenBreak) {
		c, ok := classify(tok, root, exists)
		if !ok || seenRaw[c.Raw] {
			continue
		}
		seenRaw[c.Raw] = true
		out = append(out, c)
	}
	return out
}

// isTokenBreak reports the characters that never occur in a citation, so split tokens.
func isTokenBreak(r rune) bool {
	if unicode.IsSpace(r) {
		return true
	}
	return strings.ContainsRune("`\"'()[]{}<>,;*|!?=$&%^\\—“”‘’", r)
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "://") || strings.HasPrefix(l, "www.") || strings.HasPrefix(l, "mailto:")
}

// locator splits a token into the path and its line or range; an anchor that is not a
// line (README.md#install) is dropped, leaving a citation of the file.
var locator = lazyRE(`^(.+?)(?::L?(\d+)(?:[-–]L?(\d+))?(?::\d+)?|#L(\d+)(?:-L?(\d+))?|#[\w.-]*)?$`)

// classify decides whether one token is a citation, by the rules of ParseReport.
func classify(tok, root string, exists func(string) bool) (Citation, bool) {
	// "./..." and "pkg/..." are Go package patterns; dots that end a token otherwise
	// end a sentence or trail off ("see cmd/x.go...").
	if isURL(tok) || strings.Contains(tok, "/...") {
		return Citation{}, false
	}
	raw := strings.TrimLeft(strings.TrimRight(tok, ".:-–…"), ":")
	m := locator().FindStringSubmatch(raw)
	if m == nil {
		return Citation{}, false
	}
	p := m[1]
	startS, endS := m[2], m[3]
	if m[4] != "" {
		startS, endS = m[4], m[5]
	}
	if root != "" && strings.HasPrefix(p, root+"/") {
		p = p[len(root)+1:]
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "" || !pathChars(p) {
		return Citation{}, false
	}
	hasLine := startS != ""
	fileLike := hasExtension(path.Base(p))
	if !fileLike && !hasLine {
		return Citation{}, false
	}
	c := Citation{Raw: raw, Path: p}
	if hasLine {
		c.Line, _ = strconv.Atoi(startS)
		if endS != "" {
			c.EndLine, _ = strconv.Atoi(endS)
		}
		if c.EndLine == c.Line {
			c.EndLine = 0
		}
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || hasDotDot(p) {
		if !fileLike {
			return Citation{}, false // "/tmp:3" and the like are not worth a complaint
		}
		c.Problem = ProblemOutside
		return c, true
	}
	c.Path = path.Clean(p)
	switch {
	case !fileLike:
		if !exists(c.Path) {
			return Citation{}, false
		}
	case !hasLine && !strings.Contains(c.Path, "/"):
		if !exists(c.Path) {
			return Citation{}, false
		}
	case !exists(c.Path):
		c.Problem = ProblemNoSuchFile
	}
	switch {
	case hasLine && c.Line == 0:
		c.Problem = ProblemBadLine
	case c.EndLine != 0 && c.EndLine < c.Line:
		c.Problem = ProblemBackwards
	}
	return c, true
}

// pathChars reports whether p is made only of characters file paths in a repository
// use; ':' and '#' are excluded, which also keeps "note:foo" and "#123" out.
func pathChars(p string) bool {
	for _, r := range p {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("/._-+@~", r) {
			continue
		}
		return false
	}
	return true
}

func hasDotDot(p string) bool {
	for el := range strings.SplitSeq(p, "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// hasExtension reports whether a file name ends in something that reads as a file
// extension rather than an identifier or a number (see ParseReport).
func hasExtension(base string) bool {
	i := strings.LastIndexByte(base, '.')
	if i < 0 || i == len(base)-1 {
		return false
	}
	ext := base[i+1:]
	if len(ext) > 12 {
		return false
	}
	letters, lower, upper := 0, 0, 0
	for _, r := range ext {
		switch {
		case 'a' <= r && r <= 'z':
			letters++
			lower++
		case 'A' <= r && r <= 'Z':
			letters++
			upper++
		case '0' <= r && r <= '9', r == '_', r == '+', r == '-':
		default:
			return false
		}
	}
	return letters > 0 && (upper == 0 || lower == 0)
}
