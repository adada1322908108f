package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellNames are the shells whose -c string, or script read from stdin, is parsed in turn.
var shellNames = map[string]bool{
	"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "lksh": true, "rbash": true,
}

// shell handles bash/sh/zsh...: with -c its string is parsed in turn; without a script
// it reads commands from its input, parsed when that is a here-document. It reports
// false when the shell is an ordinary command (it runs a script file).
func (w *walker) shell(fields []field, cmd Command, sc *scope, s *syntax.Stmt) bool {
	sh := path.Base(fields[0].s)
	cflag, sflag := false, false
	i := 1
	for ; i < len(fields); i++ {
		f := fields[i]
		if f.dyn && cflag {
			break // the string to run
		}
		if f.dyn {
			w.ask("the options of %s are only known at run time", sh)
			w.emit(cmd, sc)
			return true
		}
		a := f.s
		if a == "--" || a == "-" {
			i++
			break
		}
		if strings.HasPrefix(a, "--") {
			if a == "--rcfile" || a == "--init-file" {
				i++
			}
			continue
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			for _, c := range a[1:] {
				switch c {
				case 'c':
					cflag = cflag || a[0] == '-'
				case 's':
					sflag = sflag || a[0] == '-'
				case 'o', 'O':
					i++
				}
			}
			continue
		}
		break
	}
	if cflag {
		if i >= len(fields) {
			return false // bash -c without a string: an error, nothing runs
		}
		str := fields[i]
		if str.dyn || str.proc {
			w.ask("%s -c runs a string only known at run time: %s", sh, str.s)
			w.emit(cmd, sc)
			return true
		}
		if i+1 < len(fields) {
			w.shellArgs++
			defer func() { w.shellArgs-- }()
		}
		w.parseAndWalk(str.s, w.stringScope(cmd, sh+" -c", sc), sc.depth+1)
		return true
	}
	if !sflag && i < len(fields) && !IsStdinPath(fields[i].s) {
		return false // bash script.sh: an ordinary command, judged by the rules
	}
	// No script, -s or /dev/stdin: the shell reads its commands from standard input.
	w.stdinScript(sh, cmd, sc, s)
	return true
}

// IsStdinPath reports a path that names the standard input of the process opening it.
func IsStdinPath(p string) bool {
	switch p {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// stdinScript handles a shell (or source) that reads the commands it runs from its
// standard input: a here-document or here-string is parsed in turn; anything else is
// not known statically and asks.
func (w *walker) stdinScript(via string, cmd Command, sc *scope, s *syntax.Stmt) {
	if s != nil {
		for _, r := range s.Redirs {
			if r == nil {
				continue
			}
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				body, dyn := w.heredocBody(r, sc)
				if dyn {
					w.ask("%s reads a script with parts only known at run time from a here-document", via)
				}
				w.parseAndWalk(body, w.stringScope(cmd, via, sc), sc.depth+1)
				return
			case syntax.WordHdoc:
				f := w.joinFields(w.expand(r.Word, sc))
				if f.dyn {
					w.ask("%s reads a script with parts only known at run time from a here-string", via)
				}
				w.parseAndWalk(f.s, w.stringScope(cmd, via, sc), sc.depth+1)
				return
			case syntax.RdrIn:
				if r.Word != nil {
					w.emit(cmd, sc) // bash < script.sh: like bash script.sh
					return
				}
			}
		}
	}
	w.ask("%s reads the commands to run from its standard input, which is not known statically", via)
	w.emit(cmd, sc)
}

// heredocBody is the text of a here-document as the command will read it.
func (w *walker) heredocBody(r *syntax.Redirect, sc *scope) (string, bool) {
	if r.Hdoc == nil {
		return "", false
	}
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			switch p := p.(type) {
			case *syntax.SglQuoted, *syntax.DblQuoted:
				quoted = true
			case *syntax.Lit:
				quoted = quoted || strings.Contains(p.Value, "\\")
			}
		}
	}
	if quoted {
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			} else {
				b.WriteString(nodeText(p, sc.src))
			}
		}
		return b.String(), false
	}
	fs, over := w.expandParts(r.Hdoc.Parts, true, sc)
	if over || len(fs) == 0 {
		return nodeText(r.Hdoc, sc.src), true
	}
	f := w.joinFields(fs)
	return f.s, f.dyn || f.proc
}

// watch runs its arguments joined by spaces through sh -c, again and again (or, with
// -x, as a command).
func (w *walker) watch(fields []field, cmd Command, sc *scope) bool {
	opts, start, st := parseOptions(fields, optSpec{short: "dnq", long: []string{"interval", "differences", "equexit"},
		names: longOptionTables["watch"].names})
	if st == optDynamic {
		w.ask("the command run by watch is only known at run time")
		return false
	}
	if st == optUnresolved {
		w.ask("%s", opts[len(opts)-1].val)
		return false
	}
	if st == optNoCommand {
		return false
	}
	for _, o := range opts {
		if o.name == "-x" || o.name == "--exec" {
			w.command(fields[start:], nil, cmd.Text, w.stringScope(cmd, "watch", sc), nil)
			return true
		}
	}
	str, dyn := joinStatic(fields[start:])
	if dyn {
		w.ask("watch runs a string only known at run time")
	}
	w.parseAndWalk(str, w.stringScope(cmd, "watch", sc), sc.depth+1)
	return true
}

// findExec records the commands find runs for -exec, -execdir, -ok and -okdir, with
// "{}" standing for the found path.
func (w *walker) findExec(fields []field, cmd Command, sc *scope) {
	for i := 1; i < len(fields); i++ {
		switch fields[i].s {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		via := "find " + fields[i].s
		j := i + 1
		for j < len(fields) && fields[j].s != ";" && fields[j].s != "+" {
			j++
		}
		if j > i+1 {
			inner := w.stringScope(cmd, via, sc)
			if strings.HasSuffix(via, "dir") {
				inner.dir = unknownDir() // run in the folder of each match
			}
			w.command(append([]field(nil), fields[i+1:j]...), nil, cmd.Text, inner, nil)
		}
		i = j
	}
}

// changeDir follows cd, pushd and popd in d, the shell's folders. A cd that fails
// leaves the shell where it was, and the line goes on.
func (w *walker) changeDir(fields []field, d *dirState) flow {
	if fields[0].s == "popd" {
		d.set(unknownDir())
		return plain(d)
	}
	var target *field
	for _, f := range fields[1:] {
		if f.s == "--" {
			continue
		}
		if strings.HasPrefix(f.s, "-") && f.s != "-" && !f.dyn {
			continue // -P, -L, -e, -@
		}
		f := f
		target = &f
		break
	}
	t := "~" // cd alone goes home
	switch {
	case target == nil && fields[0].s == "pushd":
		t = "" // swaps the top two folders of the stack
	case target == nil:
	case target.dyn || target.glob || target.proc || target.s == "-" || strings.HasPrefix(target.s, "+"):
		t = ""
	default:
		t = target.s
	}
	if t == "" {
		f := flow{succ: unknownDir(), fail: d.copy()}
		d.set(unknownDir())
		return f
	}
	f := flow{succ: d.moved(t), fail: d.copy()}
	d.set(union(f.succ, f.fail))
	return f
}

// commandOption handles commands that run a string through a shell given with -c (su,
// runuser, script, flock), or, for flock, the command after the lock file. What they
// run is analysed; the command itself is recorded too, since it does more (switches
// user, writes a typescript, creates the lock file).
func (w *walker) commandOption(fields []field, cmd Command, sc *scope) {
	via := path.Base(fields[0].s)
	for i := 1; i < len(fields); i++ {
		a := fields[i].s
		if fields[i].dyn {
			continue
		}
		if a == "--" {
			if via == "runuser" && i+1 < len(fields) {
				// runuser -u user -- command args
				w.command(fields[i+1:], nil, cmd.Text, w.stringScope(cmd, via, sc), nil)
				return
			}
			break
		}
		var str *field
		long, _ := ProgramLong(via, a, "--command", "--session-command")
		switch {
		case long.Is("--command", "--session-command") && long.Match == LongAmbiguous:
			w.ask("%s", describeUnresolved(via, long))
			return
		case long.Is("--command", "--session-command") && long.HasValue:
			str = &field{s: long.Value}
		case long.Is("--command", "--session-command") ||
			(len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c")):
			if i+1 < len(fields) {
				str = &fields[i+1]
			}
		case strings.HasPrefix(a, "-c") && len(a) > 2 && via != "script":
			str = &field{s: a[2:]}
		}
		if str == nil {
			continue
		}
		if str.dyn || str.proc {
			w.ask("%s -c runs a string only known at run time: %s", via, str.s)
			return
		}
		w.parseAndWalk(str.s, w.stringScope(cmd, via+" -c", sc), sc.depth+1)
		return
	}
	if via != "flock" {
		return
	}
	// flock [options] file command [args]
	opts, start, st := parseOptions(fields, optSpec{short: "wE", long: []string{"timeout", "wait", "conflict-exit-code"}, positional: 1,
		names: longOptionTables["flock"].names})
	switch st {
	case optUnresolved:
		w.ask("%s", opts[len(opts)-1].val)
		return
	case optDynamic:
		w.ask("the command run by flock is only known at run time")
	case optCommand:
		w.command(fields[start:], nil, cmd.Text, w.stringScope(cmd, via, sc), nil)
	}
}

// shellState asks about builtins that change what later commands run without an
// assignment the parser sees: printf -v PATH, read IFS, hash -p, enable -f.
func (w *walker) shellState(fields []field) {
	name := fields[0].s
	args := fields[1:]
	switch name {
	case "hash":
		if slices.ContainsFunc(args, func(f field) bool { return f.s == "-p" || (isShortCluster(f.s) && strings.Contains(f.s, "p")) }) {
			w.ask("hash -p changes which program a command name runs")
		}
		return
	case "enable":
		if slices.ContainsFunc(args, func(f field) bool { return strings.HasPrefix(f.s, "-f") }) {
			w.ask("enable -f loads a builtin from a shared library")
		}
		return
	}
	var names []string
	for i, f := range args {
		switch {
		case name == "printf" && f.s == "-v" && i+1 < len(args):
			names = append(names, args[i+1].s+"=")
		case name == "printf" && strings.HasPrefix(f.s, "-v") && len(f.s) > 2:
			names = append(names, f.s[2:]+"=")
		case name != "printf":
			names = append(names, f.s+"=") // read, mapfile, getopts: the variables they set
		}
	}
	w.riskyAssigns(names, " with "+name)
}

func isShortCluster(a string) bool { return len(a) > 1 && a[0] == '-' && a[1] != '-' }
