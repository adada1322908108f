package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
	// StdinArgs is true when xargs appends words read from its input to Argv, so the
	// full argument list is not known.
	StdinArgs bool
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
	// Ask holds the reasons the line must be asked about whatever the rules say: it does
	// not parse, eval, a command name only known at run time, source of a file not known
	// statically, a shell reading a script from its input, nesting too deep, ...
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

// AnalyzeShell parses a shell line with the bash grammar and lists every simple command
// it runs. It never panics: a line it cannot analyse has a reason in Ask.
func AnalyzeShell(src string) (a Analysis) {
	defer func() {
		if r := recover(); r != nil {
			a.Ask = append(a.Ask, fmt.Sprintf("the shell analyser failed on this line: %v", r))
		}
	}()
	return analyzeShell(src)
}

// analyzeShell is AnalyzeShell without the recover, so fuzzing sees panics.
func analyzeShell(src string) Analysis {
	w := &walker{asked: map[string]bool{}}
	w.parseAndWalk(src, &scope{dir: startDir()}, 0)
	return w.a
}

type walker struct {
	a       Analysis
	asked   map[string]bool
	funcs   []*funcInfo // function bodies being walked, innermost last
	defined []*funcInfo // functions defined so far
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
	dir       *dirState
	depth     int // strings parsed in turn (bash -c) above this one
	nest      int // syntax nesting
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
		wrappers: sc.wrappers, env: sc.env, stdinArgs: sc.stdinArgs}
}

// maxAsk bounds the reasons kept, so that a hostile line cannot make the prompt huge.
const maxAsk = 16

func (w *walker) ask(format string, args ...any) {
	r := clip(fmt.Sprintf(format, args...))
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

// flow is where the shell may be after a statement: the folders when it succeeded and
// when it failed (a cd that fails leaves the shell where it was). Either may be empty,
// when no path ends that way (after exit).
type flow struct{ succ, fail *dirState }

func plain(d *dirState) flow { return flow{d.copy(), d.copy()} }

// stmts walks a list of statements run one after the other. Like stmt, it leaves in
// sc.dir every folder the shell may be in afterwards, and returns the flow of the last.
func (w *walker) stmts(list []*syntax.Stmt, sc *scope) flow {
	f := plain(sc.dir)
	for _, s := range list {
		f = w.stmt(s, sc)
	}
	return f
}

// stmt walks one statement. sc.dir holds the folders the shell may be in before it and
// is updated to those it may be in after it; the flow splits them by the outcome, for
// && and ||.
func (w *walker) stmt(s *syntax.Stmt, sc *scope) flow {
	if s == nil {
		return plain(sc.dir)
	}
	if sc.nest > maxSyntaxDepth {
		w.ask("the command nests more than %d levels deep", maxSyntaxDepth)
		return plain(sc.dir)
	}
	if len(w.a.Commands) >= maxCommands {
		w.ask("the command has more than %d simple commands", maxCommands)
		return plain(sc.dir)
	}
	inner := sc.sub()
	var own []Redirect
	for _, r := range s.Redirs {
		if r == nil {
			continue
		}
		own = append(own, w.redirect(r, sc))
	}
	if len(own) > 0 {
		inner.redirs = append(append([]Redirect(nil), sc.redirs...), own...)
	}
	if s.Background || s.Coprocess || s.Disown {
		// An asynchronous command runs in a subshell: its cd stays there.
		w.enterFork()
		defer w.leaveFork()
		w.command1(s, withDir(inner, sc.dir.copy()))
		return plain(sc.dir)
	}
	f := w.command1(s, inner)
	if s.Negated {
		f.succ, f.fail = f.fail, f.succ
	}
	return f
}

// command1 walks the command of a statement in scope sc (see stmt).
func (w *walker) command1(s *syntax.Stmt, sc *scope) flow {
	switch c := s.Cmd.(type) {
	case nil:
		if len(s.Redirs) > 0 {
			w.emit(Command{Redirects: sc.redirs, Text: w.text(s, sc)}, sc)
		}
	case *syntax.CallExpr:
		return w.call(c, s, sc)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			// Each side of a pipeline runs in its own subshell.
			w.enterFork()
			w.stmt(c.X, withDir(sc, sc.dir.copy()))
			w.stmt(c.Y, withDir(sc, sc.dir.copy()))
			w.leaveFork()
		case syntax.AndStmt:
			fx := w.stmt(c.X, sc)
			sc.dir.set(fx.succ) // Y runs only where X succeeded
			fy := w.stmt(c.Y, sc)
			return w.settle(sc, flow{succ: fy.succ, fail: union(fx.fail, fy.fail)})
		default: // OrStmt
			fx := w.stmt(c.X, sc)
			sc.dir.set(fx.fail) // Y runs only where X failed
			fy := w.stmt(c.Y, sc)
			return w.settle(sc, flow{succ: union(fx.succ, fy.succ), fail: fy.fail})
		}
	case *syntax.Subshell:
		w.stmts(c.Stmts, withDir(sc, sc.dir.copy()))
	case *syntax.Block:
		return w.stmts(c.Stmts, sc)
	case *syntax.IfClause:
		return w.ifClause(c, sc)
	case *syntax.WhileClause:
		w.loop(sc, func() {
			w.stmts(c.Cond, sc)
			w.stmts(c.Do, sc)
		})
	case *syntax.ForClause:
		w.nested(c.Loop, sc)
		w.loop(sc, func() { w.stmts(c.Do, sc) })
	case *syntax.CaseClause:
		w.nested(c.Word, sc)
		in := sc.dir.copy()
		out := in.copy() // no pattern matched
		for _, it := range c.Items {
			if it == nil {
				continue
			}
			for _, p := range it.Patterns {
				w.nested(p, sc)
			}
			// A ;& or ;;& item falls through to the next: approximated by starting every
			// item from the state before the case, and joining them all.
			sc.dir.set(in)
			w.stmts(it.Stmts, sc)
			out = union(out, sc.dir)
		}
		sc.dir.set(out)
	case *syntax.FuncDecl:
		w.funcDecl(c, s, sc)
	case *syntax.ArithmCmd:
		w.nested(c.X, sc)
	case *syntax.TestClause:
		w.nested(c.X, sc)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			w.nested(x, sc)
		}
	case *syntax.DeclClause:
		w.decl(c, s, sc)
	case *syntax.TimeClause:
		t := sc.sub()
		t.wrappers = append(append([]string(nil), sc.wrappers...), "time")
		return w.stmt(c.Stmt, t)
	case *syntax.CoprocClause:
		w.nested(c.Name, sc)
		w.enterFork()
		w.stmt(c.Stmt, withDir(sc, sc.dir.copy()))
		w.leaveFork()
	case *syntax.TestDecl:
		w.nested(c.Description, sc)
		w.stmt(c.Body, withDir(sc, sc.dir.copy()))
	default:
		w.ask("the command uses a construct the analyser does not know (%T)", c)
	}
	return plain(sc.dir)
}

// settle makes sc.dir every folder of f and returns f.
func (w *walker) settle(sc *scope, f flow) flow {
	sc.dir.set(union(f.succ, f.fail))
	return f
}

// ifClause walks if/elif/else: each branch starts where its condition succeeded, the
// next where it failed; an if whose conditions all failed without an else succeeds.
func (w *walker) ifClause(c *syntax.IfClause, sc *scope) flow {
	out := flow{succ: &dirState{}, fail: &dirState{}}
	for ic := c; ic != nil; ic = ic.Else {
		if len(ic.Cond) == 0 && !ic.ThenPos.IsValid() { // else
			f := w.stmts(ic.Then, sc)
			return w.settle(sc, flow{succ: union(out.succ, f.succ), fail: union(out.fail, f.fail)})
		}
		fc := w.stmts(ic.Cond, sc)
		sc.dir.set(fc.succ)
		f := w.stmts(ic.Then, sc)
		out = flow{succ: union(out.succ, f.succ), fail: union(out.fail, f.fail)}
		sc.dir.set(fc.fail)
	}
	return w.settle(sc, flow{succ: union(out.succ, sc.dir), fail: out.fail})
}

// loop walks a loop body once; as it may run any number of times, a body that moves the
// shell leaves it in an unknown folder.
func (w *walker) loop(sc *scope, body func()) {
	in := sc.dir.copy()
	body()
	if !sc.dir.equal(in) {
		sc.dir.set(unknownDir())
	}
}

func withDir(sc *scope, d *dirState) *scope {
	c := *sc
	c.dir = d
	return &c
}

func (w *walker) enterFork() {
	for _, f := range w.funcs {
		f.inFork++
	}
}

func (w *walker) leaveFork() {
	for _, f := range w.funcs {
		f.inFork--
	}
}

func (w *walker) funcDecl(c *syntax.FuncDecl, s *syntax.Stmt, sc *scope) {
	var names []string
	if c.Name != nil {
		names = append(names, c.Name.Value)
	}
	for _, n := range c.Names {
		if n != nil {
			names = append(names, n.Value)
		}
	}
	var infos []*funcInfo
	for _, n := range names {
		infos = append(infos, &funcInfo{Function: Function{Name: n, Text: w.text(s, sc)}})
	}
	saved := w.funcs
	// A function body runs wherever it is called: it does not inherit the forks around
	// its definition, only those inside it count.
	w.funcs = append(append([]*funcInfo(nil), saved...), infos...)
	for _, f := range infos {
		f.inFork = 0
	}
	// The body is walked from the folder of the definition, the best guess of where it
	// will be called.
	body := sc.sub()
	body.dir = sc.dir.copy()
	w.stmt(c.Body, body)
	for _, f := range infos {
		// A call of the function moves the shell if its body does.
		f.movesDir = !body.dir.equal(sc.dir)
	}
	w.funcs = saved
	for _, f := range infos {
		w.a.Functions = append(w.a.Functions, f.Function)
		w.defined = append(w.defined, f)
	}
}

// calledName notes a call of name for the fork-bomb check.
func (w *walker) calledName(name string) {
	for _, f := range w.funcs {
		if f.Name == name {
			f.SelfCalls++
			if f.inFork > 0 {
				f.Forks = true
			}
		}
	}
}

// text is the source of a statement, without its terminator.
func (w *walker) text(n syntax.Node, sc *scope) string {
	t := nodeText(n, sc.src)
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t), ";&"))
}

func nodeText(n syntax.Node, src string) string {
	if n == nil {
		return ""
	}
	start, end := n.Pos(), n.End()
	if !start.IsValid() || !end.IsValid() || start.IsRecovered() || end.IsRecovered() {
		return ""
	}
	i, j := int(start.Offset()), int(end.Offset())
	if i < 0 || j > len(src) || i > j {
		return ""
	}
	return src[i:j]
}

// emit records a simple command with what the scope around it adds.
func (w *walker) emit(c Command, sc *scope) {
	if len(sc.wrappers) > 0 {
		c.Wrappers = append(append([]string(nil), sc.wrappers...), c.Wrappers...)
	}
	if len(sc.env) > 0 {
		c.Env = append(append([]string(nil), sc.env...), c.Env...)
	}
	if sc.stdinArgs {
		c.StdinArgs = true
	}
	if c.Redirects == nil && len(sc.redirs) > 0 {
		c.Redirects = append([]Redirect(nil), sc.redirs...)
	}
	sc.dir.fill(&c)
	w.a.Commands = append(w.a.Commands, c)
}

// redirect converts a redirection and walks the substitutions in its target and in an
// unquoted here-document body, which run before the command.
func (w *walker) redirect(r *syntax.Redirect, sc *scope) Redirect {
	out := Redirect{Op: r.Op.String()}
	if r.N != nil {
		out.Fd = r.N.Value
	}
	if r.Word != nil {
		w.nested(r.Word, sc)
		f := w.joinFields(w.expand(r.Word, sc))
		out.Target, out.Dynamic = f.s, f.dyn
	}
	if r.Hdoc != nil {
		w.nested(r.Hdoc, sc)
	}
	return out
}

// nested walks the command and process substitutions anywhere inside node (a word, an
// arithmetic or test expression, a loop header): they run in subshells of their own.
func (w *walker) nested(node syntax.Node, sc *scope) {
	if node == nil || isNilNode(node) {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.stmts(n.Stmts, sc.fresh())
			return false
		case *syntax.ProcSubst:
			w.stmts(n.Stmts, sc.fresh())
			return false
		}
		return true
	})
}

// isNilNode catches typed nil pointers inside a Node interface, which syntax.Walk
// would dereference.
func isNilNode(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Word:
		return n == nil
	case *syntax.WordIter:
		return n == nil
	case *syntax.CStyleLoop:
		return n == nil
	case *syntax.Lit:
		return n == nil
	}
	return false
}
