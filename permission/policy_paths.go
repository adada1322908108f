package permission

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// resolve turns a path as a tool or command gives it into its lexical absolute form and
// its real path (symlinks followed as the kernel would). base is the folder relative
// paths start from. A path outside the workspace still resolves: deciding about it is
// the policy's job.
func (st *state) resolve(p, base string) (target, error) {
	abs := p
	switch {
	case p == "~":
		abs = st.home
	case strings.HasPrefix(p, "~/"):
		abs = st.home + "/" + p[2:]
	}
	if !filepath.IsAbs(abs) {
		abs = base + "/" + abs
	}
	t := target{given: p, lex: filepath.Clean(abs)}
	real, err := st.ws.Resolve(abs)
	var out *workspace.OutsideError
	switch {
	case err == nil:
		t.real = real
	case errors.As(err, &out):
		t.real = out.Resolved
	default:
		return t, err
	}
	return t, nil
}

// inside reports whether a real path is in the workspace or a writable root.
func (st *state) inside(real string) bool {
	if st.ws.Contains(real) {
		return true
	}
	for _, r := range st.writable {
		if workspace.Within(r, real) {
			return true
		}
	}
	return false
}

// Protected names: folders holding configuration that would change what ouro, git or
// the shell does next, and the shell startup files in the home folder.
var (
	protectedDirs  = []string{".git", ".ouro", ".claude"}
	protectedFiles = []string{".mcp.json"}
	// contentDirs inside .ouro and .claude hold skills, agents, commands and git worktrees
	// (checkouts of their own, whose .git and config stay protected below them): ordinary
	// content, as in Claude Code, which the agent may write like any file. What such a file
	// asks for (allowed-tools, a looser permissionMode) is withheld until the user reviews
	// it (package grant).
	contentDirs  = []string{"skills", "agents", "commands", "worktrees"}
	shellRCFiles = []string{".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".bash_login", ".zshenv", ".zlogin"}
	// homeConfigFiles are the user files in the home folder holding the user's MCP servers
	// (commands run at every session start) and the folders the user trusts: written by
	// the agent, they would let it trust a folder for itself or start a command later.
	homeConfigFiles = []string{".ouro.json", ".claude.json"}
)

// protected reports whether a write to tg must always be asked about (outside bypass
// mode), whichever of its two forms names the protected place.
func (st *state) protected(tg *target) bool {
	return tg.glob || isProtected(tg.lex, st.home) || isProtected(tg.real, st.home)
}

func isProtected(p, home string) bool {
	p = filepath.ToSlash(p)
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if !isOneOf(part, protectedDirs) {
			continue
		}
		if part != ".git" && i+2 < len(parts) && isOneOf(parts[i+1], contentDirs) &&
			!(parts[i+1] == "worktrees" && strings.HasPrefix(parts[i+2], ".")) {
			continue // a file below .claude/skills/ and the like (not worktrees/.meta: ouro's records)
		}
		return true
	}
	if isOneOf(filepath.Base(p), protectedFiles) {
		return true
	}
	if home != "" && filepath.Dir(p) == filepath.ToSlash(home) && (isOneOf(filepath.Base(p), shellRCFiles) || isOneOf(filepath.Base(p), homeConfigFiles)) {
		return true
	}
	return false
}

// globMayHitProtected reports whether a shell word still holding glob characters (`.g*`,
// `rm -r .*`) could expand to a protected name.
func globMayHitProtected(word string) bool {
	if !strings.ContainsAny(word, "*?[") {
		return false
	}
	names := append(append(append(append([]string(nil), protectedDirs...), protectedFiles...), shellRCFiles...), homeConfigFiles...)
	for _, part := range strings.Split(filepath.ToSlash(word), "/") {
		for _, n := range names {
			// As in bash, a leading dot is matched only by a pattern that writes it.
			if n[0] == '.' && !strings.HasPrefix(part, ".") {
				continue
			}
			if ok, _ := doublestar.Match(part, n); ok {
				return true
			}
		}
	}
	return false
}

// pathSpec writes a path as a rule specifier, as narrow as it is: relative to the
// working directory inside it, `~/` in the home, `//` elsewhere. dir adds `/**` for the
// tools that search a folder.
func (st *state) pathSpec(real string, dir bool) string {
	var spec string
	if rel, err := filepath.Rel(st.cwd, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		rel = escapeGlob(filepath.ToSlash(rel))
		switch {
		case rel == ".":
			spec = "."
		case strings.Contains(rel, "/"):
			spec = rel
		default:
			spec = "./" + rel
		}
	} else if st.home != "" && workspace.Within(st.home, real) && real != st.home {
		spec = "~/" + escapeGlob(filepath.ToSlash(real[len(st.home)+1:]))
	} else {
		// "//" and the path: /etc/x is //etc/x, and C:\x (C:/x) is //C:/x.
		spec = "//" + strings.TrimPrefix(escapeGlob(filepath.ToSlash(real)), "/")
	}
	if dir {
		spec = strings.TrimSuffix(spec, "/") + "/**"
	}
	return spec
}

// ReadDenied reports whether a deny rule forbids reading the file at path (absolute).
// Searches leave such files out, so that Read(./.env) also keeps .env's content out of
// what Grep shows: a rule about reading a file is about its content, whichever tool
// would reveal it.
func (p *Policy) ReadDenied(path string) bool {
	st := p.snapshot(context.Background())
	tg, err := st.resolve(path, st.cwd)
	if err != nil {
		return false
	}
	// Every deny rule on a tool that reads files counts (Read, Grep, Glob, ...).
	for _, r := range st.deny {
		if r.kind != specPath || r.family() != tool.ActRead {
			continue
		}
		s := st.kindSubject(tool.ActRead)
		s.Tool = r.Tool
		if _, ok := st.firstMatch([]Rule{r}, s, &tg, false); ok {
			return true
		}
	}
	return false
}
