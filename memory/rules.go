package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ouroagent/ouro/internal/frontmatter"
	"go.yaml.in/yaml/v4"
)

// Rules folders hold modular instruction files, as Claude Code's .claude/rules/ does:
// every .md file below the folder (subfolders included, symlinks followed) is one rule.
// A rule without `paths:` frontmatter is loaded at the start with the instruction file
// beside it; a rule with `paths:` (doublestar globs, a list or one string, relative to
// the folder holding .claude/ — the working directory for the user's own rules) applies
// only once the agent reads or edits a file that matches: it is then added to the
// conversation (see OnDemand). A glob without a slash matches the file's name at any
// depth, as in .gitignore. `globs:` (Cursor's key, found in many real rules files) is
// taken as `paths:`.
//
// Hostile folders cost little and fail loudly: the walk is bounded (maxRuleEntries,
// maxRuleDepth), each folder is walked once (a symlink loop ends), a project's folder
// that leads out of the project is skipped unless a Read there is allowed, a binary file
// is skipped, an invalid glob is dropped with a warning, and a rule none of whose globs
// is valid is skipped rather than applied everywhere.

// rulesDirs are the rules folders of a folder (or of the home).
var rulesDirs = []string{filepath.Join(".claude", "rules"), filepath.Join(".ouro", "rules")}

// Bounds on walking a rules folder, so a folder that is a symlink to / or holds a loop
// costs little: at most maxRuleEntries directory entries looked at in one folder's tree,
// maxRuleDepth folders deep.
const (
	maxRuleEntries = 2000
	maxRuleDepth   = 8
)

// Rule is a rule file with `paths:` frontmatter, kept to be added when a file matches.
type Rule struct {
	Path  string   // the file as found
	Base  string   // what its globs are relative to
	Globs []string // the valid globs, slash-separated
	Text  string   // its body, imports expanded
}

// Matches reports whether the file at path (absolute) is one the rule applies to.
func (r Rule) Matches(path string) bool {
	rel, err := filepath.Rel(r.Base, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, g := range r.Globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if !strings.Contains(g, "/") {
			if ok, _ := doublestar.Match(g, filepath.Base(rel)); ok {
				return true
			}
		}
	}
	return false
}

// findRules lists the .md files below the rules folder dir, in name order, folders
// after the files beside them. allowDir says whether a folder reached (symlinks
// resolved) may be read; each folder is walked once, so a symlink loop ends.
func findRules(dir string, allowDir func(real string) (bool, string)) (files, skipped, warns []string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, nil, nil
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return nil, nil, nil
	}
	w := &ruleWalk{seen: map[string]bool{}, allow: allowDir, left: maxRuleEntries}
	w.walk(dir, real, 0)
	if w.left <= 0 {
		w.warns = append(w.warns, fmt.Sprintf("rules folder %s: more than %d entries; only the first were looked at", dir, maxRuleEntries))
	}
	return w.files, w.skipped, w.warns
}

type ruleWalk struct {
	seen    map[string]bool
	allow   func(string) (bool, string)
	left    int
	files   []string
	skipped []string // folders refused
	warns   []string
}

func (w *ruleWalk) walk(lex, real string, depth int) {
	if w.seen[real] {
		return // a symlink loop, or a folder reached twice
	}
	w.seen[real] = true
	if ok, why := w.allow(real); !ok {
		w.warns = append(w.warns, fmt.Sprintf("rules folder %s skipped: %s", lex, why))
		w.skipped = append(w.skipped, lex)
		return
	}
	if depth > maxRuleDepth {
		w.warns = append(w.warns, fmt.Sprintf("rules folder %s skipped: more than %d folders deep", lex, maxRuleDepth))
		w.skipped = append(w.skipped, lex)
		return
	}
	f, err := os.Open(real)
	if err != nil {
		w.warns = append(w.warns, fmt.Sprintf("rules folder %s skipped: %v", lex, err))
		w.skipped = append(w.skipped, lex)
		return
	}
	entries, _ := f.ReadDir(max(w.left, 1))
	f.Close()
	w.left -= len(entries)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var dirs [][2]string
	for _, e := range entries {
		p := filepath.Join(lex, e.Name())
		isDir := e.IsDir()
		target := filepath.Join(real, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			r, err := filepath.EvalSymlinks(target)
			if err != nil {
				w.warns = append(w.warns, fmt.Sprintf("rule %s skipped: %v", p, err))
				continue
			}
			st, err := os.Stat(r)
			if err != nil {
				continue
			}
			isDir, target = st.IsDir(), r
		}
		switch {
		case isDir:
			dirs = append(dirs, [2]string{p, target})
		case strings.EqualFold(filepath.Ext(e.Name()), ".md"):
			w.files = append(w.files, p)
		}
	}
	for _, d := range dirs {
		if w.left <= 0 {
			return
		}
		w.walk(d[0], d[1], depth+1)
	}
}

// ruleHeader is the frontmatter of a rule file.
type ruleHeader struct {
	Paths yaml.Node `yaml:"paths"`
	Globs yaml.Node `yaml:"globs"`
}

// parseRule splits a rule file into its globs (nil: it always applies) and body. skip
// says why the rule cannot be used at all (its frontmatter is unreadable, or none of its
// globs is valid: such a rule must not apply everywhere instead).
func parseRule(path, text string) (globs []string, body string, warns []string, skip string) {
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, text, nil, ""
	}
	rest := text[4:]
	var head string
	switch end := strings.Index(rest, "\n---"); {
	case strings.HasPrefix(rest, "---"):
		head, body = "", rest[3:]
	case end >= 0:
		head, body = rest[:end], rest[end+4:]
	default:
		return nil, "", nil, "its frontmatter is not closed by a --- line"
	}
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	var h ruleHeader
	if _, _, err := frontmatter.Decode([]byte(head), &h); err != nil {
		return nil, "", nil, err.Error()
	}
	node := h.Paths
	if node.Kind == 0 {
		node = h.Globs
	}
	var raw []string
	switch node.Kind {
	case 0:
		return nil, body, nil, ""
	case yaml.ScalarNode:
		raw = splitGlobs(node.Value)
	case yaml.SequenceNode:
		for _, n := range node.Content {
			if n.Kind != yaml.ScalarNode {
				warns = append(warns, fmt.Sprintf("rule %s: a paths entry is not a string; ignored", path))
				continue
			}
			raw = append(raw, splitGlobs(n.Value)...)
		}
	default:
		return nil, "", nil, "paths: must be a glob or a list of globs"
	}
	for _, g := range raw {
		g = strings.TrimPrefix(strings.TrimPrefix(filepath.ToSlash(g), "./"), "/")
		if g == "" {
			continue
		}
		if !doublestar.ValidatePattern(g) {
			warns = append(warns, fmt.Sprintf("rule %s: paths glob %q is not a valid glob (an unclosed [ or {?); ignored", path, g))
			continue
		}
		globs = append(globs, g)
	}
	if len(globs) == 0 {
		return nil, "", warns, "its paths: frontmatter holds no valid glob, so it could never apply"
	}
	return globs, body, warns, ""
}

// splitGlobs splits "a/**/*.ts, b/*.{js,jsx}" at the commas outside braces.
func splitGlobs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
