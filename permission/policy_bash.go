package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/shell"
	"github.com/ouroagent/ouro/tool"
)

// checkBash decides on a shell line: every simple command in it must be allowed on its
// own, and the paths it writes are checked as edits.
func (st *state) checkBash(line string) Verdict {
	summary := line
	a := shell.Analyze(line)
	if reason, ok := HardDeny(a); ok {
		return Verdict{Behavior: Deny, Source: "hard deny", Summary: summary,
			Reason: fmt.Sprintf("this command is refused in every permission mode: %s", reason)}
	}
	var vs []Verdict
	for _, c := range a.Commands {
		vs = append(vs, st.checkCommand(c))
	}
	if len(a.Ask) > 0 {
		v := Verdict{Behavior: Ask, Source: "shell analysis", Reason: strings.Join(a.Ask, "; ")}
		if st.mode == ModeBypass {
			v = Verdict{Behavior: Allow, Source: "mode bypassPermissions", Reason: "bypassPermissions mode allows it"}
		} else if st.mode == ModePlan {
			v.Behavior, v.Source, v.FromMode = Deny, "mode plan", true
			v.Reason = "plan mode allows only read-only commands, and this line cannot be shown to be one: " + v.Reason
		}
		vs = append(vs, v)
	}
	v := combine(vs)
	v.Summary = summary
	if len(vs) == 0 {
		v = Verdict{Behavior: Allow, Source: "no command", Reason: "the line runs no command", Summary: summary}
	}
	return v
}

// combine joins the verdicts of a line's commands: any denial denies, any question asks
// (and a rule can settle it only if one can settle every question), else all allow.
func combine(vs []Verdict) Verdict {
	for _, v := range vs {
		if v.Behavior == Deny {
			return v
		}
	}
	var out Verdict
	out.Behavior = Allow
	var asks []Verdict
	for _, v := range vs {
		if v.Behavior == Ask {
			asks = append(asks, v)
		}
	}
	pick := vs
	if len(asks) > 0 {
		out.Behavior, pick = Ask, asks
	}
	var reasons, sources []string
	fixable := true
	for _, v := range pick {
		reasons = appendNew(reasons, v.Reason)
		sources = appendNew(sources, v.Source)
		out.FromAskRule = out.FromAskRule || v.FromAskRule
		out.Protected = out.Protected || v.Protected
		if len(v.Suggest) == 0 {
			fixable = false
		}
		for _, s := range v.Suggest {
			out.Suggest = appendNew(out.Suggest, s)
		}
	}
	if out.Behavior == Allow || !fixable || out.FromAskRule {
		out.Suggest = nil
	}
	out.Reason = strings.Join(reasons, "; ")
	out.Source = strings.Join(sources, "; ")
	return out
}

func appendNew(list []string, s string) []string {
	if s == "" || isOneOf(s, list) {
		return list
	}
	return append(list, s)
}

// plainName is argv joined with the command named without its folder (`/usr/bin/curl
// x` → `curl x`), or "" when it has none.
func plainName(argv []string) string {
	if len(argv) == 0 || !strings.Contains(argv[0], "/") {
		return ""
	}
	return strings.Join(append([]string{filepath.Base(argv[0])}, argv[1:]...), " ")
}

// withoutRedirects is c without its redirections: whether the command itself only
// reads, its redirect targets being judged here as writes of their own.
func withoutRedirects(c shell.Command) shell.Command {
	c.Redirects = nil
	return c
}

// editAllowed reports whether an Edit allow rule covers a write target.
func (st *state) editAllowed(tg *target) bool {
	_, ok := st.allowMatch(st.kindSubject(tool.ActWrite), tg)
	return ok
}

// Wrappers that run a command as someone else: rules and the read-only set, written for
// the user's own commands, do not cover them.
var privilegeWrappers = []string{"sudo", "doas", "su", "pkexec", "runuser", "run0"}

// Environment variables that change which program runs or what it loads, so that
// `PATH=/tmp npm test` is not the `npm test` a rule allowed.
var riskyEnv = []string{"PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS",
	"NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB",
	"RUBYOPT", "RUBYLIB", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
	"GOFLAGS", "HOME", "ZDOTDIR", "XDG_CONFIG_HOME",
	// Build tools: the compilers and wrappers they run, the configuration they load.
	"CC", "CXX", "AR", "FC", "LD", "GCCGO", "GOENV", "GOROOT", "GOTOOLCHAIN", "GOEXPERIMENT", "PKG_CONFIG",
	"CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "CGO_FFLAGS", "RUSTC", "RUSTC_WRAPPER",
	"RUSTC_WORKSPACE_WRAPPER", "RUSTFLAGS", "RUSTDOCFLAGS", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "MAKEFLAGS",
	"MAKEFILES", "SHELL", "GRADLE_OPTS", "MAVEN_OPTS", "MAVEN_ARGS", "JAVA_HOME"}

// riskyEnvPrefixes are families of such variables: npm's configuration (npm_config_
// script_shell), cargo's (CARGO_TARGET_*_RUNNER), git's.
var riskyEnvPrefixes = []string{"LD_", "DYLD_", "GIT_", "NPM_CONFIG_", "CARGO_", "YARN_", "PNPM_"}

// distrust says why rules and the read-only set, written for the user's own commands,
// may not allow c ("runs through sudo", "sets PATH"); "" when they may.
func distrust(c shell.Command) string {
	for _, w := range c.Wrappers {
		if isOneOf(w, privilegeWrappers) {
			return "runs through " + w
		}
	}
	for _, e := range c.Env {
		name, _, _ := strings.Cut(e, "=")
		if isOneOf(name, riskyEnv) || slices.ContainsFunc(riskyEnvPrefixes, func(p string) bool { return strings.HasPrefix(strings.ToUpper(name), p) }) {
			return "sets " + name
		}
	}
	return ""
}

// commandDirs lists the folders c may run in, as absolute paths, so its relative paths
// can be resolved from each; nil when that is only known at run time.
func (st *state) commandDirs(c shell.Command) []string {
	dirs := []string{c.Dir}
	if c.DirUnknown {
		dirs = c.Dirs
	}
	var out []string
	for _, d := range dirs {
		if d == "" {
			out = append(out, st.cwd)
			continue
		}
		if holdsExpansion(d) {
			return nil
		}
		t, err := st.shellResolve(d, st.cwd)
		if err != nil {
			return nil
		}
		out = append(out, t.lex)
	}
	return out
}

// relative reports whether a shell word names a path relative to the folder it runs in.
func relative(word string) bool { return !filepath.IsAbs(word) && !strings.HasPrefix(word, "~") }

func holdsExpansion(w string) bool { return strings.ContainsAny(w, "$`") }
