package permission

import (
	"github.com/ouroagent/ouro/shell"
	"path"
	"regexp"
	"strings"
)

// The rule a permission dialog offers for a shell command ("Yes, for this session",
// "Always") is the command's prefix up to its arguments, as in Claude Code:
// `git commit -m msg` → `Bash(git commit *)`, `python3 -m unittest -q` →
// `Bash(python3 -m unittest *)`. A rule must never let a program that runs other code
// run any code: an interpreter's rule names the script or module it runs, a package
// runner's the command it runs, and wrappers, inline code (`python3 -c`, `node -e`) and
// standard input get no rule at all (the dialog then offers "Yes, once" only).

// suggestBash is that rule for one command (argv after the wrappers the shell analysis
// looked through), "" when no rule is both narrow and safe.
func suggestBash(argv []string) string {
	n, open, ok := commandPrefix(argv)
	if !ok {
		return ""
	}
	rule := "Bash(" + strings.Join(argv[:n], " ")
	if open || n < len(argv) {
		rule += " *"
	}
	return rule + ")"
}

// commandPrefix is how many words of argv the rule keeps, and whether it ends in ` *`
// even when nothing follows them (`npm run test` → `Bash(npm run test *)`).
func commandPrefix(argv []string) (n int, open, ok bool) {
	if len(argv) == 0 || !literalWord(argv[0]) {
		return 0, false, false
	}
	base := path.Base(argv[0])
	if isOneOf(base, codeWrappers) {
		return 0, false, false
	}
	if spec, ok := interpreterSpec(base); ok {
		return interpreterPrefix(argv, spec)
	}
	if isOneOf(base, packageRunners) {
		return runnerPrefix(argv, 1)
	}
	if isOneOf(base, subcommandTools) {
		return toolPrefix(argv, base)
	}
	// Any other command: its name and up to two words that read as subcommands, then
	// ` *` if more follow (`rm -rf build` → `Bash(rm *)`, `make lint` → `Bash(make lint)`).
	n = 1
	for _, w := range argv[1:] {
		if n == 3 || !subcommandWord(w) {
			break
		}
		n++
	}
	return n, false, true
}

// toolPrefix handles a tool whose first word is a subcommand (git, go, npm, cargo...):
// the rule keeps the subcommand (and a second level where the tool has one) and ends
// in ` *`, so the same subcommand may run with other arguments.
func toolPrefix(argv []string, base string) (int, bool, bool) {
	if len(argv) == 1 {
		return 1, false, true
	}
	if !subcommandWord(argv[1]) {
		// Options before the subcommand (`git -c k=v commit`, `cargo +nightly build`):
		// where the subcommand starts is not known here, and `Bash(git *)` would cover
		// every subcommand.
		return 0, false, false
	}
	key := base + " " + argv[1]
	switch {
	case isOneOf(key, noRuleSubcommands):
		return 0, false, false
	case isOneOf(key, runnerSubcommands):
		return runnerPrefix(argv, 2)
	case isOneOf(key, targetSubcommands):
		// `npm run test`, `go run ./cmd/x`: the script or program is part of the rule.
		if len(argv) == 2 {
			return 2, false, true // `npm run` alone lists the scripts
		}
		if !literalWord(argv[2]) || strings.HasPrefix(argv[2], "-") {
			return 0, false, false
		}
		return 3, true, true
	}
	if isOneOf(key, nestedSubcommands) && len(argv) > 2 && subcommandWord(argv[2]) {
		if isOneOf(key+" "+argv[2], noRuleSubcommands) {
			return 0, false, false
		}
		return 3, true, true
	}
	return 2, true, true
}

// runnerPrefix handles a package runner (npx jest, uv run pytest): the words up to the
// command it runs, and that command's own prefix, so `uv run python -c x` gets no rule
// just as `python -c x` gets none.
func runnerPrefix(argv []string, k int) (int, bool, bool) {
	if len(argv) <= k || strings.HasPrefix(argv[k], "-") {
		return 0, false, false // nothing to run, or options whose values are not known here
	}
	n, open, ok := commandPrefix(argv[k:])
	return k + n, open, ok
}

// interpSpec describes an interpreter's options, enough to find the script (or module)
// it runs; an option not described makes the command get no rule, since a misread
// option value could make the rule cover `-c CODE`.
type interpSpec struct {
	flags    string // short options without a value, which may be grouped (-uB)
	values   string // short options taking a value, attached or as the next word
	attached string // short options whose value, if any, is attached (ruby -W0, perl -l)
	// attachedReq are short options whose value must be attached (perl -Ilib, -MData::Dumper).
	attachedReq string
	code        string // short options whose value is program text (-c, -e): no rule
	program     string // short options naming the program to run (python -m, php -f)
	// Long options: without a value, with one (--x=v or --x v), of program text.
	longFlags, longValues, longCode []string
	// words are options written whole with a single dash (java -jar, -cp), with how
	// each is read: 'f' a flag, 'v' takes the next word, 'p' names the program.
	words map[string]byte
	// wordPrefixes are single-dash options with an attached value (java -Dk=v, -Xmx1g).
	wordPrefixes []string
	plus         bool // +x options, as shells take them
}

var shellSpec = interpSpec{flags: "aefhklmnprtuvxBCEHPT", values: "oO", code: "c",
	longFlags:  []string{"norc", "noprofile", "login", "posix", "verbose", "noediting", "restricted"},
	longValues: []string{"rcfile", "init-file"}, plus: true}

var interpreterSpecs = map[string]interpSpec{
	"python": {flags: "bBdEIOPqRsSuvx", values: "WX", code: "c", program: "m",
		longValues: []string{"check-hash-based-pycs"}},
	"node": {values: "rC", code: "ep",
		longFlags: []string{"inspect", "inspect-brk", "watch", "test", "no-warnings", "trace-warnings",
			"enable-source-maps", "experimental-vm-modules", "expose-gc", "trace-uncaught",
			"abort-on-uncaught-exception", "no-deprecation", "throw-deprecation", "trace-deprecation",
			"pending-deprecation", "preserve-symlinks", "experimental-strip-types", "no-experimental-strip-types",
			"experimental-transform-types", "experimental-test-coverage", "frozen-intrinsics"},
		longValues: []string{"require", "import", "loader", "experimental-loader", "conditions", "env-file",
			"title", "test-reporter", "test-reporter-destination", "test-name-pattern", "watch-path",
			"max-old-space-size", "stack-size", "stack-trace-limit"},
		longCode: []string{"eval", "print"}},
	"ruby":  {flags: "wvdcyUslnpa", values: "IrCE", attached: "WT0", attachedReq: "K", code: "e"},
	"perl":  {flags: "wWXcsTtnpaU", attached: "l0iC", attachedReq: "IMm", code: "eE"},
	"php":   {flags: "nqlHe", values: "cdz", code: "rRBEF", program: "f"},
	"lua":   {flags: "vEW", values: "l", code: "e"},
	"shell": shellSpec,
	"Rscript": {code: "e", longFlags: []string{"vanilla", "verbose", "no-environ", "no-site-file", "no-init-file",
		"restore", "no-restore", "save", "no-save"}, longValues: []string{"default-packages"}},
	"java": {words: map[string]byte{"-jar": 'p', "-m": 'p', "--module": 'p', "-cp": 'v', "-classpath": 'v',
		"--class-path": 'v', "-p": 'v', "--module-path": 'v', "--add-modules": 'v', "--source": 'v',
		"-ea": 'f', "-da": 'f', "-esa": 'f', "-dsa": 'f', "-server": 'f', "--enable-preview": 'f'},
		wordPrefixes: []string{"-D", "-X", "-verbose:", "-javaagent:"}},
	// Interpreters read here only as `NAME SCRIPT ARGS`: any option gets no rule.
	"script": {},
}

var pythonName = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// interpreterSpec finds the options of the interpreter a command names, if it is one.
func interpreterSpec(base string) (interpSpec, bool) {
	switch {
	case pythonName.MatchString(base):
		return interpreterSpecs["python"], true
	case base == "node" || base == "nodejs":
		return interpreterSpecs["node"], true
	case base == "ruby" || base == "perl" || base == "php" || base == "java" || base == "Rscript":
		return interpreterSpecs[base], true
	case base == "lua" || base == "luajit":
		return interpreterSpecs["lua"], true
	case isOneOf(base, shellCommands):
		return shellSpec, true
	case isOneOf(base, scriptOnly):
		return interpreterSpecs["script"], true
	}
	return interpSpec{}, false
}

// interpreterPrefix keeps the interpreter, its options and the script or module it
// runs: `python3 -u tests/run.py -k x` → `Bash(python3 -u tests/run.py *)`. What
// follows goes to the script, never to the interpreter. No script (a REPL, standard
// input, `-`) or program text in an option gets no rule.
func interpreterPrefix(argv []string, spec interpSpec) (int, bool, bool) {
	fail := func() (int, bool, bool) { return 0, false, false }
	// next takes the word after argv[i] as an option's value.
	i := 1
	next := func() bool {
		i++
		return i < len(argv) && literalWord(argv[i])
	}
	module := false
words:
	for ; i < len(argv); i++ {
		w := argv[i]
		if !literalWord(w) || w == "-" {
			return fail()
		}
		if w == "--" {
			i++
			break
		}
		if kind, ok := spec.words[w]; ok {
			switch kind {
			case 'v':
				if !next() {
					return fail()
				}
			case 'p':
				i++
				module = true
				break words
			}
			continue
		}
		if hasAnyPrefix(w, spec.wordPrefixes) {
			continue
		}
		if long, ok := strings.CutPrefix(w, "--"); ok {
			name, _, hasVal := strings.Cut(long, "=")
			switch {
			case isOneOf(name, spec.longCode):
				return fail()
			case isOneOf(name, spec.longFlags):
			case isOneOf(name, spec.longValues):
				if !hasVal && !next() {
					return fail()
				}
			default:
				return fail()
			}
			continue
		}
		if w[0] == '-' || w[0] == '+' && spec.plus {
			for j := 1; j < len(w); j++ {
				c, rest := w[j], w[j+1:]
				switch {
				case strings.IndexByte(spec.code, c) >= 0:
					return fail()
				case w[0] == '-' && strings.IndexByte(spec.program, c) >= 0:
					if rest == "" {
						i++ // `-m pytest`; `-mpytest` is the program word itself
					}
					module = true
					break words
				case strings.IndexByte(spec.values, c) >= 0:
					if rest == "" && !next() {
						return fail()
					}
				case strings.IndexByte(spec.attached, c) >= 0:
				case strings.IndexByte(spec.attachedReq, c) >= 0:
					if rest == "" {
						return fail()
					}
				case strings.IndexByte(spec.flags, c) >= 0:
					continue
				default:
					return fail()
				}
				break // the rest of the word was the value
			}
			continue
		}
		break
	}
	if i >= len(argv) || !literalWord(argv[i]) || shell.IsStdinPath(argv[i]) || !module && strings.HasPrefix(argv[i], "-") {
		return fail()
	}
	n := i + 1
	// `python3 -m pip install x` → `Bash(python3 -m pip install *)`.
	if module && isOneOf(argv[i], subcommandTools) && n < len(argv) && subcommandWord(argv[n]) {
		n++
	}
	return n, true, true
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// literalWord reports a word a rule can hold as written: no glob, expansion, quote or
// space, which would make the rule mean more (or other) than the word.
func literalWord(w string) bool {
	if w == "" || len(w) > 256 {
		return false
	}
	for _, c := range w {
		if c < ' ' || c == 0x7f || strings.ContainsRune(" *?[]{}$`'\"\\()<>|;&!", c) {
			return false
		}
	}
	return true
}

func subcommandWord(w string) bool {
	if w == "" || len(w) > 32 || !(w[0] >= 'a' && w[0] <= 'z') {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

var (
	// codeWrappers run the command (or code) they are given; when one is still the
	// command after the shell analysis looked through the wrappers, what it runs is
	// not known, and `Bash(env *)` or `Bash(sudo *)` would allow anything.
	codeWrappers = []string{"timeout", "nice", "nohup", "time", "stdbuf", "env", "command", "builtin", "exec",
		"xargs", "sudo", "doas", "su", "pkexec", "runuser", "run0", "ionice", "chrt", "taskset", "setsid", "busybox",
		"script", "flock", "watch", "eval", "trap", "alias", "strace", "ltrace", "valgrind", "gdb", "lldb",
		"nsenter", "unshare", "chroot", "firejail", "bwrap", "fakeroot", "proot", "systemd-run", "parallel",
		"nix-shell", "caffeinate", "ssh", "sg", "newgrp",
		// Their first argument is program text.
		"awk", "gawk", "mawk", "nawk"}
	shellCommands = []string{"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "lksh", "rbash", "fish"}
	// scriptOnly interpreters get a rule only as `NAME SCRIPT ...`.
	scriptOnly = []string{"source", ".", "pwsh", "powershell", "osascript", "tclsh", "wish", "elixir", "julia",
		"groovy", "kotlin", "scala"}
	// packageRunners run the command named by their first argument.
	packageRunners = []string{"npx", "bunx", "pnpx", "uvx"}
	// subcommandTools take a subcommand as their first argument.
	subcommandTools = []string{"git", "go", "cargo", "rustup", "npm", "pnpm", "yarn", "bun", "deno", "pip", "pip3",
		"uv", "poetry", "pdm", "hatch", "rye", "pipx", "conda", "mamba", "docker", "podman", "kubectl", "helm",
		"terraform", "tofu", "gh", "glab", "dotnet", "mvn", "mvnw", "gradle", "gradlew", "bazel", "bazelisk",
		"brew", "apt", "apt-get", "dnf", "yum", "systemctl", "mix", "bundle", "rake", "rails", "composer", "swift",
		"flutter", "dart", "just", "nx", "turbo", "lerna", "tsc", "jj", "hg", "svn", "aws", "gcloud", "az"}
	// runnerSubcommands run the command named by the next argument.
	runnerSubcommands = []string{"npm exec", "npm x", "pnpm exec", "pnpm dlx", "yarn exec", "yarn dlx", "bun x",
		"uv run", "poetry run", "pdm run", "hatch run", "rye run", "pipx run", "bundle exec", "dotnet tool"}
	// targetSubcommands run the script or program named by the next argument.
	targetSubcommands = []string{"npm run", "npm run-script", "pnpm run", "yarn run", "bun run", "deno run",
		"deno task", "go run", "go tool"}
	// nestedSubcommands take a subcommand of their own.
	nestedSubcommands = []string{"docker compose", "podman compose", "docker image", "docker container",
		"docker volume", "docker network", "gh pr", "gh issue", "gh repo", "gh run", "gh workflow", "gh release",
		"git stash", "git remote", "git worktree", "git submodule", "go mod", "uv pip", "uv tool",
		"kubectl config", "helm repo", "terraform state", "aws s3", "gcloud compute"}
	// noRuleSubcommands run commands or code given on the command line, somewhere a
	// rule on the subcommand would let run anything (a container, a pod, eval).
	noRuleSubcommands = []string{"docker exec", "docker run", "podman exec", "podman run", "kubectl exec",
		"kubectl run", "kubectl debug", "kubectl attach", "deno eval", "bun eval", "docker compose exec",
		"docker compose run", "podman compose exec", "podman compose run", "uv tool run", "conda run", "mamba run"}
)
