package shell

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// describe is a compact form of a command for tables: the argv, then only what is set.
func describe(c Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q", c.Argv)
	if len(c.Wrappers) > 0 {
		fmt.Fprintf(&b, " wrap=%s", strings.Join(c.Wrappers, ","))
	}
	if len(c.Env) > 0 {
		fmt.Fprintf(&b, " env=%q", c.Env)
	}
	for _, r := range c.Redirects {
		fmt.Fprintf(&b, " %s%s%s", r.Fd, r.Op, r.Target)
		if r.Dynamic {
			b.WriteString("(dyn)")
		}
	}
	if c.DirUnknown {
		b.WriteString(" dir=?")
		if len(c.Dirs) > 0 {
			ds := slices.Clone(c.Dirs)
			for i, d := range ds {
				if d == "" {
					ds[i] = "."
				}
			}
			fmt.Fprintf(&b, "(%s)", strings.Join(ds, "|"))
		}
	} else if c.Dir != "" {
		fmt.Fprintf(&b, " dir=%s", c.Dir)
	}
	if c.Dynamic {
		b.WriteString(" dyn")
	}
	if c.StdinArgs {
		b.WriteString(" stdin")
	}
	return b.String()
}

type analyzeCase struct {
	src  string
	want []string // describe() of every command, in order
	ask  string   // a substring of one Ask reason; "" means Ask must be empty
}

var analyzeCases = []analyzeCase{
	// Lists, pipelines and newlines.
	{src: `ls -la`, want: []string{`["ls" "-la"]`}},
	{src: `a && b || c; d | e |& f & g`, want: []string{`["a"]`, `["b"]`, `["c"]`, `["d"]`, `["e"]`, `["f"]`, `["g"]`}},
	{src: "ls -la\nrm -rf build", want: []string{`["ls" "-la"]`, `["rm" "-rf" "build"]`}},
	{src: "ls \\\n  -la", want: []string{`["ls" "-la"]`}},
	{src: `! grep -q x f`, want: []string{`["grep" "-q" "x" "f"]`}},
	{src: `ls # ; rm -rf /`, want: []string{`["ls"]`}},
	// Subshells and blocks; redirections of a compound command reach every command in it.
	{src: `(cd src && make)`, want: []string{`["cd" "src"]`, `["make"] dir=src`}},
	{src: `{ a; b; } > out 2>&1`, want: []string{`["a"] >out 2>&1`, `["b"] >out 2>&1`}},
	{src: `(a) > o; b`, want: []string{`["a"] >o`, `["b"]`}},
	// Command substitutions anywhere in a word, run before the command.
	{src: `echo $(date) "$(whoami)" x$(id -u)y`, want: []string{`["date"]`, `["whoami"]`, `["id" "-u"]`, `["echo" "$(date)" "$(whoami)" "x$(id -u)y"] dyn`}},
	{src: "echo `uname`", want: []string{`["uname"]`, "[\"echo\" \"`uname`\"] dyn"}},
	{src: `echo $(a $(b))`, want: []string{`["b"]`, `["a" "$(b)"] dyn`, `["echo" "$(a $(b))"] dyn`}},
	{src: `echo ${X:-$(rm y)}`, want: []string{`["rm" "y"]`, `["echo" "${X:-$(rm y)}"] dyn`}},
	{src: `echo $(( $(a) + 1 ))`, want: []string{`["a"]`, `["echo" "$(( $(a) + 1 ))"] dyn`}, ask: "output of a command as arithmetic"},
	// Process substitution.
	{src: `diff <(sort a) >(tee b)`, want: []string{`["sort" "a"]`, `["tee" "b"]`, `["diff" "<(sort a)" ">(tee b)"]`}},
	// Control flow, functions.
	{src: `if a; then b; elif c; then d; else e; fi`, want: []string{`["a"]`, `["b"]`, `["c"]`, `["d"]`, `["e"]`}},
	{src: `for f in $(ls); do rm "$f"; done`, want: []string{`["ls"]`, `["rm" "$f"] dyn`}},
	{src: `for ((i=0; i<$(n); i++)); do x; done`, want: []string{`["n"]`, `["x"]`}, ask: "output of a command as arithmetic"},
	{src: `while read l; do echo "$l"; done < in`, want: []string{`["read" "l"] <in`, `["echo" "$l"] <in dyn`}},
	{src: `until a; do b; done`, want: []string{`["a"]`, `["b"]`}},
	{src: `case $(x) in a) y;; *) z;; esac`, want: []string{`["x"]`, `["y"]`, `["z"]`}},
	{src: `select o in a b; do c; done`, want: []string{`["c"]`}},
	{src: `f() { a; b; }; f`, want: []string{`["a"]`, `["b"]`, `["f"]`}},
	{src: `function g { a; }`, want: []string{`["a"]`}},
	{src: `[[ -f $(a) ]] && (( $(b) ))`, want: []string{`["a"]`, `["b"]`}, ask: "output of a command as arithmetic"},
	{src: `let x=$(a)+1`, want: []string{`["a"]`}, ask: "output of a command as arithmetic"},
	{src: `time a | b`, want: []string{`["a"] wrap=time`, `["b"] wrap=time`}},
	{src: `coproc a`, want: []string{`["a"]`}},
	// Quotes and escapes are removed, brace expansion applied, globs and ~ kept.
	{src: `r''m -rf x`, want: []string{`["rm" "-rf" "x"]`}},
	{src: `"rm" 'x y' "a"'b'c`, want: []string{`["rm" "x y" "abc"]`}},
	{src: `\rm r\m "a\$b\x" 'c\d'`, want: []string{`["rm" "rm" "a$b\\x" "c\\d"]`}},
	{src: `$'\x72\x6d' $'a\tb' $'\101\u00e9'`, want: []string{`["rm" "a\tb" "Aé"]`}},
	{src: `{rm,-rf,x}`, want: []string{`["rm" "-rf" "x"]`}},
	{src: `echo a{b,c}d {1..3} {a..c} {01..03} {5..1..2}`, want: []string{`["echo" "abd" "acd" "1" "2" "3" "a" "b" "c" "01" "02" "03" "5" "3" "1"]`}},
	{src: `echo "{a,b}" '{c,d}' {e}`, want: []string{`["echo" "{a,b}" "{c,d}" "{e}"]`}},
	{src: `ls *.go src/[a-z]* ~ ~/x "~"`, want: []string{`["ls" "*.go" "src/[a-z]*" "~" "~/x" "~"]`}},
	{src: `rm -rf $HOME ${HOME} "$HOME" '$HOME'`, want: []string{`["rm" "-rf" "$HOME" "$HOME" "$HOME" "$HOME"] dyn`}},
	{src: `echo ${#x} ${x/a/b} $1 $@`, want: []string{`["echo" "${#x}" "${x/a/b}" "$1" "$@"] dyn`}},
	// Assignments.
	{src: `FOO=1 BAR="a b" make`, want: []string{`["make"] env=["FOO=1" "BAR=a b"]`}},
	{src: `X=$(a) Y+=z`, want: []string{`["a"]`, `[] env=["X=$(a)" "Y+=z"]`}},
	{src: `export A=1 B; local -r C=$(d)`, want: []string{`["export" "A=1" "B"]`, `["d"]`, `["local" "-r" "C=$(d)"] dyn`}},
	// Redirections.
	{src: `a > o >> p < i 2> e &> f >| g 3<> h 2>&1 >&2 <&0`, want: []string{`["a"] >o >>p <i 2>e &>f >|g 3<>h 2>&1 >&2 <&0`}},
	{src: `a > $OUT > "$(mktemp)"`, want: []string{`["mktemp"]`, `["a"] >$OUT(dyn) >$(mktemp)(dyn)`}},
	{src: `> f`, want: []string{`[] >f`}},
	{src: `a <<< "s $(b)"`, want: []string{`["b"]`, `["a"] <<<s $(b)(dyn)`}},
	{src: "cat <<EOF\n$(rm x)\nEOF", want: []string{`["rm" "x"]`, `["cat"] <<EOF`}},
	{src: "cat <<'EOF'\n$(rm x)\nEOF", want: []string{`["cat"] <<EOF`}},
	// Wrappers.
	{src: `timeout 5 rm x`, want: []string{`["rm" "x"] wrap=timeout`}},
	{src: `timeout -s KILL --kill-after=3 -v 5m rm x`, want: []string{`["rm" "x"] wrap=timeout`}},
	{src: `nice -n 10 a; nice -5 b; nice c`, want: []string{`["a"] wrap=nice`, `["b"] wrap=nice`, `["c"] wrap=nice`}},
	{src: `nohup a &`, want: []string{`["a"] wrap=nohup`}},
	{src: `/usr/bin/time -p -o t.txt a`, want: []string{`["a"] wrap=time >t.txt`}},
	{src: `stdbuf -oL -e 0 a`, want: []string{`["a"] wrap=stdbuf`}},
	{src: `env -i -u HOME --unset=X A=1 B=2 a b`, want: []string{`["a" "b"] wrap=env env=["A=1" "B=2"]`}},
	{src: `env`, want: []string{`["env"]`}},
	{src: `env A=1`, want: []string{`["env" "A=1"]`}},
	{src: `env -C sub make; x`, want: []string{`["make"] wrap=env dir=sub`, `["x"]`}},
	{src: `env -S 'rm -rf x' y`, want: []string{`["rm" "-rf" "x" "y"] wrap=env`}},
	{src: `command -p a; command -v a; builtin cd x`, want: []string{`["a"] wrap=command`, `["command" "-v" "a"]`, `["cd" "x"] wrap=builtin`}},
	{src: `exec a; exec > log`, want: []string{`["a"] wrap=exec`, `["exec"] >log`}},
	{src: `xargs rm`, want: []string{`["rm"] wrap=xargs stdin`}},
	{src: `xargs -0 -n 1 -I{} -P4 --max-procs=2 rm -f {}`, want: []string{`["rm" "-f" "{}"] wrap=xargs stdin`}},
	{src: `xargs`, want: []string{`["echo"] wrap=xargs stdin`}},
	{src: `sudo -u root -E a b`, want: []string{`["a" "b"] wrap=sudo`}},
	{src: `sudo -- a; sudo X=1 a; sudo -e f`, want: []string{`["a"] wrap=sudo`, `["a"] wrap=sudo env=["X=1"]`, `["sudoedit" "f"] wrap=sudo`}},
	{src: `sudo -l; sudo`, want: []string{`["sudo" "-l"]`, `["sudo"]`}},
	{src: `doas -u u a; ionice -c2 -n7 a; chrt -f 10 a; taskset -c 0,1 a; setsid -f a`,
		want: []string{`["a"] wrap=doas`, `["a"] wrap=ionice`, `["a"] wrap=chrt`, `["a"] wrap=taskset`, `["a"] wrap=setsid`}},
	{src: `taskset -p 1234; ionice -p 1`, want: []string{`["taskset" "-p" "1234"]`, `["ionice" "-p" "1"]`}},
	{src: `busybox rm x`, want: []string{`["rm" "x"] wrap=busybox`}},
	{src: `sudo timeout 5 env X=1 nice -n 3 xargs rm -rf`, want: []string{`["rm" "-rf"] wrap=sudo,timeout,env,nice,xargs env=["X=1"] stdin`}},
	{src: `/bin/command a`, want: []string{`["/bin/command" "a"]`}},
	// Shell strings parsed in turn.
	{src: `bash -c "a && b"`, want: []string{`["a"] wrap=bash -c`, `["b"] wrap=bash -c`}},
	{src: `sh -c 'a' > o`, want: []string{`["a"] wrap=sh -c >o`}},
	{src: `bash -lc a; bash -e -o pipefail -c b; zsh -c c; dash -c d; /bin/sh -xc e`,
		want: []string{`["a"] wrap=bash -c`, `["b"] wrap=bash -c`, `["c"] wrap=zsh -c`, `["d"] wrap=dash -c`, `["e"] wrap=sh -c`}},
	{src: `sudo bash -c 'sh -c "rm x"'`, want: []string{`["rm" "x"] wrap=sudo,bash -c,sh -c`}},
	{src: `sudo bash -c 'echo $(rm x)' > o`, want: []string{`["rm" "x"] wrap=sudo,bash -c`, `["echo" "$(rm x)"] wrap=sudo,bash -c >o dyn`}},
	{src: `sudo echo $(rm x) > o`, want: []string{`["rm" "x"]`, `["echo" "$(rm x)"] wrap=sudo >o dyn`}},
	{src: `bash script.sh arg`, want: []string{`["bash" "script.sh" "arg"]`}},
	{src: `bash -c -- -x; bash -c +x`, want: []string{`["-x"] wrap=bash -c`, `["bash" "-c" "+x"]`}},
	{src: `bash < script.sh`, want: []string{`["bash"] <script.sh`}},
	{src: "bash <<EOF\na\nEOF", want: []string{`["a"] wrap=bash <<EOF`}},
	{src: `sh <<< 'a; b'`, want: []string{`["a"] wrap=sh <<<a; b`, `["b"] wrap=sh <<<a; b`}},
	{src: `bash -s a b <<< 'rm x'`, want: []string{`["rm" "x"] wrap=bash <<<rm x`}},
	{src: "bash /dev/stdin <<'E'\nrm x\nE", want: []string{`["rm" "x"] wrap=bash <<E`}},
	{src: `. /dev/stdin <<< 'rm x'; y`, want: []string{`["rm" "x"] wrap=. <<<rm x`, `["y"] dir=?`}},
	{src: `su -c 'rm x' root`, want: []string{`["rm" "x"] wrap=su -c`, `["su" "-c" "rm x" "root"]`}},
	{src: `su - root --command='rm x'`, want: []string{`["rm" "x"] wrap=su -c`, `["su" "-" "root" "--command=rm x"]`}},
	{src: `runuser -u u -- sh -c x`, want: []string{`["x"] wrap=runuser,sh -c`, `["runuser" "-u" "u" "--" "sh" "-c" "x"]`}},
	{src: `script -qc 'rm x' /dev/null`, want: []string{`["rm" "x"] wrap=script -c`, `["script" "-qc" "rm x" "/dev/null"]`}},
	{src: `flock -w 5 /tmp/l rm x; flock l -c 'y'`, want: []string{`["rm" "x"] wrap=flock`, `["flock" "-w" "5" "/tmp/l" "rm" "x"]`, `["y"] wrap=flock -c`, `["flock" "l" "-c" "y"]`}},
	{src: `xargs sh -c 'rm "$@"' _`, want: []string{`["rm" "$@"] wrap=xargs,sh -c dyn stdin`}},
	{src: `eval 'a; b'`, want: []string{`["a"] wrap=eval`, `["b"] wrap=eval`}, ask: "eval"},
	{src: `trap 'rm x' EXIT`, want: []string{`["rm" "x"] wrap=trap`, `["trap" "rm x" "EXIT"]`}},
	{src: `alias l='rm x'`, want: []string{`["rm" "x"] wrap=alias`, `["alias" "l=rm x"]`}},
	{src: `watch -n 1 'a | b'`, want: []string{`["a"] wrap=watch`, `["b"] wrap=watch`}},
	{src: `watch -x a b`, want: []string{`["a" "b"] wrap=watch`}},
	{src: `find . -name x -exec rm {} \; -execdir a {} +`, want: []string{`["rm" "{}"] wrap=find -exec`, `["a" "{}"] wrap=find -execdir dir=?`, `["find" "." "-name" "x" "-exec" "rm" "{}" ";" "-execdir" "a" "{}" "+"]`}},
	{src: `find . -exec bash -c 'rm x' \;`, want: []string{`["rm" "x"] wrap=find -exec,bash -c`, `["find" "." "-exec" "bash" "-c" "rm x" ";"]`}},
	// cd is followed for the commands after it in the same shell. A cd may fail and the
	// line go on where it was, unless && guards what follows.
	{src: `cd src && make && ls`, want: []string{`["cd" "src"]`, `["make"] dir=src`, `["ls"] dir=src`}},
	{src: `cd src && make; ls`, want: []string{`["cd" "src"]`, `["make"] dir=src`, `["ls"] dir=?(.|src)`}},
	{src: `cd src; make`, want: []string{`["cd" "src"]`, `["make"] dir=?(.|src)`}},
	{src: `cd src || exit; make`, want: []string{`["cd" "src"]`, `["exit"]`, `["make"] dir=src`}},
	{src: `cd a && cd ../b && cd c && x`, want: []string{`["cd" "a"]`, `["cd" "../b"] dir=a`, `["cd" "c"] dir=b`, `["x"] dir=b/c`}},
	{src: `cd /tmp && cd ~ && x && cd && y`, want: []string{`["cd" "/tmp"]`, `["cd" "~"] dir=/tmp`, `["x"] dir=~`, `["cd"] dir=~`, `["y"] dir=~`}},
	{src: `cd /a; cd /b; x`, want: []string{`["cd" "/a"]`, `["cd" "/b"] dir=?(.|/a)`, `["x"] dir=?(.|/a|/b)`}},
	{src: `cd ~/p/.. && x`, want: []string{`["cd" "~/p/.."]`, `["x"] dir=?`}},
	{src: `cd src && cd ~+/sub && x`, want: []string{`["cd" "src"]`, `["cd" "~+/sub"] dir=src`, `["x"] dir=src/sub`}},
	{src: `cd ~- && x`, want: []string{`["cd" "~-"]`, `["x"] dir=?`}},
	{src: `cd ~root/.ssh && x`, want: []string{`["cd" "~root/.ssh"]`, `["x"] dir=~root/.ssh`}},
	{src: `cd $D && x`, want: []string{`["cd" "$D"] dyn`, `["x"] dir=?`}},
	{src: `cd - ; x; cd /a && y`, want: []string{`["cd" "-"]`, `["x"] dir=?`, `["cd" "/a"] dir=?`, `["y"] dir=/a`}},
	{src: `if c; then cd /a; else cd /b; fi; x`, want: []string{`["c"]`, `["cd" "/a"]`, `["cd" "/b"]`, `["x"] dir=?(.|/a|/b)`}},
	{src: `if cd /a; then x; fi; y`, want: []string{`["cd" "/a"]`, `["x"] dir=/a`, `["y"] dir=?(.|/a)`}},
	{src: `for d in a; do cd $d; done; x`, want: []string{`["cd" "$d"] dyn`, `["x"] dir=?`}},
	{src: `while c; do cd a; done; x`, want: []string{`["c"]`, `["cd" "a"]`, `["x"] dir=?`}},
	{src: `case $x in a) cd /a;; esac; y`, want: []string{`["cd" "/a"]`, `["y"] dir=?(.|/a)`}},
	{src: `(cd a && x); y; echo $(cd b); z`, want: []string{`["cd" "a"]`, `["x"] dir=a`, `["y"]`, `["cd" "b"]`, `["echo" "$(cd b)"] dyn`, `["z"]`}},
	{src: `cd a | x; y; cd b & z`, want: []string{`["cd" "a"]`, `["x"]`, `["y"]`, `["cd" "b"]`, `["z"]`}},
	{src: `pushd a && x && popd; y`, want: []string{`["pushd" "a"]`, `["x"] dir=a`, `["popd"] dir=a`, `["y"] dir=?`}},
	{src: `bash -c 'cd / && x'; y`, want: []string{`["cd" "/"] wrap=bash -c`, `["x"] wrap=bash -c dir=/`, `["y"]`}},
	{src: `eval 'cd /' && y`, want: []string{`["cd" "/"] wrap=eval`, `["y"] dir=?(.|/)`}, ask: "eval"},
	{src: `env cd /; builtin cd /a && x`, want: []string{`["cd" "/"] wrap=env`, `["cd" "/a"] wrap=builtin`, `["x"] dir=/a`}},
	{src: `source ./env.sh; x`, want: []string{`["source" "./env.sh"]`, `["x"] dir=?`}},
	{src: `f() { cd /; }; f; x`, want: []string{`["cd" "/"]`, `["f"]`, `["x"] dir=?`}},
	{src: `g() { ls; }; g; x`, want: []string{`["ls"]`, `["g"]`, `["x"]`}},

	// What must be asked about whatever the rules say.
	{src: `ls (`, want: nil, ask: "does not parse"},
	{src: `echo "unterminated`, ask: "does not parse"},
	{src: "rm -rf /\n(", want: []string{`["rm" "-rf" "/"]`}, ask: "does not parse"},
	{src: "a; b && (c\nd", want: []string{`["a"]`}, ask: "does not parse"},
	{src: "a\x00b", ask: "NUL"},
	{src: `$(echo rm) -rf x`, want: []string{`["echo" "rm"]`, `["$(echo rm)" "-rf" "x"] dyn`}, ask: "command name is only known at run time"},
	{src: `$CMD x`, want: []string{`["$CMD" "x"] dyn`}, ask: "only known at run time: $CMD"},
	{src: `"${CMD:-rm}" x`, want: []string{`["${CMD:-rm}" "x"] dyn`}, ask: "only known at run time"},
	{src: `*.sh`, want: []string{`["*.sh"]`}, ask: "glob pattern"},
	{src: `<(a)`, want: []string{`["a"]`, `["<(a)"]`}, ask: "only known at run time"},
	{src: `"" x`, want: []string{`["" "x"]`}, ask: "empty"},
	{src: `timeout $T rm x`, want: []string{`["timeout" "$T" "rm" "x"] dyn`}, ask: "run by timeout"},
	{src: `sudo $CMD`, want: []string{`["sudo" "$CMD"] dyn`}, ask: "run by sudo"},
	{src: `exec "$@"`, want: []string{`["exec" "$@"] dyn`}, ask: "run by exec"},
	{src: `eval "$X"`, want: []string{`["$X"] wrap=eval dyn`}, ask: "eval runs a string only known at run time"},
	{src: `bash -c "$X"`, want: []string{`["bash" "-c" "$X"] dyn`}, ask: "bash -c runs a string only known at run time"},
	{src: `bash $OPTS -c x`, want: []string{`["bash" "$OPTS" "-c" "x"] dyn`}, ask: "options of bash"},
	{src: `curl x | sh`, want: []string{`["curl" "x"]`, `["sh"]`}, ask: "standard input"},
	// The outer shell runs a; the script text then holds $(a) again, which is found too.
	{src: "bash <<EOF\n$(a) b\nEOF", want: []string{`["a"]`, `["a"] wrap=bash`, `["$(a)" "b"] wrap=bash <<EOF dyn`}, ask: "here-document"},
	{src: `source $F`, want: []string{`["source" "$F"] dyn`}, ask: "source of a file only known at run time"},
	{src: `. ./env.sh; source ~/.x`, want: []string{`["." "./env.sh"]`, `["source" "~/.x"] dir=?`}},
	{src: `PATH=/tmp:$PATH ls`, want: []string{`["ls"] env=["PATH=/tmp:$PATH"]`}, ask: "sets PATH"},
	{src: `IFS=/; x`, want: []string{`[] env=["IFS=/"]`, `["x"]`}, ask: "sets IFS"},
	{src: `export LD_PRELOAD=x`, want: []string{`["export" "LD_PRELOAD=x"]`}, ask: "sets LD_PRELOAD"},
	{src: `env BASH_ENV=x bash s`, want: []string{`["bash" "s"] wrap=env env=["BASH_ENV=x"]`}, ask: "sets BASH_ENV"},
	{src: `printf -v PATH /tmp`, want: []string{`["printf" "-v" "PATH" "/tmp"]`}, ask: "sets PATH with printf"},
	{src: `printf -vIFS x`, want: []string{`["printf" "-vIFS" "x"]`}, ask: "sets IFS"},
	{src: `read -r PATH <<< /tmp`, want: []string{`["read" "-r" "PATH"] <<</tmp`}, ask: "sets PATH with read"},
	{src: `printf -v x '%s' PATH; read -r line`, want: []string{`["printf" "-v" "x" "%s" "PATH"]`, `["read" "-r" "line"]`}},
	{src: `hash -p /tmp/evil ls`, want: []string{`["hash" "-p" "/tmp/evil" "ls"]`}, ask: "hash -p"},
	{src: `enable -f ./x.so x`, want: []string{`["enable" "-f" "./x.so" "x"]`}, ask: "enable -f"},
	{src: `su -c "$X"`, want: []string{`["su" "-c" "$X"] dyn`}, ask: "su -c runs a string only known at run time"},
	{src: `echo \{a,b\}`, want: []string{`["echo" "{a,b}"]`}, ask: "brace expansion mixed with backslash"},
	{src: `echo {1..100000}`, want: []string{`["echo" "{1..100000}"] dyn`}, ask: "more than 256 words"},
}

func TestAnalyze(t *testing.T) {
	for _, tc := range analyzeCases {
		a := Analyze(tc.src)
		var got []string
		for _, c := range a.Commands {
			got = append(got, describe(c))
		}
		if tc.want != nil || len(got) > 0 && !strings.Contains(tc.ask, "parse") && !strings.Contains(tc.ask, "NUL") {
			if !slices.Equal(got, tc.want) {
				t.Errorf("%q: commands\n got  %q\n want %q", tc.src, got, tc.want)
			}
		}
		switch {
		case tc.ask == "" && len(a.Ask) > 0:
			t.Errorf("%q: unexpected Ask %q", tc.src, a.Ask)
		case tc.ask != "" && !slices.ContainsFunc(a.Ask, func(r string) bool { return strings.Contains(r, tc.ask) }):
			t.Errorf("%q: Ask %q, want a reason containing %q", tc.src, a.Ask, tc.ask)
		}
	}
}

func TestAnalyzeText(t *testing.T) {
	a := Analyze("go test ./... && rm -rf build > log 2>&1; ls &")
	want := []string{"go test ./...", "rm -rf build > log 2>&1", "ls"}
	var got []string
	for _, c := range a.Commands {
		got = append(got, c.Text)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Text: got %q, want %q", got, want)
	}
	// A command from a string parsed in turn shows its text within that string.
	a = Analyze(`bash -c 'echo hi; rm -rf x'`)
	if n := len(a.Commands); n != 2 || a.Commands[1].Text != "rm -rf x" {
		t.Errorf("bash -c text: %+v", a.Commands)
	}
}

func TestAnalyzeBounds(t *testing.T) {
	// Strings within strings: bounded depth, and the innermost command is still found
	// below the bound.
	src := "rm -rf x"
	for range 6 {
		src = "bash -c " + shellQuote(src)
	}
	a := Analyze(src)
	if len(a.Ask) > 0 || len(a.Commands) != 1 || strings.Join(a.Commands[0].Argv, " ") != "rm -rf x" {
		t.Errorf("6 levels: %+v", a)
	}
	a = Analyze(strings.Repeat("eval ", maxStringDepth+2) + "x")
	if !slices.ContainsFunc(a.Ask, func(r string) bool { return strings.Contains(r, "nested more than") }) {
		t.Errorf("%d levels of eval: Ask %q", maxStringDepth+2, a.Ask)
	}
	// Many commands.
	a = Analyze(strings.Repeat("true;", maxCommands+10))
	if len(a.Commands) > maxCommands || !slices.ContainsFunc(a.Ask, func(r string) bool { return strings.Contains(r, "simple commands") }) {
		t.Errorf("too many commands: %d commands, Ask %q", len(a.Commands), a.Ask)
	}
	// Deep syntax nesting.
	for _, src := range []string{
		strings.Repeat("( ", 300) + "x" + strings.Repeat(" )", 300),
		strings.Repeat("$(", 300) + "x" + strings.Repeat(")", 300),
		strings.Repeat("{ ", 300) + "x" + strings.Repeat("; }", 300),
	} {
		a = Analyze(src)
		if !slices.ContainsFunc(a.Ask, func(r string) bool { return strings.Contains(r, "levels deep") }) {
			t.Errorf("%.20s...: Ask %q", src, a.Ask)
		}
	}
	// Many braces in one word: not expanded (brace splitting is quadratic).
	start := time.Now()
	a = Analyze("echo " + strings.Repeat("{", 20000))
	if d := time.Since(start); d > 5*time.Second || !slices.ContainsFunc(a.Ask, func(r string) bool { return strings.Contains(r, "braces") }) {
		t.Errorf("20000 braces: %v, Ask %q", d, a.Ask)
	}
	// Many reasons: bounded, each clipped.
	var many strings.Builder
	for i := range 100 {
		fmt.Fprintf(&many, "$c%d%s; ", i, strings.Repeat("y", 300))
	}
	a = Analyze(many.String())
	if len(a.Ask) != maxAsk+1 || len(a.Ask[0]) > 300 || a.Ask[maxAsk] != "and more reasons" {
		t.Errorf("%d reasons, the first %d bytes long", len(a.Ask), len(a.Ask[0]))
	}
	// Wrappers around wrappers.
	a = Analyze(strings.Repeat("nice ", maxWrappers+2) + "x")
	if !slices.ContainsFunc(a.Ask, func(r string) bool { return strings.Contains(r, "wrappers") }) {
		t.Errorf("many wrappers: Ask %q", a.Ask)
	}
}

// shellQuote quotes s as one single-quoted shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func TestRedirectWritesFile(t *testing.T) {
	cases := []struct {
		r    Redirect
		want bool
	}{
		{Redirect{Op: ">", Target: "out"}, true},
		{Redirect{Op: ">>", Target: "out"}, true},
		{Redirect{Op: ">|", Target: "out"}, true},
		{Redirect{Op: "&>", Target: "out"}, true},
		{Redirect{Op: "&>>", Target: "out"}, true},
		{Redirect{Op: "<>", Target: "out"}, true},
		{Redirect{Op: ">&", Target: "out"}, true},
		{Redirect{Op: ">&", Target: "2"}, false},
		{Redirect{Op: ">&", Target: "-"}, false},
		{Redirect{Op: ">&", Target: "$F", Dynamic: true}, true},
		{Redirect{Op: ">", Target: "$F", Dynamic: true}, true},
		{Redirect{Op: ">", Target: "/dev/null"}, false},
		{Redirect{Op: ">", Target: "/dev/stderr"}, false},
		{Redirect{Op: ">", Target: "/dev/fd/3"}, false},
		{Redirect{Op: ">", Target: "/dev/fd/x"}, true},
		{Redirect{Op: ">", Target: "/dev/sda"}, true},
		{Redirect{Op: "<", Target: "in"}, false},
		{Redirect{Op: "<<", Target: "EOF"}, false},
		{Redirect{Op: "<<<", Target: "s"}, false},
		{Redirect{Op: "<&", Target: "0"}, false},
	}
	for _, c := range cases {
		if got := c.r.WritesFile(); got != c.want {
			t.Errorf("%+v: WritesFile %v, want %v", c.r, got, c.want)
		}
	}
}
