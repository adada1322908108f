package permission

import (
	"slices"
	"strings"
)

// Inspection commands with a program or options that could write or run something,
// read-only when they are used to inspect: sed -n '1,10p', awk '{print $1}', jq,
// go list/env/version, gofmt -l/-d, a tool's --version. Each is read-only only in the
// plainly harmless forms below; any other form is asked about as before.

// toolReadOnly reports whether argv (with no word only known at run time) is one of
// those forms; known is false for a command this file does not judge.
func toolReadOnly(name string, args []string) (readOnly, known bool) {
	switch name {
	case "sed", "gsed":
		return sedReadOnly(args), true
	case "awk", "gawk", "mawk", "nawk":
		return awkReadOnly(args), true
	case "jq":
		return jqReadOnly(args), true
	case "go":
		return goReadOnly(args), true
	case "gofmt":
		return gofmtReadOnly(args), true
	case "nl", "tac", "od", "strings", "hexdump":
		return true, true // print what they read; no option writes or runs
	case "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum":
		// --check reads the files a list names, which the read judgement does not see.
		return !slices.ContainsFunc(args, func(a string) bool {
			return a == "--check" || strings.HasPrefix(a, "--c") || isShortCluster(a) && strings.ContainsRune(a, 'c')
		}), true
	case "xxd":
		// A second operand is written, and -r turns a dump back into a file.
		n := 0
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				n++
			}
		}
		return n <= 1 && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-r") }), true
	}
	if vs, ok := versionFlags[name]; ok {
		return len(args) == 1 && isOneOf(args[0], vs), true
	}
	return false, false
}

// versionFlags are the flags that make a tool print its version and exit, before it
// loads any code of the project.
var versionFlags = map[string][]string{
	"node": {"--version", "-v"}, "npm": {"--version", "-v"}, "npx": {"--version"}, "pnpm": {"--version"},
	"yarn": {"--version"}, "deno": {"--version"}, "bun": {"--version"},
	"python": {"--version", "-V"}, "python3": {"--version", "-V"}, "pip": {"--version"}, "pip3": {"--version"},
	"ruby": {"--version", "-v"}, "rustc": {"--version", "-V"}, "cargo": {"--version", "-V"},
	"java": {"--version", "-version"}, "javac": {"--version", "-version"}, "gcc": {"--version"}, "cc": {"--version"},
	"clang": {"--version"}, "make": {"--version"}, "cmake": {"--version"}, "docker": {"--version"},
	"kubectl": {"version"}, "terraform": {"version", "--version"}, "perl": {"--version", "-v"}, "php": {"--version", "-v"},
	"dotnet": {"--version"}, "swift": {"--version"}, "zig": {"version"}, "gh": {"--version"}, "rg": {"--version"},
	"jq": {"--version"}, "git": {"--version"}, "bash": {"--version"}, "zsh": {"--version"},
}

// sedReadOnly: no -i (in place), no script file, no --follow-symlinks writing, and every
// script made only of commands that print or move through the input (no w, W, r, R, e,
// and no s///w or s///e).
func sedReadOnly(args []string) bool {
	var scripts []string
	explicit := false
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands += len(args) - i - 1
			i = len(args)
		case a == "-e" || a == "--expression":
			if i+1 >= len(args) {
				return false
			}
			scripts, explicit = append(scripts, args[i+1]), true
			i++
		case strings.HasPrefix(a, "--expression="):
			scripts, explicit = append(scripts, strings.TrimPrefix(a, "--expression=")), true
		case strings.HasPrefix(a, "--"):
			o := strings.SplitN(a, "=", 2)[0]
			if !isOneOf(o, []string{"--quiet", "--silent", "--regexp-extended", "--null-data", "--separate",
				"--posix", "--debug", "--unbuffered", "--sandbox", "--line-length"}) {
				return false // --in-place, --file, and any prefix of another option
			}
		case isShortCluster(a):
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'n', 'E', 'r', 's', 'z', 'u':
				case 'e':
					rest := a[j+1:]
					if rest == "" {
						if i+1 >= len(args) {
							return false
						}
						i++
						rest = args[i]
					}
					scripts, explicit = append(scripts, rest), true
					j = len(a)
				case 'l': // -l N: a line length
					if j == len(a)-1 {
						i++
					}
					j = len(a)
				default:
					return false // -i, -f, and anything else
				}
			}
		default:
			operands++
			if !explicit && len(scripts) == 0 {
				scripts = append(scripts, a)
				operands--
			}
		}
	}
	if len(scripts) == 0 {
		return false
	}
	for _, s := range scripts {
		if !sedScriptReadOnly(s) {
			return false
		}
	}
	return true
}

// sedScriptReadOnly reads a sed script of addresses and the commands p P = l q Q d D
// n N g G h H x z F y and s (whose flags are only g p i I m M and numbers), separated by
// ";" or newlines, with "!" and blocks in braces.
func sedScriptReadOnly(s string) bool {
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';') {
			i++
		}
	}
	// delimited skips a delimited text starting at s[i] (the delimiter), with
	// backslash escapes; it reports whether the text ended.
	delimited := func() bool {
		d := s[i]
		if d == '\\' || d == '\n' {
			return false
		}
		for i++; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case d:
				i++
				return true
			case '\n':
				return false
			}
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '/':
			if !delimited() {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < len(s) && s[i] == '\\':
			i++
			if !delimited() {
				return false
			}
		}
		return true
	}
	for skipSpace(); i < len(s); skipSpace() {
		if s[i] == '}' {
			i++
			continue
		}
		if !address() {
			return false
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				return false
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return false
		}
		c := s[i]
		i++
		switch c {
		case '{':
		case 'p', 'P', '=', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', 'z', 'F':
		case 'l', 'q', 'Q':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case 's', 'y': // s/re/text/flags, y/abc/xyz/: two texts sharing a delimiter
			if i >= len(s) {
				return false
			}
			d := i
			if !delimited() {
				return false
			}
			i--
			if s[i] != s[d] || !delimited() {
				return false
			}
			for c == 's' && i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
		default:
			return false // w W r R e a i c b t T v :label and anything unknown
		}
		if i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// awkReadOnly: a program given on the line (not -f), with no way to run a command,
// write a file or load code: no system(), no pipes ("cmd" | getline, print | "cmd"), no
// output redirection (print > "f"), no getline from a file, no @load/@include, no
// -f/-i/-l/-E and their long forms.
func awkReadOnly(args []string) bool {
	program := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-v" || a == "-F":
			i++
		case strings.HasPrefix(a, "-v") || strings.HasPrefix(a, "-F"):
		case a == "--":
			if i+1 < len(args) {
				program = args[i+1]
			}
			i = len(args)
		case strings.HasPrefix(a, "-"):
			return false // -f, -i, -l, -E, --exec, --load, --include, --source and the rest
		default:
			program = a
			i = len(args)
		}
	}
	if program == "" {
		return false
	}
	p := strings.ReplaceAll(program, ">=", "")
	for _, bad := range []string{"system", "|", ">", "getline", "@", "ENVIRON", "PROCINFO", "close", "fflush"} {
		if strings.Contains(p, bad) {
			return false
		}
	}
	return true
}

// jqReadOnly: jq reads and prints; it neither writes nor runs. --rawfile and
// --slurpfile read a file given as their second value, which the read judgement does
// not see, so they are left to ask.
func jqReadOnly(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--rawfile") || strings.HasPrefix(a, "--slurpfile") || strings.HasPrefix(a, "-L") ||
			strings.HasPrefix(a, "--library-path") {
			return false
		}
	}
	return true
}

// goReadOnly: go version (no operands), go env (no -w, -u), go list with the flags of
// plain listing. The go command reads its flags with the flag package, so --w is -w.
func goReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	flag := func(a string) string {
		a = strings.TrimPrefix(a, "-")
		a = strings.TrimPrefix(a, "-")
		name, _, _ := strings.Cut(a, "=")
		return name
	}
	switch args[0] {
	case "version":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") || !isOneOf(flag(a), []string{"m", "v", "json"}) {
				return false
			}
		}
		return true
	case "env":
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") && !isOneOf(flag(a), []string{"json", "changed"}) {
				return false // -w, -u write the go env file
			}
		}
		return true
	case "list":
		rest := args[1:]
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			if a == "--" {
				break
			}
			if !strings.HasPrefix(a, "-") {
				continue
			}
			f := flag(a)
			switch {
			case isOneOf(f, []string{"json", "m", "e", "deps", "test", "find", "u", "versions", "retracted", "race", "buildvcs"}):
			case isOneOf(f, []string{"f", "tags"}):
				if !strings.Contains(a, "=") {
					i++
				}
			case f == "mod":
				v := ""
				if _, val, ok := strings.Cut(a, "="); ok {
					v = val
				} else if i+1 < len(rest) {
					i++
					v = rest[i]
				}
				if v != "readonly" && v != "vendor" {
					return false // -mod=mod rewrites go.mod
				}
			default:
				return false // -export and -compiled build, -toolexec runs, -C and -modfile move
			}
		}
		return true
	}
	return false
}

// gofmtReadOnly: gofmt without -w (writes the files) and without -cpuprofile (writes a
// profile); -r only prints the rewrite it would make.
func gofmtReadOnly(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		f := strings.TrimLeft(a, "-")
		if !isOneOf(f, []string{"l", "d", "e", "s"}) {
			return false
		}
	}
	return true
}
