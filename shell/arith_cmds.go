package shell

import (
	"strings"

	"github.com/ouroagent/ouro/internal/textcut"
	"mvdan.cc/sh/v3/syntax"
)

// The builtins that take a word as a variable name, or give variables values the line
// does not spell out: see arith.go.

// loopVar records the values a for or select loop gives its variable.
func (w *walker) loopVar(it *syntax.WordIter, sel bool, sc *scope) {
	name := it.Name.Value
	if sel {
		w.taint(name, "is chosen by select from its words")
		return
	}
	if len(it.Items) == 0 && !it.InPos.IsValid() {
		w.taint(name, "takes the positional parameters")
		return
	}
	for _, item := range it.Items {
		for _, f := range w.expand(item, sc) {
			if f.glob {
				w.taint(name, "takes file names matched by a glob")
				return
			}
		}
		w.assigned(name, item, sc)
	}
}

// assignValues records the values of a list of assignments (X=1 cmd, X=$(cmd), a=(...)).
func (w *walker) assignValues(as *syntax.Assign, sc *scope) {
	if as == nil || as.Name == nil {
		return
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e != nil {
				w.assigned(as.Name.Value, e.Value, sc)
			}
		}
		return
	}
	w.assigned(as.Name.Value, as.Value, sc)
}

// declNames checks what declare, local, export, readonly and typeset take as names:
// a word that is not NAME=value as the parser sees it (`declare "$x"`, `declare
// "a[\$(id)]=1"`) is a name only known once expanded; -n makes each value a name
// (a nameref), and -i makes each assignment arithmetic.
func (w *walker) declNames(c *syntax.DeclClause, sc *scope) {
	where := w.arithWhere(c, sc)
	nameref, integer := false, false
	for _, as := range c.Args {
		if as == nil || as.Name != nil || as.Value == nil {
			continue
		}
		f := w.joinFields(w.expand(as.Value, sc))
		if !f.dyn && (strings.HasPrefix(f.s, "-") || strings.HasPrefix(f.s, "+")) {
			nameref = nameref || f.s[0] == '-' && strings.Contains(f.s, "n")
			integer = integer || f.s[0] == '-' && strings.Contains(f.s, "i")
			continue
		}
		name, _, _ := strings.Cut(f.s, "=")
		if f.dyn {
			w.nameField(f, where)
			continue
		}
		w.nameField(field{s: name}, where)
	}
	for _, as := range c.Args {
		if as == nil || as.Name == nil {
			continue
		}
		if integer {
			if w.ar.integers == nil {
				w.ar.integers = map[string]bool{}
			}
			w.ar.integers[as.Name.Value] = true
		}
		if nameref && as.Value != nil {
			w.nameWord(as.Value, where, sc)
		}
		if !as.Naked {
			w.assignValues(as, sc)
		}
	}
}

// nameBuiltins checks the builtins that take variable names as operands, and records
// the variables they set from outside the line.
func (w *walker) nameBuiltins(fields []field, text string) {
	name := fields[0].s
	args := fields[1:]
	where := "`" + textcut.Bytes(text, maxQuote, "…") + "`"
	if len(where) > 80 {
		where = "`" + name + "`"
	}
	switch name {
	case "test", "[":
		for i, a := range args {
			if (a.s == "-v" || a.s == "-R") && !a.dyn && i+1 < len(args) {
				w.nameField(args[i+1], where)
			}
		}
	case "printf":
		for i, a := range args {
			switch {
			case a.s == "--":
				return
			case a.s == "-v" && i+1 < len(args):
				w.nameField(args[i+1], where)
				w.taintField(args[i+1], "is set by printf -v")
				return
			case strings.HasPrefix(a.s, "-v") && len(a.s) > 2:
				f := a
				f.s = a.s[2:]
				w.nameField(f, where)
				w.taintField(f, "is set by printf -v")
				return
			case !strings.HasPrefix(a.s, "-"):
				return
			}
		}
	case "read":
		names := optionOperands(args, "dinNptu", "a")
		if len(names) == 0 {
			w.taint("REPLY", "is a line read from input")
		}
		for _, f := range names {
			w.nameField(f, where)
			w.taintField(f, "is read from input")
		}
	case "mapfile", "readarray":
		for _, a := range args {
			if !a.dyn && isShortCluster(a.s) && strings.ContainsRune(a.s, 'C') {
				w.ask("%s -C runs a callback string for the lines it reads", name)
			}
		}
		names := optionOperands(args, "dnOsuCc", "")
		if len(names) == 0 {
			w.taint("MAPFILE", "holds lines read from input")
		}
		for _, f := range names {
			w.nameField(f, where)
			w.taintField(f, "holds lines read from input")
		}
	case "getopts":
		w.taint("OPTARG", "holds an option's argument")
		if len(args) > 1 {
			w.nameField(args[1], where)
		}
	case "unset":
		fn := false
		for _, a := range args {
			switch {
			case a.s == "-f":
				fn = true
			case a.s == "-v" || a.s == "-n" || a.s == "--":
			case !fn:
				w.nameField(a, where)
			}
		}
	case "wait":
		for i, a := range args {
			if a.s == "-p" && i+1 < len(args) {
				w.nameField(args[i+1], where)
			}
		}
	}
}

func (w *walker) taintField(f field, why string) {
	name, _, _ := strings.Cut(f.s, "[")
	if nameRE.MatchString(name) {
		w.taint(name, why)
	}
}

// optionOperands are the operands of a builtin's arguments: short options in withValue
// take the next word (or the rest of their cluster) as a value, those in naming take
// a variable name, returned with the operands.
func optionOperands(args []field, withValue, naming string) []field {
	var out []field
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			return append(out, args[i+1:]...)
		}
		if a.dyn || !isShortCluster(a.s) {
			out = append(out, a)
			continue
		}
		for j := 1; j < len(a.s); j++ {
			c := a.s[j]
			if !strings.ContainsRune(withValue+naming, rune(c)) {
				continue
			}
			var v field
			if j+1 < len(a.s) {
				v = field{s: a.s[j+1:]}
			} else if i+1 < len(args) {
				i++
				v = args[i]
			}
			if strings.ContainsRune(naming, rune(c)) {
				out = append(out, v)
			}
			break
		}
	}
	return out
}

// loopScope is the scope of a for loop's body: when every word the loop gives its
// variable is static and the body never assigns the variable, a read of "$var" in the
// body reads one of those words (see loopReads).
func (w *walker) loopScope(it *syntax.WordIter, c *syntax.ForClause, sc *scope) *scope {
	name := it.Name.Value
	if c.Select || len(it.Items) == 0 {
		return sc
	}
	var vals []string
	for _, item := range it.Items {
		for _, f := range w.expand(item, sc) {
			if f.dyn || f.proc || f.s == "" {
				return sc
			}
			vals = append(vals, f.s)
		}
	}
	assigns := false
	for _, st := range c.Do {
		syntax.Walk(st, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ParamExp:
				// ${name:=x} assigns; its name is no word of the command.
				assigns = assigns || n.Param != nil && n.Param.Value == name && n.Exp != nil &&
					(n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull)
				return false
			case *syntax.Assign:
				assigns = assigns || n.Name != nil && n.Name.Value == name
			case *syntax.Lit:
				assigns = assigns || n.Value == name || strings.HasPrefix(n.Value, name+"=") || strings.HasPrefix(n.Value, name+"+=")
			}
			return !assigns
		})
	}
	if assigns || len(vals) > maxFields {
		return sc
	}
	body := *sc
	body.loopVals = map[string][]string{}
	for k, v := range sc.loopVals {
		body.loopVals[k] = v
	}
	body.loopVals[name] = vals
	return &body
}

// loopReads replaces a read of "$var" by the static words a for loop around gives var.
func loopReads(c *Command, sc *scope) {
	if len(sc.loopVals) == 0 {
		return
	}
	var out []Path
	for _, p := range c.Reads {
		m := plainVarRE.FindStringSubmatch(p.Name)
		vals, ok := []string(nil), false
		if p.Dynamic && m != nil {
			vals, ok = sc.loopVals[m[1]]
		}
		if !ok {
			out = append(out, p)
			continue
		}
		for _, v := range vals {
			out = append(out, Path{Name: v, Via: p.Name})
		}
	}
	c.Reads = out
}
