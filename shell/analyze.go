// Package shell reads a bash command line without running it: every simple command it
// runs, anywhere in the line (pipelines, substitutions, control flow, function bodies,
// the strings of bash -c, eval, trap, watch and find -exec), with its argv after the
// wrappers (sudo, env, timeout, xargs, ...) are looked through, the folder earlier cd's
// moved it to, the files it reads and writes, and the reasons a line cannot be judged
// statically. It parses with mvdan.cc/sh's bash grammar and never executes anything.
//
// [Analyze] is the entry point; [JoinDir] and [RiskyVar] lend two of its rules (how a
// path joins a folder, which variables steer the shell) to those who judge its result.
// What to allow is not decided here: package permission judges the [Analysis]. The
// analysis is bounded (nesting, commands, words) and fuzzed alone, so that a hostile
// line can neither crash it nor make it run long.
package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Redirect is one redirection of a simple command, or of a compound command around it.
type Redirect struct {
	// Op is the operator as written: ">", ">>", ">|", "&>", "&>>", "<", "<>", "<<",
	// "<<<", ">&", "<&".
	Op string
	// Target is the word after the operator, statically expanded: quotes removed, "~"
	// kept as written. For a here-document it is the delimiter; for ">&"/"<&" usually
	// a file descriptor number.
	Target string
	// Dynamic is true when the target holds an expansion only known at run time; Target
	// then keeps the expansion's source text (`$OUT`, `$(mktemp)`).
	Dynamic bool
	// Fd is the descriptor written before the operator ("2" in `2>err`), or "".
	Fd string
}

// Command is one simple command of a shell line, as it will run.
type Command struct {
	// Argv is the command and its arguments after the wrappers (timeout, env, sudo, ...)
	// are stripped, statically expanded: quotes removed, escapes resolved, brace
	// expansions expanded, literal parts joined. Globs keep their text ("*.go"), "~" is
	// kept as written, and a part only known at run time keeps its source text
	// (`$HOME`, `$(pwd)`). Argv is empty for a bare assignment (`X=1`) or a bare
	// redirect (`> file`), whose effects are in Env and Redirects.
	Argv []string
	// Wrappers are the wrapper commands looked through, outermost first, e.g.
	// ["sudo", "timeout"]; a command from a `bash -c` string has "bash -c" among them.
	Wrappers []string
	// Env holds the NAME=value assignments in front of the command or given to env.
	Env []string
	// Redirects are the command's redirections, and those of the compound commands
	// around it (`{ a; b; } > f` gives both a and b the redirect to f).
	Redirects []Redirect
	// Text is the source text of the simple command, for messages.
	Text string
	// Dynamic is true when a word of Argv holds an expansion only known at run time
	// ($VAR, $(...), `...`, $((...))).
	Dynamic bool
	// OptionWords are the words after the command name, before a literal "--", that
	// may be or become options only at run time: an expansion (`$X`, `$(...)`) at the
	// start of a word or unquoted anywhere in it (bash may split it), or a glob whose
	// first character is a glob character (`*`, which expands to whatever names the
	// folder holds, "-exec=x" included). A rule that allows the command by its words
	// cannot see what these will be.
	OptionWords []OptionWord
	// StdinArgs is true when xargs appends words read from its input to Argv, so the
	// full argument list is not known.
	StdinArgs bool
	// InputFrom is the simple command whose output is this command's input, when the
	// line pipes one straight into it (`find . -name x | xargs cat`); nil otherwise.
	InputFrom *Command
	// Lists are files naming more files the command reads (wc --files0-from=F, tar -T
	// F); "-" is its input.
	Lists []Path
	// ReadsFromInput is true when xargs gives a command that reads the files it is given
	// more operands, read from its input: it reads files Reads does not list.
	ReadsFromInput bool
	// Dir is where an earlier cd (or pushd, env -C) of the same line moved the shell, as
	// written and joined ("../other", "~", "/etc"); "" when the command runs in the
	// starting folder. Relative paths in Argv and Redirects are relative to it.
	Dir string
	// DirUnknown is true when the folder is not known for sure: an earlier cd went
	// somewhere only known at run time (`cd $X`, `cd -`, popd, a sourced script), or may
	// not have happened (`cd a; x` runs x where the line started if cd a fails; a cd in
	// a branch or a loop). Dir is then "" and Dirs lists the folders the command may run
	// in, when they are known.
	DirUnknown bool
	Dirs       []string
	// Writes are the files the command writes (or removes): the targets of its output
	// redirections, and the operands of the commands known to take the files they
	// change as operands (rm, cp, tee, sed -i, dd of=, ...).
	Writes []Path
	// WritesFromInput is true when xargs gives such a command more operands, read from
	// its input: it writes files Writes does not list.
	WritesFromInput bool
	// Reads are the files the command reads: the targets of its input redirections, and
	// the operands of the commands known to read the files they are given (cat, grep,
	// sed, ...).
	Reads []Path
}

// OptionWord is a word of a command that may be an option at run time.
type OptionWord struct {
	// Word is the word as Argv holds it (an expansion keeps its source text).
	Word string
	// Glob is true when the word is a plain glob pattern, with no expansion: what it
	// becomes depends only on the names in the folder it is expanded in.
	Glob bool
}

// Function is a shell function defined in the line, kept for the fork-bomb check.
type Function struct {
	Name string
	Text string
	// SelfCalls counts the calls of the function to itself in its body.
	SelfCalls int
	// Forks is true when one of those self-calls runs in the background or in a pipeline,
	// so every call starts more than one copy.
	Forks bool
}

// Analysis is what a shell line will run.
type Analysis struct {
	// Commands are every simple command anywhere in the line: in lists and pipelines,
	// subshells and blocks, command and process substitutions, control-flow bodies,
	// function bodies, here-documents fed to a shell, and the strings of bash -c, eval,
	// trap, watch and find -exec, parsed in turn.
	Commands []Command
	// Ask holds the reasons Commands may not be all the line runs, or not as listed, so
	// that the line needs a person's look whatever rules allow: it does not parse, eval,
	// a command name only known at run time, source of a file not known statically, a
	// shell reading a script from its input, an assignment of PATH or IFS, a bound of
	// the analysis reached, ...
	Ask []string
	// Functions are the shell functions the line defines.
	Functions []Function
}

// Bounds on the analysis, so that a hostile line cannot make it run long or deep.
const (
	maxStringDepth = 8    // bash -c 'bash -c "..."' nesting
	maxSyntaxDepth = 200  // nesting of compound commands and substitutions
	maxCommands    = 4096 // simple commands per line
	maxFields      = 256  // words one brace expansion may produce
	maxWrappers    = 16   // wrappers stripped from one command
)

// Analyze parses a shell line with the bash grammar and lists every simple command
// it runs. It never panics: a line it cannot analyse has a reason in Ask.
func Analyze(src string) (a Analysis) {
	defer func() {
		if r := recover(); r != nil {
			a.Ask = append(a.Ask, fmt.Sprintf("the shell analyser failed on this line: %v", r))
		}
	}()
	return analyze(src)
}

// analyze is Analyze without the recover, so fuzzing sees panics.
func analyze(src string) Analysis {
	w := &walker{asked: map[string]bool{}}
	w.parseAndWalk(src, &scope{dir: startDir()}, 0)
	w.finishArith()
	return w.a
}

type walker struct {
	a       Analysis
	asked   map[string]bool
	funcs   []*funcInfo // function bodies being walked, innermost last
	defined []*funcInfo // functions defined so far
	ar      arithState
	// shellArgs > 0 while walking the string of a `bash -c STRING ARG...` given
	// arguments: its positional parameters come from the line.
	shellArgs int
}

type funcInfo struct {
	Function
	inFork   int  // >0 while walking a backgrounded or piped statement of the body
	movesDir bool // the body changes the shell's folder
}

// scope is what a statement inherits from around it.
type scope struct {
	src       string // source of the current parse, for Text and expansion text
	redirs    []Redirect
	wrappers  []string
	env       []string
	stdinArgs bool
	// input is the simple command piped into the statement, when there is one.
	input *Command
	dir   *dirState
	depth int // strings parsed in turn (bash -c) above this one
	nest  int // syntax nesting
	// loopVals are the words a for loop around gives its variable, when they are
	// static and the body does not change it: a read of "$f" reads one of them.
	loopVals map[string][]string
}

func (sc *scope) sub() *scope {
	c := *sc
	c.nest++
	return &c
}

// fresh is the scope of a substitution: it runs in a subshell of its own, whose output
// is captured, so it does not inherit the redirections of the command around it. It
// keeps the wrappers and environment of the shell it runs in (`sudo bash -c 'echo
// $(rm x)'` runs rm as root), which are the scope's: a simple command's own wrappers
// are never in its scope.
func (sc *scope) fresh() *scope {
	return &scope{src: sc.src, dir: sc.dir.copy(), depth: sc.depth, nest: sc.nest + 1,
		wrappers: sc.wrappers, env: sc.env, stdinArgs: sc.stdinArgs, loopVals: sc.loopVals}
}

// maxQuote bounds a reason quoting a long line, in bytes.
const maxQuote = 200

// maxAsk bounds the reasons kept, so that a hostile line cannot make the prompt huge.
const maxAsk = 16

func (w *walker) ask(format string, args ...any) {
	r := textcut.Bytes(fmt.Sprintf(format, args...), maxQuote, "…")
	if w.asked[r] {
		return
	}
	w.asked[r] = true
	switch {
	case len(w.a.Ask) < maxAsk:
		w.a.Ask = append(w.a.Ask, r)
	case len(w.a.Ask) == maxAsk:
		w.a.Ask = append(w.a.Ask, "and more reasons")
	}
}

// parseAndWalk parses src as a bash script and walks it in scope sc. depth counts the
// strings parsed in turn above this one.
func (w *walker) parseAndWalk(src string, sc *scope, depth int) {
	if depth > maxStringDepth {
		w.ask("shell strings nested more than %d deep are not analysed", maxStringDepth)
		return
	}
	if strings.ContainsRune(src, 0) {
		w.ask("the command contains a NUL byte")
		return
	}
	inner := *sc
	inner.src = src
	inner.depth = depth
	f, err := parseBash(src)
	if err == nil {
		w.stmts(f.Stmts, &inner)
		return
	}
	w.ask("the command does not parse as bash: %v", err)
	// bash runs the complete commands before a syntax error (`rm -rf /` then a broken
	// line), so those are walked anyway: the hard-deny list must see them.
	w.stmts(stmtsBeforeError(src), &inner)
}

// parseBash parses src with the bash grammar. A panic inside the parser is turned into
// an error, so that a parser bug makes the line asked about instead of crashing.
func parseBash(src string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("the parser failed: %v", r)
		}
	}()
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// stmtsBeforeError returns the statements of src that parse completely before its
// first syntax error.
func stmtsBeforeError(src string) (out []*syntax.Stmt) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
		}
	}()
	failed := false
	// The loop body never stops the iteration early: mvdan.cc/sh v3.14.1's StmtsSeq
	// keeps yielding after an error, which panics if the loop has returned.
	for s, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).StmtsSeq(strings.NewReader(src)) {
		if err != nil {
			failed = true
			continue
		}
		if !failed && s != nil {
			out = append(out, s)
		}
	}
	return out
}
