package shell

import (
	"regexp"
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates arithmetic in more places than $((...)): (( )), let, for (( )), array
// subscripts, ${x:offset:length}, the operands of [[ -eq ]] and its kin, and assignments
// to variables declared -i. Evaluating a name evaluates its value in turn, and a value
// such as `a[$(cmd)]` runs cmd when its subscript is expanded. The same happens where a
// string is taken as a variable name: [[ -v ]], test -v, printf -v, read, unset,
// declare, namerefs and ${!x}. And ${x@P} expands x's value as a prompt, running the
// substitutions in it.
//
// The analyser proves the operands of those places harmless or asks: a literal number
// or name is harmless; a quoted string holding `$` or a backquote is not; the output of
// a command substitution is not; and a variable is harmless unless the line gives it a
// value that is not (the output of a command, a line read from input, a file name
// matched by a glob, a string holding `$`). The environment the line starts with is the
// user's own, and the positional parameters are empty there. Which variables hold such
// values is only known once the whole line is read, so uses are collected during the
// walk and judged at its end (finishArith).

// arithState is what the walker keeps about arithmetic and the variables it reads.
type arithState struct {
	uses     []arithUse
	vals     map[string][]valueOf // every value the line gives a variable
	integers map[string]bool      // variables declared -i: each assignment is arithmetic
}

// arithUse is a variable whose value bash evaluates as arithmetic or as a name.
type arithUse struct {
	name  string
	where string // the construct, quoted in the reason
}

// valueOf is one value a variable is given: the variables it refers to, or why it is
// not known to be harmless.
type valueOf struct {
	deps []string
	why  string
}

// maxArithUses bounds the uses kept per line.
const maxArithUses = 1024

// alwaysTainted are variables whose value comes from outside the line's words: the last
// argument of the previous command, the command being run, regex captures, folders.
var alwaysTainted = map[string]string{
	"_":            "holds the last argument of the previous command",
	"BASH_COMMAND": "holds the text of a command",
	"BASH_REMATCH": "holds text matched by [[ =~ ]]",
	"BASH_ARGV":    "holds arguments",
	"PWD":          "holds a folder name",
	"OLDPWD":       "holds a folder name",
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (w *walker) arithWhere(n syntax.Node, sc *scope) string {
	t := strings.TrimSpace(nodeText(n, sc.src))
	return "`" + textcut.Bytes(t, 60, "…") + "`"
}

// use records that where evaluates the value of name.
func (w *walker) use(name, where string) {
	if name == "" {
		return
	}
	if isPositional(name) {
		if len(w.funcs) == 0 && w.shellArgs == 0 {
			return // empty in the line itself: the tool runs it with no arguments
		}
		name = "@"
	}
	if len(w.ar.uses) >= maxArithUses {
		w.ask("the line evaluates more than %d variables as arithmetic", maxArithUses)
		return
	}
	w.ar.uses = append(w.ar.uses, arithUse{name: name, where: where})
}

func isPositional(name string) bool {
	if name == "@" || name == "*" {
		return true
	}
	for _, c := range name {
		if c < '0' || c > '9' {
			return false
		}
	}
	return name != ""
}

// arithExpr checks an arithmetic expression: its operands must be numbers or harmless
// variables.
func (w *walker) arithExpr(x syntax.ArithmExpr, where string, sc *scope) {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		w.arithExpr(x.X, where, sc)
		w.arithExpr(x.Y, where, sc)
	case *syntax.UnaryArithm:
		w.arithExpr(x.X, where, sc)
	case *syntax.ParenArithm:
		w.arithExpr(x.X, where, sc)
	case *syntax.Word:
		w.arithWord(x, where, sc)
	}
}

// arithWord checks one operand of arithmetic (or of [[ -eq ]]): what it expands to is
// evaluated as an expression.
func (w *walker) arithWord(word *syntax.Word, where string, sc *scope) {
	if word == nil {
		return
	}
	for _, p := range word.Parts {
		w.arithPart(p, false, where, sc)
	}
}

func (w *walker) arithPart(p syntax.WordPart, quoted bool, where string, sc *scope) {
	switch p := p.(type) {
	case *syntax.Lit:
		s := unescapeBare(p.Value)
		if quoted {
			s = unescapeDouble(p.Value)
		}
		w.arithText(s, where)
	case *syntax.SglQuoted:
		s := p.Value
		if p.Dollar {
			s = decodeANSIC(s)
		}
		w.arithText(s, where)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			w.arithPart(q, true, where, sc)
		}
	case *syntax.ParamExp:
		w.arithParam(p, where, sc)
	case *syntax.ArithmExp:
		// A number; its own operands are checked where the walk meets it.
	case *syntax.CmdSubst:
		if !numericCommand(p) {
			w.ask("%s evaluates the output of a command as arithmetic, which runs any $(...) in a subscript of it", where)
		}
	default:
		w.ask("%s evaluates %s as arithmetic, which is not analysed", where, nodeText(p, sc.src))
	}
}

// arithParam is a parameter expansion used in arithmetic: its value is evaluated.
func (w *walker) arithParam(p *syntax.ParamExp, where string, sc *scope) {
	if p.Param == nil {
		w.ask("%s evaluates an expansion the analyser does not know as arithmetic", where)
		return
	}
	if p.Length {
		return // a number
	}
	if p.Excl {
		return // asked about wherever ${!x} is
	}
	w.use(p.Param.Value, where)
	if p.Exp != nil && p.Exp.Word != nil {
		w.arithWord(p.Exp.Word, where, sc)
	}
	if p.Repl != nil && p.Repl.With != nil {
		w.arithWord(p.Repl.With, where, sc)
	}
}

// arithText checks literal text evaluated as arithmetic: it may name variables, which
// are evaluated in turn, but a `$` or a backquote in it is a substitution bash runs.
func (w *walker) arithText(s, where string) {
	if strings.ContainsAny(s, "$`") {
		w.ask("%s evaluates the text %q as arithmetic or as a variable name, and a $(...) or `...` in it runs a command", where, textcut.Bytes(s, maxQuote, "…"))
		return
	}
	for _, n := range textNames(s) {
		w.use(n, where)
	}
}

// textNames are the variable names in arithmetic text: identifiers that are not part
// of a number (0x1f, 16#ff).
func textNames(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			for i < len(s) && (isWordByte(s[i]) || s[i] == '#' || s[i] == '@') {
				i++
			}
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			i++
		}
	}
	return out
}

func isWordByte(c byte) bool { return c == '_' || isASCIILetter(c) || c >= '0' && c <= '9' }

// numericCommand reports a command substitution whose output is a number whatever the
// files: nproc, seq with literal numbers, wc -l (or -c, -w) counting its input.
func numericCommand(c *syntax.CmdSubst) bool {
	if len(c.Stmts) != 1 || c.Stmts[0] == nil {
		return false
	}
	for _, r := range c.Stmts[0].Redirs {
		if r == nil || r.Op != syntax.RdrIn {
			return false
		}
	}
	call, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return false
	}
	var words []string
	for _, a := range call.Args {
		s, ok := litWord(a)
		if !ok {
			return false
		}
		words = append(words, s)
	}
	switch words[0] {
	case "nproc":
		return len(words) == 1
	case "wc":
		// Counts of its input: with a file operand it prints the name too.
		for _, s := range words[1:] {
			if s != "-l" && s != "-c" && s != "-w" && s != "-m" && s != "-L" {
				return false
			}
		}
		return len(words) == 2
	case "seq":
		for _, s := range words[1:] {
			if strings.Trim(s, "0123456789.-") != "" {
				return false
			}
		}
		return len(words) > 1
	}
	return false
}

// litWord is the text of a word made only of unquoted literal parts.
func litWord(word *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range word.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return b.String(), true
}

// nameWord checks a word bash takes as a variable name, possibly with a subscript
// ([[ -v ]]): the name must be plain and the subscript harmless arithmetic; a word
// that is a plain $v names v's value, so v must be harmless.
func (w *walker) nameWord(word *syntax.Word, where string, sc *scope) {
	if word == nil {
		return
	}
	if len(word.Parts) == 1 {
		if p, ok := word.Parts[0].(*syntax.DblQuoted); ok && len(p.Parts) == 1 {
			if pe, ok := p.Parts[0].(*syntax.ParamExp); ok && plainParam(pe) {
				w.use(pe.Param.Value, where)
				return
			}
		}
		if pe, ok := word.Parts[0].(*syntax.ParamExp); ok && plainParam(pe) {
			w.use(pe.Param.Value, where)
			return
		}
	}
	f := w.joinFields(w.expand(word, sc))
	w.nameField(f, where)
}

func plainParam(p *syntax.ParamExp) bool {
	return p.Param != nil && paramText(p, "") == "$"+p.Param.Value
}

var plainVarRE = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$`)

// nameField checks an expanded word taken as a variable name (printf -v, read, unset).
func (w *walker) nameField(f field, where string) {
	if f.dyn || f.proc {
		if m := plainVarRE.FindStringSubmatch(strings.Trim(f.s, `"`)); m != nil && !f.proc {
			w.use(m[1], where)
			return
		}
		w.ask("%s takes %s as a variable name, and it is only known at run time: a name like a[$(cmd)] runs cmd", where, f.s)
		return
	}
	name, sub, hasSub := strings.Cut(f.s, "[")
	if !nameRE.MatchString(name) || hasSub && !strings.HasSuffix(sub, "]") {
		w.ask("%s takes %q as a variable name, which is not a plain name", where, textcut.Bytes(f.s, maxQuote, "…"))
		return
	}
	if hasSub {
		w.arithText(strings.TrimSuffix(sub, "]"), where)
	}
}

// paramChecks is what a parameter expansion anywhere in the line needs: its subscript
// and slice are arithmetic, ${!x} takes x's value as a name, ${x@P} runs x's value.
func (w *walker) paramChecks(p *syntax.ParamExp, sc *scope) {
	where := w.arithWhere(p, sc)
	if p.Index != nil && !allIndex(p.Index) {
		w.arithExpr(p.Index, where, sc)
	}
	if p.Slice != nil {
		if p.Slice.Offset != nil {
			w.arithExpr(p.Slice.Offset, where, sc)
		}
		if p.Slice.Length != nil {
			w.arithExpr(p.Slice.Length, where, sc)
		}
	}
	if p.Excl && p.Names == 0 && (p.Index == nil || !allIndex(p.Index)) {
		w.ask("%s expands the variable whose name another variable holds, and a name like a[$(cmd)] there runs cmd", where)
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil {
		if s, _ := litWord(p.Exp.Word); strings.Contains(s, "P") {
			w.ask("%s expands a value as a prompt string, which runs the command substitutions in it", where)
		}
	}
	if p.Param != nil && p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) {
		w.assigned(p.Param.Value, p.Exp.Word, sc)
	}
}

// allIndex reports the subscripts @ and *, which list every element.
func allIndex(x syntax.ArithmExpr) bool {
	word, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	s, ok := litWord(word)
	return ok && (s == "@" || s == "*")
}

// arithNode handles the arithmetic constructs the walk meets inside a node.
func (w *walker) arithNode(n syntax.Node, sc *scope) {
	switch n := n.(type) {
	case *syntax.ArithmExp:
		w.arithExpr(n.X, w.arithWhere(n, sc), sc)
	case *syntax.CStyleLoop:
		where := w.arithWhere(n, sc)
		for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if x != nil {
				w.arithExpr(x, where, sc)
			}
		}
	case *syntax.ParamExp:
		w.paramChecks(n, sc)
	case *syntax.Assign:
		if n.Index != nil {
			w.arithExpr(n.Index, w.arithWhere(n, sc), sc)
		}
	case *syntax.ArrayElem:
		if n.Index != nil {
			w.arithExpr(n.Index, w.arithWhere(n, sc), sc)
		}
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			where := w.arithWhere(n, sc)
			for _, x := range []syntax.TestExpr{n.X, n.Y} {
				if word, ok := x.(*syntax.Word); ok {
					w.arithWord(word, where, sc)
				}
			}
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			if word, ok := n.X.(*syntax.Word); ok {
				w.nameWord(word, w.arithWhere(n, sc), sc)
			}
		}
	}
}

// assigned records a value the line gives a variable.
func (w *walker) assigned(name string, value *syntax.Word, sc *scope) {
	deps, why := w.valueTaint(value, sc)
	w.setVal(name, valueOf{deps: deps, why: why})
}

func (w *walker) taint(name, why string) {
	w.setVal(name, valueOf{why: why})
}

func (w *walker) setVal(name string, v valueOf) {
	if w.ar.vals == nil {
		w.ar.vals = map[string][]valueOf{}
	}
	if len(w.ar.vals[name]) < 64 {
		w.ar.vals[name] = append(w.ar.vals[name], v)
	} else if v.why != "" {
		w.ar.vals[name][0] = v
	}
}

// valueTaint says whether a value is harmless in arithmetic: the variables it refers to
// (harmless if they are), or why it is not.
func (w *walker) valueTaint(word *syntax.Word, sc *scope) (deps []string, why string) {
	if word == nil {
		return nil, ""
	}
	var part func(p syntax.WordPart, quoted bool)
	text := func(s string) {
		if strings.ContainsAny(s, "$`") && why == "" {
			why = "holds a string with $ or `"
		}
		deps = append(deps, textNames(s)...)
	}
	part = func(p syntax.WordPart, quoted bool) {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				text(unescapeDouble(p.Value))
			} else {
				text(unescapeBare(p.Value))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				text(decodeANSIC(p.Value))
			} else {
				text(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q, true)
			}
		case *syntax.ParamExp:
			switch {
			case p.Length:
			case p.Param == nil || p.Excl:
				if why == "" {
					why = "is assigned an indirect expansion"
				}
			default:
				deps = append(deps, p.Param.Value)
				if isPositional(p.Param.Value) && (len(w.funcs) > 0 || w.shellArgs > 0) && why == "" {
					why = "is assigned a function argument"
				}
				for _, x := range []*syntax.Word{expWord(p), replWord(p)} {
					if x != nil {
						d, y := w.valueTaint(x, sc)
						deps = append(deps, d...)
						if why == "" {
							why = y
						}
					}
				}
			}
		case *syntax.ArithmExp:
		case *syntax.CmdSubst:
			if !numericCommand(p) && why == "" {
				why = "is assigned the output of a command"
			}
		default:
			if why == "" {
				why = "is assigned " + nodeText(p, sc.src)
			}
		}
	}
	for _, p := range word.Parts {
		part(p, false)
	}
	return deps, why
}

func expWord(p *syntax.ParamExp) *syntax.Word {
	if p.Exp != nil {
		return p.Exp.Word
	}
	return nil
}

func replWord(p *syntax.ParamExp) *syntax.Word {
	if p.Repl != nil {
		return p.Repl.With
	}
	return nil
}

// finishArith asks about every use of a variable the line may give a harmful value.
func (w *walker) finishArith() {
	memo := map[string]string{}
	for _, u := range w.ar.uses {
		if why := w.taintOf(u.name, memo, map[string]bool{}); why != "" {
			w.ask("%s evaluates the variable %s as arithmetic or as a name, and it %s: a value like a[$(cmd)] runs cmd", u.where, u.name, why)
		}
	}
	for name := range w.ar.integers {
		if why := w.taintOf(name, memo, map[string]bool{}); why != "" {
			w.ask("%s is declared an integer, so its value is evaluated as arithmetic, and it %s", name, why)
		}
	}
}

func (w *walker) taintOf(name string, memo map[string]string, seen map[string]bool) string {
	if why, ok := memo[name]; ok {
		return why
	}
	if name == "@" {
		return "is an argument of a function or of a shell's -c string"
	}
	if why, ok := alwaysTainted[name]; ok {
		return why
	}
	if seen[name] {
		return ""
	}
	seen[name] = true
	why := ""
	for _, v := range w.ar.vals[name] {
		if v.why != "" {
			why = v.why
			break
		}
		for _, d := range v.deps {
			if d == name {
				continue
			}
			if y := w.taintOf(d, memo, seen); y != "" {
				why = "takes its value from " + d + ", which " + y
				break
			}
		}
		if why != "" {
			break
		}
	}
	memo[name] = why
	return why
}
