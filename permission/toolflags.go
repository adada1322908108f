package permission

import (
	"fmt"
	"path"
	"strings"

	"github.com/ouroagent/ouro/shell"
)

// Build and test tools take flags that make them run a program of the caller's choosing,
// load code from elsewhere, or write files anywhere. An allow rule such as
// `Bash(go test *)` is written for running the project's tests, so it never covers those
// flags: toolFlagTable lists them, and gatherBash judges each one it finds (a program
// to run asks; a file written or read is checked as a write or read of its own).

// flagKind says what a flag's value does.
type flagKind int

const (
	flagRuns   flagKind = iota // the tool runs a program or code the value names
	flagWrites                 // the tool writes the file or folder the value names
	flagReads                  // the tool reads (and runs) code or configuration from the value
)

// toolFlag is one row of the table.
type toolFlag struct {
	tools []string // command names the row applies to
	names []string // the flag's spellings, "-exec", "--script-shell"
	kind  flagKind
	// when, if set, says whether a value is dangerous (`-p no:cacheprovider` is not).
	when func(value string) bool
}

// toolFamilies group the commands sharing a table row.
var (
	goTools     = []string{"go"}
	npmTools    = []string{"npm", "npx", "pnpm", "yarn"}
	pytestTools = []string{"pytest", "py.test"}
	cargoTools  = []string{"cargo"}
	makeTools   = []string{"make", "gmake"}
	gradleTools = []string{"gradle", "gradlew", "./gradlew"}
	mvnTools    = []string{"mvn", "mvnw", "./mvnw"}
	gitTools    = []string{"git"}
)

// getoptTools read `-pVALUE` as `-p VALUE`; the go tool does not (-count is not -c ount).
var getoptTools = []string{"pytest", "py.test", "make", "gmake", "cargo", "gradle", "gradlew", "./gradlew",
	"mvn", "mvnw", "./mvnw", "git"}

var toolFlagTable = []toolFlag{
	// go: -exec and -toolexec run a program around the test binary or every tool;
	// -vettool replaces vet; an external linker given in -ldflags runs too.
	{tools: goTools, names: []string{"-exec", "-toolexec", "-vettool", "-overlay"}, kind: flagRuns},
	{tools: goTools, names: []string{"-ldflags"}, kind: flagRuns, when: func(v string) bool {
		return strings.Contains(v, "extld") || strings.Contains(v, "linkmode")
	}},
	{tools: goTools, names: []string{"-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile",
		"-mutexprofile", "-trace", "-outputdir", "-pkgdir", "-test.coverprofile", "-test.cpuprofile",
		"-test.memprofile", "-test.blockprofile", "-test.mutexprofile", "-test.trace", "-test.outputdir",
		"-test.gocoverdir", "-test.testlogfile", "-fuzzcachedir", "-test.fuzzcachedir"}, kind: flagWrites},
	{tools: goTools, names: []string{"-C", "-modfile", "-pgo"}, kind: flagReads},
	// npm and its kin: the shell that runs every script, node's options (--require).
	{tools: npmTools, names: []string{"--script-shell", "--node-options", "--init-module", "--call", "-c", "--shell"}, kind: flagRuns},
	{tools: npmTools, names: []string{"--userconfig", "--globalconfig", "--prefix", "-C", "--dir", "--cwd"}, kind: flagReads},
	{tools: npmTools, names: []string{"--cache"}, kind: flagWrites},
	// pytest: -p loads a plugin module, -o overrides ini keys (addopts, cache_dir), a
	// --pdbcls is imported.
	{tools: pytestTools, names: []string{"-p"}, kind: flagRuns, when: func(v string) bool { return !strings.HasPrefix(v, "no:") }},
	{tools: pytestTools, names: []string{"-o", "--override-ini", "--pdbcls"}, kind: flagRuns},
	{tools: pytestTools, names: []string{"-c", "--config-file", "--rootdir", "--confcutdir"}, kind: flagReads},
	{tools: pytestTools, names: []string{"--basetemp", "--junitxml", "--junit-xml", "--resultlog", "--result-log",
		"--log-file", "--report-log"}, kind: flagWrites},
	// cargo: --config sets any key (a runner, a rustc wrapper); -Z unstable options.
	{tools: cargoTools, names: []string{"--config", "-Z"}, kind: flagRuns},
	{tools: cargoTools, names: []string{"--manifest-path", "-C"}, kind: flagReads},
	{tools: cargoTools, names: []string{"--target-dir", "--artifact-dir", "--out-dir", "--lockfile-path"}, kind: flagWrites},
	// make: --eval runs make code ($(shell ...)); the makefile and folders read.
	{tools: makeTools, names: []string{"--eval", "-E"}, kind: flagRuns},
	{tools: makeTools, names: []string{"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"}, kind: flagReads},
	// gradle and maven: init scripts run; build files and settings read.
	{tools: gradleTools, names: []string{"-I", "--init-script"}, kind: flagRuns},
	{tools: gradleTools, names: []string{"-p", "--project-dir", "-c", "--settings-file", "-b", "--build-file", "-g", "--gradle-user-home"}, kind: flagReads},
	{tools: mvnTools, names: []string{"-f", "--file", "-s", "--settings", "-gs", "--global-settings"}, kind: flagReads},
	// git: configuration given on the command line can name programs (core.pager,
	// core.sshCommand, alias.x=!cmd); a few options run one directly.
	{tools: gitTools, names: []string{"-c"}, kind: flagRuns, when: func(v string) bool { return !safeGitConfig(v) }},
	{tools: gitTools, names: []string{"--config-env", "--exec-path", "--upload-pack", "--receive-pack", "--exec", "-x"}, kind: flagRuns},
	{tools: gitTools, names: []string{"-C", "--git-dir", "--work-tree"}, kind: flagReads},
}

// safeGitConfig reports a `-c key=value` whose key names no program.
func safeGitConfig(kv string) bool {
	key, _, _ := strings.Cut(strings.ToLower(kv), "=")
	switch key {
	case "user.name", "user.email", "core.quotepath", "core.autocrlf", "core.safecrlf", "init.defaultbranch",
		"commit.gpgsign", "tag.gpgsign", "push.default", "pull.rebase", "log.showsignature", "gc.auto",
		"column.ui", "fetch.prune", "protocol.version", "merge.conflictstyle", "diff.renames", "core.abbrev":
		return true
	}
	return strings.HasPrefix(key, "color.") || strings.HasPrefix(key, "advice.") || strings.HasPrefix(key, "i18n.")
}

// flagHit is a flag of toolFlagTable found in a command.
type flagHit struct {
	tool, flag, value string
	kind              flagKind
}

// toolFlagHits finds the flags of toolFlagTable in argv (`python -m pytest` is pytest),
// and the settings commands that change what later runs do (npm config set, go env -w,
// git config core.pager, make SHELL=...).
func toolFlagHits(argv []string) []flagHit {
	if len(argv) == 0 {
		return nil
	}
	tool := argv[0]
	args := argv[1:]
	if b := path.Base(tool); (strings.HasPrefix(b, "python")) && len(args) > 1 && args[0] == "-m" {
		tool, args = args[1], args[2:]
	}
	if !strings.HasPrefix(tool, "./") {
		tool = path.Base(tool)
	}
	var hits []flagHit
	getopt := isOneOf(tool, getoptTools)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			if isOneOf(tool, makeTools) {
				if name, _, ok := strings.Cut(a, "="); ok && isOneOf(name, []string{"SHELL", ".SHELLFLAGS", "MAKESHELL", "MAKEFLAGS", "MAKEFILES"}) {
					hits = append(hits, flagHit{tool: tool, flag: name + "=", value: a, kind: flagRuns})
				}
			}
			continue
		}
		long := abbreviatedFlag(tool, a)
		took := false // the next word was taken as the value
		for _, row := range toolFlagTable {
			if !isOneOf(tool, row.tools) {
				continue
			}
			for _, n := range row.names {
				value, ok, next := flagValue(a, n, getopt && len(n) == 2)
				if !ok && long.Is(n) {
					value, ok, next = long.Value, true, !long.HasValue
				}
				if !ok {
					continue
				}
				if next {
					if !took && i+1 < len(args) {
						i++
						took = true
					}
					if took {
						value = args[i]
					}
				}
				if row.when == nil || row.when(value) {
					hits = append(hits, flagHit{tool: tool, flag: n, value: value, kind: row.kind})
				}
			}
		}
	}
	return append(hits, settingsCommands(tool, args)...)
}

// abbrevTools take an unambiguous prefix of a long option for it: make (getopt_long),
// git's subcommands (parse-options), npm (nopt) and maven (commons-cli). The go tool,
// cargo, gradle and pytest take whole names only.
var abbrevTools = []string{"make", "gmake", "git", "npm", "npx", "pnpm", "yarn", "mvn", "mvnw", "./mvnw"}

// abbreviatedFlag reads a, for a tool of abbrevTools, as the long option of the table it
// is a prefix of; a prefix of several stands for each of them. It matches nothing for
// other tools and other words.
func abbreviatedFlag(tool, a string) shell.LongOption {
	if !isOneOf(tool, abbrevTools) || !strings.HasPrefix(a, "--") {
		return shell.LongOption{}
	}
	var longs []string
	for _, row := range toolFlagTable {
		if isOneOf(tool, row.tools) {
			for _, n := range row.names {
				if strings.HasPrefix(n, "--") {
					longs = append(longs, n)
				}
			}
		}
	}
	o, _ := shell.ProgramLong(tool, a, longs...)
	return o
}

// flagValue matches one argument against a flag spelling: `-n v` (next), `-n=v`,
// `--n=v` (go takes one dash or two), and `-nv` for a getopt short flag.
func flagValue(a, name string, short bool) (value string, ok, next bool) {
	bare := strings.TrimLeft(name, "-")
	for _, spelling := range []string{name, "-" + bare, "--" + bare} {
		if a == spelling {
			return "", true, true
		}
		if v, found := strings.CutPrefix(a, spelling+"="); found {
			return v, true, false
		}
	}
	if short && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasPrefix(a, name) {
		return a[2:], true, false
	}
	return "", false, false
}

// settingsCommands are subcommands that change what later commands run: npm config
// set, go env -w, git config of a key that names a program.
func settingsCommands(tool string, args []string) []flagHit {
	var ops []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			ops = append(ops, a)
		}
	}
	hit := func(what string) []flagHit {
		return []flagHit{{tool: tool, flag: what, kind: flagRuns}}
	}
	switch {
	case isOneOf(tool, npmTools) && len(ops) > 0 && (ops[0] == "set" || ops[0] == "config" && len(ops) > 1 && (ops[1] == "set" || ops[1] == "edit")):
		return hit("config set")
	case tool == "go" && len(ops) > 0 && ops[0] == "env" && (isOneOf("-w", args) || isOneOf("-u", args)):
		return hit("env -w")
	case tool == "git" && len(ops) > 0 && ops[0] == "config":
		if len(ops) > 2 && !safeGitConfig(ops[1]) || isOneOf("--edit", args) || isOneOf("-e", args) {
			return hit("config")
		}
	}
	return nil
}

// describe says what the flag does, for a reason that follows the command.
func (h flagHit) describe() string {
	f := h.flag
	switch {
	case strings.HasSuffix(h.flag, "="):
		f = h.value
	case h.value != "":
		f += " " + h.value
	}
	switch h.kind {
	case flagWrites:
		return fmt.Sprintf("passes %s, which writes %s", f, h.value)
	case flagReads:
		return fmt.Sprintf("passes %s, which makes %s read code or configuration from %s", f, h.tool, h.value)
	}
	return fmt.Sprintf("passes %s, which makes %s run a program or code the line chooses, or changes what its later runs do", f, h.tool)
}
