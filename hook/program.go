package hook

import (
	"path"
	"regexp"
	"strings"

	"github.com/ouroagent/ouro/shell"
)

// A hook's standard input is the event's JSON, and that JSON holds what the model wrote
// (a tool call's command, a file's content). A hook must never hand it to an interpreter
// as program text: `bash` with no script reads its input as one, so does `python3`,
// `node`, `cat | sh`, `eval "$(cat)"` or `xargs sh -c`. Such a hook is skipped with a
// warning, whatever file configured it; programTaken says why, or "".

// interpreter says how a program that runs code finds it: codeOpts take the code (or a
// module) as their value, valueOpts take some other value, fileOpts take a program file
// as their value; a first operand is a script file, and with none the program reads
// its code from standard input unless needsOperand (awk and sed fail instead).
type interpreter struct {
	codeOpts, valueOpts, fileOpts []string
	needsOperand                  bool
	// stdinFlag is a short option that makes a shell read its commands from its input
	// (bash -s), alone or in a cluster (-xs).
	stdinFlag byte
}

var shells = interpreter{codeOpts: []string{"-c"}, valueOpts: []string{"-o", "-O", "+o", "+O", "--rcfile", "--init-file"}, stdinFlag: 's'}

var interpreters = map[string]interpreter{
	"bash": shells, "sh": shells, "dash": shells, "zsh": shells, "ksh": shells, "mksh": shells,
	"ash": shells, "yash": shells, "posh": shells, "lksh": shells, "rbash": shells, "busybox": shells,
	"fish":       {codeOpts: []string{"-c", "--command"}, valueOpts: []string{"-C", "--init-command"}},
	"python":     {codeOpts: []string{"-c", "-m"}, valueOpts: []string{"-W", "-X", "-Q"}},
	"pypy":       {codeOpts: []string{"-c", "-m"}, valueOpts: []string{"-W", "-X"}},
	"node":       {codeOpts: []string{"-e", "--eval", "-p", "--print"}, valueOpts: []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--env-file", "--title"}},
	"nodejs":     {codeOpts: []string{"-e", "--eval", "-p", "--print"}, valueOpts: []string{"-r", "--require", "--import", "--loader", "-C", "--input-type"}},
	"bun":        {codeOpts: []string{"-e", "--eval", "-p", "--print"}, valueOpts: []string{"-r", "--preload", "--cwd", "--env-file"}},
	"deno":       {codeOpts: []string{"eval"}, valueOpts: []string{"--config", "-c", "--import-map"}},
	"perl":       {codeOpts: []string{"-e", "-E"}, valueOpts: []string{"-I", "-M", "-m", "-x"}},
	"ruby":       {codeOpts: []string{"-e"}, valueOpts: []string{"-I", "-r", "-C", "-E", "-x"}},
	"php":        {codeOpts: []string{"-r", "-B", "-R", "-E"}, valueOpts: []string{"-c", "-d", "-z"}, fileOpts: []string{"-f", "-F"}},
	"lua":        {codeOpts: []string{"-e"}, valueOpts: []string{"-l"}},
	"luajit":     {codeOpts: []string{"-e"}, valueOpts: []string{"-l", "-j", "-O", "-b"}},
	"tclsh":      {},
	"wish":       {},
	"Rscript":    {codeOpts: []string{"-e"}, valueOpts: []string{"--default-packages"}},
	"R":          {codeOpts: []string{"-e"}, fileOpts: []string{"-f", "--file"}},
	"pwsh":       {codeOpts: []string{"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}, valueOpts: []string{"-ExecutionPolicy", "-ex", "-WorkingDirectory", "-wd", "-ConfigurationName"}, fileOpts: []string{"-f", "-File", "-file"}},
	"powershell": {codeOpts: []string{"-c", "-Command", "-command", "-EncodedCommand", "-e", "-ec"}, valueOpts: []string{"-ExecutionPolicy", "-ex"}, fileOpts: []string{"-f", "-File", "-file"}},
	"osascript":  {codeOpts: []string{"-e"}, valueOpts: []string{"-l", "-s"}},
	"awk":        {valueOpts: []string{"-v", "-F"}, fileOpts: []string{"-f", "--file"}, needsOperand: true},
	"gawk":       {valueOpts: []string{"-v", "-F"}, fileOpts: []string{"-f", "--file", "-i", "--include", "-E", "--exec"}, needsOperand: true},
	"mawk":       {valueOpts: []string{"-v", "-F"}, fileOpts: []string{"-f"}, needsOperand: true},
	"nawk":       {valueOpts: []string{"-v", "-F"}, fileOpts: []string{"-f"}, needsOperand: true},
	"sed":        {valueOpts: []string{"-e", "--expression", "-l", "--line-length"}, fileOpts: []string{"-f", "--file"}, needsOperand: true},
}

// versioned strips a version from an interpreter's name: python3.12, node22, perl5.36.
var versioned = regexp.MustCompile(`^([A-Za-z]+?)[0-9][0-9.]*$`)

func interpreterOf(name string) (string, interpreter, bool) {
	base := path.Base(name)
	if in, ok := interpreters[base]; ok {
		return base, in, true
	}
	if m := versioned.FindStringSubmatch(base); m != nil {
		if in, ok := interpreters[m[1]]; ok {
			return base, in, true
		}
	}
	return "", interpreter{}, false
}

// isStdin reports "-" or a path naming standard input (shell.IsStdinPath).
func isStdin(p string) bool { return p == "-" || shell.IsStdinPath(p) }

// ouroVars are the variables ouro itself sets for a hook: a word made of them (a script's
// path under the project or the plugin) is not data from the event.
var ouroVars = regexp.MustCompile(`\$\{?(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|OURO_PROJECT_DIR|HOME)\}?`)

// fromData reports a word whose value is only known when the hook runs, from something
// other than ouro's own variables: it may come from the event's JSON.
func fromData(word string) bool {
	rest := ouroVars.ReplaceAllString(word, "")
	return strings.ContainsAny(rest, "$`") || strings.Contains(rest, "<(")
}

// programFromArgv says why argv takes its program from its standard input or from data,
// or "": stdinKept is false when the command's input is redirected from a file or a
// here-document, so it is not the event's JSON.
func programFromArgv(argv []string, stdinKept, dynamic bool) string {
	if len(argv) == 0 {
		return ""
	}
	// An argv with nothing expanded when it runs (the exec form) holds no data: only its
	// input can be.
	fromData := func(w string) bool { return procSubst(w) || dynamic && fromData(w) }
	if dynamic && fromData(argv[0]) {
		return "its program name is only known when it runs: " + argv[0]
	}
	switch path.Base(argv[0]) {
	case "eval":
		for _, a := range argv[1:] {
			if fromData(a) {
				return "eval runs text only known when it runs: " + a
			}
		}
		return ""
	case "source", ".":
		if len(argv) < 2 || (stdinKept && isStdin(argv[1])) || fromData(argv[1]) {
			return argv[0] + " runs a script read from its input or from data"
		}
		return ""
	}
	name, in, ok := interpreterOf(argv[0])
	if !ok {
		return ""
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		opt, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--":
			i++
			if i < len(argv) {
				return operand(name, argv[i], stdinKept, dynamic)
			}
			return stdinRead(name, in, stdinKept)
		case matches(in.codeOpts, a, opt, hasVal):
			code := val
			if !hasVal || !strings.HasPrefix(a, "--") && a == opt {
				if i+1 >= len(argv) {
					return ""
				}
				code = argv[i+1]
			}
			if name == "pwsh" || name == "powershell" {
				if isStdin(code) && stdinKept {
					return name + " reads its commands from its input, the hook's JSON"
				}
			}
			if fromData(code) {
				return name + " runs code only known when it runs: " + code
			}
			return ""
		case matches(in.fileOpts, a, opt, hasVal):
			file := val
			if !hasVal {
				if i+1 >= len(argv) {
					return ""
				}
				file = argv[i+1]
			}
			return operand(name, file, stdinKept, dynamic)
		case matches(in.valueOpts, a, opt, hasVal):
			if !hasVal {
				i++
			}
		case in.stdinFlag != 0 && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], 'c') >= 0:
			// sh -ec 'code': -c in a cluster of a shell's flags.
			if i+1 < len(argv) && fromData(argv[i+1]) {
				return name + " runs code only known when it runs: " + argv[i+1]
			}
			return ""
		case in.stdinFlag != 0 && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], in.stdinFlag) >= 0:
			// bash -s, sh -xs: commands from standard input.
			if stdinKept {
				return name + " " + a + " reads its commands from its input, the hook's JSON"
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			// Another option, with no value of its own.
		default:
			if in.needsOperand {
				return ""
			}
			if name == "deno" && a == "run" {
				continue
			}
			return operand(name, a, stdinKept, dynamic)
		}
	}
	return stdinRead(name, in, stdinKept)
}

func matches(opts []string, a, opt string, hasVal bool) bool {
	for _, o := range opts {
		if a == o || (hasVal && opt == o && strings.HasPrefix(o, "--")) {
			return true
		}
		// -cCODE, -eCODE: the value attached to a short option.
		if len(o) == 2 && o[0] == '-' && len(a) > 2 && a[:2] == o && a[1] != '-' {
			return true
		}
	}
	return false
}

// operand judges the script file an interpreter was given.
func operand(name, file string, stdinKept, dynamic bool) string {
	switch {
	case isStdin(file) && stdinKept:
		return name + " reads its script from its input, the hook's JSON"
	case procSubst(file) || dynamic && fromData(file):
		return name + " runs a script only known when it runs: " + file
	}
	return ""
}

// procSubst reports a process substitution, <(...) or >(...): a path to a pipe carrying
// what the command inside prints.
func procSubst(w string) bool { return strings.HasPrefix(w, "<(") || strings.HasPrefix(w, ">(") }

func stdinRead(name string, in interpreter, stdinKept bool) string {
	if in.needsOperand || !stdinKept {
		return ""
	}
	return name + " has no script to run, so it would read the hook's JSON input as its program"
}

// programTaken says why a hook would hand its input, or other data, to an interpreter
// as program text, or "". argv is the exec form's command and args; command the shell
// form's line.
func programTaken(command string, argv []string) string {
	if argv != nil {
		return programFromArgv(argv, true, false)
	}
	a := shell.Analyze(command)
	for _, c := range a.Commands {
		stdinKept := true
		for _, r := range c.Redirects {
			switch r.Op {
			case "<", "<<", "<<-", "<<<", "<>":
				if r.Fd == "" || r.Fd == "0" {
					stdinKept = false
				}
			}
		}
		if c.StdinArgs {
			if _, _, ok := interpreterOf(firstOf(c.Argv)); ok {
				return "xargs gives " + firstOf(c.Argv) + " words read from the hook's input"
			}
			for _, w := range c.Wrappers {
				if strings.HasSuffix(w, " -c") || w == "eval" {
					return "xargs puts words read from the hook's input into the program text of " + w
				}
			}
		}
		if why := programFromArgv(c.Argv, stdinKept, c.Dynamic); why != "" {
			return why
		}
	}
	return ""
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
