package permission

import (
	"fmt"
	"path/filepath"
	"strings"
)

// checkBash decides on a shell line: every simple command in it must be allowed on its
// own, and the paths it writes are checked as edits.
func (st *state) checkBash(line string) Verdict {
	summary := line
	a := AnalyzeShell(line)
	if reason, ok := HardDeny(a); ok {
		return Verdict{Behavior: Deny, Source: "hard deny", Summary: summary,
			Reason: fmt.Sprintf("this command is refused in every permission mode: %s", reason)}
	}
	var vs []Verdict
	for _, c := range a.Commands {
		vs = append(vs, st.checkCommand(c))
	}
	if len(a.Ask) > 0 {
		v := Verdict{Behavior: Ask, Source: "shell analysis", Reason: strings.Join(a.Ask, "; ")}
		if st.mode == ModeBypass {
			v = Verdict{Behavior: Allow, Source: "mode bypassPermissions", Reason: "bypassPermissions mode allows it"}
		} else if st.mode == ModePlan {
			v.Behavior, v.Source = Deny, "mode plan"
			v.Reason = "plan mode allows only read-only commands, and this line cannot be shown to be one: " + v.Reason
		}
		vs = append(vs, v)
	}
	v := combine(vs)
	v.Summary = summary
	if len(vs) == 0 {
		v = Verdict{Behavior: Allow, Source: "no command", Reason: "the line runs no command", Summary: summary}
	}
	return v
}

// combine joins the verdicts of a line's commands: any denial denies, any question asks
// (and a rule can settle it only if one can settle every question), else all allow.
func combine(vs []Verdict) Verdict {
	for _, v := range vs {
		if v.Behavior == Deny {
			return v
		}
	}
	var out Verdict
	out.Behavior = Allow
	var asks []Verdict
	for _, v := range vs {
		if v.Behavior == Ask {
			asks = append(asks, v)
		}
	}
	pick := vs
	if len(asks) > 0 {
		out.Behavior, pick = Ask, asks
	}
	var reasons, sources []string
	fixable := true
	for _, v := range pick {
		reasons = appendNew(reasons, v.Reason)
		sources = appendNew(sources, v.Source)
		out.FromAskRule = out.FromAskRule || v.FromAskRule
		if len(v.Suggest) == 0 {
			fixable = false
		}
		for _, s := range v.Suggest {
			out.Suggest = appendNew(out.Suggest, s)
		}
	}
	if out.Behavior == Allow || !fixable || out.FromAskRule {
		out.Suggest = nil
	}
	out.Reason = strings.Join(reasons, "; ")
	out.Source = strings.Join(sources, "; ")
	return out
}

func appendNew(list []string, s string) []string {
	if s == "" || isOneOf(s, list) {
		return list
	}
	return append(list, s)
}

// Commands acceptEdits mode allows inside the workspace, as in Claude Code.
var acceptEditsCommands = []string{"mkdir", "touch", "mv", "cp"}

// checkCommand decides on one simple command.
func (st *state) checkCommand(c Command) Verdict {
	key := strings.Join(c.Argv, " ")
	text := strings.Join(strings.Fields(c.Text), " ")
	if text == "" {
		text = key
	}
	label := "`" + clipText(text, 300) + "`"
	s := st.subject("Bash")
	s.Command = key
	// Deny and ask rules also see the line as written (wrappers included) and the
	// command by its plain name, so `Bash(curl *)` holds for `sudo curl` and
	// `/usr/bin/curl` alike. Allow rules see only the command as it will run.
	restrictive := []Subject{s}
	for _, alt := range []string{text, plainName(c.Argv)} {
		if alt != "" && alt != key {
			a := s
			a.Command = alt
			restrictive = append(restrictive, a)
		}
	}
	matchesAny := func(r Rule) bool {
		for _, q := range restrictive {
			if r.Match(q) {
				return true
			}
		}
		return false
	}

	for _, r := range st.deny {
		if matchesAny(r) {
			return Verdict{Behavior: Deny, Source: r.String(), Reason: fmt.Sprintf("%s is denied by the rule %s", label, r)}
		}
	}
	bases := st.commandDirs(c)
	writes, unknown := st.writeTargets(c, bases)
	reads := st.readTargets(c, bases)

	edit, read := st.subject("Edit"), st.subject("Read")
	for i := range writes {
		if r, ok := st.firstMatch(st.deny, edit, &writes[i], true); ok {
			return Verdict{Behavior: Deny, Source: r.String(), Reason: fmt.Sprintf("%s writes %s, which the rule %s denies", label, writes[i].real, r)}
		}
	}
	for i := range reads {
		if r, ok := st.firstMatch(st.deny, read, &reads[i], false); ok {
			return Verdict{Behavior: Deny, Source: r.String(), Reason: fmt.Sprintf("%s reads %s, which the rule %s denies", label, reads[i].real, r)}
		}
	}
	for _, r := range st.asks {
		if matchesAny(r) {
			return Verdict{Behavior: Ask, FromAskRule: true, Source: r.String(), Reason: fmt.Sprintf("the rule %s asks before %s", r, label)}
		}
	}
	for i := range writes {
		if r, ok := st.firstMatch(st.asks, edit, &writes[i], false); ok {
			return Verdict{Behavior: Ask, FromAskRule: true, Source: r.String(), Reason: fmt.Sprintf("the rule %s asks before %s writes %s", r, label, writes[i].real)}
		}
	}
	if st.mode == ModeBypass {
		return Verdict{Behavior: Allow, Source: "mode bypassPermissions", Reason: "bypassPermissions mode allows it"}
	}

	// How the command itself is approved, if it is.
	var approvedBy string
	byRule, readOnly := false, false
	trusted, distrust := st.trusted(c)
	if trusted {
		if len(c.Argv) == 0 {
			approvedBy, readOnly = "no command", true // a bare assignment or redirect
		} else if r, ok := st.allowMatch(s, nil); ok {
			approvedBy, byRule = r.String(), true
		} else if IsReadOnly(withoutRedirects(c)) {
			approvedBy, readOnly = "read-only command", true
		} else if st.mode == ModeAcceptEdits && isOneOf(filepath.Base(c.Argv[0]), acceptEditsCommands) {
			approvedBy = "mode acceptEdits"
		}
	}

	// What it writes and reads must be acceptable too.
	var problems []string
	fixable := trusted
	var suggest []string
	if rule := suggestBash(c.Argv); rule != "" && approvedBy == "" {
		suggest = append(suggest, rule)
	}
	if unknown != "" {
		problems = append(problems, unknown)
		fixable = false
	}
	for i := range writes {
		tg := &writes[i]
		switch {
		case st.protected(tg):
			problems = append(problems, fmt.Sprintf("writes %s, a protected path (.git, .ouro, .claude, .mcp.json and shell startup files are never written without asking)", tg.real))
			fixable = false
		case st.editAllowed(tg):
		case !st.inside(tg.real):
			problems = append(problems, fmt.Sprintf("writes %s, outside the workspace", tg.real))
			suggest = appendNew(suggest, "Edit("+st.pathSpec(tg.real, false)+")")
		case byRule || st.mode == ModeAcceptEdits:
		case approvedBy != "":
			// A read-only command (or a bare redirect) that writes a file is a write:
			// default mode asks, as for Write.
			problems = append(problems, fmt.Sprintf("writes %s", tg.real))
		}
	}
	if readOnly && !byRule {
		for i := range reads {
			tg := &reads[i]
			if st.inside(tg.real) {
				continue
			}
			if _, ok := st.allowMatch(read, tg); ok {
				continue
			}
			problems = append(problems, fmt.Sprintf("reads %s, outside the workspace", tg.real))
			suggest = appendNew(suggest, "Read("+st.pathSpec(tg.real, false)+")")
		}
	}
	if approvedBy != "" && len(problems) == 0 {
		reason := "allowed by the rule " + approvedBy
		switch approvedBy {
		case "read-only command":
			reason = label + " only reads"
		case "no command":
			reason = label + " runs no command"
		case "mode acceptEdits":
			reason = "acceptEdits mode allows " + label + " inside the workspace"
		}
		return Verdict{Behavior: Allow, Source: approvedBy, Reason: reason}
	}

	v := Verdict{Behavior: Ask, Source: "no matching rule"}
	if approvedBy == "" {
		why := "no allow rule covers " + label
		if distrust != "" {
			why = label + " " + distrust + ", so neither rules nor the read-only set can allow it"
		}
		problems = append([]string{why}, problems...)
	} else {
		v.Source = approvedBy
		problems[0] = label + " " + problems[0]
	}
	v.Reason = strings.Join(problems, "; ")
	if st.mode == ModePlan && (!readOnly || len(writes) > 0 || unknown != "") {
		v.Behavior, v.Source = Deny, "mode plan"
		v.Reason = "plan mode allows only read-only commands: " + v.Reason
		return v
	}
	if fixable {
		v.Suggest = suggest
	}
	return v
}

// plainName is argv joined with the command named without its folder (`/usr/bin/curl
// x` → `curl x`), or "" when it has none.
func plainName(argv []string) string {
	if len(argv) == 0 || !strings.Contains(argv[0], "/") {
		return ""
	}
	return strings.Join(append([]string{filepath.Base(argv[0])}, argv[1:]...), " ")
}

// withoutRedirects is c without its redirections: whether the command itself only
// reads, its redirect targets being judged here as writes of their own.
func withoutRedirects(c Command) Command {
	c.Redirects = nil
	return c
}

// editAllowed reports whether an Edit allow rule covers a write target.
func (st *state) editAllowed(tg *target) bool {
	_, ok := st.allowMatch(st.subject("Edit"), tg)
	return ok
}

// Wrappers that run a command as someone else: rules and the read-only set, written for
// the user's own commands, do not cover them.
var privilegeWrappers = []string{"sudo", "doas", "su", "pkexec", "runuser", "run0"}

// Environment variables that change which program runs or what it loads, so that
// `PATH=/tmp npm test` is not the `npm test` a rule allowed.
var riskyEnv = []string{"PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS",
	"NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB",
	"RUBYOPT", "RUBYLIB", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
	"GOFLAGS", "HOME", "ZDOTDIR", "XDG_CONFIG_HOME"}

// trusted reports whether rules and the read-only set may allow c, and if not, why.
func (st *state) trusted(c Command) (bool, string) {
	for _, w := range c.Wrappers {
		if isOneOf(w, privilegeWrappers) {
			return false, "runs through " + w
		}
	}
	for _, e := range c.Env {
		name, _, _ := strings.Cut(e, "=")
		if isOneOf(name, riskyEnv) || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "GIT_") {
			return false, "sets " + name
		}
	}
	return true, ""
}

// commandDirs lists the folders c may run in, as absolute paths, so its relative paths
// can be resolved from each; nil when that is only known at run time.
func (st *state) commandDirs(c Command) []string {
	dirs := []string{c.Dir}
	if c.DirUnknown {
		dirs = c.Dirs
	}
	var out []string
	for _, d := range dirs {
		if d == "" {
			out = append(out, st.cwd)
			continue
		}
		if holdsExpansion(d) {
			return nil
		}
		t, err := st.resolve(d, st.cwd)
		if err != nil {
			return nil
		}
		out = append(out, t.lex)
	}
	return out
}

// relative reports whether a shell word names a path relative to the folder it runs in.
func relative(word string) bool { return !filepath.IsAbs(word) && !strings.HasPrefix(word, "~") }

// writeTargets lists the paths c writes: its output redirections and the operands of
// the commands that create, change or remove files, a relative one from every folder
// c may run in. unknown says why some target cannot be known before the command runs
// ("" when all are known).
func (st *state) writeTargets(c Command, bases []string) (ts []target, unknown string) {
	add := func(word string, dynamic bool) {
		switch {
		case dynamic:
			unknown = fmt.Sprintf("writes to %s, only known when it runs", word)
			return
		case len(bases) == 0 && relative(word):
			unknown = fmt.Sprintf("writes %s after changing to a folder only known when it runs", word)
			return
		}
		from := bases
		if !relative(word) || len(from) == 0 {
			from = []string{st.cwd}
		}
		for _, base := range from {
			if globMayHitProtected(word) {
				p := filepath.Join(base, word)
				ts = append(ts, target{given: word, lex: p, real: p, glob: true})
				continue
			}
			t, err := st.resolve(word, base)
			if err != nil {
				unknown = fmt.Sprintf("writes %s, which cannot be resolved (%v)", word, err)
				return
			}
			ts = append(ts, t)
		}
	}
	for _, r := range c.Redirects {
		if r.WritesFile() {
			add(r.Target, r.Dynamic)
		}
	}
	if len(c.Argv) == 0 {
		return ts, unknown
	}
	words, ok := fileArgs(c.Argv, true)
	if !ok {
		return ts, unknown
	}
	if c.StdinArgs {
		unknown = fmt.Sprintf("%s gets its file arguments from its input (xargs), so they are only known when it runs", filepath.Base(c.Argv[0]))
	}
	for _, w := range words {
		add(w, c.Dynamic && holdsExpansion(w))
	}
	return ts, unknown
}

// readTargets lists the paths c reads that can be known: its input redirections and
// the operands of the commands that read files, from every folder c may run in.
func (st *state) readTargets(c Command, bases []string) []target {
	var ts []target
	add := func(word string) {
		if word == "" || holdsExpansion(word) || strings.ContainsAny(word, "*?[") {
			return
		}
		from := bases
		if !relative(word) || len(from) == 0 {
			if relative(word) {
				return // the folder is only known at run time
			}
			from = []string{st.cwd}
		}
		for _, base := range from {
			if t, err := st.resolve(word, base); err == nil {
				ts = append(ts, t)
			}
		}
	}
	for _, r := range c.Redirects {
		if (r.Op == "<" || r.Op == "<>") && !r.Dynamic {
			add(r.Target)
		}
	}
	if len(c.Argv) == 0 {
		return ts
	}
	if words, ok := fileArgs(c.Argv, false); ok {
		for _, w := range words {
			add(w)
		}
	}
	return ts
}

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
		"realpath", "readlink", "bat", "git", "sed", "perl", "base64", "paste", "join", "comm", "fold", "tr", "zcat", "gzip", "gunzip"}
)

// fileArgs returns the operands of argv that name files it writes (write) or reads.
// ok is false when the command is not one whose operands are known to be files.
func fileArgs(argv []string, write bool) ([]string, bool) {
	name := filepath.Base(argv[0])
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
		if !editsInPlace(args) {
			return nil, false
		}
		return scriptFileArgs(args), true
	case write && isOneOf(name, writeCommands):
		ops := wordsNotOptions(args)
		if isOneOf(name, modeFirst) && len(ops) > 0 && !hasLongOpt(args, "--reference") {
			ops = ops[1:]
		}
		return ops, true
	case !write && (name == "sed" || name == "perl" || name == "awk"):
		return scriptFileArgs(args), true
	case !write && isOneOf(name, readCommands):
		return wordsNotOptions(args), true
	}
	return nil, false
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

func hasLongOpt(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// editsInPlace reports whether sed or perl arguments edit files in place (-i, -i.bak,
// --in-place, or i inside a cluster of short options such as -pi or -Ei).
func editsInPlace(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--in-place") {
			return true
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

// scriptFileArgs are the file operands of sed, perl or awk: the operands without the
// script, which is the first operand unless -e/-f (or --expression/--file) gave it.
func scriptFileArgs(args []string) []string {
	var out []string
	scriptGiven := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			out = append(out, args[i+1:]...)
			i = len(args)
		case a == "-e" || a == "-f" || a == "--expression" || a == "--file":
			scriptGiven = true
			i++ // its value
		case strings.HasPrefix(a, "--expression=") || strings.HasPrefix(a, "--file="):
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

// suggestBash is the narrowest rule that still covers the command with other
// arguments: the command and up to two subcommand words, then ` *` if more follow
// (`go test ./...` → `Bash(go test *)`, `npm run build` → `Bash(npm run build)`).
func suggestBash(argv []string) string {
	if len(argv) == 0 || argv[0] == "" {
		return ""
	}
	prefix := []string{argv[0]}
	for _, w := range argv[1:] {
		if len(prefix) == 3 || !subcommandWord(w) {
			break
		}
		prefix = append(prefix, w)
	}
	rule := "Bash(" + strings.Join(prefix, " ")
	if len(prefix) < len(argv) {
		rule += " *"
	}
	rule += ")"
	if strings.ContainsAny(rule, "\n\r\t") {
		return ""
	}
	return rule
}

func subcommandWord(w string) bool {
	if w == "" || len(w) > 32 || !(w[0] >= 'a' && w[0] <= 'z') {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}
