package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// abbreviatedAttacks are lines that write a file, run a program or read outside the
// workspace through a long option written as a prefix (GNU getopt_long and git's
// parse-options take an unambiguous prefix for the option), or through a prefix that
// stands for no option or for several. None may be allowed in default mode, with no
// rule or with rules for other commands.
var abbreviatedAttacks = []string{
	// sort: --output writes, --compress-program runs a program.
	"sort --ou=/etc/x a.txt",
	"sort --outp ~/.bashrc a.txt",
	"sort --o=out.txt a.txt",
	"sort --ou out.txt a.txt",
	"sort -r --out=/tmp/x a.txt",
	"sort --comp=sh a.txt",
	"sort --compress-p sh a.txt",
	"sort --co=sh a.txt",
	"sort --c a.txt",
	"sort --zz a.txt",
	// date: --set changes the clock, --file and --reference read.
	"date --s=2020-01-01",
	"date --se '1 Jan'",
	"date --fi=/etc/shadow",
	"date --ref=/etc/shadow",
	"date --r=/etc/shadow",
	// file: --compile writes a magic file; --files-from and --magic-file read.
	"file --co x",
	"file --comp x",
	"file --f=/etc/shadow",
	"file --m=/etc/shadow a.txt",
	// grep, du, wc, diff: options that read a file outside the workspace.
	"grep --fil=/etc/shadow x",
	"grep --fil /etc/shadow x a.txt",
	"grep --fi /etc/shadow x",
	"grep --exclude-f=/etc/shadow x .",
	"grep --f=/etc/shadow x",
	"du --files0=/etc/shadow",
	"du --files0-f /etc/shadow",
	"du --exclude-f=/etc/shadow .",
	"wc --files=/etc/shadow",
	"wc --f /etc/shadow",
	"diff --from=/etc/shadow a.txt",
	"diff --to-f=/etc/shadow a.txt",
	"diff --exclude-fr=/etc/shadow a.txt b.txt",
	// uniq: a second operand is written.
	"uniq --sk 1 a.txt b.txt",
	"uniq --zz a.txt",
	// wrappers: a folder to run in, a string to split into a command, a file written.
	"env --ch=/ cat etc/shadow",
	"env --ch / cat etc/shadow",
	"env --chd=/etc cat shadow",
	"env --sp='rm -rf src' ls",
	"env --split 'touch x' ls",
	"env --zz ls",
	"env --i rm a.txt",
	"/usr/bin/time --ou=/etc/x ls",
	"/usr/bin/time --o ~/.bashrc ls",
	"timeout --k 1 5 cat /etc/shadow",
	"timeout --zz 5 ls",
	"xargs --arg=/etc/shadow cat",
	"nice --adj 5 rm a.txt",
	"stdbuf --out=0 --zz ls",
	// git: options that write or run, on subcommands judged read-only.
	"git --exec-pa=/tmp status",
	"git diff --outp=/etc/x",
	"git diff --ou=out.txt",
	"git log --ext",
	"git show --ext-d HEAD",
	"git log --ex",
	"git branch --de main",
	"git branch --mo a b",
	"git branch --cop a b",
	"git branch --set-up=origin/x",
	"git branch --unset-u",
	"git branch --edit-d",
	"git branch --li --fo x",
	"git tag -l --del v1",
	"git tag --li --ann v1",
	"git fetch --upload-pa=sh origin",
	"git push --receive-pa=sh origin",
	// tar, sed, cp, make, npm: programs run, files written or read.
	"tar --to-com='sh' -xf a.tar",
	"tar --use-comp=sh -cf a.tar src",
	"tar --dir=/ -xf a.tar",
	"tar --files-f=/etc/shadow -cf a.tar",
	"sed --in s/a/b/ ~/.bashrc",
	"sed --in-pl=.bak s/a/b/ a.txt",
	"cp --targ=/etc a.txt",
	"make --ev='$(shell touch x)'",
	"make --fi=/etc/x",
	"make --dir=/tmp",
	"npm run lint --script-sh=/tmp/x",
	"npm run lint --node-opt=--require=/tmp/x",
	// Commands a rule allows, followed by an abbreviated attack.
	"ls && sort --ou=/etc/x a.txt",
	"git status; date --s=now",
	"go test ./... && file --co x",
	"npm run lint && grep --fil=/etc/shadow x",
	"ls | sort --comp=sh",
}

// abbreviatedBenign are prefixes of harmless options, allowed as the full option is.
var abbreviatedBenign = []string{
	"sort --rev a.txt",
	"sort --reverse a.txt",
	"sort --numeric a.txt",
	"sort --uniq a.txt",
	"date --utc",
	"date --iso=seconds",
	"uniq --cou a.txt",
	"uniq --skip-f 1 a.txt",
	"uniq --skip-fields=1 a.txt",
	"grep --ignore-c x a.txt",
	"grep --line-n x a.txt",
	"du --summ .",
	"wc --li a.txt",
	"file --br a.txt",
	"diff --bri a.txt b.txt",
	"env --ch=src ls",
	"timeout --sig=KILL 5 ls",
	"git branch --li",
	"git branch --show-c",
	"git tag --li",
}

func TestAbbreviatedLongOptions(t *testing.T) {
	e := newEnv(t)
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(e.proj, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(abbreviatedAttacks) < 60 {
		t.Fatalf("the corpus holds %d attack lines, want at least 60", len(abbreviatedAttacks))
	}
	ruleSets := map[string]rules{
		"no rules":     {},
		"other rules":  {allow: []string{"Bash(ls *)", "Bash(git status)", "Bash(go test *)", "Bash(npm run lint)"}},
		"ls rule":      {allow: []string{"Bash(ls *)"}},
		"git rule":     {allow: []string{"Bash(git status)"}},
		"go test rule": {allow: []string{"Bash(go test *)"}},
	}
	for name, rs := range ruleSets {
		p := e.policy(t, "default", rs)
		for _, line := range abbreviatedAttacks {
			v := p.Check(context.Background(), e.call("Bash", bash(line)))
			if v.Behavior == Allow {
				t.Errorf("%s: %q is allowed (%s: %s)", name, line, v.Source, v.Reason)
			}
		}
	}
	p := e.policy(t, "default", rules{})
	for _, line := range abbreviatedBenign {
		v := p.Check(context.Background(), e.call("Bash", bash(line)))
		if v.Behavior != Allow {
			t.Errorf("%q = %v (%s: %s), want allow as with the full option", line, v.Behavior, v.Source, v.Reason)
		}
	}
	// The go tool takes whole flag names only: -exe is not -exec, and goes to the
	// test binary, which refuses it.
	p = e.policy(t, "default", rules{allow: []string{"Bash(go test *)"}})
	if v := p.Check(context.Background(), e.call("Bash", bash("go test -exe=sh ./..."))); v.Behavior != Allow {
		t.Errorf("go test -exe=sh = %v (%s), want allow: go does not abbreviate", v.Behavior, v.Reason)
	}
	if v := p.Check(context.Background(), e.call("Bash", bash("go test -exec=sh ./..."))); v.Behavior == Allow {
		t.Errorf("go test -exec=sh is allowed")
	}
}
