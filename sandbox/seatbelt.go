package sandbox

// The sandbox on macOS: the same Policy as on Linux, written as a Seatbelt profile (SBPL,
// Apple's Scheme dialect) that /usr/bin/sandbox-exec applies to the command it starts
// (see seatbelt_darwin.go). The generator here is a pure function of the policy, so its
// output is tested on every system (seatbelt_test.go, testdata/seatbelt/*.sb).
//
// The profile allows everything by default and confines only what the Linux sandbox
// confines, each confinement being one deny rule whose filter names what stays allowed:
//
//   - Writes (file-write*) only under the write roots, minus the read-only paths (.git
//     metadata, .claude, .ouro, .mcp.json, denyWrite), plus the content folders inside
//     those (.claude/skills …) and a few device files. Seatbelt matches paths, not the
//     files that exist when the command starts, so unlike Landlock it needs no
//     placeholders and no check-and-restore: creating a missing .git/hooks or .claude is
//     refused like writing an existing one.
//   - Reads of sandbox.filesystem.denyRead (file-read-data, file-read-xattr), and every
//     write there too, so that a secret cannot be renamed or copied out of its name.
//     Metadata (stat, a listing of the folder above) stays readable.
//   - The network, when Policy.NetworkRestricted: TCP and UDP to the proxy's port on
//     loopback and to sandbox.network.allowPorts, Unix sockets inside the write roots
//     but the caches; with allowPorts, name lookups too (mDNSResponder and port 53),
//     which the proxy mode does not need since the proxy resolves names. Listening only
//     on allowPorts.
//
// Because there is a single deny rule per confinement and no allow rule after
// (allow default), the outcome does not depend on how Seatbelt orders rules.
//
// What stays open, as on Linux: reading anything not in denyRead, signals to other
// processes of the user, Mach and XPC services (a system daemon asked over Mach may open
// connections for the command) and POSIX IPC.
//
// Learned from openai/codex (codex-rs/sandboxing/src/seatbelt.rs and
// seatbelt_base_policy.sbpl, Apache-2.0; read, not copied): trust only
// /usr/bin/sandbox-exec; give the kernel's canonical paths (/private/tmp, never /tmp);
// exclude a protected path with both (literal) and (subpath), since they observed
// that the subpath alone let the protected folder itself be created; carve exceptions
// out of a root with (require-all (subpath …) (require-not …)); the network filters
// (remote ip "localhost:PORT") and (remote unix-socket (subpath …)); pseudo-terminals
// as the regex ^/dev/ttys[0-9]+. Codex passes paths as -D parameters; ouro writes them
// into the profile as escaped string literals, so that the profile alone is the whole
// policy (and the golden files show it).

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// seatbeltExec is the only sandbox-exec ouro runs: one found on PATH could be anyone's.
const seatbeltExec = "/usr/bin/sandbox-exec"

// seatbeltDevices may be written by every sandboxed command (cf. deviceFiles on Linux):
// they hold no data of their own. /dev/dtracehelper is opened read-write by dyld at
// every program start; /dev/fd/N (and /dev/stdout, a link to it) are descriptors the
// process already holds.
var seatbeltDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/dtracehelper"}

// Mechanism names the OS sandbox ouro uses on this system, for `ouro doctor`; "" where
// it has none.
func Mechanism() string {
	switch runtime.GOOS {
	case "linux":
		return "Landlock"
	case "darwin":
		return "Seatbelt (" + seatbeltExec + ")"
	}
	return ""
}

// systemCacheDir is the user's cache folder that os.UserCacheDir gives on goos where it
// is not ~/.cache (or $XDG_CACHE_HOME): ~/Library/Caches on macOS, which holds Go's
// build cache, pip's and Homebrew's; "" elsewhere.
func systemCacheDir(goos, home string) string {
	if goos == "darwin" && home != "" {
		return path.Join(home, "Library", "Caches")
	}
	return ""
}

// DeniesReads reports whether the sandbox here enforces sandbox.filesystem.denyRead:
// Seatbelt can refuse reads of single paths inside readable trees, Landlock cannot.
func DeniesReads() bool { return runtime.GOOS == "darwin" }

// SeatbeltProfile returns the Seatbelt profile that enforces p. Every entry of p.Content
// is taken as writable: the caller passes the content folders that are open now (see
// openContent). Paths are canonicalised as macOS reports them (seatbeltPath); an error
// means a path or pattern cannot be written into the profile, and the command must not
// run under a profile that leaves it out.
func SeatbeltProfile(p Policy) (string, error) {
	var b strings.Builder
	b.WriteString("(version 1)\n")
	b.WriteString("; ouro's sandbox for one command, generated from its policy (sandbox/seatbelt.go).\n")
	b.WriteString("(allow default)\n")

	// Writes.
	roots, err := pathFilters(p.WriteRoots, false)
	if err != nil {
		return "", fmt.Errorf("sandbox: write root: %w", err)
	}
	ro, err := pathFilters(p.ReadOnly, true)
	if err != nil {
		return "", fmt.Errorf("sandbox: read-only path: %w", err)
	}
	content, err := pathFilters(p.Content, false)
	if err != nil {
		return "", fmt.Errorf("sandbox: content folder: %w", err)
	}
	var writable []string
	switch {
	case len(roots) > 0 && len(ro) > 0:
		writable = append(writable, "(require-all "+anyOf(roots)+"\n      (require-not "+anyOf(ro)+"))")
	case len(roots) > 0:
		writable = append(writable, anyOf(roots))
	}
	writable = append(writable, content...)
	for _, d := range seatbeltDevices {
		writable = append(writable, "(literal "+sbString(d)+")")
	}
	writable = append(writable, "(subpath \"/dev/fd\")", `(regex #"^/dev/ttys[0-9]+$")`)
	b.WriteString("\n; Writes: the write roots but for their read-only paths, the content folders, devices.\n")
	b.WriteString("(deny file-write*\n  (require-not\n    (require-any\n      " + strings.Join(writable, "\n      ") + ")))\n")

	// Reads.
	if len(p.DenyRead) > 0 {
		var secret []string
		for _, d := range p.DenyRead {
			f, err := denyReadFilter(d)
			if err != nil {
				return "", fmt.Errorf("sandbox: sandbox.filesystem.denyRead entry %q: %w", d, err)
			}
			secret = append(secret, f...)
		}
		b.WriteString("\n; Reads refused: sandbox.filesystem.denyRead (writes too, so nothing is renamed out of them).\n")
		b.WriteString("(deny file-read-data file-read-xattr file-write*\n  " + anyOf(secret) + ")\n")
	}

	// Network.
	if p.NetworkRestricted() {
		var out, bind []string
		if p.ProxyPort > 0 && p.ProxyPort <= 65535 {
			out = append(out, fmt.Sprintf(`(remote ip "localhost:%d")`, p.ProxyPort))
		}
		ports := slices.Clone(p.Network.AllowPorts)
		slices.Sort(ports)
		ports = slices.Compact(ports)
		for _, port := range ports {
			if port <= 0 || port > 65535 {
				continue
			}
			out = append(out, fmt.Sprintf(`(remote ip "*:%d")`, port))
			bind = append(bind, fmt.Sprintf(`(local ip "*:%d")`, port))
		}
		if len(bind) > 0 {
			// A command that may reach hosts on its own must find their addresses.
			out = append(out, `(remote ip "*:53")`, `(remote unix-socket (subpath "/private/var/run/mDNSResponder"))`)
		}
		// Sockets the command's own processes make, in the workspace or the temp dir; not
		// in the shared caches, where another program's daemon may listen.
		own, err := pathFilters(slices.DeleteFunc(slices.Clone(p.WriteRoots), func(w string) bool { return slices.Contains(p.Caches, w) }), false)
		if err != nil {
			return "", fmt.Errorf("sandbox: write root: %w", err)
		}
		for _, r := range own {
			out = append(out, "(remote unix-socket "+r+")")
		}
		b.WriteString("\n; Network: only ")
		switch {
		case p.ProxyPort > 0 && len(bind) > 0:
			b.WriteString("ouro's proxy, the allowed ports and name lookups")
		case p.ProxyPort > 0:
			b.WriteString("ouro's proxy")
		case len(bind) > 0:
			b.WriteString("the allowed ports and name lookups")
		default:
			b.WriteString("nothing")
		}
		b.WriteString("; Unix sockets inside the write roots but the caches.\n")
		if len(out) > 0 {
			b.WriteString("(deny network-outbound\n  (require-not\n    " + anyOf(out) + "))\n")
		} else {
			b.WriteString("(deny network-outbound)\n")
		}
		if len(bind) > 0 {
			b.WriteString("(deny network-bind\n  (require-all (local ip \"*:*\")\n    (require-not " + anyOf(bind) + ")))\n")
		} else {
			b.WriteString("(deny network-bind (local ip \"*:*\"))\n")
		}
	}
	return b.String(), nil
}

// anyOf joins filters with require-any (one filter stands for itself).
func anyOf(fs []string) string {
	if len(fs) == 1 {
		return fs[0]
	}
	return "(require-any " + strings.Join(fs, " ") + ")"
}

// pathFilters are the (subpath) filters of paths, deduplicated in order; literalToo adds
// (literal) for each, as protected paths need (see the note on codex above).
func pathFilters(ps []string, literalToo bool) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range ps {
		c, err := seatbeltPath(p)
		if err != nil {
			return nil, err
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		s := sbString(c)
		if literalToo {
			out = append(out, "(literal "+s+")")
		}
		out = append(out, "(subpath "+s+")")
	}
	return out, nil
}

// seatbeltPath is p as the macOS kernel reports it: absolute and clean, with /tmp, /var
// and /etc (symbolic links into /private) replaced by their targets, since Seatbelt
// compares the resolved path of each file. Policy paths are real paths already where
// they exist (realPath); this covers those that do not, and is a no-op on the others.
// Paths that no string literal can carry faithfully are refused: control characters,
// which the profile reader's escapes do not cover, and bytes that are not UTF-8, which
// no macOS file system stores.
func seatbeltPath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q is not an absolute path", p)
	}
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("%q is not valid UTF-8", p)
	}
	if i := strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return "", fmt.Errorf("%q holds a control character", p)
	}
	p = path.Clean(p)
	for _, l := range []string{"/tmp", "/var", "/etc"} {
		if p == l || strings.HasPrefix(p, l+"/") {
			return "/private" + p, nil
		}
	}
	return p, nil
}

// sbString is s as an SBPL string literal: in double quotes, with backslash and double
// quote escaped by a backslash; other characters, non-ASCII included, stand for
// themselves (the reader takes the bytes, and macOS paths are UTF-8). seatbeltPath has
// refused control characters.
func sbString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// globChars are what make a denyRead entry a pattern rather than a path.
const globChars = "*?["

// denyReadFilter turns one denyRead entry into filters: a path is the file or folder and
// everything under it; a pattern (Claude Code's: * within a name, ** across folders,
// ? one character) is an anchored regex, matching what lies under a match too.
func denyReadFilter(entry string) ([]string, error) {
	i := strings.IndexAny(entry, globChars)
	if i < 0 {
		return pathFilters([]string{entry}, true)
	}
	// The part before the pattern's first folder with a wildcard is canonicalised like
	// any path; the rest is translated.
	cut := strings.LastIndex(entry[:i], "/")
	if cut < 0 {
		return nil, fmt.Errorf("%q is not an absolute pattern", entry)
	}
	prefix, err := seatbeltPath(entry[:cut+1])
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	rest := entry[cut+1:]
	if !utf8.ValidString(rest) || strings.ContainsFunc(rest, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, errors.New("the pattern holds a control character or is not UTF-8")
	}
	re, err := globRegex(prefix, strings.TrimSuffix(rest, "/"))
	if err != nil {
		return nil, err
	}
	return []string{"(regex #\"" + re + "\")"}, nil
}

// globRegex is the anchored regex of a literal prefix followed by a glob. Characters are
// matched literally through bracket expressions ([.] for a dot), never with a backslash:
// how the #"…" reader treats backslashes is not documented. A double quote, backslash or
// caret has no such spelling and is refused; a pattern needs none in practice.
func globRegex(prefix, glob string) (string, error) {
	var b strings.Builder
	b.WriteByte('^')
	lit := func(s string) error {
		for _, r := range s {
			switch r {
			case '"', '\\', '^':
				return fmt.Errorf("a pattern cannot hold %q in the Seatbelt profile; name the path without a wildcard instead", string(r))
			case '.', '$', '+', '(', ')', '|', '{', '}', '*', '?', '[':
				b.WriteString("[" + string(r) + "]")
			case ']':
				b.WriteString("[]]")
			default:
				b.WriteRune(r)
			}
		}
		return nil
	}
	if err := lit(prefix); err != nil {
		return "", err
	}
	for i := 0; i < len(glob); {
		switch {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(.*/)?") // any number of folders, none included
			i += 3
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i += 2
		case glob[i] == '*':
			b.WriteString("[^/]*")
			i++
		case glob[i] == '?':
			b.WriteString("[^/]")
			i++
		case glob[i] == '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				return "", errors.New("an unclosed [ in the pattern")
			}
			class := glob[i+1 : i+1+end]
			if class == "" || strings.ContainsAny(class, "\"\\[/") {
				return "", fmt.Errorf("the character class [%s] cannot be written in the profile", class)
			}
			if class[0] == '!' {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += end + 2
		default:
			r, n := utf8.DecodeRuneInString(glob[i:])
			if err := lit(string(r)); err != nil {
				return "", err
			}
			i += n
		}
	}
	b.WriteString("(/.*)?$")
	return b.String(), nil
}

// seatbeltEnv is what a command under Seatbelt gets set in its environment, which on
// Linux the launcher sets: TMPDIR, the proxy's variables, the worktree's object folders.
// Sorted, as NAME=value.
func seatbeltEnv(p Policy) []string {
	env := map[string]string{}
	if p.TempDir != "" {
		env["TMPDIR"] = p.TempDir
	}
	for k, v := range proxyEnv(p) {
		env[k] = v
	}
	for k, v := range p.Objects.env() {
		env[k] = v
	}
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// seatbeltArgs are sandbox-exec's arguments to run name with args under profile, with
// env set through /usr/bin/env (the caller sets the command's environment as a whole, so
// these must be set inside). name must be an absolute path without '=', which env would
// take for a variable.
func seatbeltArgs(profile string, env []string, name string, args ...string) ([]string, error) {
	if !strings.HasPrefix(name, "/") || strings.Contains(name, "=") {
		return nil, fmt.Errorf("sandbox: %s must be an absolute path without '='", strconv.Quote(name))
	}
	out := []string{"-p", profile}
	if len(env) > 0 {
		out = append(append(append(out, "/usr/bin/env"), env...), name)
	} else {
		out = append(out, name)
	}
	return append(out, args...), nil
}
