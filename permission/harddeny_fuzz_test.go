package permission

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ouroagent/ouro/shell"
)

// addShellSeeds seeds a fuzz target with the lines of the tables and the corpus.
func addShellSeeds(f *testing.F) {
	for _, s := range hardDenied {
		f.Add(s)
	}
	for _, s := range notHardDenied {
		f.Add(s)
	}
	for _, tc := range readOnlyCases {
		f.Add(tc.src)
	}
	c, err := loadShellCorpus(corpusPath)
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range c.cases {
		f.Add(k.command)
	}
}

// boundHit reports an Ask that comes from a bound of the analyser rather than from the
// line's meaning: lines hitting one may be judged differently once nested. It reads the
// analyser's reasons (shell/analyze.go's bounds).
func boundHit(a shell.Analysis) bool {
	return slices.ContainsFunc(a.Ask, func(r string) bool {
		return strings.Contains(r, "nested more than") || strings.Contains(r, "levels deep") ||
			strings.Contains(r, "simple commands") || strings.Contains(r, "wrappers") ||
			strings.Contains(r, "analyser failed")
	})
}

// watchdog crashes the fuzz worker when one input takes too long, so that the fuzzer
// keeps the input. It returns the stop.
func watchdog(src string) func() {
	t := time.AfterFunc(20*time.Second, func() {
		panic(fmt.Sprintf("the hard-deny check of %q takes more than 20s", src))
	})
	return func() { t.Stop() }
}

// FuzzHardDeny: HardDeny and IsReadOnly never panic, a refusal always has a reason, and
// a refused line stays refused after another command, inside bash -c and inside eval.
func FuzzHardDeny(f *testing.F) {
	addShellSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		defer watchdog(src)()
		a := shell.Analyze(src)
		for _, c := range a.Commands {
			IsReadOnly(c)
		}
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
			b := shell.Analyze(v)
			if boundHit(b) {
				continue
			}
			if _, ok := HardDeny(b); !ok {
				t.Fatalf("%q is refused (%s) but %q is not", src, reason, v)
			}
		}
	})
}
