package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
			n := len(w.a.Commands)
			w.stmt(c.X, withDir(sc, sc.dir.copy()))
			ysc := withDir(sc, sc.dir.copy())
			ysc.input = nil
			_, simpleX := c.X.Cmd.(*syntax.CallExpr)
			_, simpleY := c.Y.Cmd.(*syntax.CallExpr)
			if c.Op == syntax.Pipe && simpleX && simpleY && len(w.a.Commands) > n {
				// The command piped into Y is the last one X ran (its substitutions ran
				// before it): Y's input is that command's output.
				prod := w.a.Commands[len(w.a.Commands)-1]
				ysc.input = &prod
			}
			w.stmt(c.Y, ysc)
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
		body := sc
		if it, ok := c.Loop.(*syntax.WordIter); ok && it.Name != nil {
			w.loopVar(it, c.Select, sc)
			body = w.loopScope(it, c, sc)
		}
		w.loop(sc, func() { w.stmts(c.Do, body) })
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
		w.arithExpr(c.X, w.arithWhere(c, sc), sc)
	case *syntax.TestClause:
		w.nested(c.X, sc)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			w.nested(x, sc)
			w.arithExpr(x, w.arithWhere(c, sc), sc)
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
	if sc.input != nil && c.InputFrom == nil {
		c.InputFrom = sc.input
	}
	if c.Redirects == nil && len(sc.redirs) > 0 {
		c.Redirects = append([]Redirect(nil), sc.redirs...)
	}
	sc.dir.fill(&c)
	if o, ok := unresolvedLong(c.Argv); ok {
		w.ask("%s", describeUnresolved(c.Argv[0], o))
	}
	files(&c)
	loopReads(&c, sc)
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
		w.arithNode(n, sc)
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
