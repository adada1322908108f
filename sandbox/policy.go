// Package sandbox runs Bash commands inside an OS sandbox, so that what a command may
// change does not depend on the permission rules having understood it.
//
// On Linux the sandbox is Landlock, entered by re-executing the ouro binary as a small
// launcher (see [Command] and [MaybeRunLauncher]): the launcher restricts itself and then
// starts the command, so the command and everything it starts inherit the restriction.
//
//   - Files: everything stays readable and executable; writes are allowed only under
//     [Policy.WriteRoots] (the workspace roots, a per-session temp dir, the usual build
//     caches and sandbox.filesystem.allowWrite) and to a few device files such as
//     /dev/null. Paths in [Policy.ReadOnly] (.git/hooks, .git/config, .ouro/, .claude/ and
//     sandbox.filesystem.denyWrite inside the roots) stay read-only although they lie
//     inside a write root. Landlock can only allow, never carve an exception out of an
//     allowed tree, so these are made read-only with bind mounts in a private user and
//     mount namespace before Landlock is applied; where the kernel does not allow such
//     namespaces (or OURO_SANDBOX_MODE=landlock asks for it), the folders that hold
//     them are granted whole and what a command changed among them is put back after
//     it (Policy.Restore, protect_linux.go), and for the other read-only paths
//     (denyWrite) the launcher grants the other entries of the directories that hold
//     them instead of those directories themselves (see writeRules in
//     launcher_linux.go for the exact rule and what it costs). docs/sandbox.md says why. The skills, agents and
//     commands folders directly inside a read-only .claude or .ouro ([Policy.Content])
//     are ordinary content, as in Claude Code, and stay writable where they exist as real
//     folders (not symbolic links) when a command starts: a second, writable bind mount,
//     or a Landlock rule of their own. A missing one cannot be created from the sandbox,
//     since that would take writing .claude itself; the Write tool can create it.
//   - Network: open by default. With sandbox.network.allowedDomains, commands reach the
//     network only through ouro's filtering proxy (see proxy.go): with Landlock ABI 4 or
//     later, TCP connect and bind are refused except connecting to the proxy's port and
//     the sandbox.network.allowPorts; allow: false (or allowPorts alone) refuses all but
//     those ports. UDP (so DNS too), ICMP, Unix sockets and Multipath TCP are not covered
//     by Landlock at the ABI used here (V5; UDP needs V10), and Landlock rules name ports,
//     not addresses: it cannot tell loopback from the internet, and the proxy's port is
//     open on every host.
//   - Processes: where user namespaces work, the command is PID 1 of a PID namespace of
//     its own (the launcher execs it), and the kernel kills every process it started when
//     it ends, times out, or when ouro dies; elsewhere the launcher stays as its
//     supervisor, a child subreaper, and does the same; see supervise_linux.go.
//     Unsandboxed commands get the same supervision through [Supervised].
//   - Not covered: reading (secrets stay readable), signals and abstract Unix sockets to
//     processes outside the sandbox (Landlock V6 scopes, not requested), and, on ABI 1
//     and 2, truncate(2) outside the roots ([Availability] says which apply).
//
// Where Landlock is missing, [Availability] says so once and Bash runs with the permission
// rules only.
package sandbox

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/internal/gitdir"
	"github.com/ouroagent/ouro/settings"
)

// Policy says where a sandboxed command may write and whether it may use the network.
// All paths are absolute, cleaned and, where they exist, free of symbolic links.
type Policy struct {
	// WriteRoots are the trees a command may write in: the workspace roots, the session
	// temp dir, the build caches and sandbox.filesystem.allowWrite, minus denyWrite.
	WriteRoots []string `json:"writeRoots"`
	// ReadOnly are paths inside WriteRoots that stay read-only: what under .git decides
	// which programs git runs (see gitMetadata; all of .git where it is missing, or a
	// worktree's .git file), .ouro/, .claude/, and denyWrite entries that lie inside a
	// root. Landlock and bind mounts both work on existing files only, and creating
	// placeholders in the user's tree would be a side effect of its own — except that an
	// empty .claude or .ouro is harmless (git does not track folders; nothing is in it),
	// so a missing one is made before any command (placeholder) and is then read-only. A
	// missing .git is held by a placeholder only while a command runs (an empty .git
	// would stay visible to other tools; see placeholder_linux.go); where none could be
	// made, the launcher withholds the right to make folders and symbolic links in its
	// parent (see writeRules in launcher_linux.go).
	// What a command creates at any other missing one (a file where only a folder is
	// guarded, .git/commondir, denyWrite entries) is taken back after it (Absent,
	// Reclaim), once every process of the command is gone.
	ReadOnly []string `json:"readOnly,omitempty"`
	// Restore are the read-only paths that Landlock-only mode keeps by check-and-restore
	// instead of by withholding rights (see protect_linux.go): what the sandbox itself
	// guards in a root (the .git metadata, .ouro, .claude, .mcp.json, the home folder's
	// startup files). Landlock cannot keep a name in a folder read-only while others in
	// it are made and removed, so where the kernel offers no mount namespace, the
	// folders that hold these are granted whole, and what a command changed there is put
	// back once every process of the command is gone (GuardProtected). The other
	// read-only paths (denyWrite, a shared git dir's objects and refs) keep the
	// withholding rule of writeRules, and its cost.
	Restore []string `json:"restore,omitempty"`
	// Content are the skills, agents and commands folders directly inside a read-only
	// .claude or .ouro: ordinary content, which a command may write although its parent
	// is read-only. One counts only where it is a real folder when the command starts (see
	// openContent): a symbolic link there is not followed, so .claude/skills -> .. grants
	// nothing, and a missing one cannot be created. What a file there asks for is
	// withheld until the user reviews it (package grant).
	Content []string `json:"content,omitempty"`
	// Caches are the build and package caches in WriteRoots (Go's, npm's, ~/.cache):
	// those missing are created before a command runs (MakeCaches), since only an
	// existing path can be granted, and not before, so that a session that runs no
	// command leaves the home folder as it was.
	Caches []string `json:"caches,omitempty"`
	// Env is what sandboxed commands get besides what the caller sets: where their own
	// caches are (GOMODCACHE, npm_config_cache, XDG_CACHE_HOME) and how they are seeded
	// (GOPROXY, GOFLAGS).
	Env map[string]string `json:"env,omitempty"`
	// TempDir is the per-session temp dir (also in WriteRoots). Sandboxed commands get it
	// as TMPDIR, since the system temp dir is not writable for them. Empty: TMPDIR is
	// left as it is.
	TempDir string `json:"tempDir,omitempty"`
	// DenyRead are the paths and patterns of sandbox.filesystem.denyRead, absolute, that
	// a command must not read: enforced by Seatbelt (seatbelt.go), not by Landlock.
	DenyRead []string `json:"denyRead,omitempty"`
	// Network says which outgoing TCP connections and listening ports are allowed.
	Network settings.SandboxNetwork `json:"network"`
	// ProxyPort is the loopback port of the filtering proxy (see proxy.go) when
	// Network.Proxied: the one port besides AllowPorts a command may connect to, and
	// where HTTP_PROXY and friends point.
	ProxyPort int `json:"proxyPort,omitempty"`
	// Objects, in a linked git worktree, is where git writes objects instead of the
	// shared, read-only objects folder (see WithWorktreeObjects).
	Objects *WorktreeObjects `json:"objects,omitempty"`
	// proxy is the running proxy, for the refusals it saw (see ProxyNote).
	proxy *Proxy
	// notice receives the warnings of the sandbox's mode when the first command finds
	// it (see WithNotice).
	notice func(string)
}

// WithProxy returns the policy with commands pointed at px, which must be running.
func (p Policy) WithProxy(px *Proxy) Policy {
	p.proxy, p.ProxyPort = px, px.Port()
	return p
}

// ProxyMark is the position to pass to ProxyNote after a command.
func (p Policy) ProxyMark() uint64 { return p.proxy.Mark() }

// ProxyNote says which connections the proxy refused since mark and which setting
// allows them; "" when it refused none.
func (p Policy) ProxyNote(mark uint64) string {
	rs := p.proxy.RefusedSince(mark)
	if len(rs) == 0 {
		return ""
	}
	var lines []string
	seen := map[string]bool{}
	for _, r := range rs {
		key := fmt.Sprintf("%s:%d", r.Host, r.Port)
		if seen[key] {
			continue
		}
		seen[key] = true
		lines = append(lines, fmt.Sprintf("Sandbox: the network proxy refused a connection to %s:%d: %s.", r.Host, r.Port, r.Why))
		if len(lines) == 3 {
			break
		}
	}
	lines = append(lines, "Sandboxed commands reach the network only through ouro's proxy, and only the hosts in sandbox.network.allowedDomains; if the command really needs another host, the user can add it there (in .claude/settings.json or .ouro/settings.json).")
	return strings.Join(lines, "\n")
}

// protectedNames are kept read-only inside every workspace root and allowWrite entry:
// git runs hooks and reads its config outside the sandbox later, and ouro (and Claude
// Code) read settings, hooks and agents from .ouro/ and .claude/, so a write there would
// reach outside the sandbox at the next commit or session.
var protectedNames = []string{".ouro", ".claude"}

// protectedFiles are kept read-only at the top of every workspace root too: .mcp.json
// names commands ouro (and Claude Code) start outside the sandbox, and the user's
// approval of a project server goes by its name, so a rewritten command would run
// unsandboxed at the next session. One a command creates is taken back (Reclaim).
var protectedFiles = []string{".mcp.json"}

// homeConfigNames are the files in the home folder a command must not write where the
// home folder is writable (ouro started there, or allowWrite "~"): the user's MCP servers
// and trusted folders (~/.ouro.json, ~/.claude.json), and the shell startup files. Each
// would run a command outside the sandbox later, or let the agent trust a folder itself.
var homeConfigNames = []string{".ouro.json", ".claude.json", ".bashrc", ".zshrc", ".profile", ".bash_profile",
	".zprofile", ".bash_login", ".zshenv", ".zlogin"}

// contentNames are the folders inside a protected .ouro or .claude that hold ordinary
// content (the same list as the permission policy's contentDirs).
var contentNames = []string{"skills", "agents", "commands"}

// FromSettings computes the policy for a session: roots are the workspace roots, home is
// the user's home directory and sessionTmp the session's temp dir ("" for none). Paths in
// allowWrite and denyWrite are read as Claude Code reads them: "//abs" is /abs, "~/x" is
// under home; settings.Load has already anchored "/x" and relative paths to the root of
// the file that names them, and any left are taken under the first root (the project).
//
// Go's caches are found without running go: $GOCACHE or the user cache dir's go-build,
// and $GOMODCACHE or the first $GOPATH entry's pkg/mod (~/go/pkg/mod by default). They
// (and ~/.cache, ~/.npm) are granted, and listed in Caches: one missing is created when a
// command first runs in the sandbox (Command), not here, so that starting ouro leaves
// nothing in the home folder.
func FromSettings(s settings.Sandbox, roots []string, home string, sessionTmp string) Policy {
	project := ""
	if len(roots) > 0 {
		project = absPath(roots[0])
	}
	cacheHome := os.Getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(cacheHome) {
		cacheHome = ""
		if home != "" {
			cacheHome = filepath.Join(home, ".cache")
		}
	}

	var write []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			write = append(write, realPath(p))
		}
	}
	for _, r := range roots {
		add(absPath(r))
	}
	add(sessionTmp)
	// A cache that does not exist yet cannot be made writable (the sandbox grants
	// existing paths), and a build inside could then never create it: Command creates
	// them, empty, as the tools would, before a command runs.
	// The user's module, npm and ~/.cache caches are read by programs outside the
	// sandbox, which run what they find there (a module's source, node-gyp's headers, a
	// cached wheel): sandboxed commands get caches of their own for the workspace, and
	// the user's stay read-only (see sandboxCaches).
	var caches []string
	env := map[string]string{}
	// macOS keeps Go's build cache (and other tools' caches) in ~/Library/Caches.
	sysCache := systemCacheDir(runtime.GOOS, home)
	userGoCache := envOr("GOCACHE", joinIf(cmp.Or(sysCache, cacheHome), "go-build"))
	// It is not a writable root: what a sandboxed command writes must never become code
	// that runs outside it. Go's cache is the sandbox's own (GOCACHEPROG, below); tools
	// that write only there are refused, with the sandbox's reason.
	if own := sandboxCaches(cacheHome, project); own != "" {
		for _, kd := range [][2]string{{"GOMODCACHE", "gomod"}, {"npm_config_cache", "npm"}, {"XDG_CACHE_HOME", "xdg"}} {
			k := kd[0]
			env[k] = filepath.Join(own, kd[1])
			caches = append(caches, env[k])
			add(env[k])
		}
		env["GOFLAGS"] = strings.TrimSpace(os.Getenv("GOFLAGS") + " -modcacherw")
		// Seeded, read-only, from the user's module downloads: what go.sum vouches for
		// builds offline as before, each zip checked against go.sum as it is copied in.
		if userMods := envOr("GOMODCACHE", joinIf(goPath(home), "pkg", "mod")); userMods != "" {
			proxy := os.Getenv("GOPROXY")
			if proxy == "" {
				proxy = "https://proxy.golang.org,direct"
			}
			env["GOPROXY"] = "file://" + filepath.ToSlash(filepath.Join(userMods, "cache", "download")) + "," + proxy
		}
		// The build cache: the sandbox's own, with the user's read through GOCACHEPROG
		// (see gocache.go), so that builds stay warm.
		if exe, err := os.Executable(); err == nil && filepath.IsAbs(userGoCache) {
			ownGo := filepath.Join(own, "go-build")
			if prog := goCacheProg(exe, realPath(userGoCache), ownGo); prog != "" {
				env["GOCACHE"], env["GOCACHEPROG"] = ownGo, prog
				caches = append(caches, ownGo)
				add(ownGo)
				userGoCache = ""
			}
		}
	}
	// Without a cache folder of the sandbox's own (no home), the user's build cache is
	// shared, as before.
	if userGoCache != "" && filepath.IsAbs(userGoCache) {
		add(userGoCache)
		caches = append(caches, write[len(write)-1])
	}
	var allowed []string
	for _, p := range s.Filesystem.AllowWrite {
		if r := settingsPath(p, home, project); r != "" {
			allowed = append(allowed, realPath(r))
		}
	}
	write = append(write, allowed...)

	var deny []string
	for _, p := range s.Filesystem.DenyWrite {
		if r := settingsPath(p, home, project); r != "" {
			deny = append(deny, realPath(r))
		}
	}
	write = slices.DeleteFunc(write, func(w string) bool {
		return slices.ContainsFunc(deny, func(d string) bool { return within(w, d) })
	})
	write = outermost(write)

	// Read-only candidates: the protected names in every root a repository or a config
	// directory may live in, the user-level config directories, and denyWrite.
	var ro, restore []string
	repos := append([]string(nil), allowed...)
	for _, r := range roots {
		repos = append(repos, realPath(absPath(r)))
	}
	if home != "" {
		repos = append(repos, realPath(home))
	}
	for _, r := range repos {
		ro = append(ro, gitMetadata(filepath.Join(r, ".git"))...)
		// hooksPath, includes, templates; not one that holds a whole write root (hooksPath
		// = .), which could be kept only by freezing the workspace.
		ro = append(ro, slices.DeleteFunc(gitConfigPaths(r, gitDirOf(r), home), func(p string) bool {
			return slices.ContainsFunc(write, func(w string) bool { return within(realPath(w), realPath(p)) })
		})...)
		ro = append(ro, submoduleGitPaths(r)...) // where git goes for each submodule
		for _, n := range protectedNames {
			ro = append(ro, filepath.Join(r, n))
		}
	}
	for _, r := range roots {
		for _, n := range protectedFiles {
			ro = append(ro, filepath.Join(realPath(absPath(r)), n))
		}
	}
	if home != "" {
		for _, n := range homeConfigNames {
			ro = append(ro, filepath.Join(realPath(home), n))
		}
	}
	for _, p := range ro {
		restore = append(restore, realPath(p))
	}
	ro = append(ro, deny...)
	for i, p := range ro {
		ro[i] = realPath(p)
	}
	ro = slices.DeleteFunc(ro, func(p string) bool {
		return !slices.ContainsFunc(write, func(w string) bool { return within(p, w) })
	})
	ro = outermost(ro)
	restore = slices.DeleteFunc(restore, func(p string) bool { return !slices.Contains(ro, p) })

	// The content folders of each protected folder, unless denyWrite names them, or
	// something inside them, or the protected folder itself.
	var content []string
	for _, r := range ro {
		if !slices.Contains(protectedNames, filepath.Base(r)) {
			continue
		}
		for _, n := range contentNames {
			c := filepath.Join(r, n)
			if !slices.ContainsFunc(deny, func(d string) bool { return within(d, c) || within(c, d) }) {
				content = append(content, c)
			}
		}
	}

	pol := Policy{WriteRoots: write, ReadOnly: ro, Restore: restore, Content: content, Network: s.Network, Caches: caches}
	if len(env) > 0 {
		pol.Env = env
	}
	if project != "" {
		// The history in the project's own repository is never rewritten in place.
		if git := filepath.Join(realPath(project), ".git"); gitdir.Is(git) && slices.ContainsFunc(write, func(w string) bool { return within(git, w) }) {
			if st, err := os.Lstat(git); err == nil && st.IsDir() {
				pol = pol.WithCheckoutObjects(git)
			}
		}
	}
	if sessionTmp != "" {
		pol.TempDir = realPath(sessionTmp)
	}
	for _, d := range s.Filesystem.DenyRead {
		if r := settingsPath(d, home, project); r != "" {
			pol.DenyRead = append(pol.DenyRead, realPath(r))
		}
	}
	pol.Network.AllowPorts = slices.Clone(s.Network.AllowPorts)
	pol.Network.AllowedDomains = slices.Clone(s.Network.AllowedDomains)
	pol.Network.DeniedDomains = slices.Clone(s.Network.DeniedDomains)
	return pol
}

// gitDirOf is root's .git when it is a git dir, else "".
func gitDirOf(root string) string {
	git := filepath.Join(root, ".git")
	if st, err := os.Lstat(git); err == nil && st.IsDir() && gitdir.Is(git) {
		return git
	}
	return ""
}

// frozen are the read-only paths Landlock-only mode keeps by withholding rights from
// the folders above them (see writeRules): all of them but the existing ones that
// GuardProtected keeps by check-and-restore. A missing one stays, so that a guarded name
// (.git, .claude, .ouro) that no placeholder holds still cannot be made a folder.
func (p Policy) frozen() []string {
	return slices.DeleteFunc(slices.Clone(p.ReadOnly), func(r string) bool {
		return (slices.Contains(p.Restore, r) && exists(r)) || (p.Objects != nil && p.Objects.Checkout && r == p.Objects.Shared)
	})
}

// Writable reports whether the policy lets a sandboxed command write path: it lies in a
// write root, and either not in a read-only path or in a content folder that exists now
// (see openContent). Relative paths are taken from the current directory; symbolic links
// are resolved, so .claude/skills/../settings.json is .claude/settings.json. Device files
// the launcher allows (such as /dev/null) are not counted.
func (p Policy) Writable(path string) bool {
	path = realPath(absPath(path))
	if !slices.ContainsFunc(p.WriteRoots, func(w string) bool { return within(path, w) }) {
		return false
	}
	if !slices.ContainsFunc(p.ReadOnly, func(r string) bool { return within(path, r) }) {
		return true
	}
	return slices.ContainsFunc(p.openContent(), func(c string) bool { return within(path, c) })
}

// openContent returns the content folders a command may write in, as things stand: each
// must be a real folder, not a symbolic link, whose path has no symbolic link in it
// either (so it is where it says, inside its read-only parent); it must lie strictly
// inside a read-only path and inside a write root, and hold no other read-only path.
func (p Policy) openContent() []string {
	var out []string
	for _, c := range p.Content {
		c = filepath.Clean(c)
		if !filepath.IsAbs(c) || !slices.ContainsFunc(p.WriteRoots, func(w string) bool { return within(c, w) }) ||
			!slices.ContainsFunc(p.ReadOnly, func(r string) bool { return c != r && within(c, r) }) ||
			slices.ContainsFunc(p.ReadOnly, func(r string) bool { return within(r, c) }) {
			continue
		}
		fi, err := os.Lstat(c)
		if err != nil || !fi.IsDir() {
			continue // missing, a file, or a symbolic link
		}
		if real, err := filepath.EvalSymlinks(c); err != nil || real != c {
			continue // reached through a symbolic link above it
		}
		out = appendNew(out, c)
	}
	return out
}

// missingContent reports the content folder that path is or lies in when that folder
// cannot be written because it does not exist as a real folder; "" otherwise.
func (p Policy) missingContent(path string) string {
	open := p.openContent()
	for _, c := range p.Content {
		if within(path, c) && !slices.Contains(open, c) {
			return c
		}
	}
	return ""
}

// guardedName reports a read-only path that must not be created where it is missing: a
// folder ouro, Claude Code or git would read later (see writeRules).
func guardedName(p string) bool {
	switch filepath.Base(p) {
	case ".claude", ".ouro", ".git":
		return true
	}
	return false
}

// noNewFolders lists the folders a sandboxed command cannot make folders or symbolic
// links in, as things stand: the parents of the missing guarded paths, and the folders
// above them inside a write root (see writeRules).
func (p Policy) noNewFolders() []string {
	var out []string
	for _, r := range p.ReadOnly {
		if _, err := os.Lstat(r); err == nil || !guardedName(r) {
			continue
		}
		for d := filepath.Dir(r); slices.ContainsFunc(p.WriteRoots, func(w string) bool { return within(d, w) }); d = filepath.Dir(d) {
			out = appendNew(out, d)
			if slices.Contains(p.WriteRoots, d) {
				break
			}
		}
	}
	return out
}

// proxyEnv are the variables that point a command at the proxy: the upper- and
// lower-case forms HTTP clients read (curl, pip, npm, go, git, wget). NO_PROXY is set so
// that an inherited value cannot send a host around the proxy, where the sandbox would
// refuse the connection; loopback stays direct (Go never proxies it anyway), which
// sandbox.network.allowPorts governs.
func proxyEnv(p Policy) map[string]string {
	if p.ProxyPort == 0 {
		return nil
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", p.ProxyPort)
	env := map[string]string{}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"} {
		v := url
		if k == "NO_PROXY" {
			v = "localhost,127.0.0.1,::1"
		}
		env[k], env[strings.ToLower(k)] = v, v
	}
	return env
}

// NetworkRestricted reports whether the policy limits TCP connections: to AllowPorts,
// and to the proxy when there is one.
func (p Policy) NetworkRestricted() bool { return p.Network.Restricted() }

// settingsPath resolves an allowWrite/denyWrite entry; "" when it cannot be placed.
func settingsPath(p, home, project string) string {
	switch {
	case p == "":
		return ""
	case strings.HasPrefix(p, "//"):
		return filepath.Clean(p[1:])
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, p[1:])
	case project == "":
		return ""
	default:
		return filepath.Join(project, p) // "/x" and "x" both lie under the project root
	}
}

// within reports whether p is base or lies inside it.
func within(p, base string) bool {
	if p == base || base == "/" {
		return true
	}
	return strings.HasPrefix(p, base+string(filepath.Separator))
}

// outermost removes duplicates and paths that lie inside another path of the list,
// keeping the order of first appearance.
func outermost(ps []string) []string {
	var out []string
	for i, p := range ps {
		inner := false
		for j, q := range ps {
			if i != j && within(p, q) && (p != q || j < i) {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, p)
		}
	}
	return out
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// realPath resolves the symbolic links of the longest existing prefix of the absolute
// path p, so that paths compare the way the kernel sees them (pwd -P, /proc/self/cwd).
func realPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); filepath.IsAbs(v) {
		return v
	}
	return def
}

func joinIf(base string, elem ...string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base}, elem...)...)
}

// goPath is the first $GOPATH entry, or ~/go.
func goPath(home string) string {
	if gp := os.Getenv("GOPATH"); gp != "" {
		if first := filepath.SplitList(gp)[0]; filepath.IsAbs(first) {
			return first
		}
	}
	return joinIf(home, "go")
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// sandboxCaches is the folder of the caches sandboxed commands in the workspace project
// use, under the user's cache folder, which they cannot write: only sandboxed commands of
// this workspace read what is there. "" when there is no cache folder or project.
func sandboxCaches(cacheHome, project string) string {
	if cacheHome == "" || project == "" || !filepath.IsAbs(cacheHome) {
		return ""
	}
	sum := sha256.Sum256([]byte(realPath(project)))
	return filepath.Join(realPath(cacheHome), "ouro-sandbox", fmt.Sprintf("%s-%x", filepath.Base(project), sum[:6]))
}

// MakeCaches creates the caches that do not exist yet (see Caches), empty, as the tools
// would; one that cannot be made is left out: the command then cannot write there.
func (p Policy) MakeCaches() {
	p.Objects.makePrivate()
	for _, c := range p.Caches {
		if _, err := os.Lstat(c); errors.Is(err, fs.ErrNotExist) {
			_ = os.MkdirAll(c, 0o755)
		}
	}
}
