package permission

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/shell"
	"github.com/ouroagent/ouro/tool"
)

// What a command reads or takes as options by indirection: words only known when it
// runs (an expansion, a glob), files named by a list (xargs' input, --files0-from), and
// links followed below a folder. Each is judged by what it can stand for now: the names
// a glob or a listing command would give, the names a list file holds, the targets of
// the links below a folder. What cannot be known is asked about.

// maxListBytes bounds a list file read to judge the names it holds.
const maxListBytes = 64 << 10

// optionsHarmless are commands none of whose options writes, runs, reads a file it is
// not given or changes folder: a word that turns into an option at run time does them
// no harm.
var optionsHarmless = []string{"echo", "true", "false", "test", "[", "pwd", "sleep", "seq", "basename", "dirname"}

// hiddenOptions says why a word of c may be an option only known when c runs ("" when
// none may be): an expansion, or a glob over a folder holding a name that begins with
// "-". A rule written for the command's words, and the read-only set, cannot see it.
func (st *state) hiddenOptions(c shell.Command, bases []string) string {
	if len(c.Argv) == 0 || isOneOf(path.Base(c.Argv[0]), optionsHarmless) {
		return ""
	}
	for _, o := range c.OptionWords {
		if why := st.hiddenOption(o, bases); why != "" {
			return fmt.Sprintf("holds %s, %s, and an option such as -exec= or --output= could hide in it", clipText(o.Word, 80), why)
		}
	}
	return ""
}

func (st *state) hiddenOption(o shell.OptionWord, bases []string) string {
	if len(bases) == 0 {
		return "only known when it runs"
	}
	if o.Glob {
		if strings.HasPrefix(o.Word, "-") {
			return "a glob that expands to options"
		}
		for _, b := range bases {
			if n := dashName(b); n != "" {
				return fmt.Sprintf("a glob over %s, which holds %s", b, n)
			}
		}
		return ""
	}
	if l, ok := st.substitutedListing(o.Word, bases); ok {
		if why := st.checkListing(l); why != "" {
			return "whose names " + why
		}
		return ""
	}
	return "only known when it runs"
}

// dashName is a name in dir that begins with "-", "" when there is none. A folder that
// cannot be read counts as holding one.
func dashName(dir string) string {
	f, err := os.Open(dir)
	if err != nil {
		return "names that cannot be listed"
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(256)
		for _, n := range names {
			if strings.HasPrefix(n, "-") {
				return "the name " + n
			}
		}
		if err == io.EOF {
			return ""
		}
		if err != nil {
			return "names that cannot be listed"
		}
	}
}

// listing is what a command that prints file names prints: names of files below dirs.
type listing struct {
	what string   // the command, for messages
	dirs []string // absolute folders
	// bare: a name is printed as it is, with no "./" or folder in front, so it may
	// begin with "-".
	bare bool
}

// substitutedListing reads a word that is one command substitution of a listing
// command, `$(git ls-files)`.
func (st *state) substitutedListing(word string, bases []string) (listing, bool) {
	inner, ok := strings.CutPrefix(word, "$(")
	if ok {
		inner, ok = strings.CutSuffix(inner, ")")
	} else if inner, ok = strings.CutPrefix(word, "`"); ok {
		inner, ok = strings.CutSuffix(inner, "`")
	}
	if !ok || strings.ContainsAny(inner, "`$") {
		return listing{}, false
	}
	a := shell.Analyze(inner)
	if len(a.Ask) > 0 || len(a.Commands) != 1 {
		return listing{}, false
	}
	c := a.Commands[0]
	if c.Dir != "" || c.DirUnknown {
		return listing{}, false
	}
	return st.listingOf(c, bases)
}

// listingOf reads c as a command that prints the names of files below some folders:
// find, git ls-files, rg --files or -l, grep -rl. ok is false for any other command.
func (st *state) listingOf(c shell.Command, bases []string) (listing, bool) {
	if len(c.Argv) == 0 || c.Dynamic || len(c.OptionWords) > 0 || len(c.Wrappers) > 0 || len(bases) == 0 {
		return listing{}, false
	}
	l := listing{what: "`" + clipText(strings.Join(c.Argv, " "), 80) + "`"}
	args := c.Argv[1:]
	var operands []string
	here := false // it also searches the folder it runs in
	switch path.Base(c.Argv[0]) {
	case "find":
		for len(args) > 0 && isOneOf(args[0], []string{"-H", "-L", "-P"}) {
			args = args[1:]
		}
		for _, a := range args {
			if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
				break
			}
			operands = append(operands, a)
		}
		for _, a := range args {
			if strings.HasPrefix(a, "-printf") || strings.HasPrefix(a, "-fprint") || a == "-ls" || a == "-fls" {
				l.bare = true // names printed another way, basenames (%f) included
			}
		}
		if len(operands) == 0 {
			operands = []string{"."}
		}
	case "git":
		if len(args) == 0 || args[0] != "ls-files" {
			return listing{}, false
		}
		// Names below the repository, relative to where it runs, or to its top.
		for _, b := range bases {
			l.dirs = append(l.dirs, repoTop(b))
		}
		l.bare = true
		return l, true
	case "rg":
		if !isOneOf("--files", args) && !isOneOf("-l", args) && !isOneOf("--files-with-matches", args) {
			return listing{}, false
		}
		operands, l.bare, here = searchOperands(c), true, len(c.Reads) == 0 || len(c.Reads) == 1 && !isOneOf("--files", args)
	case "grep", "egrep", "fgrep":
		if !recursiveReader(c.Argv) || !listsNames(args) {
			return listing{}, false
		}
		operands, l.bare, here = searchOperands(c), true, searchesHere(c)
	default:
		return listing{}, false
	}
	for _, b := range bases {
		if len(operands) == 0 || here {
			l.dirs = append(l.dirs, b)
		}
		for _, o := range operands {
			if holdsExpansion(o) || strings.ContainsAny(o, "*?[") {
				return listing{}, false
			}
			t, err := st.shellResolve(o, b)
			if err != nil {
				return listing{}, false
			}
			l.dirs = append(l.dirs, t.real)
		}
	}
	return l, true
}

// listsNames reports grep options that print file names (-l, -L, --files-with-matches).
func listsNames(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if isShortCluster(a) && strings.ContainsAny(a[1:], "lL") || strings.HasPrefix(a, "--files-with") {
			return true
		}
	}
	return false
}

// searchOperands are what a search command is given: its operands, the pattern among
// them (taking it for a folder too only adds a folder that does not exist).
func searchOperands(c shell.Command) []string {
	var ops []string
	for _, r := range c.Reads {
		ops = append(ops, r.Name)
	}
	return ops
}

// checkListing says what a listing's names could lead to ("" when nothing): a name that
// begins with "-" (for a bare listing), a link to a file outside the workspace or one a
// rule denies reading, a denied file, or more names than can be looked through.
func (st *state) checkListing(l listing) string {
	for _, d := range l.dirs {
		if !st.inside(d) {
			return fmt.Sprintf("from %s lie below %s, outside the workspace", l.what, d)
		}
		if r, p, ok := st.deniedBelow(d); ok {
			return fmt.Sprintf("from %s include %s, which the rule %s denies reading", l.what, p, r)
		}
	}
	if why := st.linksBelow(l.dirs, l.bare); why != "" {
		return fmt.Sprintf("from %s include %s", l.what, why)
	}
	return ""
}

// linksBelow looks through the folders for what following the names below them would
// read: a link whose target lies outside the workspace or is denied, and (dash set) a
// name beginning with "-". A link to a folder inside is looked through too. It says
// what it found, "" for nothing; a tree too large to look through counts as a find.
func (st *state) linksBelow(dirs []string, dash bool) string {
	read := st.kindSubject(tool.ActRead)
	seen := map[string]bool{}
	queue := append([]string(nil), dirs...)
	n := 0
	for len(queue) > 0 {
		root := queue[0]
		queue = queue[1:]
		if seen[root] {
			continue
		}
		seen[root] = true
		found := ""
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			n++
			if n > maxDenyWalk {
				found = fmt.Sprintf("more than %d entries below %s, too many to look through", maxDenyWalk, root)
				return filepath.SkipAll
			}
			if err != nil {
				return nil
			}
			if dash && p != root && strings.HasPrefix(d.Name(), "-") {
				found = fmt.Sprintf("%s, whose name begins with \"-\" and would be taken for an option", p)
				return filepath.SkipAll
			}
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // a dangling link reads nothing
			}
			t := target{given: p, lex: p, real: real}
			if !st.inside(real) {
				found = fmt.Sprintf("the link %s, to %s outside the workspace", p, real)
				return filepath.SkipAll
			}
			if r, ok := st.firstMatch(st.deny, read, &t, false); ok {
				found = fmt.Sprintf("the link %s, to %s, which the rule %s denies reading", p, real, r)
				return filepath.SkipAll
			}
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				queue = append(queue, real)
			}
			return nil
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// followsLinks reports a recursive read that follows the links it meets: grep -R,
// find -L, ls -LR, du -L, cp -rL, rg -L, tar -h, rsync -L, tree -l, zip -r (zip stores
// what a link points to unless told -y).
func followsLinks(argv []string) bool {
	if len(argv) < 2 {
		return false
	}
	name := path.Base(argv[0])
	has := func(short string, long ...string) bool {
		for _, a := range argv[1:] {
			if a == "--" {
				break
			}
			if short != "" && isShortCluster(a) && strings.ContainsAny(a[1:], short) {
				return true
			}
			if len(long) > 0 && strings.HasPrefix(a, "--") {
				flag, _, _ := strings.Cut(a, "=")
				if isOneOf(flag, long) {
					return true
				}
				if o, _ := shell.ProgramLong(name, a, long...); o.Is(long...) {
					return true
				}
			}
		}
		return false
	}
	switch name {
	case "grep", "egrep", "fgrep":
		return has("R", "--dereference-recursive")
	case "find":
		return isOneOf("-L", argv[1:]) || isOneOf("-follow", argv[1:])
	case "ls":
		return has("L", "--dereference") && has("R", "--recursive")
	case "du":
		return has("L", "--dereference")
	case "cp":
		return has("L", "--dereference") && has("rRa", "--recursive", "--archive")
	case "rg":
		return has("L", "--follow")
	case "ag":
		return has("f", "--follow")
	case "tar":
		return has("h", "--dereference")
	case "rsync":
		return has("Lk", "--copy-links", "--copy-dirlinks")
	case "tree":
		return has("l")
	case "zip":
		return has("r", "--recurse-paths") && !has("y", "--symlinks")
	}
	return false
}

// followedReads judges a recursive read that follows links: the folders it reads (or
// the one it runs in) are looked through for links leading outside or to denied files.
func (st *state) followedReads(c shell.Command, bases []string, reads []target) string {
	if !followsLinks(c.Argv) {
		return ""
	}
	var dirs []string
	for _, t := range reads {
		if fi, err := os.Stat(t.real); err == nil && fi.IsDir() {
			dirs = append(dirs, t.real)
		}
	}
	if len(dirs) == 0 && (len(c.Reads) == 0 || searchesHere(c) || path.Base(c.Argv[0]) == "find") {
		dirs = append(dirs, bases...)
	}
	if why := st.linksBelow(dirs, false); why != "" {
		return "follows links, and reads " + why
	}
	return ""
}

// inputNames judges the files a command reads because xargs names them from its input,
// or a list file does (wc --files0-from=F): the names a list file or a here-string
// holds, the names a listing command piped in prints, the words an echo piped in
// prints. It returns the targets read and why some cannot be known ("" when all are).
func (st *state) inputNames(c shell.Command, bases []string) (ts []target, why string) {
	if len(bases) == 0 {
		bases = []string{st.cwd}
	}
	var lists []shell.Path
	if c.ReadsFromInput {
		lists = append(lists, shell.Path{Name: "-"})
	}
	lists = append(lists, c.Lists...)
	for _, l := range lists {
		got, w := st.namesIn(c, l, bases)
		ts = append(ts, got...)
		if w != "" && why == "" {
			why = w
		}
	}
	return ts, why
}

// namesIn reads the names one list gives c.
func (st *state) namesIn(c shell.Command, l shell.Path, bases []string) ([]target, string) {
	if l.Dynamic {
		return nil, fmt.Sprintf("reads the files %s names, only known when it runs", l.Name)
	}
	var words []string
	src := l.Name
	if l.Name == "-" {
		src = ""
		for _, r := range c.Redirects {
			switch {
			case r.Fd != "" && r.Fd != "0":
			case r.Op == "<" && !r.Dynamic:
				src = r.Target
			case r.Op == "<<<" && !r.Dynamic:
				words, src = strings.Fields(r.Target), "<<<"
			case r.Op == "<" || r.Op == "<<<" || r.Op == "<<" || r.Op == "<<-" || r.Op == "<&":
				return nil, "reads the files its input names, only known when it runs"
			}
		}
		if src == "" {
			return st.pipedNames(c, bases)
		}
	}
	if src != "<<<" {
		for _, b := range bases {
			t, err := st.shellResolve(src, b)
			if err != nil {
				return nil, fmt.Sprintf("reads the files %s names, which cannot be read now", src)
			}
			ws, err := listWords(t.real)
			if err != nil {
				return nil, fmt.Sprintf("reads the files %s names, which cannot be read now (%v)", src, err)
			}
			words = append(words, ws...)
		}
	}
	return st.namedTargets(words, bases)
}

// pipedNames judges the names a command piped into c prints.
func (st *state) pipedNames(c shell.Command, bases []string) ([]target, string) {
	in := c.InputFrom
	if in == nil {
		return nil, "reads the files its input names, only known when it runs"
	}
	inBases := st.commandDirs(*in)
	if l, ok := st.listingOf(*in, inBases); ok {
		if why := st.checkListing(l); why != "" {
			return nil, "reads the files whose names " + why
		}
		var ts []target
		for _, d := range l.dirs {
			ts = append(ts, target{given: d, lex: d, real: d})
		}
		return ts, ""
	}
	if len(in.Argv) > 0 && path.Base(in.Argv[0]) == "echo" && !in.Dynamic && len(in.OptionWords) == 0 {
		return st.namedTargets(in.Argv[1:], bases)
	}
	return nil, fmt.Sprintf("reads the files `%s` prints, only known when it runs", clipText(in.Text, 80))
}

// namedTargets resolves names a list gives; a name that begins with "-" would be an
// option, which cannot be judged as a file.
func (st *state) namedTargets(words []string, bases []string) ([]target, string) {
	var ts []target
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			return nil, fmt.Sprintf("is given %s from a list, which it would take for an option", clipText(w, 60))
		}
		for _, b := range bases {
			t, err := st.shellResolve(w, b)
			if err != nil {
				return nil, fmt.Sprintf("reads %s, which cannot be resolved", clipText(w, 80))
			}
			ts = append(ts, t)
		}
	}
	return ts, ""
}

// listWords reads a list file's names: split at white space and NULs, quotes removed
// as xargs removes them (a name it would read otherwise is still a name here).
func listWords(p string) ([]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxListBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxListBytes {
		return nil, fmt.Errorf("more than %d bytes", maxListBytes)
	}
	b = bytes.ReplaceAll(b, []byte{0}, []byte{'\n'})
	var out []string
	for _, w := range strings.Fields(string(b)) {
		out = append(out, strings.Trim(w, `"'`))
	}
	return out, nil
}

// writeEnv are environment variables naming a folder or file a command writes in: the
// build and test caches, the temporary folder, coverage output. A command allowed by a
// rule writes there, so the value is judged as a write.
var writeEnv = []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOBIN", "GOTMPDIR", "GOCOVERDIR", "GOTELEMETRYDIR",
	"TMPDIR", "TMP", "TEMP", "TEMPDIR", "NODE_V8_COVERAGE", "NODE_COMPILE_CACHE", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"XDG_STATE_HOME", "XDG_RUNTIME_DIR", "PYTHONPYCACHEPREFIX", "COVERAGE_FILE", "PIP_CACHE_DIR", "PYTEST_DEBUG_TEMPROOT",
	"JEST_JUNIT_OUTPUT_DIR", "JEST_JUNIT_OUTPUT_FILE", "npm_config_cache", "npm_config_prefix", "CARGO_HOME",
	"CARGO_TARGET_DIR", "RUSTUP_HOME", "GRADLE_USER_HOME", "MAVEN_USER_HOME", "HISTFILE", "LESSHISTFILE"}

// envWrites are the write targets of c's environment assignments (GOCACHE=/tmp/c).
func (st *state) envWrites(k *bashCheck, c shell.Command, bases []string) []target {
	var out []target
	for _, e := range c.Env {
		name, val, ok := strings.Cut(e, "=")
		if !ok || val == "" || !isOneOf(strings.ToUpper(name), upperAll(writeEnv)) {
			continue
		}
		ts, why := st.shellTargets(val, holdsExpansion(val), bases, name+" makes it write in", false)
		if why != "" && k.unknown == "" {
			k.unknown = why
		}
		out = append(out, ts...)
	}
	return out
}

func upperAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToUpper(s)
	}
	return out
}
