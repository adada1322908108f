package shell

import (
	"slices"
	"strings"
	"testing"
)

// OptionWords lists the words that may be options only at run time, and no others.
func TestOptionWords(t *testing.T) {
	for _, c := range []struct {
		line string
		want []OptionWord
	}{
		{`go test $(echo -toolexec=x) ./...`, []OptionWord{{Word: "$(echo -toolexec=x)"}}},
		{"go test `echo -exec=sh` ./...", []OptionWord{{Word: "`echo -exec=sh`"}}},
		{`go test $X ./...`, []OptionWord{{Word: "$X"}}},
		{`go test "$X" ./...`, []OptionWord{{Word: "$X"}}},
		{`go test ${X:--exec=sh} ./...`, []OptionWord{{Word: "${X:--exec=sh}"}}},
		{`go test "${A[@]}" ./...`, []OptionWord{{Word: "${A[@]}"}}},
		{`go test pkg$X`, []OptionWord{{Word: "pkg$X"}}}, // unquoted: may split
		{`go test -run=$X ./...`, []OptionWord{{Word: "-run=$X"}}},
		{`go test -* ./...`, []OptionWord{{Word: "-*", Glob: true}}},
		{`ls *`, []OptionWord{{Word: "*", Glob: true}}},
		{`ls *.go`, []OptionWord{{Word: "*.go", Glob: true}}},
		{`ls ""$X`, []OptionWord{{Word: "$X"}}},
		{`go test $((1+2))`, []OptionWord{{Word: "$((1+2))"}}},
		// Not option-like: a literal start with the expansion quoted, a glob after a
		// literal start, words after "--", process substitutions, the command name.
		{`go test "pkg$X" ./...`, nil},
		{`ls src/*.go ./*`, nil},
		{`ls -- * $X`, nil},
		{`diff <(ls) <(ls -a)`, nil},
		{`grep -n foo README.md`, nil},
	} {
		var cmd *Command
		for i, k := range Analyze(c.line).Commands {
			if len(k.Argv) > 0 && strings.HasPrefix(c.line, k.Argv[0]+" ") {
				cmd = &Analyze(c.line).Commands[i]
			}
		}
		if cmd == nil {
			t.Fatalf("%s: no command", c.line)
		}
		if got := cmd.OptionWords; !slices.Equal(got, c.want) {
			t.Errorf("%s: OptionWords = %+v, want %+v", c.line, got, c.want)
		}
	}
}
