package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

var (
	// deniedRE matches the ways programs report EACCES, EPERM and EROFS: the C library's
	// texts (any case: Go prints them in lower case) and Node's error codes.
	deniedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|\b(EACCES|EPERM|EROFS)\b`)
	})
	// networkRE tells a refused connection from a refused file: the system call or tool
	// that is usually named next to the error.
	networkRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(connect|dial|bind|socket|network|port|/dev/tcp|/dev/udp|curl|wget|ssh|https?)\b`)
	})
	// connectFailRE finds failed connections whose cause the text does not name: curl's
	// "Couldn't connect to server" (exit 7) for EACCES as for a closed port, Node's
	// "connect EACCES", Go's "connect: permission denied". Counted only where the
	// network is restricted, and then reported as a possibility.
	connectFailRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)couldn't connect to server|failed to connect to|connect EACCES|unable to connect to`)
	})
	// quotedRE finds '…', "…", ‘…’, “…” and `…` spans, where tools put the path.
	quotedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|“([^”]+)”|`([^`]+)`")
	})
	// makesFolderRE tells a refused mkdir or symlink from other refusals: mkdir(1),
	// ln(1), Node's "mkdir 'x'", cargo's "failed to create directory".
	makesFolderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bmkdir\b|\bdirector(y|ies)\b|\bsymlink|symbolic link|\bln\b`)
	})
	// urlRE finds URLs, which are not paths although they have slashes.
	urlRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://\S*`) })
	// slashRE finds words with a slash in them.
	slashRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[^\s'"‘’“”` + "`" + `:,;()\[\]{}<>=]*/[^\s'"‘’“”` + "`" + `:,;()\[\]{}<>=]*`)
	})
)

// Diagnose looks at the output of a command that ran under p for signs that the sandbox
// refused something, and returns a note saying what was refused, what is writable and how
// to allow more; "" when nothing points at the sandbox. dirs are the directories relative
// paths in the output may be relative to (where the command started and ended).
//
// A path named in a permission error counts when it is one of p's read-only paths, or
// when it lies outside the write roots and ouro itself could write it (so the error is
// not simply the file's own permissions, as for find's "/root: Permission denied"). A
// permission error with no path that names a connection counts as a refused connection
// when p restricts the network.
func Diagnose(p Policy, output string, dirs ...string) string {
	return diagnose(p, output, dacWritable, dirs...)
}

// diagnose is Diagnose with the file permission check passed in.
func diagnose(p Policy, output string, canWrite func(string) bool, dirs ...string) string {
	var outside, readOnly, noFolder, noContent, sharedRef []string
	network, unexplained, maybeNetwork := false, false, false
	frozen := p.noNewFolders()
	open := p.openContent()
	for line := range strings.Lines(output) {
		if !deniedRE().MatchString(line) {
			maybeNetwork = maybeNetwork || p.NetworkRestricted() && connectFailRE().MatchString(line)
			continue
		}
		cands := pathCandidates(line)
		found := false
		for _, c := range cands {
			for _, abs := range resolve(c, dirs) {
				switch {
				case slices.ContainsFunc(p.ReadOnly, func(r string) bool { return within(abs, r) }) &&
					slices.ContainsFunc(p.WriteRoots, func(w string) bool { return within(abs, w) }) &&
					!slices.ContainsFunc(open, func(c string) bool { return within(abs, c) }):
					if c := p.missingContent(abs); c != "" {
						noContent = appendNew(noContent, c)
					} else if p.sharedRef(abs) {
						sharedRef = appendNew(sharedRef, abs)
					} else {
						readOnly = appendNew(readOnly, abs)
					}
					found = true
				case !p.Writable(abs) && !isDevice(abs) && canWrite(abs):
					outside = appendNew(outside, abs)
					found = true
				case makesFolderRE().MatchString(line) && slices.Contains(frozen, filepath.Dir(abs)) && !exists(abs):
					noFolder = appendNew(noFolder, abs)
					found = true
				}
				if found {
					break
				}
			}
		}
		switch {
		case found:
		case p.NetworkRestricted() && networkRE().MatchString(line):
			network = true
		case len(cands) == 0:
			unexplained = true
		}
	}

	var notes []string
	if len(outside) > 0 {
		notes = append(notes, fmt.Sprintf("Sandbox: writing to %s was blocked. Commands may write only under %s. If the command really needs to write there, the user can add the directory to sandbox.filesystem.allowWrite in .ouro/settings.json.",
			list(outside), p.writableText()))
	}
	if len(readOnly) > 0 {
		notes = append(notes, fmt.Sprintf("Sandbox: %s is kept read-only (git hooks and config, .ouro/, .claude/ and .mcp.json act outside the sandbox later; sandbox.filesystem.denyWrite adds more). Change it with the Write or Edit tool, which asks for permission, if it is really needed.",
			list(readOnly)))
	}
	if len(sharedRef) > 0 {
		notes = append(notes, fmt.Sprintf("Sandbox: %s is in the git dir this worktree shares with the user's checkout, where only ouro's branches (refs/heads/ouro/) are writable: the user's branches, tags, stash and other refs stay as they are. Name a new branch ouro/<name>.",
			list(sharedRef)))
	}
	if len(noContent) > 0 {
		example := filepath.Join(noContent[0], "<name>.md")
		if filepath.Base(noContent[0]) == "skills" {
			example = filepath.Join(noContent[0], "<name>", "SKILL.md")
		}
		notes = append(notes, fmt.Sprintf("Sandbox: %s is missing (or is a symbolic link), and sandboxed commands cannot create it: the skills, agents and commands folders in .claude and .ouro are writable from Bash only where they already exist as real folders (creating one would take writing .claude or .ouro itself, which stays read-only). Create the first file in it with the Write tool (for example %s), which makes the folder; Bash can write there from its next command on.",
			list(noContent), example))
	}
	if len(noFolder) > 0 {
		var missing, folders []string
		gitInit := ""
		for _, r := range p.ReadOnly {
			if guardedName(r) && !exists(r) && slices.Contains(frozen, filepath.Dir(r)) {
				missing = appendNew(missing, filepath.Base(r))
				if filepath.Base(r) == ".git" {
					gitInit = " or git init"
				} else {
					folders = appendNew(folders, filepath.Base(r))
				}
			}
		}
		lift := "git init"
		if len(folders) > 0 {
			lift = "mkdir " + strings.Join(folders, " ") + gitInit
		}
		verb, them := "do not exist", "them"
		if len(missing) == 1 {
			verb, them = "does not exist", "it"
		}
		notes = append(notes, fmt.Sprintf("Sandbox: %s could not be created: while %s %s, sandboxed commands cannot make folders or symbolic links directly in %s (a command could otherwise create settings, hooks or a git repository that ouro, Claude Code or git obey outside the sandbox later). Files can still be created there, and folders deeper down; the Write tool can create a file in a new folder. To lift this, the user can create %s outside the sandbox (%s); %s then kept read-only instead.",
			list(noFolder), strings.Join(missing, " and "), verb, list(frozen), them, lift, map[bool]string{true: "it is", false: "they are"}[len(missing) == 1]))
	}
	if network || maybeNetwork {
		notes = append(notes, p.networkText(network))
	}
	if len(notes) == 0 && unexplained {
		notes = append(notes, fmt.Sprintf("Sandbox: the output reports a permission error without naming a path. If it was a write: commands may write only under %s; the user can allow more with sandbox.filesystem.allowWrite in .ouro/settings.json.",
			p.writableText()))
	}
	return strings.Join(notes, "\n")
}

// networkText explains the network restriction; sure says the output shows a refusal,
// else it only may have been one.
func (p Policy) networkText(sure bool) string {
	lead := "Sandbox: a connection was blocked: "
	if !sure {
		lead = "Sandbox: if a connection failed above, the sandbox may have blocked it: "
	}
	ports := ""
	if len(p.Network.AllowPorts) > 0 {
		ports = fmt.Sprintf(" (and TCP ports %v, from sandbox.network.allowPorts)", p.Network.AllowPorts)
	}
	if p.Network.Proxied() {
		return lead + "direct TCP connections are refused" + ports + "; sandboxed commands reach the network only through ouro's proxy, which HTTP_PROXY, HTTPS_PROXY and ALL_PROXY point at, and only the hosts in sandbox.network.allowedDomains. Use a tool that honours those variables (curl, git, npm, pip and go do); if a host is missing, the user can add it to sandbox.network.allowedDomains in .claude/settings.json or .ouro/settings.json."
	}
	return lead + "sandboxed commands may not open TCP connections or listen" + ports + ", as sandbox.network.allow: false or allowPorts say. The user can allow hosts with sandbox.network.allowedDomains, ports with sandbox.network.allowPorts, or the whole network with sandbox.network.allow: true, in .claude/settings.json or .ouro/settings.json."
}

// writableText lists the write roots and the read-only paths inside them.
func (p Policy) writableText() string {
	s := strings.Join(p.WriteRoots, ", ")
	if len(p.WriteRoots) == 0 {
		s = "(nowhere)"
	}
	if len(p.ReadOnly) > 0 {
		s += " (except " + strings.Join(p.ReadOnly, ", ") + ", which stay read-only"
		if open := p.openContent(); len(open) > 0 {
			s += " but for " + strings.Join(open, ", ")
		}
		s += ")"
	}
	return s + " and to /dev/null-style devices"
}

// pathCandidates are the words of a line that may be the path an error is about: quoted
// spans, words with a slash, and the field right before the error text in the
// "prog: line 1: FILE: Permission denied" form.
func pathCandidates(line string) []string {
	line = urlRE().ReplaceAllString(line, " ")
	var out []string
	for _, m := range quotedRE().FindAllStringSubmatch(line, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	out = append(out, slashRE().FindAllString(line, -1)...)
	if loc := deniedRE().FindStringIndex(line); loc != nil {
		before := strings.TrimSuffix(strings.TrimRight(line[:loc[0]], " "), ":")
		if i := strings.LastIndex(before, ": "); i >= 0 {
			before = before[i+2:]
		}
		if f := strings.TrimSpace(before); f != "" && !strings.ContainsAny(f, " \t'\"`") {
			out = append(out, f)
		}
	}
	return slices.DeleteFunc(out, func(c string) bool {
		return strings.ContainsAny(c, "\n\x00") || deniedRE().MatchString(c) // "Permission denied" quoted
	})
}

// resolve turns a candidate into absolute paths: itself when absolute, else one per dir.
func resolve(c string, dirs []string) []string {
	if filepath.IsAbs(c) {
		return []string{realPath(c)}
	}
	var out []string
	for _, d := range dirs {
		if d != "" {
			out = append(out, realPath(filepath.Join(d, c)))
		}
	}
	return out
}

func isDevice(p string) bool { return within(p, "/dev") || within(p, "/proc") }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// list names up to three paths.
func list(paths []string) string {
	if len(paths) > 3 {
		return strings.Join(paths[:3], ", ") + fmt.Sprintf(" and %d more", len(paths)-3)
	}
	return strings.Join(paths, ", ")
}
