package shell

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call analyses one simple command: its assignments, its words, the wrappers in front
// of it and what it runs in turn.
// It returns where the shell may be after it (see stmt).
func (w *walker) call(c *syntax.CallExpr, s *syntax.Stmt, sc *scope) flow {
	var env []string
	for _, as := range c.Assigns {
		if as == nil {
			continue
		}
		w.nested(as, sc)
		w.assignValues(as, sc)
		env = append(env, w.assignText(as, sc))
	}
	var fields []field
	for _, a := range c.Args {
		if a == nil {
			continue
		}
		w.nested(a, sc)
		fields = append(fields, w.expand(a, sc)...)
	}
	text := w.text(s, sc)
	if len(fields) == 0 {
		// A bare assignment changes the shell itself: PATH or IFS change what the rest
		// of the line runs.
		w.riskyAssigns(env, "")
		w.emit(Command{Env: env, Redirects: sc.redirs, Text: text}, sc)
		return plain(sc.dir)
	}
	w.riskyAssigns(env, "")
	return w.command(fields, env, text, sc, s)
}

// riskyVars are the variables that change which program runs or how the shell reads
// what follows.
var riskyVars = map[string]bool{
	"PATH": true, "IFS": true, "HOME": true, "BASH_ENV": true, "ENV": true, "CDPATH": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PROMPT_COMMAND": true, "PS4": true,
	"GLOBIGNORE": true, "BASH_XTRACEFD": true,
}

// RiskyVar reports a shell variable whose value changes which program a command name
// runs or how the shell reads what follows (PATH, IFS, BASH_ENV, LD_*, ...). The
// analysis asks about every assignment of one.
func RiskyVar(name string) bool {
	return riskyVars[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") ||
		strings.HasPrefix(name, "BASH_FUNC_")
}

func (w *walker) riskyAssigns(env []string, via string) {
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		name = strings.TrimSuffix(name, "+")
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if RiskyVar(name) {
			w.ask("the command sets %s%s, which changes what later commands run", name, via)
		}
	}
}

// assignText is NAME=value (or NAME+=value) with the value statically expanded.
func (w *walker) assignText(as *syntax.Assign, sc *scope) string {
	if as.Name == nil {
		if as.Value != nil {
			return w.joinFields(w.expand(as.Value, sc)).s
		}
		return ""
	}
	name := as.Name.Value
	if as.Index != nil {
		name += "[" + nodeText(as.Index, sc.src) + "]"
	}
	op := "="
	if as.Append {
		op = "+="
	}
	switch {
	case as.Array != nil:
		return name + op + nodeText(as.Array, sc.src)
	case as.Value != nil:
		return name + op + w.joinFields(w.expand(as.Value, sc)).s
	case as.Naked:
		return name
	}
	return name + op
}

// decl handles export, declare, local, readonly, typeset: a builtin whose arguments
// are assignments.
func (w *walker) decl(c *syntax.DeclClause, s *syntax.Stmt, sc *scope) {
	variant := "declare"
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	w.declNames(c, sc)
	argv := []string{variant}
	var assigns []string
	dyn := false
	for _, as := range c.Args {
		if as == nil {
			continue
		}
		w.nested(as, sc)
		t := w.assignText(as, sc)
		argv = append(argv, t)
		if as.Name != nil && !as.Naked {
			assigns = append(assigns, t)
		}
		if as.Value != nil && w.joinFields(w.expand(as.Value, sc)).dyn {
			dyn = true
		}
	}
	w.riskyAssigns(assigns, " with "+variant)
	w.emit(Command{Argv: argv, Redirects: sc.redirs, Text: w.text(s, sc), Dynamic: dyn}, sc)
}

// command analyses the words of a simple command: wrappers are stripped, shells and
// eval parse their strings in turn, and what is left is recorded. It returns where the
// shell may be after it (see stmt).
func (w *walker) command(fields []field, env []string, text string, sc *scope, s *syntax.Stmt) flow {
	cmd := Command{Env: env, Text: text, Redirects: sc.redirs}
	shellDir := sc.dir // the shell's own folder, whatever env -C gives the command
	fields, sc = w.unwrap(fields, &cmd, sc)
	name := fields[0]
	cmd.Argv = make([]string, len(fields))
	ended := false // a literal "--" ends the options
	for i, f := range fields {
		cmd.Argv[i] = f.s
		if f.dyn {
			cmd.Dynamic = true
		}
		switch {
		case i == 0 || ended:
		case f.s == "--" && !f.dyn && !f.glob:
			ended = true
		case i > 1 && !f.split && inertValue(fields[0].s, fields[i-1]):
			// The value of an option that takes one (go test -run "$T", git commit -m
			// "$(cat msg)"): the program reads it as that value, never as an option.
		case f.optionLike():
			cmd.OptionWords = append(cmd.OptionWords, loopOptionWords(f, sc)...)
		}
	}
	switch {
	case name.dyn || name.proc:
		w.ask("the command name is only known at run time: %s", name.s)
	case name.glob:
		w.ask("the command name is a glob pattern expanded at run time: %s", name.s)
	case name.s == "":
		w.ask("the command name is empty")
	}
	callee := name.s
	if n := len(w.funcs); n > 0 && (name.s == "$FUNCNAME" || name.s == "${FUNCNAME[0]}") {
		callee = w.funcs[n-1].Name // a function calling itself by its variable
	}
	w.calledName(callee)
	if name.dyn || name.glob || name.proc {
		w.emit(cmd, sc)
		return plain(shellDir)
	}
	base := path.Base(name.s)
	switch {
	case shellNames[base]:
		if w.shell(fields, cmd, sc, s) {
			return plain(shellDir)
		}
	case base == "eval" && name.s == "eval":
		w.ask("eval runs a string as a command")
		if len(fields) > 1 {
			str, dyn := joinStatic(fields[1:])
			if dyn {
				w.ask("eval runs a string only known at run time")
			}
			w.parseAndWalk(str, w.stringScope(cmd, "eval", sc), sc.depth+1)
			return plain(shellDir)
		}
	case (base == "source" || base == ".") && name.s == base:
		if len(fields) > 1 && (fields[1].dyn || fields[1].glob || fields[1].proc) {
			w.ask("%s of a file only known at run time: %s", base, fields[1].s)
		}
		if len(fields) > 1 && IsStdinPath(fields[1].s) {
			w.stdinScript(base, cmd, sc, s)
			shellDir.set(unknownDir())
			return plain(shellDir)
		}
	case base == "su" || base == "runuser" || base == "script" || base == "flock":
		w.commandOption(fields, cmd, sc)
	case name.s == "printf" || name.s == "read" || name.s == "mapfile" || name.s == "readarray" ||
		name.s == "getopts" || name.s == "hash" || name.s == "enable":
		w.shellState(fields)
		w.nameBuiltins(fields, text)
	case name.s == "test" || name.s == "[" || name.s == "unset" || name.s == "wait":
		w.nameBuiltins(fields, text)
	case base == "trap" && name.s == "trap":
		if len(fields) > 2 && !strings.HasPrefix(fields[1].s, "-") {
			if fields[1].dyn {
				w.ask("trap runs a string only known at run time")
			}
			w.parseAndWalk(fields[1].s, w.stringScope(cmd, "trap", sc), sc.depth+1)
		}
	case base == "alias" && name.s == "alias":
		for _, f := range fields[1:] {
			if _, val, ok := strings.Cut(f.s, "="); ok {
				if f.dyn {
					w.ask("alias defines a command only known at run time")
				}
				w.parseAndWalk(val, w.stringScope(cmd, "alias", sc), sc.depth+1)
			}
		}
	case base == "watch":
		if w.watch(fields, cmd, sc) {
			return plain(shellDir)
		}
	case base == "find":
		w.findExec(fields, cmd, sc)
	}
	w.emit(cmd, sc)
	inShell := len(cmd.Wrappers) == 0 || cmd.Wrappers[len(cmd.Wrappers)-1] == "builtin" ||
		cmd.Wrappers[len(cmd.Wrappers)-1] == "command"
	switch {
	case !inShell:
		// env cd, sudo cd: another process, the shell stays where it is.
	case name.s == "cd" || name.s == "pushd" || name.s == "popd":
		return w.changeDir(fields, shellDir)
	case name.s == "exit":
		// Nothing after it runs in this shell.
		shellDir.set(&dirState{})
		return flow{succ: &dirState{}, fail: &dirState{}}
	case name.s == "source" || name.s == ".":
		// The script may cd anywhere.
		shellDir.set(unknownDir())
	default:
		for _, f := range w.defined {
			if f.Name == name.s && f.movesDir {
				shellDir.set(unknownDir())
			}
		}
	}
	return plain(shellDir)
}

// stringScope is the scope of a string a command parses in turn (bash -c, eval): it
// keeps the command's wrappers, environment and redirections.
func (w *walker) stringScope(cmd Command, via string, sc *scope) *scope {
	inner := &scope{
		// cmd.Redirects already holds those of the scope; wrappers and environment are
		// added by emit, so the scope's come first here.
		redirs:    cmd.Redirects,
		wrappers:  append(append(append([]string(nil), sc.wrappers...), cmd.Wrappers...), via),
		env:       append(append([]string(nil), sc.env...), cmd.Env...),
		stdinArgs: sc.stdinArgs || cmd.StdinArgs,
		dir:       sc.dir,
		depth:     sc.depth,
		nest:      sc.nest + 1,
		src:       sc.src,
	}
	switch via {
	case "eval", "trap", "alias":
		// The same shell: its cd moves the commands after it too.
	default:
		inner.dir = sc.dir.copy()
	}
	return inner
}

// joinStatic joins fields with spaces, as eval and watch do.
func joinStatic(fs []field) (string, bool) {
	parts := make([]string, len(fs))
	dyn := false
	for i, f := range fs {
		parts[i] = f.s
		dyn = dyn || f.dyn || f.proc
	}
	return strings.Join(parts, " "), dyn
}

// inertValueOptions are options whose value only selects or labels (a test name, a
// message, a count), so that a quoted value only known at run time is that value and
// does nothing else.
var inertValueOptions = map[string][]string{
	"go": {"-run", "-bench", "-skip", "-count", "-timeout", "-parallel", "-cpu", "-benchtime", "-fuzz",
		"-fuzztime", "-shuffle", "-p", "-covermode", "-tags"},
	"git": {"-m", "--message", "--author", "--date", "--format", "--pretty", "--grep", "--since", "--until"},
}

// inertValue reports a word following prev that is prev's value, prev being one of
// inertValueOptions for the command named name.
func inertValue(name string, prev field) bool {
	return !prev.dyn && !prev.glob && slices.Contains(inertValueOptions[path.Base(name)], prev.s)
}

// loopOptionWords are the option words f stands for: the words a for loop around gives
// a variable, when f is just that variable, else f itself.
func loopOptionWords(f field, sc *scope) []OptionWord {
	m := plainVarRE.FindStringSubmatch(f.s)
	vals, ok := []string(nil), false
	if m != nil && !f.glob {
		vals, ok = sc.loopVals[m[1]]
	}
	if !ok {
		if loopWordsOnly(f, sc) {
			return nil
		}
		return []OptionWord{{Word: f.s, Glob: f.glob && !f.dyn && !f.split}}
	}
	var out []OptionWord
	for _, v := range vals {
		switch {
		case strings.HasPrefix(v, "-") || f.split && strings.Contains(v, " -"):
			out = append(out, OptionWord{Word: v, Glob: hasGlob(v)})
		case hasGlob(v) && strings.ContainsRune("*?[", rune(v[0])):
			out = append(out, OptionWord{Word: v, Glob: true})
		}
	}
	return out
}

var varRefRE = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// loopWordsOnly reports a word that begins with a literal other than "-" and whose only
// expansions are variables of for loops around, none of whose words holds a space:
// `./$p` for p in a b is ./a or ./b, never an option.
func loopWordsOnly(f field, sc *scope) bool {
	if f.start || f.glob || strings.HasPrefix(f.s, "-") || len(sc.loopVals) == 0 {
		return false
	}
	rest := varRefRE.ReplaceAllStringFunc(f.s, func(ref string) string {
		vals, ok := sc.loopVals[varRefRE.FindStringSubmatch(ref)[1]]
		if !ok || slices.ContainsFunc(vals, func(v string) bool { return strings.ContainsAny(v, " \t\n") }) {
			return "$"
		}
		return ""
	})
	return !strings.ContainsAny(rest, "$`")
}
