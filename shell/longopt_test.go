package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestResolveLong(t *testing.T) {
	names := []string{"--null", "--null-data", "--output", "--other"}
	cases := []struct {
		word, name, value string
		match             LongMatch
	}{
		{"--null", "--null", "", LongExact}, // a whole name wins over the longer one
		{"--null-", "--null-data", "", LongAbbrev},
		{"--ou=/x", "--output", "/x", LongAbbrev},
		{"--o", "--o", "", LongAmbiguous},
		{"--zz", "--zz", "", LongUnknown},
		{"--", "", "", NotLong},
		{"-o", "", "", NotLong},
	}
	for _, c := range cases {
		o := ResolveLong(c.word, names, true)
		if o.Match != c.match || o.Name != c.name || o.Value != c.value {
			t.Errorf("ResolveLong(%q) = %+v, want %s %q %v", c.word, o, c.name, c.value, c.match)
		}
	}
	if o := ResolveLong("--ou", names, false); o.Match != LongUnknown {
		t.Errorf("without abbreviations --ou = %v, want unknown", o.Match)
	}
	if o := ResolveLong("--o", names, true); !o.Is("--output") || o.Is("--null") {
		t.Errorf("an ambiguous prefix stands for each of its candidates: %+v", o)
	}
}

// TestAnalyzeAbbreviatedOptions: wrappers and file options are read as their program
// reads them, and a prefix no table resolves asks.
func TestAnalyzeAbbreviatedOptions(t *testing.T) {
	one := func(line string) Command {
		t.Helper()
		a := Analyze(line)
		if len(a.Commands) != 1 || len(a.Ask) > 0 {
			t.Fatalf("%s: %d commands, asks %q", line, len(a.Commands), a.Ask)
		}
		return a.Commands[0]
	}
	if c := one("env --ch=/etc cat shadow"); c.Dir != "/etc" || c.Argv[0] != "cat" {
		t.Errorf("env --ch: dir %q argv %q", c.Dir, c.Argv)
	}
	if c := one("env --ch /etc cat shadow"); c.Dir != "/etc" || c.Argv[0] != "cat" {
		t.Errorf("env --ch DIR: dir %q argv %q", c.Dir, c.Argv)
	}
	if a := Analyze("env --sp='rm -rf x' ls"); len(a.Commands) != 1 || a.Commands[0].Argv[0] != "rm" {
		t.Errorf("env --sp: %+v", a.Commands)
	}
	if c := one("/usr/bin/time --ou=/tmp/out ls"); !slices.ContainsFunc(c.Writes, func(p Path) bool { return p.Name == "/tmp/out" }) {
		t.Errorf("time --ou: writes %v", c.Writes)
	}
	if c := one("grep --exclude-f=/etc/shadow x"); !slices.ContainsFunc(c.Reads, func(p Path) bool { return p.Name == "/etc/shadow" }) {
		t.Errorf("grep --exclude-f: reads %v", c.Reads)
	}
	if c := one("du --files0 /etc/list"); !slices.ContainsFunc(c.Reads, func(p Path) bool { return p.Name == "/etc/list" }) {
		t.Errorf("du --files0: reads %v", c.Reads)
	}
	if c := one("sed --in s/a/b/ f"); !slices.ContainsFunc(c.Writes, func(p Path) bool { return p.Name == "f" }) {
		t.Errorf("sed --in: writes %v", c.Writes)
	}
	if a := Analyze("su --comm='rm x' root"); !slices.ContainsFunc(a.Commands, func(c Command) bool { return c.Argv[0] == "rm" }) {
		t.Errorf("su --comm: the string it runs is not analysed: %+v", a.Commands)
	}
	for _, line := range []string{"env --zz ls", "env --d ls", "sort --c f", "grep --fil=/etc/shadow x", "timeout --zz 5 ls"} {
		a := Analyze(line)
		if len(a.Ask) == 0 || !strings.Contains(strings.Join(a.Ask, ";"), "--") {
			t.Errorf("%s: asks %q, want a question on the option", line, a.Ask)
		}
	}
}
