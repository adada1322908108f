package shell

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// corpusLines are the command lines of testdata/shell_corpus.txt (the policy's corpus,
// whose decisions package permission checks): DECISION<TAB>COMMAND, "↵" a newline.
func corpusLines(tb testing.TB) []string {
	tb.Helper()
	return corpusFileLines(tb, "shell_corpus.txt")
}

// corpusFileLines are the command lines of a corpus file in testdata.
func corpusFileLines(tb testing.TB, name string) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		_, cmd, ok := strings.Cut(line, "\t")
		if !ok {
			tb.Fatalf("%s: %q has no tab", name, line)
		}
		out = append(out, strings.ReplaceAll(cmd, "↵", "\n"))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// boundHit reports an Ask that comes from a bound of the analyser rather than from the
// line's meaning: lines hitting one may be judged differently once nested.
func boundHit(a Analysis) bool {
	return slices.ContainsFunc(a.Ask, func(r string) bool {
		return strings.Contains(r, "nested more than") || strings.Contains(r, "levels deep") ||
			strings.Contains(r, "simple commands") || strings.Contains(r, "wrappers") ||
			strings.Contains(r, "and more reasons")
	})
}

// watchdog crashes the fuzz worker when one input takes too long, so that the fuzzer
// keeps the input: the analyser must stay fast on hostile lines. It returns the stop.
func watchdog(src string) func() {
	t := time.AfterFunc(20*time.Second, func() {
		panic(fmt.Sprintf("the analysis of %q takes more than 20s", src))
	})
	return func() { t.Stop() }
}

func argvs(a Analysis) [][]string {
	var out [][]string
	for _, c := range a.Commands {
		out = append(out, c.Argv)
	}
	return out
}

// checkCommand asserts what holds of every command the analyser reports.
func checkCommand(t *testing.T, src string, c Command) {
	t.Helper()
	if c.DirUnknown && c.Dir != "" || !c.DirUnknown && c.Dirs != nil {
		t.Fatalf("%q: %s: Dir %q with DirUnknown %v and Dirs %q", src, describe(c), c.Dir, c.DirUnknown, c.Dirs)
	}
	if c.WritesFromInput && !c.StdinArgs {
		t.Fatalf("%q: %s: writes files from its input without xargs", src, describe(c))
	}
	// Every write is the target of an output redirection or a word of the command's
	// arguments (dd's of=FILE and --opt=FILE give the part after "="), and every output
	// redirection to a file is a write.
	for _, w := range c.Writes {
		fromRedirect := slices.ContainsFunc(c.Redirects, func(r Redirect) bool {
			return r.WritesFile() && r.Target == w.Name && r.Dynamic == w.Dynamic
		})
		fromArg := len(c.Argv) > 0 && slices.ContainsFunc(c.Argv[1:], func(a string) bool {
			return a == w.Name || strings.HasSuffix(a, "="+w.Name)
		}) && (!w.Dynamic || c.Dynamic && holdsExpansion(w.Name))
		if !fromRedirect && !fromArg {
			t.Fatalf("%q: %s writes %+v, which is neither a redirect target nor an argument", src, describe(c), w)
		}
	}
	for _, r := range c.Redirects {
		if r.WritesFile() && !slices.Contains(c.Writes, Path{Name: r.Target, Dynamic: r.Dynamic}) {
			t.Fatalf("%q: %s: the redirect %s%s is missing from Writes %+v", src, describe(c), r.Op, r.Target, c.Writes)
		}
	}
	for _, p := range c.Reads {
		fromRedirect := slices.ContainsFunc(c.Redirects, func(r Redirect) bool {
			return (r.Op == "<" || r.Op == "<>") && r.Target == p.Name
		})
		fromArg := len(c.Argv) > 0 && slices.ContainsFunc(c.Argv[1:], func(a string) bool {
			// -fFILE and curl's -d @FILE give the end of the word.
			return a == p.Name || strings.HasSuffix(a, "="+p.Name) || strings.HasPrefix(a, "-") && strings.HasSuffix(a, p.Name) ||
				strings.HasSuffix(a, "@"+p.Name)
		})
		if p.Via != "" {
			fromArg = slices.Contains(c.Argv, p.Via)
		}
		if !fromRedirect && !fromArg {
			t.Fatalf("%q: %s reads %+v, which is neither a redirect target nor an argument", src, describe(c), p)
		}
		if holdsExpansion(p.Name) && !p.Dynamic {
			t.Fatalf("%q: %s reads %q as if it were known", src, describe(c), p.Name)
		}
	}
}

// FuzzAnalyze: the analyser never panics, stays within its bounds, gives the same
// answer twice, asks about every line bash cannot parse, reports only writes and reads
// the line names, and finds the same commands in a line run after another command or
// passed through `bash -c '...'`.
func FuzzAnalyze(f *testing.F) {
	for _, tc := range analyzeCases {
		f.Add(tc.src)
	}
	for _, s := range corpusLines(f) {
		f.Add(s)
	}
	for _, s := range append(append([]string(nil), arithAttacks...), arithSafe...) {
		f.Add(s)
	}
	for _, s := range corpusFileLines(f, "attack_corpus.txt") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		defer watchdog(src)()
		a := analyze(src) // without Analyze's recover, so a panic fails
		if again := analyze(src); !reflect.DeepEqual(a, again) {
			t.Fatalf("%q: two analyses differ:\n %+v\n %+v", src, a, again)
		}
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil && len(a.Ask) == 0 {
			t.Fatalf("%q does not parse (%v) but nothing asks", src, err)
		}
		if err == nil && len(a.Ask) == 0 {
			if what := hiddenInArithmetic(src); what != "" {
				t.Fatalf("%q evaluates %s as arithmetic or as a name, but nothing asks", src, what)
			}
		}
		if len(a.Commands) > maxCommands {
			t.Fatalf("%d commands, over the bound", len(a.Commands))
		}
		if len(a.Ask) > maxAsk+1 {
			t.Fatalf("%d reasons, over the bound", len(a.Ask))
		}
		for _, c := range a.Commands {
			checkCommand(t, src, c)
		}
		if err != nil || boundHit(a) || strings.ContainsRune(src, 0) {
			return
		}
		// A command before the line changes nothing about its commands.
		if p := analyze("true\n" + src); !boundHit(p) {
			if len(p.Commands) != len(a.Commands)+1 ||
				len(a.Commands) > 0 && !reflect.DeepEqual(p.Commands[1:], a.Commands) {
				t.Fatalf("after `true` %q runs\n %+v\nbut alone\n %+v", src, p.Commands, a.Commands)
			}
		}
		q, qerr := syntax.Quote(src, syntax.LangBash)
		if qerr != nil {
			return
		}
		// "--" so that a line starting with - or + is not read as bash's options.
		b := analyze("bash -c -- " + q)
		if boundHit(b) {
			return
		}
		if got, want := argvs(b), argvs(a); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("bash -c %s runs\n %q\nbut the line itself runs\n %q", q, got, want)
		}
		// Each command is the same but for the bash -c wrapper in front: the same
		// folder, environment, redirections, reads and writes.
		for i, c := range b.Commands {
			if len(c.Wrappers) == 0 || c.Wrappers[0] != "bash -c" {
				t.Fatalf("bash -c %s: %s lacks the bash -c wrapper", q, describe(c))
			}
			c.Wrappers = c.Wrappers[1:]
			if len(c.Wrappers) == 0 {
				c.Wrappers = nil
			}
			if c.InputFrom != nil && len(c.InputFrom.Wrappers) > 0 && c.InputFrom.Wrappers[0] == "bash -c" {
				in := *c.InputFrom
				in.Wrappers = in.Wrappers[1:]
				if len(in.Wrappers) == 0 {
					in.Wrappers = nil
				}
				c.InputFrom = &in
			}
			if !reflect.DeepEqual(c, a.Commands[i]) {
				t.Fatalf("bash -c %s gives\n %+v\nbut the line itself\n %+v", q, c, a.Commands[i])
			}
		}
	})
}

// hiddenInArithmetic is an independent check of the arithmetic rule: it finds, in a
// line that parses, a command substitution inside an arithmetic expression, a
// subscript, a slice or a [[ -eq ]] operand (whose output bash evaluates), or quoted
// text holding $ or a backquote in those places or in [[ -v ]]; "" when there is none.
func hiddenInArithmetic(src string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return ""
	}
	found := ""
	inside := func(n syntax.Node) {
		if n == nil || isNilNode(n) || found != "" {
			return
		}
		names := map[*syntax.Lit]bool{} // the names of parameters ($$ is named "$")
		syntax.Walk(n, func(m syntax.Node) bool {
			switch m := m.(type) {
			case *syntax.ParamExp:
				names[m.Param] = true
			case *syntax.CmdSubst:
				if !numericCommand(m) {
					found = nodeText(m, src)
				}
				return false
			case *syntax.SglQuoted:
				if strings.ContainsAny(m.Value, "$`") {
					found = nodeText(m, src)
				}
			case *syntax.Lit:
				if !names[m] && strings.ContainsAny(unescapeBare(m.Value), "$`") {
					found = nodeText(m, src)
				}
			case *syntax.ArithmExp:
				return false // a number; its own operands are checked when the walk gets there
			}
			return found == ""
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ArithmExp:
			inside(n.X)
		case *syntax.ArithmCmd:
			inside(n.X)
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				inside(x)
			}
		case *syntax.CStyleLoop:
			inside(n.Init)
			inside(n.Cond)
			inside(n.Post)
		case *syntax.ParamExp:
			if n.Index != nil {
				inside(n.Index)
			}
			if n.Slice != nil {
				inside(n.Slice.Offset)
				inside(n.Slice.Length)
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				inside(n.X)
				inside(n.Y)
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				inside(n.X)
			}
		}
		return found == ""
	})
	return found
}
