package permission

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ouroagent/ouro/internal/gitdir"
	"github.com/ouroagent/ouro/shell"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// shellResolve resolves a path as a shell word gives it, from the folder base the
// command runs in: bash expands ~+ to that folder; ~- (the previous folder), ~+N and ~-N
// (the folder stack) and ~user (another user's home) are not known here, so a path
// using them is an error and the command is asked about.
func (st *state) shellResolve(word, base string) (target, error) {
	if strings.HasPrefix(word, "~") {
		head, rest, _ := strings.Cut(word, "/")
		switch {
		case head == "~":
		case head == "~+":
			return st.resolve(filepath.Join(base, rest), base)
		case strings.HasPrefix(head, "~+") || strings.HasPrefix(head, "~-"):
			return target{given: word}, fmt.Errorf("%s is a folder the shell remembers (OLDPWD or the folder stack), only known when it runs", head)
		default:
			return target{given: word}, fmt.Errorf("%s is the home folder of the user %s, which is not looked up", head, head[1:])
		}
	}
	return st.resolve(word, base)
}

// shellTargets resolves one path word of a command from every folder it may run in;
// why says why it cannot be resolved before the command runs ("" when it can). A glob
// is expanded as the shell would now, and kept as written too (a glob that matches
// nothing is passed on as it is).
// Folders a pattern matches are left out unless dirs is set (for a command that reads
// folders recursively): listing a folder shows names, not what the files hold.
func (st *state) shellTargets(word string, dynamic bool, bases []string, verb string, dirs bool) (ts []target, why string) {
	switch {
	case dynamic:
		return nil, fmt.Sprintf("%s %s, only known when it runs", verb, word)
	case len(bases) == 0 && relative(word):
		return nil, fmt.Sprintf("%s %s after changing to a folder only known when it runs", verb, word)
	}
	from := bases
	if !relative(word) || len(from) == 0 {
		from = []string{st.cwd}
	}
	for _, base := range from {
		if strings.ContainsAny(word, "*?[") {
			matches, err := st.globMatches(word, base)
			if err != nil {
				return ts, fmt.Sprintf("%s %s, a pattern that %v", verb, word, err)
			}
			for _, m := range matches {
				if fi, err := os.Stat(m); err == nil && fi.IsDir() && !dirs {
					continue
				}
				if t, err := st.resolve(m, base); err == nil {
					ts = append(ts, t)
				}
			}
		}
		t, err := st.shellResolve(word, base)
		if err != nil {
			return ts, fmt.Sprintf("%s %s, which cannot be resolved (%v)", verb, word, err)
		}
		ts = append(ts, t)
	}
	return ts, ""
}

// maxGlobMatches bounds the files one pattern is expanded to.
const maxGlobMatches = 512

// globMatches expands a shell glob from base as bash would now (a superset: Go's * also
// matches a leading dot). Patterns Go's matcher does not read as bash does (**, [[:class:]],
// extended globs) are an error.
func (st *state) globMatches(word, base string) ([]string, error) {
	p := word
	if strings.HasPrefix(p, "~") {
		head, rest, _ := strings.Cut(p, "/")
		t, err := st.shellResolve(head, base)
		if err != nil {
			return nil, err
		}
		p = t.lex + "/" + rest
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	if strings.Contains(p, "**") || strings.Contains(p, "[[:") || strings.ContainsAny(p, "@!+(") && strings.Contains(p, "(") {
		return nil, fmt.Errorf("is not expanded before it runs")
	}
	p = strings.ReplaceAll(p, "[!", "[^")
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("is not expanded before it runs (%v)", err)
	}
	if len(matches) > maxGlobMatches {
		return nil, fmt.Errorf("matches more than %d files", maxGlobMatches)
	}
	return matches, nil
}

// writeTargets resolves the paths c writes (see shell.Command.Writes), a relative one
// from every folder c may run in. unknown says why some target cannot be known before
// the command runs ("" when all are known).
func (st *state) writeTargets(c shell.Command, bases []string) (ts []target, unknown string) {
	if c.WritesFromInput {
		unknown = fmt.Sprintf("%s gets its file arguments from its input (xargs), so they are only known when it runs", filepath.Base(c.Argv[0]))
	}
	for _, w := range c.Writes {
		if globMayHitProtected(w.Name) && !w.Dynamic {
			from := bases
			if !relative(w.Name) || len(from) == 0 {
				from = []string{st.cwd}
			}
			for _, base := range from {
				p := filepath.Join(base, w.Name)
				ts = append(ts, target{given: w.Name, lex: p, real: p, glob: true})
			}
		}
		got, why := st.shellTargets(w.Name, w.Dynamic, bases, "writes", true)
		ts = append(ts, got...)
		if why != "" {
			unknown = why
		}
	}
	return ts, unknown
}

// readTargets resolves the paths c reads (see shell.Command.Reads), a relative one from
// every folder c may run in, and the files git reads from its history (HEAD:path).
// unknown says why some cannot be known before the command runs.
func (st *state) readTargets(c shell.Command, bases []string) (ts []target, unknown string) {
	for _, r := range c.Reads {
		if r.Name == "" {
			continue
		}
		if l, ok := st.substitutedListing(r.Name, bases); r.Dynamic && ok {
			// $(git ls-files): the files below the folders the listing looks through.
			if why := st.checkListing(l); why != "" {
				unknown = "reads the files whose names " + why
				continue
			}
			for _, d := range l.dirs {
				ts = append(ts, target{given: d, lex: d, real: d})
			}
			continue
		}
		got, why := st.shellTargets(r.Name, r.Dynamic, bases, "reads", recursiveReader(c.Argv))
		ts = append(ts, got...)
		if why != "" {
			unknown = why
		}
	}
	ts = append(ts, st.gitReads(c, bases)...)
	return ts, unknown
}

// gitRevPath is a git object name that names a file: HEAD:path, :path, :0:path.
var gitRevPath = regexp.MustCompile(`^[^:/-][^:]*:([0-3]:)?(.+)$|^:([0-3]:)?(.+)$`)

// gitReads are the files a git command shows from its history or index: the path of
// REV:path (relative to the repository's top, or to the folder with ./), and for git
// grep every file below the repository's top.
func (st *state) gitReads(c shell.Command, bases []string) []target {
	if len(c.Argv) < 2 || path.Base(c.Argv[0]) != "git" {
		return nil
	}
	if len(bases) == 0 {
		bases = []string{st.cwd}
	}
	var out []target
	add := func(p string) {
		if t, err := st.resolve(p, "/"); err == nil {
			out = append(out, t)
		}
	}
	for _, base := range bases {
		top := repoTop(base)
		if gitDumpsHistory(c.Argv) {
			add(top) // any tracked file's content, of any commit, may be printed
		}
		for _, a := range c.Argv[1:] {
			if a == "grep" {
				add(top)
			}
			if strings.HasPrefix(a, "-") || strings.Contains(a, "://") {
				continue
			}
			m := gitRevPath.FindStringSubmatch(a)
			if m == nil {
				continue
			}
			p := m[2] + m[4]
			if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
				add(filepath.Join(base, p))
			} else {
				add(filepath.Join(top, p))
				add(filepath.Join(base, p))
			}
		}
	}
	return out
}

// gitDumpsHistory reports a git command that can print the content of files it is not
// given by name: a commit's or the working tree's diff (show, diff, log -p, stash show -p,
// format-patch), a blob by its hash (cat-file), an archive of a tree. Such a command reads
// the whole repository as far as deny rules are concerned: `git show <sha>` of the commit
// that added .env prints .env.
func gitDumpsHistory(argv []string) bool {
	sub, rest := "", []string(nil)
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		sub, rest = a, argv[i+1:]
		break
	}
	patch := func() bool {
		for _, a := range rest {
			switch {
			case a == "-p", a == "-u", a == "--patch", a == "--cc", a == "--word-diff", a == "-L", strings.HasPrefix(a, "-L"), strings.HasPrefix(a, "--word-diff="):
				return true
			}
		}
		return false
	}
	switch sub {
	case "show", "diff", "cat-file", "archive", "format-patch", "blame", "annotate", "difftool", "range-diff":
		return true
	case "log", "whatchanged", "reflog":
		return patch()
	case "stash":
		return len(rest) > 0 && rest[0] == "show" && patch()
	}
	return false
}

// repoTop is the top folder of the git repository holding dir, or dir.
func repoTop(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if gitdir.Marks(d) {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// recursiveReader reports a command that reads every file below a folder it is given:
// grep -r, rg, ag, cp -r, rsync -r, tar, zip -r, git grep.
func recursiveReader(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	name := path.Base(argv[0])
	switch name {
	case "rg", "ag", "ack", "tar", "scp":
		return true
	case "git":
		return len(argv) > 1 && (isOneOf("grep", argv[1:]) || gitDumpsHistory(argv))
	case "grep", "egrep", "fgrep", "cp", "rsync", "zip":
	default:
		return false
	}
	for _, a := range argv[1:] {
		if a == "--" {
			break
		}
		if isShortCluster(a) && strings.ContainsAny(a[1:], "rRa") {
			return true
		}
		// A prefix counts as the option it stands for (--rec, --dir=recurse).
		o, _ := shell.ProgramLong(name, a, "--recursive", "--dereference-recursive", "--archive", "--directories")
		if o.Is("--recursive", "--dereference-recursive", "--archive") || o.Is("--directories") && (!o.HasValue || o.Value == "recurse") {
			return true
		}
	}
	return false
}

// maxDenyWalk bounds the entries looked at to find a denied file below a folder.
const maxDenyWalk = 20000

// deniedBelow finds a deny rule on reading a file below the folder dir, which a
// recursive reader would read: it looks only where a rule's pattern can match, and
// counts a folder too large to look through as holding one.
func (st *state) deniedBelow(dir string) (Rule, string, bool) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return Rule{}, "", false
	}
	read := st.kindSubject(tool.ActRead)
	for _, r := range st.deny {
		if !toolMatches(r.Tool, st.kindSubject(tool.ActRead)) || r.kind != specPath {
			if r.kind == specNone && toolMatches(r.Tool, st.kindSubject(tool.ActRead)) {
				return r, dir, true
			}
			continue
		}
		full, ok := r.absPattern(read)
		if !ok {
			continue
		}
		prefix := tool.GlobDir(full)
		var root string
		switch {
		case workspace.Within(dir, prefix):
			root = prefix
		case workspace.Within(prefix, dir):
			root = dir
		default:
			continue
		}
		n := 0
		found := ""
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			n++
			if n > maxDenyWalk {
				found = root
				return filepath.SkipAll
			}
			if err != nil || d.IsDir() {
				return nil
			}
			s := read
			s.Path = p
			if r.Match(s) {
				found = p
				return filepath.SkipAll
			}
			return nil
		})
		if found != "" {
			return r, found, true
		}
	}
	return Rule{}, "", false
}

// sameFileMatch finds a rule covering another name of tg's file: a hard link to a
// denied file is that file. Only files with more than one link are looked up, in the
// folders the rules' patterns start from.
func (st *state) sameFileMatch(rules []Rule, s Subject, tg *target) (Rule, bool) {
	fi, err := os.Stat(tg.real)
	if err != nil || !fi.Mode().IsRegular() || linkCount(fi) < 2 {
		return Rule{}, false
	}
	for _, r := range rules {
		if r.kind != specPath || !toolMatches(r.Tool, s) && !(r.Tool == tool.ActRead.RuleName() && s.kind() == tool.ActWrite) {
			continue
		}
		full, ok := r.absPattern(s)
		if !ok {
			continue
		}
		root := tool.GlobDir(full)
		n := 0
		hit := false
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			n++
			if n > maxDenyWalk || hit {
				return filepath.SkipAll
			}
			if err != nil {
				return nil
			}
			if d.Type().IsRegular() {
				if o, err := os.Stat(p); err == nil && os.SameFile(o, fi) {
					q := s
					q.Tool = r.Tool
					if r.Tool == tool.ActWrite.RuleName() {
						q.Tool = s.Tool
					}
					q.Path = p
					hit = r.Match(q)
				}
			}
			return nil
		})
		if hit {
			return r, true
		}
	}
	return Rule{}, false
}

// namesDenied finds a word of c (or the value of a --name=value word) that names an
// existing file a deny rule forbids reading, which the command is not known to read:
// many commands print a file they are given, whole or in their errors (python3 .env,
// bash secrets/key, source .env). It says why c must be asked about; "" when no word
// does.
func (st *state) namesDenied(c shell.Command, bases []string) string {
	if !st.readRules() || len(c.Argv) == 0 {
		return ""
	}
	if len(bases) == 0 {
		bases = []string{st.cwd}
	}
	read := st.kindSubject(tool.ActRead)
	for _, w := range c.Argv {
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		if w == "" || holdsExpansion(w) || strings.ContainsAny(w, "*?[") || strings.HasPrefix(w, "-") {
			continue
		}
		for _, base := range bases {
			t, err := st.shellResolve(w, base)
			if err != nil {
				continue
			}
			if _, err := os.Lstat(t.lex); err != nil {
				continue
			}
			if r, ok := st.firstMatch(st.deny, read, &t, false); ok {
				return fmt.Sprintf("names %s, which the rule %s denies reading, and a command may print a file it is given", t.real, r)
			}
		}
	}
	return ""
}
