// Package memory holds what ouro remembers across sessions: instruction files
// (CLAUDE.md/AGENTS.md) loaded into the system prompt, a store of durable facts, recall of
// the relevant ones into a turn, extraction of new ones from a transcript and
// consolidation of the store.
package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/textcut"
)

// MaxInstructionBytes caps the total text LoadInstructions returns.
const MaxInstructionBytes = 32 * 1024

// MaxImportDepth is how deep @path imports nest.
const MaxImportDepth = 4

// LoadInstructions gathers the instruction files that apply in cwd: the user's
// (~/.claude/CLAUDE.md, ~/.ouro/AGENTS.md, ~/.ouro/CLAUDE.md), then in each directory from
// repoRoot down to cwd (root first) AGENTS.md, CLAUDE.md, .claude/CLAUDE.md and then
// that directory's CLAUDE.local.md.
// Imports (@path) are expanded, HTML comments stripped, each part is headed with its path
// and the whole is cut at MaxInstructionBytes with a notice. sources lists the files read
// (imports included) in order; warnings report refused imports and cuts.
func LoadInstructions(cwd, repoRoot, userHome string) (text string, sources []string, warnings []string) {
	l := &loader{home: userHome}
	var files []string
	if userHome != "" {
		files = append(files,
			filepath.Join(userHome, ".claude", "CLAUDE.md"),
			filepath.Join(userHome, ".ouro", "AGENTS.md"),
			filepath.Join(userHome, ".ouro", "CLAUDE.md"))
	}
	dirs := dirChain(cwd, repoRoot)
	for _, d := range dirs {
		files = append(files,
			filepath.Join(d, "AGENTS.md"),
			filepath.Join(d, "CLAUDE.md"),
			filepath.Join(d, ".claude", "CLAUDE.md"),
			filepath.Join(d, "CLAUDE.local.md"))
	}
	seen := map[string]bool{}
	var parts []string
	for _, f := range files {
		key := canonical(f)
		if seen[key] {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		seen[key] = true
		l.sources = append(l.sources, f)
		body := l.expand(f, string(data), 0, []string{key})
		body = strings.TrimSpace(body)
		if body == "" {
			continue
		}
		parts = append(parts, fmt.Sprintf("Contents of %s:\n\n%s", f, body))
	}
	text = strings.Join(parts, "\n\n")
	if len(text) > MaxInstructionBytes {
		shown := textcut.Bytes(text, MaxInstructionBytes, "")
		text = shown + fmt.Sprintf("\n\n[instructions truncated: %d of %d bytes shown]", len(shown), len(text))
		l.warnings = append(l.warnings, fmt.Sprintf("instruction files exceed %d bytes; the rest was cut", MaxInstructionBytes))
	}
	return text, l.sources, l.warnings
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

type loader struct {
	home     string
	sources  []string
	warnings []string
}

var (
	htmlComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })
	importRe    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|\s)@((?:~/|\.{0,2}/|[A-Za-z0-9_.\-])[^\s` + "`" + `]*)`)
	})
	codeSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`\n]*`") })
)

// expand strips HTML comments and inlines @imports outside code blocks and spans.
func (l *loader) expand(file, text string, depth int, chain []string) string {
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
		out = append(out, l.imports(file, line, depth, chain)...)
	}
	return strings.Join(out, "\n")
}

// imports returns the line followed by the contents of any files it imports.
func (l *loader) imports(file, line string, depth int, chain []string) []string {
	masked := codeSpan().ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
	res := []string{line}
	for _, m := range importRe().FindAllStringSubmatch(masked, -1) {
		ref := strings.TrimRight(m[2], ".,;:)")
		if ref == "" || strings.Contains(ref, "@") {
			continue
		}
		target := l.resolve(file, ref)
		if depth+1 > MaxImportDepth {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: import @%s refused: more than %d levels deep", file, ref, MaxImportDepth))
			continue
		}
		key := canonical(target)
		cycle := false
		for _, c := range chain {
			if c == key {
				cycle = true
			}
		}
		if cycle {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: import @%s refused: import cycle", file, ref))
			continue
		}
		data, err := os.ReadFile(target)
		if err != nil {
			// Not a file: an @mention in prose (an e-mail, a handle); leave it.
			continue
		}
		l.sources = append(l.sources, target)
		body := strings.TrimSpace(l.expand(target, string(data), depth+1, append(append([]string(nil), chain...), key)))
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
