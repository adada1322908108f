// Package memory holds what ouro remembers across sessions: instruction files
// (CLAUDE.md/AGENTS.md) loaded into the system prompt, a store of durable facts, recall of
// the relevant ones into a turn, extraction of new ones from a transcript and
// consolidation of the store.
package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/workspace"
)

// MaxInstructionBytes caps the total text LoadInstructions returns; the harness gives
// LoadInstructionsWithin a share of the model's context window instead.
const MaxInstructionBytes = 32 * 1024

// MaxInstructionFileBytes caps what is read of one instruction file or import, and
// MaxInstructionReadBytes what is read of all of them together: the bounds hold while
// reading, so an import of /dev/zero or of a huge log costs nothing.
const (
	MaxInstructionFileBytes = 256 * 1024
	MaxInstructionReadBytes = 1024 * 1024
)

// MaxImportDepth is how deep @path imports nest (five hops, as in Claude Code).
const MaxImportDepth = 5

// Access is what the permission policy says about reading a file.
type Access int

const (
	// AccessAsk: reading it needs a person's approval. Nobody is asked while instruction
	// files load, so an import needing approval is skipped with a warning.
	AccessAsk Access = iota
	// AccessAllow: a rule or the mode allows reading it.
	AccessAllow
	// AccessDeny: a deny rule forbids reading it, wherever it is.
	AccessDeny
)

// ReadCheck decides on reading the file at path (absolute, symlinks resolved) as a Read
// of it would be decided. hint names the file and says why it is not allowed, and what
// rule would allow it.
type ReadCheck func(path string) (a Access, hint string)

// LoadInstructions gathers the instruction files that apply in cwd: the user's
// (~/.claude/CLAUDE.md, ~/.ouro/AGENTS.md, ~/.ouro/CLAUDE.md), then in each directory from
// repoRoot down to cwd (root first) AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, the rules
// without paths: of its rules folders (see Load) and then its CLAUDE.local.md.
// Imports (@path) are expanded, HTML comments stripped, each part is headed with its path
// and the whole is cut at MaxInstructionBytes with a notice. sources lists the files read
// (imports included) in order; warnings report refused imports and cuts.
//
// Only regular files are read (a pipe or device is refused, never opened for a blocking
// read), within MaxInstructionFileBytes each and MaxInstructionReadBytes in all. Where a
// file may be read from depends on who wrote the line naming it. A project file (one in
// the directories above, or imported by one) may import files of the project (repoRoot,
// else cwd; cwd too when repoRoot holds the home folder) and Markdown files in ~/.claude
// and ~/.ouro outside their projects/ state; the user's own files may import
// anything outside the project. Anything else, and a project instruction file that is a
// symlink leading out of the project, is read only when check allows it; a deny rule
// (AccessDeny) refuses a file anywhere. With a nil check nothing else is read.
func LoadInstructions(cwd, repoRoot, userHome string, check ReadCheck) (text string, sources []string, warnings []string) {
	return LoadInstructionsWithin(cwd, repoRoot, userHome, check, MaxInstructionBytes)
}

// LoadInstructionsWithin is LoadInstructions with budget bytes for the whole text. Each
// file is included once, however it is reached (a CLAUDE.md that imports the AGENTS.md
// beside it, the usual pattern, does not repeat it). Over budget, the least specific
// files give way first (the user's, then the repository root's, down towards the working
// directory); the most specific is cut only when it alone is over.
func LoadInstructionsWithin(cwd, repoRoot, userHome string, check ReadCheck, budget int) (text string, sources []string, warnings []string) {
	in := Load(cwd, repoRoot, userHome, check, budget)
	return in.Text, in.Sources, in.Warnings
}

// Instructions are the instruction files that apply in a folder.
type Instructions struct {
	// Text is what goes into the system prompt; Sources the files read, imports and
	// path-scoped rules included, in order; Warnings what was refused or cut, and why.
	Text     string
	Sources  []string
	Warnings []string
	// Rules are the rules with paths: frontmatter, added only when a matching file is
	// read (see OnDemand).
	Rules []Rule
	// Skipped are the files that exist but were refused (their warnings say why).
	Skipped []string
	// Parents maps each imported file of Sources to the file whose @import brought it.
	Parents map[string]string
}

// Load is what LoadInstructionsWithin returns, with the path-scoped rules and the files
// refused. The rules folders (.claude/rules and .ouro/rules) are read with the
// instruction files: the user's (~/.claude/rules, ~/.ouro/rules) after the user's files,
// and each folder's from repoRoot down to cwd after its .claude/CLAUDE.md. A rule
// without paths: is part of Text; one with paths: is in Rules.
func Load(cwd, repoRoot, userHome string, check ReadCheck, budget int) Instructions {
	if budget <= 0 {
		budget = MaxInstructionBytes
	}
	dirs := dirChain(cwd, repoRoot)
	l := newLoader(cwd, repoRoot, userHome, check)
	var files []source
	if userHome != "" {
		files = append(files,
			source{path: filepath.Join(userHome, ".claude", "CLAUDE.md"), from: fromUser},
			source{path: filepath.Join(userHome, ".ouro", "AGENTS.md"), from: fromUser},
			source{path: filepath.Join(userHome, ".ouro", "CLAUDE.md"), from: fromUser})
		for _, r := range rulesDirs {
			files = append(files, source{path: filepath.Join(userHome, r), from: fromUser, rulesBase: cwd})
		}
	}
	for _, d := range dirs {
		files = append(files, folderFiles(d)...)
	}
	var parts []part
	var rules []Rule
	for _, f := range files {
		p, r := l.load(f)
		parts = append(parts, p...)
		rules = append(rules, r...)
	}
	text, warns := fit(parts, budget)
	l.warnings = append(l.warnings, warns...)
	return Instructions{Text: text, Sources: l.sources, Skipped: l.skipped, Warnings: l.warnings, Rules: rules, Parents: l.parents}
}

// newLoader is a loader for the instruction files of cwd, with what it trusts.
func newLoader(cwd, repoRoot, userHome string, check ReadCheck) *loader {
	l := &loader{home: userHome, check: check, left: MaxInstructionReadBytes, included: map[string]bool{}, parents: map[string]string{}}
	if dirs := dirChain(cwd, repoRoot); len(dirs) > 0 {
		// The project is the repository, unless that holds the home folder (a dotfiles
		// repository at ~): then only the working directory is.
		l.top = canonical(dirs[0])
		l.project = l.top
		if userHome != "" && workspace.Within(l.project, canonical(userHome)) {
			l.project = canonical(dirs[len(dirs)-1])
		}
	}
	if userHome != "" {
		for _, d := range []string{".claude", ".ouro"} {
			root := filepath.Join(userHome, d)
			l.userRoots = append(l.userRoots, root, canonical(root))
		}
	}
	return l
}

// folderFiles are the instruction files and rules folders of one folder, in order.
func folderFiles(d string) []source {
	var out []source
	for _, name := range []string{"AGENTS.md", "CLAUDE.md", filepath.Join(".claude", "CLAUDE.md")} {
		out = append(out, source{path: filepath.Join(d, name), from: fromProject})
	}
	for _, r := range rulesDirs {
		out = append(out, source{path: filepath.Join(d, r), from: fromProject, rulesBase: d})
	}
	return append(out, source{path: filepath.Join(d, "CLAUDE.local.md"), from: fromProject})
}

// source is an instruction file to load, or with rulesBase a rules folder (rulesBase is
// what its rules' globs are relative to).
type source struct {
	path      string
	from      origin
	rulesBase string
}

// part is one file's text, headed with its path.
type part struct{ path, text string }

// load reads one source: an instruction file gives a part; a rules folder a part per
// rule without paths: and a Rule per rule with.
func (l *loader) load(f source) (parts []part, rules []Rule) {
	if f.rulesBase == "" {
		if p, ok := l.file(f.path, f.path, f.from, "Contents of %s:"); ok {
			parts = append(parts, p)
		}
		return parts, nil
	}
	found, skipped, warns := findRules(f.path, l.allowDir(f.from))
	l.warnings = append(l.warnings, warns...)
	l.skipped = append(l.skipped, skipped...)
	for _, path := range found {
		key := canonical(path)
		if l.included[key] {
			continue
		}
		real, from, data, ok := l.read(path, "rule "+path, f.from, true)
		if !ok {
			continue
		}
		globs, body, warns, skip := parseRule(path, string(data))
		l.warnings = append(l.warnings, warns...)
		if skip != "" {
			l.sources = l.sources[:len(l.sources)-1] // read, but not in
			l.warn("rule %s skipped: %s", path, skip)
			l.skipped = append(l.skipped, path)
			continue
		}
		l.included[key], l.included[real] = true, true
		if globs == nil {
			body = strings.TrimSpace(l.expand(path, from, body, 0, []string{real}))
			if body != "" {
				parts = append(parts, part{path, fmt.Sprintf("Contents of %s:\n\n%s", path, body)})
			}
			continue
		}
		// Its imports come in with it, later: they do not count as included now.
		saved := maps.Clone(l.included)
		body = strings.TrimSpace(l.expand(path, from, body, 0, []string{real}))
		l.included = saved
		l.included[key], l.included[real] = true, true
		if body != "" {
			rules = append(rules, Rule{Path: path, Base: canonical(f.rulesBase), Globs: globs, Text: body})
		}
	}
	return parts, rules
}

// file reads one instruction file and its imports into a part headed by header (a
// format with the path's %s); ok is false when there is nothing to add.
func (l *loader) file(path, who string, from origin, header string) (part, bool) {
	key := canonical(path)
	if l.included[key] {
		return part{}, false // already in, as an import of a file before it
	}
	real, from, data, ok := l.read(path, who, from, true)
	if !ok {
		return part{}, false
	}
	l.included[key], l.included[real] = true, true
	body := strings.TrimSpace(l.expand(path, from, string(data), 0, []string{real}))
	if body == "" {
		return part{}, false
	}
	return part{path, fmt.Sprintf(header+"\n\n%s", path, body)}, true
}

// allowDir says whether a rules folder reached at real (symlinks resolved) may be walked:
// the user's own may lead anywhere; a project's must stay in the project, else a Read of
// it must be allowed.
func (l *loader) allowDir(from origin) func(real string) (bool, string) {
	return func(real string) (bool, string) {
		if from == fromUser || l.top != "" && workspace.Within(l.top, real) || l.project != "" && workspace.Within(l.project, real) {
			return true, ""
		}
		if l.check != nil {
			if a, hint := l.check(real); a == AccessAllow {
				return true, ""
			} else if a == AccessDeny {
				return false, hint
			}
		}
		return false, "it leads to " + real + ", outside the project; a project's rules may come only from the project"
	}
}

// fit joins the parts within budget: over it, the least specific files give way first,
// each to a one-line note, and the most specific is cut only when it alone is over.
func fit(parts []part, budget int) (text string, warnings []string) {
	total := 0
	for _, p := range parts {
		total += len(p.text) + 2
	}
	for i := 0; total > budget && i < len(parts)-1; i++ {
		note := fmt.Sprintf("[%s left out: the instruction files exceed %d bytes, and more specific ones come first]", parts[i].path, budget)
		total += len(note) - len(parts[i].text)
		warnings = append(warnings, fmt.Sprintf("%s was left out: the instruction files exceed %d bytes, and more specific ones were kept", parts[i].path, budget))
		parts[i].text = note
	}
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.text
	}
	text = strings.Join(texts, "\n\n")
	if len(text) > budget {
		shown := textcut.Bytes(text, budget, "")
		text = shown + fmt.Sprintf("\n\n[instructions truncated: %d of %d bytes shown]", len(shown), len(text))
		warnings = append(warnings, fmt.Sprintf("the most specific instruction file alone exceeds %d bytes; its end was cut", budget))
	}
	return text, warnings
}

// dirChain lists the directories from repoRoot down to cwd. With no repoRoot, or a cwd
// outside it, only cwd.
func dirChain(cwd, repoRoot string) []string {
	if cwd == "" {
		return nil
	}
	cwd = filepath.Clean(cwd)
	if repoRoot == "" {
		return []string{cwd}
	}
	root := filepath.Clean(repoRoot)
	rel, err := filepath.Rel(root, cwd)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{cwd}
	}
	out := []string{root}
	if rel == "." {
		return out
	}
	d := root
	for _, p := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, p)
		out = append(out, d)
	}
	return out
}

func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return p
}

// origin says who wrote an instruction file: the user (their own files in the home
// folder, and what those import outside the project) or the project.
type origin int

const (
	fromProject origin = iota
	fromUser
)

type loader struct {
	home      string
	project   string   // the project's top folder, symlinks resolved
	top       string   // the top of the folders instruction files are looked for in
	userRoots []string // ~/.claude and ~/.ouro, as named and resolved
	check     ReadCheck
	left      int64 // bytes that may still be read
	sources   []string
	skipped   []string // files that exist but were refused
	warnings  []string
	spent     bool // the read budget ran out (warned once)
	// included holds every file whose contents are in (as named and resolved), so each
	// is included once however it is reached.
	included map[string]bool
	// parents maps each file imported to the file that imported it.
	parents map[string]string
}

// read reads the instruction file lex names for who (its path, or "FILE: import @ref").
// from is the origin of the file naming it, or with top of the file itself (one of the
// files looked for). The file's own origin is returned with its real path and content.
// ok is false when there is nothing to read (a missing file or a folder: an @mention in
// prose) or the file is refused (with a warning).
func (l *loader) read(lex, who string, from origin, top bool) (real string, own origin, data []byte, ok bool) {
	lex = filepath.Clean(lex)
	real, err := filepath.EvalSymlinks(lex)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			l.warn("%s skipped: %v", who, err)
			l.skipped = append(l.skipped, lex)
		}
		return "", from, nil, false
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	st, err := os.Stat(real)
	if err != nil || st.IsDir() {
		return "", from, nil, false
	}
	if !st.Mode().IsRegular() {
		// Checked again on the opened file (regfile), in case one is swapped in meanwhile.
		l.warn("%s skipped: %v", who, &regfile.NotRegularError{Path: real, Mode: st.Mode()})
		l.skipped = append(l.skipped, lex)
		return "", from, nil, false
	}
	inProject := l.project != "" && workspace.Within(l.project, real) || top && l.top != "" && workspace.Within(l.top, real)
	inUser := l.inUserRoots(lex) || l.inUserRoots(real)
	own = from
	if inProject {
		own = fromProject
	}
	trusted := false
	switch {
	case from == fromUser:
		trusted = true
	case inProject:
		trusted = true
	case inUser && strings.EqualFold(filepath.Ext(real), ".md") && !l.inOtherProjects(lex, real):
		trusted = true
	}
	access, hint := AccessAsk, real+" is outside the project, and a project's instructions may import only the project's files and Markdown files in ~/.claude and ~/.ouro"
	if l.check != nil {
		access, hint = l.check(real)
	}
	if access == AccessDeny || (!trusted && access != AccessAllow) {
		l.warn("%s skipped: %s", who, hint)
		l.skipped = append(l.skipped, lex)
		return "", from, nil, false
	}
	if l.left <= 0 {
		if !l.spent {
			l.spent = true
			l.warn("instruction files and their imports exceed %s; %s and what follows were not read", regfile.Size(MaxInstructionReadBytes), who)
		}
		return "", from, nil, false
	}
	limit := min(MaxInstructionFileBytes, l.left)
	data, more, err := regfile.ReadHead(real, limit)
	if err != nil {
		l.warn("%s skipped: %v", who, err)
		l.skipped = append(l.skipped, lex)
		return "", from, nil, false
	}
	l.left -= int64(len(data))
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		l.warn("%s skipped: %s is a binary file (it holds NUL bytes), not Markdown", who, real)
		l.skipped = append(l.skipped, lex)
		return "", from, nil, false
	}
	if more {
		// The read may have stopped inside a character: drop the last one.
		data = []byte(textcut.Bytes(string(data), len(data)-1, ""))
		l.warn("%s: only the first %s of %s were read", who, regfile.Size(limit), real)
	}
	l.sources = append(l.sources, lex)
	return real, own, data, true
}

func (l *loader) inUserRoots(p string) bool {
	for _, r := range l.userRoots {
		if workspace.Within(r, p) {
			return true
		}
	}
	return false
}

// inOtherProjects reports whether a path lies in the per-project state under ~/.claude
// or ~/.ouro (projects/: transcripts, memory of every project), which is not the user's
// instructions and not a project's to import.
func (l *loader) inOtherProjects(paths ...string) bool {
	for _, r := range l.userRoots {
		for _, p := range paths {
			if workspace.Within(filepath.Join(r, "projects"), p) {
				return true
			}
		}
	}
	return false
}

func (l *loader) warn(format string, a ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, a...))
}

var (
	htmlComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })
	importRe    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|\s)@((?:~/|\.{0,2}/|[A-Za-z0-9_.\-])[^\s` + "`" + `]*)`)
	})
	codeSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`\n]*`") })
)

// expand strips HTML comments and inlines @imports outside code blocks and spans.
func (l *loader) expand(file string, from origin, text string, depth int, chain []string) string {
	lines := strings.Split(text, "\n")
	var out []string
	inFence := false
	fence := ""
	inComment := false
	for _, line := range lines {
		trim := strings.TrimSpace(line)
		if inFence {
			out = append(out, line)
			if strings.HasPrefix(trim, fence) {
				inFence = false
			}
			continue
		}
		if !inComment && (strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~")) {
			inFence = true
			fence = trim[:3]
			out = append(out, line)
			continue
		}
		// HTML comments, possibly spanning lines.
		if inComment {
			i := strings.Index(line, "-->")
			if i < 0 {
				continue
			}
			line = line[i+3:]
			inComment = false
		}
		line = htmlComment().ReplaceAllString(line, "")
		if i := strings.Index(line, "<!--"); i >= 0 {
			line = line[:i]
			inComment = true
		}
		out = append(out, l.imports(file, from, line, depth, chain)...)
	}
	return strings.Join(out, "\n")
}

// imports returns the line followed by the contents of any files it imports.
func (l *loader) imports(file string, from origin, line string, depth int, chain []string) []string {
	masked := codeSpan().ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
	res := []string{line}
	for _, m := range importRe().FindAllStringSubmatch(masked, -1) {
		ref := strings.TrimRight(m[2], ".,;:)")
		if ref == "" || strings.Contains(ref, "@") {
			continue
		}
		target := l.resolve(file, ref)
		if depth+1 > MaxImportDepth {
			l.warn("%s: import @%s refused: more than %d levels deep", file, ref, MaxImportDepth)
			continue
		}
		key := canonical(target)
		if slices.Contains(chain, key) {
			l.warn("%s: import @%s refused: import cycle", file, ref)
			continue
		}
		if l.included[key] {
			continue // its contents are in already: each file once
		}
		real, own, data, ok := l.read(target, fmt.Sprintf("%s: import @%s", file, ref), from, false)
		if !ok {
			continue
		}
		if l.included[real] {
			continue
		}
		l.included[key], l.included[real] = true, true
		l.parents[filepath.Clean(target)] = file
		body := strings.TrimSpace(l.expand(target, own, string(data), depth+1, append(slices.Clone(chain), real)))
		res = append(res, fmt.Sprintf("\nContents of %s (imported by %s):\n\n%s\n", target, file, body))
	}
	return res
}

func (l *loader) resolve(file, ref string) string {
	if strings.HasPrefix(ref, "~/") {
		return filepath.Join(l.home, ref[2:])
	}
	if filepath.IsAbs(ref) {
		return ref
	}
	return filepath.Join(filepath.Dir(file), ref)
}
