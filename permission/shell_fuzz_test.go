package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// addShellSeeds seeds a fuzz target with every line of the tables and the corpus.
func addShellSeeds(f *testing.F) {
	for _, tc := range analyzeCases {
		f.Add(tc.src)
	}
	for _, s := range hardDenied {
		f.Add(s)
	}
	for _, s := range notHardDenied {
		f.Add(s)
	}
	for _, tc := range readOnlyCases {
		f.Add(tc.src)
	}
	c, err := loadShellCorpus(filepath.Join("testdata", "shell_corpus.txt"))
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range c.cases {
		f.Add(k.command)
	}
}

// boundHit reports an Ask that comes from a bound of the analyser rather than from the
// line's meaning: lines hitting one may be judged differently once nested.
func boundHit(a Analysis) bool {
	return slices.ContainsFunc(a.Ask, func(r string) bool {
		return strings.Contains(r, "nested more than") || strings.Contains(r, "levels deep") ||
			strings.Contains(r, "simple commands") || strings.Contains(r, "wrappers")
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

// FuzzAnalyzeShell: the analyser never panics, a line bash cannot parse is always asked
// about, and a line passed through `bash -c '...'` runs the same commands.
func FuzzAnalyzeShell(f *testing.F) {
	addShellSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		defer watchdog(src)()
		a := analyzeShell(src) // without AnalyzeShell's recover, so a panic fails
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil && len(a.Ask) == 0 {
			t.Fatalf("%q does not parse (%v) but nothing asks", src, err)
		}
		if len(a.Commands) > maxCommands {
			t.Fatalf("%d commands, over the bound", len(a.Commands))
		}
		for _, c := range a.Commands {
			IsReadOnly(c)
			for _, r := range c.Redirects {
				_ = r.WritesFile() // must not panic on any input
			}
		}
		HardDeny(a)
		if err != nil || boundHit(a) {
			return
		}
		q, qerr := syntax.Quote(src, syntax.LangBash)
		if qerr != nil {
			return
		}
		// "--" so that a line starting with - or + is not read as bash's options.
		b := analyzeShell("bash -c -- " + q)
		if boundHit(b) {
			return
		}
		if got, want := argvs(b), argvs(a); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("bash -c %s runs\n %q\nbut the line itself runs\n %q", q, got, want)
		}
		for _, c := range b.Commands {
			if len(c.Wrappers) == 0 || !slices.Contains(c.Wrappers, "bash -c") {
				t.Fatalf("bash -c %s: %s lacks the bash -c wrapper", q, describe(c))
			}
		}
	})
}

// FuzzHardDeny: HardDeny never panics, a refusal always has a reason, and a refused line
// stays refused after another command, inside bash -c and inside eval.
func FuzzHardDeny(f *testing.F) {
	addShellSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		defer watchdog(src)()
		a := analyzeShell(src)
		reason, ok := HardDeny(a)
		if !ok {
			return
		}
		if reason == "" {
			t.Fatalf("%q: refused without a reason", src)
		}
		if boundHit(a) {
			return
		}
		variants := []string{"true\n" + src}
		if q, err := syntax.Quote(src, syntax.LangBash); err == nil {
			variants = append(variants, "bash -c -- "+q, "sudo bash -c -- "+q, "eval "+q)
		}
		for _, v := range variants {
			b := analyzeShell(v)
			if boundHit(b) {
				continue
			}
			if _, ok := HardDeny(b); !ok {
				t.Fatalf("%q is refused (%s) but %q is not", src, reason, v)
			}
		}
	})
}
