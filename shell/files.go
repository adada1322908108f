package shell

import (
	"path"
	"slices"
	"strings"
)

// Path is a file a command reads or writes, as written in the line.
type Path struct {
	// Name is the word as statically expanded (see Command.Argv); a relative one is
	// relative to the folder the command runs in (Command.Dir, or Command.Dirs).
	Name string
	// Dynamic is true when the name holds an expansion only known at run time ($OUT,
	// $(mktemp)); Name then keeps its source text.
	Dynamic bool
	// Via is the loop variable ("$f") the command names the path by, when a for loop
	// around it gives that variable static words (`for f in *.go`): Name is one of them.
	Via string
}

// WritesFile reports whether the redirect opens a file for writing: output and
// read-write operators whose target is not a descriptor and not a harmless device
// (/dev/null, /dev/stdout, /dev/stderr, /dev/tty, /dev/fd/N).
func (r Redirect) WritesFile() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>", ">>|", "&>|", "&>>|":
	case ">&":
		// `>&word` duplicates a descriptor when word is a number or "-", and is `&>word`
		// (stdout and stderr to a file) otherwise.
		if !r.Dynamic && isFdWord(r.Target) {
			return false
		}
	default:
		return false
	}
	if r.Dynamic {
		return true
	}
	return !harmlessDevice(r.Target)
}

func isFdWord(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true // ">&-" closes stdout
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/dev/fd/"); ok {
		return rest != "" && isFdWord(rest)
	}
	return false
}

// files fills in what c reads and writes, from its redirections and, for the commands
// known to take files as operands, its arguments.
func files(c *Command) {
	for _, r := range c.Redirects {
		if r.WritesFile() {
			c.Writes = append(c.Writes, Path{Name: r.Target, Dynamic: r.Dynamic})
		}
		if r.Op == "<" || r.Op == "<>" { // <> both reads and writes
			c.Reads = append(c.Reads, Path{Name: r.Target, Dynamic: r.Dynamic || holdsExpansion(r.Target)})
		}
	}
	if len(c.Argv) == 0 {
		return
	}
	if words, ok := fileArgs(c.Argv, true); ok {
		// xargs appends operands read from its input: more files than the line names.
		c.WritesFromInput = c.StdinArgs
		for _, w := range words {
			c.Writes = append(c.Writes, Path{Name: w, Dynamic: c.Dynamic && holdsExpansion(w)})
		}
	}
	if words, ok := fileArgs(c.Argv, false); ok {
		c.ReadsFromInput = c.StdinArgs
		for _, w := range words {
			c.Reads = append(c.Reads, Path{Name: w, Dynamic: holdsExpansion(w)})
		}
	}
	for _, w := range optionReads(c.Argv) {
		c.Reads = append(c.Reads, Path{Name: w, Dynamic: holdsExpansion(w)})
	}
	for _, w := range optionValues(c.Argv, listOptions) {
		c.Lists = append(c.Lists, Path{Name: w, Dynamic: holdsExpansion(w)})
	}
	for _, w := range optionValues(c.Argv, writeOptions) {
		c.Writes = append(c.Writes, Path{Name: w, Dynamic: holdsExpansion(w)})
	}
}

// writeOptions are options whose value is a file the command writes: sort -o writes its
// output there, git diff --output its diff, tree -o its listing.
var writeOptions = map[string][]string{
	"sort": {"-o", "--output"},
	"git":  {"--output"},
	"tree": {"-o"},
}

// listOptions are options whose value is a file (or "-", the input) naming the files
// the command reads: wc --files0-from, tar -T. The list file itself is in readOptions.
var listOptions = map[string][]string{
	"sort":  {"--files0-from"},
	"wc":    {"--files0-from"},
	"du":    {"--files0-from"},
	"file":  {"-f", "--files-from"},
	"tar":   {"-T", "--files-from"},
	"rsync": {"--files-from"},
}

// readOptions are options whose value is a file the command reads: date -f prints
// every line of its file in an error, grep -f, make -f, git commit -F and curl -T send
// or show theirs.
var readOptions = map[string][]string{
	"date":  {"-f", "--file", "-r", "--reference"},
	"grep":  {"-f", "--file", "--exclude-from"},
	"egrep": {"-f", "--file", "--exclude-from"},
	"fgrep": {"-f", "--file", "--exclude-from"},
	"rg":    {"-f", "--file", "--ignore-file"},
	"sort":  {"--files0-from"},
	"wc":    {"--files0-from"},
	"du":    {"--files0-from", "-X", "--exclude-from"},
	"diff":  {"--from-file", "--to-file", "-X", "--exclude-from"},
	"file":  {"-f", "--files-from", "-m", "--magic-file"},
	"tar":   {"-T", "--files-from", "-X", "--exclude-from", "-f", "--file"},
	"jq":    {"-f", "--from-file"},
	"sed":   {"-f", "--file"},
	"awk":   {"-f", "--file"},
	"make":  {"-f", "--file", "--makefile"},
	"git":   {"-F", "--file"},
	"curl":  {"-T", "--upload-file", "-K", "--config"},
	"touch": {"-r", "--reference"},
	"chmod": {"--reference"},
	"chown": {"--reference"},
}

// curlDataOptions are curl's options whose value may be @FILE, a file it sends.
var curlDataOptions = []string{"--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode",
	"--form", "--form-string", "--json"}

// optionReads lists the values of argv's readOptions, and the @FILE of curl's data and
// form options.
func optionReads(argv []string) []string {
	return optionValues(argv, readOptions)
}

// optionValues lists the values of argv's options that table names for its command.
func optionValues(argv []string, table map[string][]string) []string {
	name := path.Base(argv[0])
	opts := table[name]
	var out []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		next := func() string {
			if i+1 < len(argv) {
				i++
				return argv[i]
			}
			return ""
		}
		if name == "curl" && !strings.Contains(a, "=") && table["curl"] != nil {
			// curl takes a prefix of a long option for it, as getopt_long does.
			long, _ := ProgramLong(name, a, curlDataOptions...)
			if a == "-d" || a == "-F" || long.Is(curlDataOptions...) {
				v := next()
				literal := long.Resolved() && (long.Name == "--data-raw" || long.Name == "--form-string")
				if _, f, ok := strings.Cut(v, "@"); ok && f != "" && !literal {
					out = append(out, f)
				}
				continue
			}
		}
		if strings.HasPrefix(a, "--") {
			// A long option, or a prefix of one (--fil=F is --file=F).
			longs := slices.DeleteFunc(slices.Clone(opts), func(o string) bool { return !strings.HasPrefix(o, "--") })
			if long, _ := ProgramLong(name, a, longs...); long.Is(longs...) {
				if long.HasValue {
					out = append(out, long.Value)
				} else if v := next(); v != "" {
					out = append(out, v)
				}
			}
			continue
		}
		for _, o := range opts {
			switch {
			case a == o:
				if v := next(); v != "" {
					out = append(out, v)
				}
			case len(o) == 2 && isShortCluster(a) && len(a) > 2 && strings.IndexByte(a[1:], o[1]) >= 0:
				// -fFILE, or a cluster ending in the option (-rf FILE): what follows
				// the option letter is its value.
				j := strings.IndexByte(a[1:], o[1]) + 2
				if j < len(a) {
					out = append(out, a[j:])
				} else if v := next(); v != "" {
					out = append(out, v)
				}
			default:
				continue
			}
			break
		}
	}
	return out
}

// holdsExpansion reports a word that holds the source text of an expansion.
func holdsExpansion(w string) bool { return strings.ContainsAny(w, "$`") }

// Commands whose operands are files they write (or remove).
var (
	writeCommands = []string{"rm", "rmdir", "unlink", "touch", "mkdir", "tee", "shred", "truncate",
		"mv", "cp", "ln", "install", "rsync", "chmod", "chown", "chgrp", "chattr", "setfacl", "mkfifo", "mknod"}
	// modeFirst: the first operand is a mode or an owner, not a file.
	modeFirst = []string{"chmod", "chown", "chgrp", "chattr", "setfacl"}
	// Commands whose operands are files they read.
	readCommands = []string{"cat", "head", "tail", "less", "more", "wc", "grep", "egrep", "fgrep", "rg", "find",
		"ls", "stat", "du", "file", "tree", "diff", "cmp", "sort", "uniq", "cut", "awk", "strings", "od", "xxd",
		"hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "nl", "tac", "column", "jq",
		"realpath", "readlink", "bat", "git", "sed", "perl", "base64", "paste", "join", "comm", "fold", "tr", "zcat", "gzip", "gunzip",
		"tar", "zip", "gofmt"}
	// copyCommands read their sources (a hard link to a file is the file): a deny
	// rule on reading a source holds. The last operand is the destination.
	copyCommands = []string{"cp", "ln", "rsync", "install", "scp"}
)

// fileArgs returns the operands of argv that name files it writes (write) or reads.
// ok is false when the command is not one whose operands are known to be files.
func fileArgs(argv []string, write bool) ([]string, bool) {
	name := path.Base(argv[0])
	args := argv[1:]
	switch {
	case write && name == "dd":
		var out []string
		for _, a := range args {
			if f, ok := strings.CutPrefix(a, "of="); ok {
				out = append(out, f)
			}
		}
		return out, true
	case write && (name == "sed" || name == "perl"):
		if !editsInPlace(name, args) {
			return nil, false
		}
		return scriptFileArgs(name, args), true
	case write && slices.Contains(writeCommands, name):
		ops := wordsNotOptions(args)
		if slices.Contains(modeFirst, name) && len(ops) > 0 && !hasLongOpt(name, args, "--reference") {
			ops = ops[1:]
		}
		return ops, true
	case !write && slices.Contains(copyCommands, name):
		var ops []string
		target := false
		for i, a := range args {
			if a == "--" {
				ops = append(ops, args[i+1:]...)
				break
			}
			if long, _ := ProgramLong(name, a, "--target-directory"); a == "-t" || a == "-T" || long.Is("--target-directory") {
				target = true
			}
			if !strings.HasPrefix(a, "-") {
				ops = append(ops, a)
			}
		}
		if !target && len(ops) > 1 {
			ops = ops[:len(ops)-1]
		}
		return ops, true
	case !write && name == "git":
		return gitOperands(args), true
	case !write && (name == "sed" || name == "perl" || name == "awk"):
		return scriptFileArgs(name, args), true
	case !write && slices.Contains(readCommands, name):
		return wordsNotOptions(args), true
	}
	return nil, false
}

// gitValueOptions are git options whose value (the next word) is text, not a path.
var gitValueOptions = []string{"-m", "--message", "-c", "-C", "--author", "--date", "--format", "--pretty",
	"-S", "-G", "--grep", "-n", "--max-count", "--since", "--until", "--committer", "-e"}

// gitOperands are git's words that may be paths: its operands, without the values of
// options that take text (git commit -m "$(cat msg)" reads no file named by the message).
func gitOperands(args []string) []string {
	var keep []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			keep = append(keep, args[i:]...)
			break
		}
		if slices.Contains(gitValueOptions, args[i]) {
			i++
			continue
		}
		keep = append(keep, args[i])
	}
	return wordsNotOptions(keep)
}

// wordsNotOptions are the words of args that are not options: everything after `--`, and
// otherwise words not starting with "-"; the value of a `--name=value` option counts
// when it looks like a path (`--target-directory=/x`).
func wordsNotOptions(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if strings.HasPrefix(a, "--") {
			if _, v, ok := strings.Cut(a, "="); ok && (strings.Contains(v, "/") || strings.HasPrefix(v, "~")) {
				out = append(out, v)
			}
			continue
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		if a != "-" {
			out = append(out, a)
		}
	}
	return out
}

// hasLongOpt reports the long option opt (or a prefix the program takes for it) among
// program's args, before "--".
func hasLongOpt(program string, args []string, opt string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if long, _ := ProgramLong(program, a, opt); long.Is(opt) {
			return true
		}
	}
	return false
}

// editsInPlace reports whether sed or perl arguments edit files in place (-i, -i.bak,
// --in-place, or i inside a cluster of short options such as -pi or -Ei).
func editsInPlace(program string, args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if long, _ := ProgramLong(program, a, "--in-place"); long.Is("--in-place") {
			return true
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			flags := a[1:]
			// -e and -f take the script as their value: stop reading flags there.
			if i := strings.IndexAny(flags, "ef"); i >= 0 {
				flags = flags[:i]
			}
			if strings.Contains(flags, "i") {
				return true
			}
		}
	}
	return false
}

// scriptOptions give sed or awk its script (gawk's --source and --exec too).
var scriptOptions = []string{"--expression", "--file", "--source", "--exec"}

// scriptFileArgs are the file operands of sed, perl or awk: the operands without the
// script, which is the first operand unless -e/-f (or --expression/--file) gave it.
func scriptFileArgs(program string, args []string) []string {
	var out []string
	scriptGiven := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		long, _ := ProgramLong(program, a, scriptOptions...)
		switch {
		case a == "--":
			out = append(out, args[i+1:]...)
			i = len(args)
		case a == "-e" || a == "-f" || long.Is(scriptOptions...) && !long.HasValue:
			scriptGiven = true
			i++ // its value
		case long.Is(scriptOptions...):
			scriptGiven = true
		case strings.HasPrefix(a, "-") && a != "-" && len(a) > 1 && !strings.HasPrefix(a, "--"):
			// A cluster ending in e or f (-ne, -pie) takes the next word as the script.
			if strings.HasSuffix(a, "e") || strings.HasSuffix(a, "f") {
				scriptGiven = true
				i++
			} else if strings.ContainsAny(a[1:], "ef") {
				scriptGiven = true // -e'script' written together
			}
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			out = append(out, a)
		}
	}
	if !scriptGiven && len(out) > 0 {
		out = out[1:]
	}
	return out
}
