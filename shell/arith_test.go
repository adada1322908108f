package shell

import (
	"strings"
	"testing"
)

// Every place bash evaluates arithmetic, a variable name or a prompt string can run a
// command hidden in a value; these lines must ask.
var arithAttacks = []string{
	`[[ -v 'a[$(touch /tmp/x)]' ]]`,
	`[[ -v "a[\$(id)]" ]]`,
	`test -v 'a[$(id)]'`,
	`[ -v 'a[$(id)]' ]`,
	`x='a[$(id)]'; (( x ))`,
	`x='a[$(id)]'; echo $(( x + 1 ))`,
	`x='a[$(id)]'; echo $[x]`,
	`x='a[$(id)]'; let y=x`,
	`let 'a[$(id)]'`,
	`let "y=a[\$(id)]"`,
	`(( "a[\$(id)]" ))`,
	`printf -v 'a[$(id)]' %s x`,
	`printf -v"a[\$(id)]" %s x`,
	`read 'a[$(id)]' <<< x`,
	`unset 'a[$(id)]'`,
	`declare "a[\$(id)]=1"`,
	`x='a[$(id)]'; echo ${!x}`,
	`y=z; echo ${!y}`,
	`x='$(id)'; echo ${x@P}`,
	`echo "${PS1@P}"`,
	`x='a[$(id)]'; echo ${b[x]}`,
	`x='a[$(id)]'; echo ${b[$x]}`,
	`x='a[$(id)]'; [[ $x -eq 1 ]]`,
	`[[ 'a[$(id)]' -lt 1 ]]`,
	`x='a[$(id)]'; echo ${s:x:1}`,
	`n=$(cat count.txt); echo $((n+1))`,
	`read n < count.txt; echo $((n+1))`,
	`while read n; do (( total += n )); done < nums.txt`,
	`for f in *; do echo $((f)); done`,
	`n=$(cat f); [[ $n -gt 3 ]] && echo big`,
	`mapfile -t a < f; echo $(( a ))`,
	`declare -i n; n=$(cat f)`,
	`declare -n r='a[$(id)]'; echo $r`,
	`f() { local -n r="$1"; echo $r; }; f 'a[$(id)]'`,
	`x=$(cat f); y=$x; echo $((y))`,
	`echo $(( $(cat f) + 1 ))`,
	`x=$(wc -l f); echo $((x))`,
	`a[$(cat f)]=1`,
	`x=$(cat f); a[x]=1`,
	`x=$(cat f); arr=([x]=1)`,
	`bash -c 'echo $(($0))' 'a[$(id)]'`,
	`bash -c 'echo $(($1))' sh 'a[$(id)]'`,
	`X='a[$(id)]' bash -c 'echo $((X))'`,
	`f() { echo $(( $1 )); }; f 'a[$(id)]'`,
	`mapfile -C 'rm -rf ~' -c 1 a < f`,
	`getopts ab: o; echo $((OPTARG))`,
	`echo $(( _ ))`,
	`echo ${x:=$(cat f)}; echo $((x))`,
	`wait -p 'a[$(id)]' -n`,
	`[[ -R 'a[$(id)]' ]]`,
	`echo $(( 'a[$(id)]' ))`,
	`IFS= read -r line < f; echo "${arr[$line]}"`,
}

// Ordinary arithmetic stays unasked.
var arithSafe = []string{
	`echo $((1+2))`,
	`for ((i=0;i<3;i++)); do echo $i; done`,
	`i=0; while (( i < 3 )); do echo $i; (( i++ )); done`,
	`x=5; echo $(( x * 2 ))`,
	`echo ${#arr[@]} ${arr[@]} "${arr[*]}" ${arr[0]} ${!arr[@]}`,
	`n=$((3+4)); echo $((n))`,
	`echo $(( $(nproc) * 2 ))`,
	`x=$(wc -l < README.md); echo $((x+1))`,
	`for i in 1 2 3; do echo $((i*2)); done`,
	`for i in {1..5}; do echo $((i)); done`,
	`[[ $# -gt 0 ]] && echo args`,
	`[[ -v HOME ]] && echo set`,
	`test -v PATH`,
	`printf -v out '%s' hi; echo "$out"`,
	`read -r -p 'name? ' name`,
	`let x=1+2 y=x*3`,
	`echo ${s:1:2}`,
	`echo $(( COLUMNS / 2 ))`,
	`declare -i n=3; n+=4`,
	`unset x y`,
	`for f in *.go; do gofmt -l "$f"; done`,
	`echo $(( 16#ff + 0x10 + 010 ))`,
}

func TestArithmeticAsks(t *testing.T) {
	for _, src := range arithAttacks {
		if a := Analyze(src); len(a.Ask) == 0 {
			t.Errorf("%q runs code hidden in arithmetic or a name, but nothing asks", src)
		}
	}
	for _, src := range arithSafe {
		if a := Analyze(src); len(a.Ask) > 0 {
			t.Errorf("%q: unexpected Ask %q", src, a.Ask)
		}
	}
}

func TestArithmeticReasonNamesTheConstruct(t *testing.T) {
	a := Analyze(`n=$(cat f); echo $((n+1))`)
	if len(a.Ask) == 0 || !strings.Contains(a.Ask[0], "$((n+1))") || !strings.Contains(a.Ask[0], "output of a command") {
		t.Errorf("reason %q should quote the arithmetic and say where n comes from", a.Ask)
	}
}
