package permission

import (
	"testing"

	"github.com/ouroagent/ouro/shell"
)

// readOnlyCase is one line holding a single simple command (after its substitutions,
// which are judged on their own: the last command of the analysis is the one tested).
type readOnlyCase struct {
	src  string
	want bool
}

var readOnlyCases = []readOnlyCase{
	{"ls", true}, {"ls -la src", true}, {"cat a b", true}, {"head -n 5 f", true}, {"tail -f log", true},
	{"wc -l f", true}, {"grep -rn x .", true}, {"egrep x f", true}, {"rg x", true}, {"rg -z x", true},
	{"find . -name '*.go'", true}, {"find . -type f -print", true}, {"pwd", true}, {"echo hi", true},
	{"printf '%s' x", true}, {"which go", true}, {"type ls", true}, {"file f", true}, {"stat f", true},
	{"du -sh .", true}, {"df -h", true}, {"diff a b", true}, {"cmp a b", true}, {"sort f", true},
	{"sort -k2 -t, f", true}, {"sort -rn f", true}, {"uniq f", true}, {"uniq -c f", true}, {"uniq -f 1 f", true},
	{"cut -d: -f1 f", true}, {"tr a b", true}, {"env", false}, {"printenv", false}, {"printenv HOME", true},
	{"printenv ANTHROPIC_API_KEY", false}, {"printenv -0 GITHUB_TOKEN", false}, {"echo $AWS_SECRET_ACCESS_KEY", false}, {"echo ${#OPENAI_API_KEY}", false}, {"echo $HOME $PWD", true},
	{"date", true}, {"date +%s", true}, {"whoami", true}, {"id", true}, {"uname -a", true}, {"basename /a/b", true},
	{"dirname /a/b", true}, {"realpath .", true}, {"readlink -f x", true}, {"tree", true}, {"tree -L 2", true},
	{"cd src", true}, {"cd", true}, {"true", true}, {":", true}, {"exit 1", true}, {"test -f x", true}, {"[ -f x ]", true},
	{"command -v go", true}, {"/bin/ls", true}, {"/usr/bin/cat f", true},
	{"git status", true}, {"git diff", true}, {"git diff --cached --stat", true}, {"git log --oneline -5", true},
	{"git show HEAD:x", true}, {"git branch", true}, {"git branch -a", true}, {"git branch -vv", true},
	{"git branch --list 'f*'", true}, {"git branch --contains abc", true}, {"git branch --merged main", true},
	{"git branch --show-current", true}, {"git rev-parse HEAD", true}, {"git ls-files", true},
	{"git blame f", true}, {"git remote", true}, {"git remote -v", true}, {"git tag", true}, {"git tag -l", true},
	{"git tag -l 'v*'", true}, {"git --no-pager log", true},
	// Harmless redirections and environment.
	{"ls 2>/dev/null", true}, {"ls > /dev/null 2>&1", true}, {"echo x >&2", true}, {"grep x < f", true},
	{"cat <<EOF\nx\nEOF", true}, {"LANG=C sort f", true}, {"LC_ALL=C ls", true}, {"X=1", true},
	{"echo $(rm x)", true}, {"echo $HOME", true}, {"cat $F", true}, {"timeout 5 ls", true}, {"nice ls", true},
	{"env LANG=C ls", true}, {"xargs grep x", true}, {"xargs", true}, {"bash -c 'ls'", true},

	// Output redirections to files.
	{"echo x > f", false}, {"ls >> f", false}, {"ls &> f", false}, {"ls >& f", false}, {"ls >| f", false},
	{"cat 1<>f", false}, {"echo x > $F", false}, {"ls 2> err.log", false}, {"> f", false},
	{"/usr/bin/time -o t ls", false},
	// Options that write or run something.
	{"find . -delete", false}, {"find . -exec cat {} ;", false}, {"find . -execdir ls ;", false},
	{"find . -ok rm {} ;", false}, {"find . -okdir x ;", false}, {"find . -fprint f", false},
	{"find . -fprint0 f", false}, {"find . -fprintf f %p", false}, {"find . -fls f", false},
	{"find $X", false}, {"xargs find", false},
	{"rg --pre ./x y", false}, {"rg --pre=./x y", false}, {"rg $X", false},
	{"file -C -m m", false}, {"file --compile", false}, {"file -zC", false},
	{"sort -o out f", false}, {"sort -oout f", false}, {"sort -ro out f", false}, {"sort --output=o f", false},
	{"sort --compress-program=x f", false}, {"sort $X", false},
	{"uniq in out", false}, {"uniq -c in out", false}, {"uniq -- in out", false},
	{"tree -o out", false}, {"tree -R -H . -L 1", false}, {"date -s 2020-01-01", false}, {"date --set=x", false},
	{"env X=1", false}, {"env -i ls", true}, {"xargs env", false}, {"command -p ls", true}, {"command rm", false},
	{"git", false}, {"git -c core.pager=x log", false}, {"git -C .. status", false},
	{"git --git-dir=x log", false}, {"git --exec-path=x status", false}, {"git -p log", false},
	{"git log --output=f", false}, {"git diff --output f", false}, {"git diff --ext-diff", false},
	{"git branch new", false}, {"git branch -d x", false}, {"git branch -D x", false}, {"git branch -m a b", false},
	{"git branch -c a b", false}, {"git branch -u origin/x", false}, {"git branch --set-upstream-to=o", false},
	{"git branch -f x HEAD", false}, {"git branch --edit-description", false},
	{"git tag v1", false}, {"git tag -d v1", false}, {"git tag -l -d v1", false}, {"git tag -a v1 -m x", false},
	{"git remote add o u", false}, {"git remote remove o", false}, {"git remote set-url o u", false},
	{"git remote -v update", false}, {"git checkout x", false}, {"git reset --hard", false}, {"git push", false},
	{"git commit -m x", false}, {"git fetch", false}, {"git log $X", false}, {"git clean -fdx", false},
	{"git stash", false}, {"git config user.name x", false},
	// Not in the set at all.
	{"rm x", false}, {"less f", false}, {"more f", false}, {"vi f", false}, {"sed -i s/a/b/ f", false},
	{"awk '{print}' f", true}, {"awk '{system(\"id\")}' f", false}, {"tee f", false}, {"touch f", false}, {"mkdir d", false}, {"python3 x.py", false},
	{"./ls", false}, {"/tmp/ls", false}, {"/usr/local/bin/ls", false}, {"bin/cat f", false}, {"hostname x", false},
	{"export X=1", false}, {"source f", false}, {"eval ls", true}, {"exec ls", true}, {"$X", false},
	// Wrappers and environment that change what runs.
	{"sudo ls", false}, {"sudo cat /etc/shadow", false}, {"doas ls", false},
	{"PATH=/tmp ls", false}, {"LD_PRELOAD=x ls", false}, {"GIT_PAGER=x git log", false},
	{"GIT_EXTERNAL_DIFF=x git diff", false}, {"RIPGREP_CONFIG_PATH=x rg y", false}, {"FOO=1 ls", false},
	{"PATH=/tmp", false}, {"IFS=x", false}, {"env PATH=. ls", false},
}

func TestIsReadOnly(t *testing.T) {
	for _, tc := range readOnlyCases {
		a := shell.Analyze(tc.src)
		if len(a.Commands) == 0 {
			t.Errorf("%q: no command", tc.src)
			continue
		}
		c := a.Commands[len(a.Commands)-1]
		if got := IsReadOnly(c); got != tc.want {
			t.Errorf("%q (%s): IsReadOnly %v, want %v", tc.src, c.Text, got, tc.want)
		}
	}
}

func TestIsReadOnlyZeroCommand(t *testing.T) {
	if !IsReadOnly(shell.Command{}) {
		t.Error("an empty command (a bare assignment of nothing) should read nothing")
	}
	if IsReadOnly(shell.Command{Argv: []string{"ls"}, Redirects: []shell.Redirect{{Op: ">", Target: "x", Dynamic: true}}}) {
		t.Error("a dynamic output redirect is a write")
	}
	if IsReadOnly(shell.Command{Argv: []string{"ls"}, Wrappers: []string{"doas"}}) {
		t.Error("doas ls runs as another user")
	}
}
