package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/workspace"
)

// OnDemand finds the instructions that join the conversation when the agent first reads
// or edits a file, as in Claude Code: the path-scoped rules (Rules) whose globs match
// the file, and the instruction files of the folders between the working directory
// (exclusive) and the file's folder — AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, the rules
// folders and CLAUDE.local.md, imports expanded. Files above the working directory were
// loaded at the start; files elsewhere add nothing.
//
// It keeps no record of what it gave: the caller says what the conversation already
// holds (have), so what a summary dropped is given again on the next read.
type OnDemand struct {
	CWD, RepoRoot, Home string
	Check               ReadCheck
	// Rules are the path-scoped rules found at the start (Instructions.Rules), and
	// Loaded the files whose contents are in the system prompt (Instructions.Sources):
	// a nested file importing one of them does not repeat it.
	Rules  []Rule
	Loaded []string
	// Budget bounds the bytes added over the session; past it a file is named, not
	// given. 0 means MaxInstructionBytes.
	Budget int

	mu    sync.Mutex
	spent int
}

// Found is one instruction file to add: its path and its text, headed with the path.
type Found struct {
	Path string
	Text string
	// Globs are a path-scoped rule's paths: (nil for an instruction file found in a
	// folder on the way to the file).
	Globs []string
}

// For returns what applies to the file at path (absolute) and is not yet in the
// conversation (have reports the paths that are), most general first.
func (o *OnDemand) For(path string, have func(path string) bool) (found []Found, warnings []string) {
	path = canonical(path)
	for _, r := range o.Rules {
		if !have(r.Path) && r.Matches(path) {
			found = append(found, Found{r.Path, fmt.Sprintf("Contents of %s (a rule for files matching %s):\n\n%s", r.Path, strings.Join(r.Globs, ", "), r.Text), r.Globs})
		}
	}
	cwd := canonical(o.CWD)
	dir := filepath.Dir(path)
	if dir != cwd && workspace.Within(cwd, dir) {
		l := o.loader()
		rel, _ := filepath.Rel(cwd, dir)
		d := cwd
		for _, p := range strings.Split(rel, string(filepath.Separator)) {
			d = filepath.Join(d, p)
			for _, src := range folderFiles(d) {
				if src.rulesBase == "" && have(src.path) {
					continue
				}
				parts, rules := l.load(src)
				for _, p := range parts {
					if !have(p.path) {
						found = append(found, Found{Path: p.path, Text: p.text})
					}
				}
				for _, r := range rules {
					if !have(r.Path) && r.Matches(path) {
						found = append(found, Found{r.Path, fmt.Sprintf("Contents of %s (a rule for files matching %s):\n\n%s", r.Path, strings.Join(r.Globs, ", "), r.Text), r.Globs})
					}
				}
			}
		}
		warnings = l.warnings
	}
	return o.within(found), warnings
}

// loader reads nested files as Load reads the project's: the same trust, the files
// already in the system prompt counted as included.
func (o *OnDemand) loader() *loader {
	l := newLoader(o.CWD, o.RepoRoot, o.Home, o.Check)
	for _, s := range o.Loaded {
		l.included[canonical(s)] = true
	}
	return l
}

// within keeps found within the session's budget: past it, a file is named instead.
func (o *OnDemand) within(found []Found) []Found {
	budget := o.Budget
	if budget <= 0 {
		budget = MaxInstructionBytes
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, f := range found {
		if o.spent+len(f.Text) > budget {
			found[i].Text = fmt.Sprintf("Contents of %s: [left out: the instructions added in this session exceed %d bytes; read the file if you need it]", f.Path, budget)
		}
		o.spent += len(found[i].Text)
	}
	return found
}

// Reminder wraps what For found for the file at path into one message for the model.
func Reminder(path string, found []Found) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<system-reminder>\nThese instructions apply to %s, which you just worked on; follow them for files there.\n", path)
	for _, f := range found {
		b.WriteString("\n")
		b.WriteString(f.Text)
		b.WriteString("\n")
	}
	b.WriteString("</system-reminder>")
	return b.String()
}

var givenRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^Contents of (.+?)(?: \(a rule for files matching .*\)| \(imported by .*\))?:(?: \[left out.*)?$`)
})

// Given lists the files whose contents a Reminder text holds (imports included); text
// that is no Reminder gives none. The conversation is the record of what was added: a
// resumed session knows it, and a summary that dropped it lets it be added again.
func Given(text string) []string {
	if !strings.HasPrefix(text, "<system-reminder>\nThese instructions apply to ") {
		return nil
	}
	var out []string
	for _, m := range givenRe().FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// maxNestedEntries bounds the walk NestedDirs makes of the working directory's tree.
const maxNestedEntries = 20000

// NestedDirs lists the folders below cwd that hold instruction files OnDemand would add
// (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, rules folders), for ouro
// doctor. The walk
// follows no symlink, skips .git, and stops after maxNestedEntries entries (more is then
// true).
func NestedDirs(cwd string) (dirs []string, more bool) {
	left := maxNestedEntries
	var walk func(dir string, top bool)
	walk = func(dir string, top bool) {
		f, err := os.Open(dir)
		if err != nil {
			return
		}
		entries, _ := f.ReadDir(max(left, 1))
		f.Close()
		left -= len(entries)
		if left <= 0 {
			more = true
		}
		slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		has := false
		for _, e := range entries {
			switch e.Name() {
			case "AGENTS.md", "CLAUDE.md", "CLAUDE.local.md":
				has = has || e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0
			case ".claude", ".ouro":
				for _, n := range []string{"CLAUDE.md", "rules"} {
					if _, err := os.Lstat(filepath.Join(dir, e.Name(), n)); err == nil {
						has = true
					}
				}
			}
		}
		if has && !top {
			dirs = append(dirs, dir)
		}
		for _, e := range entries {
			if left <= 0 {
				return
			}
			if e.IsDir() && e.Name() != ".git" {
				walk(filepath.Join(dir, e.Name()), false)
			}
		}
	}
	walk(cwd, true)
	return dirs, more
}
