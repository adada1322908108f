package sandbox

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// These tests run on every system: the profile is text. What they cannot show is that
// macOS enforces it as read here; seatbelt_darwin_test.go runs sandbox-exec on a Mac.

var updateGolden = flag.Bool("update-seatbelt", false, "rewrite testdata/seatbelt/*.sb from the generator")

func boolp(b bool) *bool { return &b }

// macPolicy is what FromSettings gives for a project at /Users/me/proj on a Mac.
func macPolicy() Policy {
	p := "/Users/me/proj"
	return Policy{
		WriteRoots: []string{p, "/private/var/folders/xy/abc/T/ouro-1", "/Users/me/Library/Caches/go-build", "/Users/me/go/pkg/mod", "/Users/me/.cache", "/Users/me/.npm"},
		ReadOnly:   []string{p + "/.git/config", p + "/.git/hooks", p + "/.git/info", p + "/.ouro", p + "/.claude", p + "/.mcp.json"},
		Content:    []string{p + "/.claude/skills", p + "/.ouro/agents"},
		Caches:     []string{"/Users/me/Library/Caches/go-build", "/Users/me/go/pkg/mod", "/Users/me/.cache", "/Users/me/.npm"},
		TempDir:    "/private/var/folders/xy/abc/T/ouro-1",
	}
}

func seatbeltShapes() map[string]Policy {
	shapes := map[string]Policy{}
	shapes["default"] = macPolicy()

	extra := macPolicy()
	// allowWrite ~/.kube and //tmp/build (given as /tmp: the kernel says /private/tmp),
	// denyWrite of the project's dist/ folder.
	extra.WriteRoots = append(extra.WriteRoots, "/Users/me/.kube", "/tmp/build")
	extra.ReadOnly = append(extra.ReadOnly, "/Users/me/proj/dist")
	shapes["extra-roots"] = extra

	confined := macPolicy()
	confined.Network = settings.SandboxNetwork{Allow: boolp(false), AllowPorts: []int{443, 22, 443}}
	shapes["network-confined"] = confined

	proxied := macPolicy()
	proxied.Network = settings.SandboxNetwork{DomainsSet: true, AllowedDomains: []string{"github.com"}}
	proxied.ProxyPort = 54321
	shapes["network-proxy"] = proxied

	nothing := macPolicy()
	nothing.Network = settings.SandboxNetwork{Allow: boolp(false)}
	shapes["network-none"] = nothing

	open := macPolicy()
	open.Network = settings.SandboxNetwork{Allow: boolp(true)}
	shapes["network-open"] = open

	secrets := macPolicy()
	secrets.DenyRead = []string{"/Users/me/.ssh", "/Users/me/.aws/credentials", "/Users/me/**.kdbx", "/Users/me/proj/**/.env", "/tmp/secret-*.json"}
	shapes["deny-read"] = secrets

	// A linked worktree of /Users/me/proj at /Users/me/proj-wt (WithGitDir and
	// WithWorktreeObjects): the shared git dir is writable but for its metadata, the
	// shared refs and the objects, with ouro's own branches as content.
	wt := macPolicy()
	g := "/Users/me/proj/.git"
	wt.WriteRoots = []string{"/Users/me/proj-wt", "/private/var/folders/xy/abc/T/ouro-1", g}
	wt.ReadOnly = []string{"/Users/me/proj-wt/.git", "/Users/me/proj-wt/.ouro", "/Users/me/proj-wt/.claude", "/Users/me/proj-wt/.mcp.json",
		g + "/config", g + "/hooks", g + "/HEAD", g + "/index", g + "/packed-refs", g + "/refs", g + "/logs", g + "/info", g + "/objects"}
	wt.Content = []string{g + "/refs/heads/ouro", g + "/logs/refs/heads/ouro"}
	wt.Objects = &WorktreeObjects{GitDir: g, Shared: g + "/objects", Private: g + "/worktrees/proj-wt/ouro-objects"}
	shapes["worktree"] = wt

	odd := macPolicy()
	odd.WriteRoots[0] = `/Users/me/we"ird\dir/café ☕`
	odd.ReadOnly = []string{`/Users/me/we"ird\dir/café ☕/.git/hooks`}
	odd.Content = nil
	shapes["escaping"] = odd
	return shapes
}

// TestSeatbeltGolden compares the profile of each policy shape with its golden file;
// -update-seatbelt rewrites them. Each golden must also read back as balanced SBPL.
func TestSeatbeltGolden(t *testing.T) {
	for name, pol := range seatbeltShapes() {
		t.Run(name, func(t *testing.T) {
			got, err := SeatbeltProfile(pol)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := parseSBPL(got); err != nil {
				t.Fatalf("profile does not parse: %v\n%s", err, got)
			}
			file := filepath.Join("testdata", "seatbelt", name+".sb")
			if *updateGolden {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -run TestSeatbeltGolden ./sandbox/ -update-seatbelt to create it)", err)
			}
			if got != string(want) {
				t.Errorf("profile for %s differs from %s:\n%s", name, file, got)
			}
		})
	}
}

// TestSeatbeltEnforces evaluates each profile as Seatbelt would for single operations:
// the deny rules' filters, read with a small SBPL reader (below), against a path or an
// address. It checks the policy, not Apple's implementation.
func TestSeatbeltEnforces(t *testing.T) {
	shapes := seatbeltShapes()
	type check struct {
		shape, op, target string
		denied            bool
	}
	checks := []check{
		{"default", "file-write-create", "/Users/me/proj/main.go", false},
		{"default", "file-write-create", "/Users/me/proj/sub/dir/x", false},
		{"default", "file-write-data", "/Users/me/proj/.git/hooks/pre-commit", true},
		{"default", "file-write-create", "/Users/me/proj/.git/hooks", true},
		{"default", "file-write-data", "/Users/me/proj/.git/config", true},
		{"default", "file-write-data", "/Users/me/proj/.git/index", false},
		{"default", "file-write-create", "/Users/me/proj/.git/objects/ab/cdef", false},
		{"default", "file-write-data", "/Users/me/proj/.mcp.json", true},
		{"default", "file-write-create", "/Users/me/proj/.mcp.json.bak", false},
		{"default", "file-write-create", "/Users/me/proj/.claude", true},
		{"default", "file-write-data", "/Users/me/proj/.claude/settings.json", true},
		{"default", "file-write-create", "/Users/me/proj/.claude/skills/x/SKILL.md", false},
		{"default", "file-write-create", "/Users/me/proj/.ouro/agents/a.md", false},
		{"default", "file-write-create", "/Users/me/proj/.ouro/skills/x", true},
		{"default", "file-write-data", "/Users/me/proj.other/x", true}, // a sibling sharing the prefix
		{"default", "file-write-create", "/private/tmp/x", true},
		{"default", "file-write-create", "/private/var/folders/xy/abc/T/ouro-1/x", false},
		{"default", "file-write-create", "/Users/me/.bashrc", true},
		{"default", "file-write-data", "/dev/null", false},
		{"default", "file-write-data", "/dev/ttys003", false},
		{"default", "file-write-data", "/dev/ttys003x", true},
		{"default", "file-write-data", "/dev/fd/1", false},
		{"default", "file-write-data", "/dev/disk0", true},
		{"default", "file-read-data", "/Users/me/.ssh/id_ed25519", false},
		{"default", "network-outbound", "tcp 140.82.112.3:443", false},
		{"default", "network-bind", "tcp *:8080", false},
		{"extra-roots", "file-write-create", "/Users/me/.kube/config", false},
		{"extra-roots", "file-write-create", "/private/tmp/build/out.o", false},
		{"extra-roots", "file-write-create", "/Users/me/proj/dist/app.js", true},
		{"network-confined", "network-outbound", "tcp 140.82.112.3:443", false},
		{"network-confined", "network-outbound", "tcp 140.82.112.3:22", false},
		{"network-confined", "network-outbound", "tcp 140.82.112.3:80", true},
		{"network-confined", "network-outbound", "udp 8.8.8.8:53", false},
		{"network-confined", "network-outbound", "unix /private/var/run/mDNSResponder", false},
		{"network-confined", "network-outbound", "unix /private/var/run/docker.sock", true},
		{"network-confined", "network-outbound", "unix /Users/me/proj/.sock", false},
		{"network-confined", "network-outbound", "unix /Users/me/.cache/some-daemon/sock", true},
		{"network-confined", "network-outbound", "unix /private/var/folders/xy/abc/T/ouro-1/s", false},
		{"network-confined", "network-bind", "tcp *:443", false},
		{"network-confined", "network-bind", "tcp *:8080", true},
		{"network-confined", "network-bind", "unix /Users/me/proj/.sock", false},
		{"network-proxy", "network-outbound", "tcp localhost:54321", false},
		{"network-proxy", "network-outbound", "tcp 140.82.112.3:54321", true},
		{"network-proxy", "network-outbound", "tcp 140.82.112.3:443", true},
		{"network-proxy", "network-outbound", "tcp localhost:5432", true},
		{"network-proxy", "network-outbound", "udp 8.8.8.8:53", true},
		{"network-proxy", "network-outbound", "unix /private/var/run/mDNSResponder", true},
		{"network-proxy", "network-bind", "tcp *:8080", true},
		{"network-none", "network-outbound", "tcp localhost:54321", true},
		{"network-none", "network-outbound", "unix /Users/me/proj/.sock", false},
		{"network-open", "network-outbound", "tcp 140.82.112.3:80", false},
		{"network-open", "network-bind", "tcp *:8080", false},
		{"deny-read", "file-read-data", "/Users/me/.ssh", true},
		{"deny-read", "file-read-data", "/Users/me/.ssh/id_ed25519", true},
		{"deny-read", "file-read-metadata", "/Users/me/.ssh/id_ed25519", false},
		{"deny-read", "file-read-data", "/Users/me/.sshx", false},
		{"deny-read", "file-read-data", "/Users/me/.aws/credentials", true},
		{"deny-read", "file-read-data", "/Users/me/.aws/config", false},
		{"deny-read", "file-read-data", "/Users/me/vault/pass.kdbx", true},
		{"deny-read", "file-read-data", "/Users/me/pass.kdbx", true},
		{"deny-read", "file-read-data", "/Users/me/pass.kdbx2", false},
		{"deny-read", "file-read-data", "/Users/me/proj/.env", true},
		{"deny-read", "file-read-data", "/Users/me/proj/api/.env", true},
		{"deny-read", "file-read-data", "/Users/me/proj/api/.envrc", false},
		{"deny-read", "file-read-data", "/Users/me/proj/x.env", false},
		{"deny-read", "file-read-data", "/private/tmp/secret-a.json", true},
		{"deny-read", "file-read-data", "/private/tmp/secret-a.jsonl", false},
		{"deny-read", "file-read-data", "/private/tmp/x/secret-a.json", false},
		{"deny-read", "file-write-unlink", "/Users/me/proj/.env", true}, // mv .env elsewhere
		{"deny-read", "file-read-data", "/Users/me/proj/main.go", false},
		{"worktree", "file-write-create", "/Users/me/proj-wt/x.go", false},
		{"worktree", "file-write-create", "/Users/me/proj-wt/.git", true},
		{"worktree", "file-write-create", "/Users/me/proj/.git/worktrees/proj-wt/index", false},
		{"worktree", "file-write-create", "/Users/me/proj/.git/worktrees/proj-wt/ouro-objects/ab/cd", false},
		{"worktree", "file-write-create", "/Users/me/proj/.git/objects/ab/cd", true},
		{"worktree", "file-write-data", "/Users/me/proj/.git/refs/heads/main", true},
		{"worktree", "file-write-data", "/Users/me/proj/.git/refs/heads/ouro/task-1", false},
		{"worktree", "file-write-data", "/Users/me/proj/.git/logs/refs/heads/ouro/task-1", false},
		{"worktree", "file-write-data", "/Users/me/proj/.git/HEAD", true},
		{"worktree", "file-write-data", "/Users/me/proj/main.go", true},
		{"escaping", "file-write-create", `/Users/me/we"ird\dir/café ☕/x`, false},
		{"escaping", "file-write-create", `/Users/me/we"ird\dir/café ☕/.git/hooks/post-checkout`, true},
		{"escaping", "file-write-create", `/Users/me/we"ird\dir/cafe ☕/x`, true},
	}
	profiles := map[string][]sbRule{}
	for name, pol := range shapes {
		text, err := SeatbeltProfile(pol)
		if err != nil {
			t.Fatal(err)
		}
		rules, err := parseSBPL(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		profiles[name] = rules
	}
	for _, c := range checks {
		rules, ok := profiles[c.shape]
		if !ok {
			t.Fatalf("no shape %s", c.shape)
		}
		if got := sbDenies(t, rules, c.op, c.target); got != c.denied {
			t.Errorf("%s: %s %s: denied = %v, want %v", c.shape, c.op, c.target, got, c.denied)
		}
	}
}

func TestSeatbeltPath(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp":                       "/private/tmp",
		"/tmp/x/../y":                "/private/tmp/y",
		"/var/folders/xy/T/ouro":     "/private/var/folders/xy/T/ouro",
		"/etc/hosts":                 "/private/etc/hosts",
		"/private/tmp/x":             "/private/tmp/x",
		"/tmpx/y":                    "/tmpx/y",
		"/Users/me/proj/":            "/Users/me/proj",
		"/Users/me/ça/日本":            "/Users/me/ça/日本",
		`/Users/me/a"b\c`:            `/Users/me/a"b\c`,
		"/Volumes/Data/var/tmp/keep": "/Volumes/Data/var/tmp/keep",
	} {
		got, err := seatbeltPath(in)
		if err != nil || got != want {
			t.Errorf("seatbeltPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"relative/x", "", "/Users/me/new\nline", "/Users/me/tab\tx", "/Users/me/\xff"} {
		if got, err := seatbeltPath(bad); err == nil {
			t.Errorf("seatbeltPath(%q) = %q, want an error", bad, got)
		}
	}
	// A policy holding such a path gets no profile at all: a rule left out could widen it.
	p := macPolicy()
	p.ReadOnly = append(p.ReadOnly, "/Users/me/proj/.git/hooks\n")
	if _, err := SeatbeltProfile(p); err == nil {
		t.Error("a read-only path with a newline gave a profile")
	}
}

// TestSeatbeltStringLiteral reads each escaped literal back as the SBPL reader does.
func TestSeatbeltStringLiteral(t *testing.T) {
	for _, s := range []string{`/a/b`, `/a "quoted" b`, `/back\slash\`, `/ünïcödé/文件/🙂`, `/\"`, `/""`} {
		lit := sbString(s)
		toks, err := sbTokens(lit)
		if err != nil || len(toks) != 1 || toks[0].kind != tokString || toks[0].text != s {
			t.Errorf("sbString(%q) = %s reads back as %+v, %v", s, lit, toks, err)
		}
	}
}

func TestSeatbeltGlob(t *testing.T) {
	for _, bad := range []string{`/Users/me/"*`, `/Users/me/a\b/*`, `/Users/me/^*`, `/Users/me/[ab`, "relative/*", "*.pem"} {
		if f, err := denyReadFilter(bad); err == nil {
			t.Errorf("denyReadFilter(%q) = %q, want an error", bad, f)
		}
	}
	p := macPolicy()
	p.DenyRead = []string{`/Users/me/"x"/*.pem`}
	if _, err := SeatbeltProfile(p); err == nil || !strings.Contains(err.Error(), "denyRead") {
		t.Errorf("a pattern that cannot be written gave %v, want an error naming denyRead", err)
	}
	// Metacharacters in the literal part match themselves only.
	f, err := denyReadFilter("/Users/me/a.b+c(d)/k[1]/*.key")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(strings.TrimSuffix(strings.TrimPrefix(f[0], `(regex #"`), `")`))
	for path, want := range map[string]bool{
		"/Users/me/a.b+c(d)/k1/x.key":   true,
		"/Users/me/aXb+c(d)/k1/x.key":   false,
		"/Users/me/a.bbc(d)/k1/x.key":   false,
		"/Users/me/a.b+c(d)/k1/y/x.key": false,
		"/Users/me/a.b+c(d)/k1/.key":    true,
	} {
		if re.MatchString(path) != want {
			t.Errorf("%s against %s: %v, want %v", f[0], path, !want, want)
		}
	}
}

func TestSeatbeltArgsAndEnv(t *testing.T) {
	p := seatbeltShapes()["worktree"]
	p.ProxyPort = 4000
	env := seatbeltEnv(p)
	for _, want := range []string{"TMPDIR=/private/var/folders/xy/abc/T/ouro-1", "HTTPS_PROXY=http://127.0.0.1:4000", "no_proxy=localhost,127.0.0.1,::1",
		"GIT_OBJECT_DIRECTORY=/Users/me/proj/.git/worktrees/proj-wt/ouro-objects", "GIT_ALTERNATE_OBJECT_DIRECTORIES=/Users/me/proj/.git/objects"} {
		if !slices.Contains(env, want) {
			t.Errorf("env %q lacks %s", env, want)
		}
	}
	if !slices.IsSorted(env) {
		t.Errorf("env not sorted: %q", env)
	}
	args, err := seatbeltArgs("(version 1)", env, "/bin/bash", "-c", "echo $TMPDIR", "x=y")
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{"-p", "(version 1)", "/usr/bin/env"}, env...), "/bin/bash", "-c", "echo $TMPDIR", "x=y")
	if !slices.Equal(args, want) {
		t.Errorf("args = %q, want %q", args, want)
	}
	if args, _ := seatbeltArgs("P", nil, "/bin/sh", "-c", "true"); !slices.Equal(args, []string{"-p", "P", "/bin/sh", "-c", "true"}) {
		t.Errorf("args without env = %q", args)
	}
	for _, bad := range []string{"bash", "/opt/a=b/sh"} {
		if _, err := seatbeltArgs("P", env, bad); err == nil {
			t.Errorf("seatbeltArgs accepted %q", bad)
		}
	}
}

// TestSeatbeltFromSettings builds the policy from settings on this machine's file system
// and checks that every read-only path FromSettings finds is refused by its profile, and
// the workspace is not.
func TestSeatbeltFromSettings(t *testing.T) {
	ws := realDirSB(t)
	home := realDirSB(t)
	for _, d := range []string{".git/hooks", ".claude/skills", "src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sb := settings.Sandbox{Filesystem: settings.SandboxFilesystem{DenyWrite: []string{"dist"}, DenyRead: []string{"~/.ssh", "/.env"}}}
	pol := FromSettings(sb, []string{ws}, home, "")
	pol.Content = pol.openContent()
	text, err := SeatbeltProfile(pol)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := parseSBPL(text)
	if err != nil {
		t.Fatal(err)
	}
	canon := func(p string) string { c, _ := seatbeltPath(p); return c }
	for _, ro := range pol.ReadOnly {
		if !sbDenies(t, rules, "file-write-create", canon(filepath.Join(ro, "x"))) {
			t.Errorf("writing under read-only %s is not refused", ro)
		}
	}
	for _, ok := range []string{filepath.Join(ws, "src", "a.go"), filepath.Join(ws, ".claude", "skills", "s", "SKILL.md")} {
		if sbDenies(t, rules, "file-write-create", canon(ok)) {
			t.Errorf("writing %s is refused", ok)
		}
	}
	for _, secret := range []string{filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(ws, ".env")} {
		if !sbDenies(t, rules, "file-read-data", canon(secret)) {
			t.Errorf("reading %s is not refused (denyRead %q)", secret, pol.DenyRead)
		}
	}
}

func realDirSB(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// --- a reader and evaluator for the SBPL the generator writes ---

type tokKind int

const (
	tokOpen tokKind = iota
	tokClose
	tokString
	tokRegex
	tokSymbol
)

type sbTok struct {
	kind tokKind
	text string
}

// sbTokens splits SBPL into tokens: parentheses, "strings" with \" and \\ escapes,
// #"regexes" (up to the next quote), symbols; ; starts a comment.
func sbTokens(s string) ([]sbTok, error) {
	var out []sbTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ';':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == '(':
			out = append(out, sbTok{kind: tokOpen})
			i++
		case c == ')':
			out = append(out, sbTok{kind: tokClose})
			i++
		case c == '"':
			var b strings.Builder
			i++
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated string")
				}
				if s[i] == '\\' {
					if i+1 >= len(s) || (s[i+1] != '"' && s[i+1] != '\\') {
						return nil, fmt.Errorf("unknown escape at %d", i)
					}
					b.WriteByte(s[i+1])
					i += 2
					continue
				}
				if s[i] == '"' {
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			out = append(out, sbTok{kind: tokString, text: b.String()})
		case strings.HasPrefix(s[i:], `#"`):
			end := strings.IndexByte(s[i+2:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unterminated regex")
			}
			out = append(out, sbTok{kind: tokRegex, text: s[i+2 : i+2+end]})
			i += end + 3
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \n\t()\";", rune(s[j])) {
				j++
			}
			out = append(out, sbTok{kind: tokSymbol, text: s[i:j]})
			i = j
		}
	}
	return out, nil
}

// sbNode is a list (kids) or an atom.
type sbNode struct {
	atom sbTok
	list bool
	kids []sbNode
}

type sbRule struct {
	action string
	ops    []string
	filter *sbNode // nil: every operation of ops
}

func parseSBPL(s string) ([]sbRule, error) {
	toks, err := sbTokens(s)
	if err != nil {
		return nil, err
	}
	var parse func(i int) (sbNode, int, error)
	parse = func(i int) (sbNode, int, error) {
		if i >= len(toks) {
			return sbNode{}, i, fmt.Errorf("unexpected end")
		}
		switch toks[i].kind {
		case tokClose:
			return sbNode{}, i, fmt.Errorf("unbalanced )")
		case tokOpen:
			n := sbNode{list: true}
			i++
			for {
				if i >= len(toks) {
					return sbNode{}, i, fmt.Errorf("unbalanced (")
				}
				if toks[i].kind == tokClose {
					return n, i + 1, nil
				}
				k, j, err := parse(i)
				if err != nil {
					return sbNode{}, j, err
				}
				n.kids = append(n.kids, k)
				i = j
			}
		}
		return sbNode{atom: toks[i]}, i + 1, nil
	}
	var rules []sbRule
	for i := 0; i < len(toks); {
		n, j, err := parse(i)
		if err != nil {
			return nil, err
		}
		i = j
		if !n.list || len(n.kids) == 0 {
			return nil, fmt.Errorf("top-level atom")
		}
		head := n.kids[0].atom.text
		if head == "version" {
			continue
		}
		if head != "allow" && head != "deny" {
			return nil, fmt.Errorf("unknown form %s", head)
		}
		r := sbRule{action: head}
		for k := 1; k < len(n.kids); k++ {
			kid := n.kids[k]
			if kid.list {
				if r.filter != nil {
					return nil, fmt.Errorf("two filters in one rule")
				}
				r.filter = &n.kids[k]
				continue
			}
			r.ops = append(r.ops, kid.atom.text)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// sbDenies reports whether a deny rule covers op on target: a path for file operations,
// "tcp HOST:PORT", "udp HOST:PORT" or "unix PATH" for network ones. The profiles ouro
// writes allow by default and have no allow rule after it, so any matching deny decides.
func sbDenies(t *testing.T, rules []sbRule, op, target string) bool {
	t.Helper()
	if len(rules) == 0 || rules[0].action != "allow" || !slices.Equal(rules[0].ops, []string{"default"}) {
		t.Fatalf("profile does not start with (allow default)")
	}
	for _, r := range rules[1:] {
		if r.action != "deny" {
			t.Fatalf("an allow rule after (allow default): %v", r.ops)
		}
		covered := false
		for _, o := range r.ops {
			if o == op || (strings.HasSuffix(o, "*") && strings.HasPrefix(op, strings.TrimSuffix(o, "*"))) {
				covered = true
			}
		}
		if covered && (r.filter == nil || sbMatch(t, *r.filter, target)) {
			return true
		}
	}
	return false
}

func sbMatch(t *testing.T, n sbNode, target string) bool {
	t.Helper()
	if !n.list || len(n.kids) == 0 {
		t.Fatalf("filter %+v is not a list", n)
	}
	head := n.kids[0].atom.text
	args := n.kids[1:]
	arg := func() sbTok {
		if len(args) != 1 || args[0].list {
			t.Fatalf("(%s) takes one atom", head)
		}
		return args[0].atom
	}
	kind, value, _ := strings.Cut(target, " ")
	switch head {
	case "require-any":
		return slices.ContainsFunc(args, func(k sbNode) bool { return sbMatch(t, k, target) })
	case "require-all":
		return !slices.ContainsFunc(args, func(k sbNode) bool { return !sbMatch(t, k, target) })
	case "require-not":
		if len(args) != 1 {
			t.Fatal("require-not takes one filter")
		}
		return !sbMatch(t, args[0], target)
	case "literal":
		return arg().text == target
	case "subpath":
		p := arg().text
		return target == p || strings.HasPrefix(target, p+"/")
	case "regex":
		a := arg()
		if a.kind != tokRegex {
			t.Fatalf("regex given a %v", a.kind)
		}
		return regexp.MustCompile(a.text).MatchString(target)
	case "remote", "local":
		if len(args) != 2 {
			t.Fatalf("(%s) takes a kind and an address", head)
		}
		switch args[0].atom.text {
		case "ip":
			if kind != "tcp" && kind != "udp" {
				return false
			}
			host, port, _ := strings.Cut(args[1].atom.text, ":")
			th, tp, _ := strings.Cut(value, ":")
			if host == "localhost" && th != "localhost" && th != "127.0.0.1" && th != "::1" {
				return false
			}
			if host != "localhost" && host != "*" {
				t.Fatalf("Seatbelt takes only * or localhost as host, got %q", host)
			}
			if _, err := strconv.Atoi(tp); err != nil && tp != "*" {
				t.Fatalf("bad target %q", target)
			}
			return port == "*" || port == tp
		case "unix-socket":
			return kind == "unix" && sbMatch(t, args[1], value)
		}
	}
	t.Fatalf("unknown filter %s", head)
	return false
}

// On macOS Go's build cache and most tools' caches live in ~/Library/Caches, not
// ~/.cache: FromSettings grants it there, as it grants ~/.cache on Linux.
func TestSystemCacheDir(t *testing.T) {
	if got := systemCacheDir("darwin", "/Users/me"); got != "/Users/me/Library/Caches" {
		t.Errorf("darwin: %q", got)
	}
	for _, goos := range []string{"linux", "windows"} {
		if got := systemCacheDir(goos, "/home/me"); got != "" {
			t.Errorf("%s: %q", goos, got)
		}
	}
	if got := systemCacheDir("darwin", ""); got != "" {
		t.Errorf("no home: %q", got)
	}
	t.Setenv("GOCACHE", "")
	t.Setenv("XDG_CACHE_HOME", "")
	home := realDirSB(t)
	pol := FromSettings(settings.Sandbox{}, []string{realDirSB(t)}, home, "")
	want := filepath.Join(home, ".cache", "go-build")
	if runtime.GOOS == "darwin" {
		want = filepath.Join(home, "Library", "Caches", "go-build")
	}
	if !slices.ContainsFunc(pol.WriteRoots, func(w string) bool { return within(want, w) }) || !pol.Writable(want) {
		t.Errorf("Go's default build cache %s is not writable: roots %q", want, pol.WriteRoots)
	}
}
