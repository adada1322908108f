package permission

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/shell"
)

// IsReadOnly reports whether a command is in the built-in read-only set that runs
// without a rule: it reads and prints, and can neither write a file nor run another
// program, whatever its arguments. A command with an output redirect to a file, a
// wrapper that changes the user (sudo), or an environment variable that changes what
// runs (PATH, GIT_PAGER, ...) is never read-only.
func IsReadOnly(c shell.Command) bool {
	for _, r := range c.Redirects {
		if r.WritesFile() {
			return false
		}
	}
	for _, e := range c.Env {
		name, _, _ := strings.Cut(e, "=")
		if len(c.Argv) == 0 {
			// A bare assignment stays in the shell unless exported; only the variables
			// the shell itself uses matter.
			if shell.RiskyVar(strings.TrimSuffix(name, "+")) {
				return false
			}
		} else if !benignEnv(name) {
			return false
		}
	}
	for _, w := range c.Wrappers {
		if w == "sudo" || w == "doas" {
			return false
		}
	}
	if len(c.Argv) == 0 {
		return true // a bare assignment of a benign variable, or a redirect that only reads
	}
	name := c.Argv[0]
	if strings.Contains(name, "/") {
		// Only the system's own binaries: ./ls could be anything.
		dir, base := path.Split(name)
		if dir != "/bin/" && dir != "/usr/bin/" {
			return false
		}
		name = base
	}
	args := c.Argv[1:]
	// A word only known at run time (or read by xargs) may turn into any option:
	// find $X is find -delete when X=-delete.
	unknownArgs := c.Dynamic || c.StdinArgs
	switch name {
	case "echo", "printf", "printenv", "env":
		if showsSecret(name, args, c.Dynamic) {
			return false
		}
	}
	switch name {
	case "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo", "printf",
		"which", "type", "stat", "du", "df", "diff", "cmp", "cut", "tr", "basename", "dirname",
		"realpath", "readlink", "whoami", "id", "uname", "cd", "true", "false", ":", "test", "[", "nproc", "sleep",
		"exit":
		// None of these has an option that writes a file or runs a program.
		return true
	case "printenv":
		return true
	case "env":
		return len(args) == 0 && !c.StdinArgs
	case "command":
		return len(args) > 0 && (args[0] == "-v" || args[0] == "-V")
	}
	if unknownArgs {
		return false
	}
	switch name {
	case "date":
		return !slices.ContainsFunc(args, func(a string) bool {
			return badLong("date", a, "--set") || (isShortCluster(a) && strings.ContainsRune(a, 's'))
		})
	case "rg":
		// --pre runs a program on every file searched.
		return !slices.ContainsFunc(args, func(a string) bool { return a == "--pre" || strings.HasPrefix(a, "--pre=") })
	case "find":
		return findReadOnly(args)
	case "file":
		// -C compiles a magic file, written to disk.
		return !slices.ContainsFunc(args, func(a string) bool {
			return badLong("file", a, "--compile") || (isShortCluster(a) && strings.ContainsRune(a, 'C'))
		})
	case "sort":
		return sortReadOnly(args)
	case "uniq":
		return uniqReadOnly(args)
	case "tree":
		// -o writes the listing to a file; -R runs tree again in every folder with -o.
		return !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-o") || a == "-R" })
	case "git":
		return gitReadOnly(args) || len(args) == 1 && args[0] == "--version"
	}
	if ro, known := toolReadOnly(name, args); known {
		return ro
	}
	return false
}

// benignEnv lists variables that only change how output looks, never which program
// runs or which files are read and written.
func benignEnv(name string) bool {
	switch name {
	case "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
		"COLUMNS", "LINES", "GREP_COLOR", "GREP_COLORS", "LS_COLORS", "TIME_STYLE", "POSIXLY_CORRECT":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

func isShortCluster(a string) bool { return len(a) > 1 && a[0] == '-' && a[1] != '-' }

func findReadOnly(args []string) bool {
	for _, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls":
			return false
		}
		if strings.HasPrefix(a, "-fprint") {
			return false
		}
	}
	return true
}

// sortReadOnly refuses -o/--output (writes a file) and --compress-program (runs one).
func sortReadOnly(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return true
		}
		if badLong("sort", a, "--output", "--compress-program") {
			return false
		}
		if !isShortCluster(a) {
			continue
		}
		for _, c := range a[1:] {
			if c == 'o' {
				return false
			}
			if strings.ContainsRune("ktST", c) {
				break // the rest of the word is the option's value
			}
		}
	}
	return true
}

// uniqReadOnly refuses a second operand, which uniq writes its output to.
func uniqReadOnly(args []string) bool {
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			n += len(args) - i - 1
			i = len(args)
		case a == "-f" || a == "-s" || a == "-w":
			i++
		case strings.HasPrefix(a, "--"):
			o, _ := shell.ProgramLong("uniq", a)
			if !o.Resolved() {
				return false
			}
			if o.Is("--skip-fields", "--skip-chars", "--check-chars") && !o.HasValue {
				i++
			}
		case len(a) > 1 && a[0] == '-':
		default:
			n++
		}
	}
	return n <= 1
}

// gitReadOnly allows the inspecting subcommands only, with no global option before them
// (git -c core.pager=... runs a program) and no option that writes a file.
func gitReadOnly(args []string) bool {
	for len(args) > 0 && args[0] == "--no-pager" {
		args = args[1:]
	}
	if len(args) == 0 {
		return false
	}
	sub, rest := args[0], args[1:]
	for _, a := range rest {
		if a == "--" {
			break
		}
		// git's parse-options takes an unambiguous prefix for the option (--outp=F is
		// --output=F), and the subcommands' full lists are not kept here: a word that may
		// stand for one of these is refused.
		if o := shell.ResolveLong(a, gitUnsafeOptions, true); o.Match != shell.NotLong && o.Match != shell.LongUnknown ||
			strings.HasPrefix(a, "--exec") || strings.HasPrefix(a, "--upload-pack") {
			return false
		}
	}
	switch sub {
	case "status", "diff", "log", "show", "rev-parse", "ls-files", "blame":
		return true
	case "branch":
		return gitBranchLists(rest)
	case "remote":
		return len(rest) == 0 || (len(rest) == 1 && (rest[0] == "-v" || rest[0] == "--verbose"))
	case "tag":
		return gitTagLists(rest)
	}
	return false
}

// gitBranchLists reports a git branch that only lists: any other option, or a name
// without --list, creates, deletes, moves or configures a branch.
func gitBranchLists(args []string) bool {
	args, ok := gitWholeNames(args, gitBranchOptions)
	if !ok {
		return false
	}
	list := slices.Contains(args, "--list") || slices.Contains(args, "-l")
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasVal := strings.Cut(a, "=")
		switch name {
		case "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
			"--show-current", "--color", "--no-color", "--column", "--no-column", "-i",
			"--ignore-case", "--sort", "--format", "--abbrev", "--no-abbrev", "--omit-empty", "-q", "--quiet":
			continue
		case "--contains", "--no-contains", "--merged", "--no-merged", "--points-at":
			if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
			continue
		}
		if strings.HasPrefix(a, "-") || !list {
			return false
		}
	}
	return true
}

// gitTagLists reports a git tag that only lists.
func gitTagLists(args []string) bool {
	if len(args) == 0 {
		return true
	}
	args, ok := gitWholeNames(args, gitTagOptions)
	if !ok {
		return false
	}
	if !slices.Contains(args, "-l") && !slices.Contains(args, "--list") {
		return false
	}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-d", "--delete", "-f", "--force", "-a", "--annotate", "-s", "--sign", "-u", "--local-user",
			"-m", "--message", "-F", "--file", "-v", "--verify", "-e", "--edit":
			return false
		}
	}
	return true
}

// badLong reports a long option of program that is one of bad, or that cannot be read
// as exactly one of its options (a prefix of several, or of none the table knows): a
// command judged read-only by its options asks then.
func badLong(program, a string, bad ...string) bool {
	o, _ := shell.ProgramLong(program, a, bad...)
	switch o.Match {
	case shell.NotLong:
		return false
	case shell.LongExact, shell.LongAbbrev:
		return slices.Contains(bad, o.Name)
	}
	return true
}

// gitUnsafeOptions are the options of git's inspecting subcommands that write a file or
// run a program.
var gitUnsafeOptions = []string{"--output", "--ext-diff", "--exec", "--exec-path", "--upload-pack"}

// The long options of git branch and git tag (git 2.39's -h, with the negations the
// lists check).
var (
	gitBranchOptions = []string{"--abbrev", "--all", "--color", "--column", "--contains", "--copy", "--create-reflog",
		"--delete", "--edit-description", "--force", "--format", "--ignore-case", "--list", "--merged", "--move",
		"--no-abbrev", "--no-color", "--no-column", "--no-contains", "--no-merged", "--points-at", "--quiet",
		"--recurse-submodules", "--remotes", "--set-upstream-to", "--show-current", "--sort", "--track",
		"--unset-upstream", "--verbose"}
	gitTagOptions = []string{"--annotate", "--cleanup", "--color", "--column", "--contains", "--create-reflog",
		"--delete", "--edit", "--file", "--force", "--format", "--ignore-case", "--list", "--local-user",
		"--merged", "--message", "--no-column", "--no-contains", "--no-merged", "--points-at", "--sign", "--sort",
		"--verify"}
)

// gitWholeNames writes args' long options by their whole names, as git's parse-options
// reads them (--li is --list); ok is false when one stands for no option of names or
// for several. Words after "--" are kept as they are.
func gitWholeNames(args, names []string) (out []string, ok bool) {
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...), true
		}
		o := shell.ResolveLong(a, names, true)
		switch o.Match {
		case shell.NotLong:
			out = append(out, a)
		case shell.LongExact, shell.LongAbbrev:
			if o.HasValue {
				out = append(out, o.Name+"="+o.Value)
			} else {
				out = append(out, o.Name)
			}
		default:
			return nil, false
		}
	}
	return out, true
}

// secretName matches the names of variables that usually hold credentials.
var secretName = regexp.MustCompile(`(?i)(KEY|TOKEN|SECRET|PASS|PWD|CRED|AUTH|PRIVATE|SESSION|COOKIE|SIGNATURE|CERT)`)

// showsSecret reports a command printing a secret-looking variable: printenv or env
// with no operand (every variable), printenv NAME, or echo/printf of $NAME.
func showsSecret(name string, args []string, dynamic bool) bool {
	switch name {
	case "printenv":
		ops := 0
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			ops++
			if secretName.MatchString(a) || strings.ContainsAny(a, "$`") {
				return true
			}
		}
		return ops == 0
	case "env":
		return len(args) == 0
	}
	if !dynamic {
		return false
	}
	for _, a := range args {
		for _, m := range paramName.FindAllStringSubmatch(a, -1) {
			if secretName.MatchString(m[1]) && m[1] != "PWD" && m[1] != "OLDPWD" {
				return true
			}
		}
		if strings.Contains(a, "${!") {
			return true
		}
	}
	return false
}

var paramName = regexp.MustCompile(`\$\{?#?([A-Za-z_][A-Za-z0-9_]*)`)
