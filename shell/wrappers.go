package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// optSpec describes the options of a wrapper command, enough to find where the
// command it runs starts.
type optSpec struct {
	short      string   // short options that take a value, attached or as the next word
	shortOpt   string   // short options whose value can only be attached (xargs -i)
	long       []string // long options that take a value (--opt=v or --opt v)
	noCmd      string   // short options after which no command is run (taskset -p)
	noCmdLong  []string // the same for long options
	positional int      // words between the options and the command (timeout's duration)
	// numericPositional makes the positional word optional: taken only when it is a
	// number (chrt's priority).
	numericPositional bool
	assigns           bool // NAME=value words may come before the command (env, sudo)
	dashIsOption      bool // a lone "-" is an option (env's -i)
	builtin           bool // a shell builtin: a wrapper only by its bare name
	// names are all the command's long options ("--chdir"), against which a long option
	// is read as getopt_long reads it (an unambiguous prefix stands for the option);
	// nil for commands without long options.
	names []string
}

var wrapperSpecs = map[string]optSpec{
	"timeout": {short: "sk", long: []string{"signal", "kill-after"}, positional: 1},
	"nice":    {short: "n", long: []string{"adjustment"}},
	"nohup":   {},
	"time":    {short: "fo", long: []string{"format", "output"}},
	"stdbuf":  {short: "ioe", long: []string{"input", "output", "error"}},
	"env": {short: "uCS", long: []string{"unset", "chdir", "split-string"}, assigns: true,
		dashIsOption: true},
	"command": {noCmd: "vV", builtin: true},
	"builtin": {builtin: true},
	"exec":    {short: "a", builtin: true},
	"xargs": {short: "aEdILnPs", shortOpt: "eil",
		long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}},
	"sudo": {short: "CDghpRrTtUu", noCmd: "lvKV", assigns: true,
		long: []string{"user", "group", "host", "prompt", "chdir", "chroot", "role", "type",
			"command-timeout", "other-user", "close-from"},
		noCmdLong: []string{"list", "validate", "remove-timestamp"}},
	"doas": {short: "Cu"},
	"ionice": {short: "cnpPu", noCmd: "pPu", long: []string{"class", "classdata", "pid", "pgid", "uid"},
		noCmdLong: []string{"pid", "pgid", "uid"}},
	"chrt": {short: "TPD", noCmd: "pm", long: []string{"sched-runtime", "sched-period", "sched-deadline"},
		noCmdLong: []string{"pid", "max"}, positional: 1, numericPositional: true},
	"taskset": {noCmd: "p", noCmdLong: []string{"pid"}, positional: 1},
	"setsid":  {},
	"busybox": {},
}

type option struct {
	name string // "-u", "--unset"
	val  string
}

type optStatus int

const (
	optCommand   optStatus = iota // a command starts at the returned index
	optNoCommand                  // the wrapper runs nothing (or only prints)
	optDynamic                    // a word that decides where the command starts is only known at run time
	// optUnresolved: a long option names no option of the command, or more than one;
	// the last option returned is that word.
	optUnresolved
)

// parseOptions reads a wrapper's options from fields[1:] and returns where the command
// it runs starts, with the options and NAME=value assignments seen.
func parseOptions(fields []field, spec optSpec) (opts []option, start int, st optStatus) {
	i := 1
	for ; i < len(fields); i++ {
		f := fields[i]
		if f.dyn || f.proc {
			return opts, i, optDynamic
		}
		a := f.s
		if a == "--" {
			i++
			break
		}
		if a == "-" && spec.dashIsOption {
			opts = append(opts, option{name: "-"})
			continue
		}
		if long, ok := strings.CutPrefix(a, "--"); ok && long != "" {
			name, val, hasVal := strings.Cut(long, "=")
			if spec.names != nil {
				o := ResolveLong(a, spec.names, true)
				if !o.Resolved() {
					return append(opts, option{name: o.Name, val: describeUnresolved(fields[0].s, o)}), i, optUnresolved
				}
				name = strings.TrimPrefix(o.Name, "--")
			}
			if name == "help" || name == "version" || slices.Contains(spec.noCmdLong, name) {
				return opts, i, optNoCommand
			}
			if !hasVal && slices.Contains(spec.long, name) {
				if i+1 >= len(fields) {
					return opts, i, optNoCommand
				}
				i++
				if fields[i].dyn {
					return opts, i, optDynamic
				}
				val = fields[i].s
			}
			opts = append(opts, option{name: "--" + name, val: val})
			continue
		}
		if len(a) > 1 && a[0] == '-' {
			for j := 1; j < len(a); j++ {
				c := a[j]
				if strings.IndexByte(spec.noCmd, c) >= 0 {
					return opts, i, optNoCommand
				}
				if strings.IndexByte(spec.short, c) >= 0 {
					val := a[j+1:]
					if val == "" {
						if i+1 >= len(fields) {
							return opts, i, optNoCommand
						}
						i++
						if fields[i].dyn {
							return opts, i, optDynamic
						}
						val = fields[i].s
					}
					opts = append(opts, option{name: "-" + string(c), val: val})
					break
				}
				if strings.IndexByte(spec.shortOpt, c) >= 0 {
					opts = append(opts, option{name: "-" + string(c), val: a[j+1:]})
					break
				}
				opts = append(opts, option{name: "-" + string(c)})
			}
			continue
		}
		if spec.assigns && isAssignWord(a) {
			opts = append(opts, option{name: "=", val: a})
			continue
		}
		break
	}
	if spec.assigns {
		for i < len(fields) && !fields[i].dyn && isAssignWord(fields[i].s) {
			opts = append(opts, option{name: "=", val: fields[i].s})
			i++
		}
	}
	for k := 0; k < spec.positional && i < len(fields); k++ {
		if fields[i].dyn || fields[i].proc {
			return opts, i, optDynamic
		}
		if spec.numericPositional && !isNumber(fields[i].s) {
			break
		}
		i++
	}
	if i >= len(fields) {
		return opts, i, optNoCommand
	}
	return opts, i, optCommand
}

func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && syntax.ValidName(name)
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// unwrap strips the wrappers in front of a command (sudo timeout 5 env X=1 rm ...),
// recording them and what they add (assignments, xargs' extra arguments, time -o's
// output file, env -C's directory) in cmd. It returns the command's own words and the
// scope it runs in.
func (w *walker) unwrap(fields []field, cmd *Command, sc *scope) ([]field, *scope) {
	for n := 0; ; n++ {
		f := fields[0]
		if f.dyn || f.glob || f.proc {
			return fields, sc
		}
		base := path.Base(f.s)
		spec, ok := wrapperSpecs[base]
		if !ok || (spec.builtin && f.s != base) {
			return fields, sc
		}
		if n >= maxWrappers {
			w.ask("the command has more than %d wrappers", maxWrappers)
			return fields, sc
		}
		spec.names = longOptionTables[base].names
		opts, start, st := parseOptions(fields, spec)
		if base == "env" && st != optDynamic && st != optUnresolved {
			if i := slices.IndexFunc(opts, func(o option) bool { return o.name == "-S" || o.name == "--split-string" }); i >= 0 {
				split, ok := w.splitString(opts[i].val)
				if !ok {
					w.ask("env -S splits a string the analyser cannot read: %q", opts[i].val)
					return fields, sc
				}
				// The split words take the place of -S and its string: read env's
				// arguments again.
				fields = append(append([]field{f}, split...), fields[start:]...)
				continue
			}
		}
		switch st {
		case optDynamic:
			w.ask("the command run by %s is only known at run time", base)
			return fields, sc
		case optUnresolved:
			w.ask("%s", opts[len(opts)-1].val)
			return fields, sc
		case optNoCommand:
			if base == "xargs" {
				xargsFile(opts, cmd)
				// xargs without a command runs echo with the words it reads.
				cmd.Wrappers = append(cmd.Wrappers, base)
				cmd.StdinArgs = true
				return []field{{s: "echo"}}, sc
			}
			return fields, sc
		}
		rest := fields[start:]
		var assigns []string
		for _, o := range opts {
			switch {
			case o.name == "=":
				assigns = append(assigns, o.val)
			case base == "env" && (o.name == "-C" || o.name == "--chdir"),
				base == "sudo" && (o.name == "-D" || o.name == "--chdir"):
				sc = withDir(sc, sc.dir.moved(o.val))
			case base == "sudo" && (o.name == "-i" || o.name == "--login"):
				sc = withDir(sc, unknownDir()) // the target user's home
			case base == "sudo" && (o.name == "-e" || o.name == "--edit"):
				cmd.Wrappers = append(cmd.Wrappers, base)
				cmd.Env = append(cmd.Env, assigns...)
				return append([]field{{s: "sudoedit"}}, rest...), sc
			case base == "time" && (o.name == "-o" || o.name == "--output"):
				op := ">"
				if hasOption(opts, "-a", "--append") {
					op = ">>"
				}
				cmd.Redirects = append(append([]Redirect(nil), cmd.Redirects...), Redirect{Op: op, Target: o.val})
			}
		}
		w.riskyAssigns(assigns, " with "+base)
		cmd.Wrappers = append(cmd.Wrappers, base)
		cmd.Env = append(cmd.Env, assigns...)
		if base == "xargs" {
			cmd.StdinArgs = true
			xargsFile(opts, cmd)
		}
		fields = rest
	}
}

func hasOption(opts []option, names ...string) bool {
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}

// splitString splits env -S's string into words with shell quoting rules.
func (w *walker) splitString(s string) (out []field, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			out, ok = nil, false // a parser bug: the caller asks
		}
	}()
	sc := &scope{src: s, dir: startDir()}
	failed := false
	// The loop never stops early, as with StmtsSeq (see stmtsBeforeError).
	for word, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).WordsSeq(strings.NewReader(s)) {
		if err != nil || word == nil {
			failed = true
			continue
		}
		if !failed && len(out) < maxFields {
			out = append(out, w.expand(word, sc)...)
		}
	}
	return out, !failed && len(out) > 0 && len(out) <= maxFields
}

// xargsFile records xargs -a FILE, whose words xargs reads instead of its input, as an
// input redirection of the command: the file is read.
func xargsFile(opts []option, cmd *Command) {
	for _, o := range opts {
		if o.name == "-a" || o.name == "--arg-file" {
			cmd.Redirects = append(append([]Redirect(nil), cmd.Redirects...), Redirect{Op: "<", Target: o.val, Dynamic: holdsExpansion(o.val)})
		}
	}
}
