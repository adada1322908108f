package market

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/plugin"
)

// realMarket is Anthropic's public marketplace.json and its fakechat plugin (SOURCES there).
var realMarket = filepath.Join("..", "..", "cmd", "ouro", "testdata", "plugins", "claude-plugins-official")

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := copyPlugin(src, dst); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitRepo makes a git repository of the files under src (plus extra) and returns it
// with its commit.
func gitRepo(t *testing.T, src string, extra map[string]string) (string, string) {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "market")
	if src != "" {
		copyDir(t, src, repo)
	}
	for p, c := range extra {
		write(t, filepath.Join(repo, p), c)
	}
	run(t, repo, "init", "-q")
	run(t, repo, "add", "-A")
	run(t, repo, "commit", "-q", "-m", "market")
	return repo, run(t, repo, "rev-parse", "HEAD")
}

// The real marketplace in a git repository: added by cloning, its fakechat plugin
// installed into the store, pinned to the commit it came from; a later commit to the
// marketplace changes nothing installed.
func TestInstallFromAGitMarketplace(t *testing.T) {
	repo, commit := gitRepo(t, realMarket, nil)
	s := Store{Home: t.TempDir()}
	name, err := s.AddMarket(Source{Source: KindGit, URL: "file://" + repo}, Policy{})
	if err != nil || name != "claude-plugins-official" {
		t.Fatalf("add: %q %v", name, err)
	}
	known, _ := s.Markets()
	if k := known[name]; k.Commit != commit || !within(s.Dir(), k.InstallLocation) {
		t.Fatalf("known %+v", k)
	}
	rec, err := s.Install("fakechat@claude-plugins-official", Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.GitCommitSha != commit || rec.Version == "" || !strings.Contains(rec.InstallPath, commit[:12]) {
		t.Fatalf("record %+v (commit %s)", rec, commit)
	}
	mcp, err := os.ReadFile(filepath.Join(rec.InstallPath, ".mcp.json"))
	if err != nil || !strings.Contains(string(mcp), "${CLAUDE_PLUGIN_ROOT}") {
		t.Fatalf("installed copy: %s %v", mcp, err)
	}
	if _, err := os.Stat(filepath.Join(rec.InstallPath, ".git")); err == nil {
		t.Fatal(".git copied")
	}
	write(t, filepath.Join(repo, "external_plugins", "fakechat", ".mcp.json"), `{"mcpServers": {}}`)
	run(t, repo, "commit", "-q", "-am", "later")
	if again, _ := os.ReadFile(filepath.Join(rec.InstallPath, ".mcp.json")); string(again) != string(mcp) {
		t.Fatal("the installed plugin followed the marketplace")
	}
	inst, _ := s.Installed()
	if inst["fakechat@claude-plugins-official"].GitCommitSha != commit {
		t.Fatalf("installed %+v", inst)
	}
	dirs, warns := s.Enabled(map[string]bool{"fakechat@claude-plugins-official": true, "other@x": true, "off@claude-plugins-official": false, "cc@x": true},
		map[string]string{"other@x": "s.json", "cc@x": "claude.json"}, Policy{}, func(f string) bool { return f == "claude.json" })
	if len(dirs) != 1 || dirs[0].Dir != rec.InstallPath || dirs[0].ID != "fakechat@claude-plugins-official" || len(warns) != 1 || warns[0] != "s.json enables plugins not installed in ouro: other@x (install one with `ouro plugin install NAME@MARKET`)" {
		t.Fatalf("enabled %v %v", dirs, warns)
	}
	if err := s.Uninstall("fakechat@claude-plugins-official"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rec.InstallPath); err == nil {
		t.Fatal("uninstall left the copy")
	}
	if err := s.RemoveMarket(name); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(known[name].InstallLocation); err == nil {
		t.Fatal("remove left the clone")
	}
}

// A github source is a git clone of GITHUB/OWNER/REPO.git, checked out at its sha.
func TestGitHubPluginSourcePinnedToSHA(t *testing.T) {
	gh := t.TempDir()
	plug, first := gitRepo(t, filepath.Join(realMarket, "external_plugins", "fakechat"), nil)
	write(t, filepath.Join(plug, "NEW"), "x")
	run(t, plug, "add", "-A")
	run(t, plug, "commit", "-q", "-m", "second")
	if err := os.MkdirAll(filepath.Join(gh, "anthropics"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, gh, "clone", "-q", "--bare", plug, filepath.Join(gh, "anthropics", "fakechat.git"))
	defer func(old string) { GitHubBase = old }(GitHubBase)
	GitHubBase = "file://" + gh + "/"
	mk := t.TempDir()
	write(t, filepath.Join(mk, ManifestPath), `{"name": "gh", "owner": {"name": "o"}, "plugins": [
		{"name": "fakechat", "source": {"source": "github", "repo": "anthropics/fakechat", "sha": "`+first+`"}}]}`)
	s := Store{Home: t.TempDir()}
	if _, err := s.AddMarket(Source{Source: KindDirectory, Path: mk}, Policy{}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Install("fakechat@gh", Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.GitCommitSha != first {
		t.Fatalf("commit %s, want %s", rec.GitCommitSha, first)
	}
	if _, err := os.Stat(filepath.Join(rec.InstallPath, "NEW")); err == nil {
		t.Fatal("not pinned to the sha")
	}
}

// Clear errors: unknown marketplace, plugin not in it, a source ouro does not fetch, a
// path leaving the marketplace, a command-running git transport, the strict list.
func TestInstallErrors(t *testing.T) {
	mk := t.TempDir()
	outside := filepath.Join(filepath.Dir(mk), "outside-plugin")
	write(t, filepath.Join(outside, ".claude-plugin", "plugin.json"), `{"name": "esc"}`)
	write(t, filepath.Join(mk, ManifestPath), `{"name": "m", "owner": {"name": "o"}, "plugins": [
		{"name": "npm-one", "source": {"source": "npm", "package": "x"}},
		{"name": "esc", "source": "../outside-plugin"},
		{"name": "ext", "source": {"source": "url", "url": "ext::sh -c touch% /tmp/pwned-ouro"}},
		{"name": "dash", "source": {"source": "url", "url": "--upload-pack=touch /tmp/pwned-ouro"}}]}`)
	s := Store{Home: t.TempDir()}
	if _, err := s.AddMarket(Source{Source: KindDirectory, Path: mk}, Policy{}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"x@nowhere":  `unknown marketplace "nowhere" (known: m)`,
		"absent@m":   `plugin "absent" is not in marketplace "m" (it lists: npm-one, esc, ext, dash)`,
		"npm-one@m":  `"npm" source, which ouro does not fetch`,
		"esc@m":      "leaves the marketplace's folder",
		"ext@m":      "remote helper",
		"dash@m":     "may not start with '-'",
		"no-at-sign": "is not NAME@MARKETPLACE",
	} {
		if _, err := s.Install(id, Policy{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", id, err, want)
		}
	}
	if _, err := os.Stat("/tmp/pwned-ouro"); err == nil {
		t.Fatal("a git transport ran a command")
	}
	strict := Policy{StrictSet: true, StrictFrom: "/etc/ouro/managed-settings.json",
		Strict: []Source{{Source: KindGitHub, Repo: "acme/plugins"}, {Source: "hostPattern", HostPattern: `^git\.acme\.example$`}}}
	if _, err := s.AddMarket(Source{Source: KindDirectory, Path: t.TempDir()}, strict); err == nil || !strings.Contains(err.Error(), "strictKnownMarketplaces") {
		t.Errorf("strict add: %v", err)
	}
	if _, err := s.Install("esc@m", strict); err == nil || !strings.Contains(err.Error(), "strictKnownMarketplaces") {
		t.Errorf("strict install from a known market: %v", err)
	}
	for src, ok := range map[Source]bool{
		{Source: KindGitHub, Repo: "acme/plugins"}:                    true,
		{Source: KindGitHub, Repo: "evil/plugins"}:                    false,
		{Source: KindGit, URL: "https://git.acme.example/p.git"}:      true,
		{Source: KindGit, URL: "git@git.acme.example:p.git"}:          true,
		{Source: KindGit, URL: "https://git.acme.example.evil/p"}:     false,
		{Source: KindDirectory, Path: "/srv/plugins"}:                 false,
		{Source: KindGit, URL: "https://github.com/acme/plugins.git"}: false,
	} {
		if got := strict.Allows(src) == nil; got != ok {
			t.Errorf("strict allows %+v: %v, want %v", src, got, ok)
		}
	}
	if (Policy{StrictSet: true}).Allows(Source{Source: KindGitHub, Repo: "a/b"}) == nil {
		t.Error("an empty strict list allows a marketplace")
	}
}

func TestParseSource(t *testing.T) {
	cwd := t.TempDir()
	for arg, want := range map[string]Source{
		"anthropics/claude-plugins-official": {Source: KindGitHub, Repo: "anthropics/claude-plugins-official"},
		"acme/p#v1":                          {Source: KindGitHub, Repo: "acme/p", Ref: "v1"},
		"https://git.example/m.git#dev":      {Source: KindGit, URL: "https://git.example/m.git", Ref: "dev"},
		"git@github.com:acme/p.git":          {Source: KindGit, URL: "git@github.com:acme/p.git"},
		"file:///srv/m":                      {Source: KindGit, URL: "file:///srv/m"},
		"./m":                                {Source: KindDirectory, Path: filepath.Join(cwd, "m")},
		"/srv/market":                        {Source: KindDirectory, Path: "/srv/market"},
	} {
		got, err := ParseSource(arg, cwd)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", arg, got, err, want)
		}
	}
	for _, bad := range []string{"", "ext::sh -c x", "-oProxyCommand=x"} {
		if _, err := ParseSource(bad, cwd); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// enabledPlugins: the more specific file wins; a file an ouro session wrote enables
// nothing until reviewed; strictKnownMarketplaces counts from managed settings only.
func TestReadSettings(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	ouroHome := filepath.Join(home, ".ouro")
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"enabledPlugins": {"a@m": true, "b@m": true, "e@m": false},
		"extraKnownMarketplaces": {"m": {"source": {"source": "git", "url": "file:///srv/m"}}}}`)
	write(t, filepath.Join(proj, ".claude", "settings.json"), `{"enabledPlugins": {"b@m": false, "c@m": ["^1.0"], "e@m": true}, "strictKnownMarketplaces": []}`)
	write(t, filepath.Join(proj, ".ouro", "settings.local.json"), `{"enabledPlugins": {"d@m": true}}`)
	managed := filepath.Join(t.TempDir(), "managed.json")
	write(t, managed, `{"strictKnownMarketplaces": [{"source": "github", "repo": "acme/p"}], "enabledPlugins": {"a@m": false}}`)
	unreviewed := filepath.Join(proj, ".ouro", "settings.local.json")
	got := Read(Files{UserHome: home, OuroHome: ouroHome, Project: proj, Managed: []string{managed},
		Unreviewed: func(p string, _ []byte) string {
			if p == unreviewed {
				return "an ouro session wrote it"
			}
			return ""
		}})
	if got.Enabled["a@m"] || got.Enabled["b@m"] || !got.Enabled["c@m"] || got.Enabled["d@m"] {
		t.Errorf("enabled %v", got.Enabled)
	}
	if got.Enabled["e@m"] {
		t.Errorf("a project file turned on a plugin the person's settings turn off")
	}
	if got.EnabledFrom["a@m"] != managed || len(got.Warnings) != 2 || !strings.Contains(strings.Join(got.Warnings, "\n"), unreviewed) ||
		!strings.Contains(got.Warnings[0], "enables plugin e@m, which your own settings") {
		t.Errorf("from %v warnings %v", got.EnabledFrom, got.Warnings)
	}
	if !got.Policy.StrictSet || len(got.Policy.Strict) != 1 || got.Policy.StrictFrom != managed || got.Policy.Extra["m"].URL != "file:///srv/m" {
		t.Errorf("policy %+v", got.Policy)
	}
	us := UserSettings(ouroHome)
	write(t, us, `{"model": "x"}`)
	on := true
	if err := SetEnabled(us, "a@m", &on); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	data, _ := os.ReadFile(us)
	_ = json.Unmarshal(data, &doc)
	if string(doc["model"]) != `"x"` || !strings.Contains(strings.ReplaceAll(string(doc["enabledPlugins"]), " ", ""), `"a@m":true`) {
		t.Errorf("settings %s", data)
	}
	if err := SetEnabled(us, "a@m", nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(us); strings.Contains(string(data), "a@m") {
		t.Errorf("not removed: %s", data)
	}
}

// Attacks on the records: a plugin name that climbs out of the store is refused before
// anything is written or removed; an installed_plugins.json pointing outside the store's
// cache (hand-edited, or by an agent) loads nothing from there.
func TestStoreStaysInItsFolder(t *testing.T) {
	mk := t.TempDir()
	write(t, filepath.Join(mk, ManifestPath), `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "../../../victim", "source": "./p"}]}`)
	write(t, filepath.Join(mk, "p", ".claude-plugin", "plugin.json"), `{"name": "p"}`)
	s := Store{Home: t.TempDir()}
	victim := filepath.Join(filepath.Dir(s.Home), "victim")
	write(t, filepath.Join(victim, "keep"), "x")
	if _, err := s.AddMarket(Source{Source: KindDirectory, Path: mk}, Policy{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install("../../../victim@m", Policy{}); err == nil || !strings.Contains(err.Error(), "may hold only") {
		t.Fatalf("install: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Fatal("a file outside the store was removed")
	}
	elsewhere := t.TempDir()
	write(t, s.installedPath(), `{"version": 2, "plugins": {"p@m": [{"scope": "user", "installPath": "`+elsewhere+`"}]}}`)
	dirs, warns := s.Enabled(map[string]bool{"p@m": true}, nil, Policy{}, nil)
	if len(dirs) != 0 || len(warns) != 1 || !strings.Contains(warns[0], "outside") {
		t.Fatalf("dirs %v warnings %v", dirs, warns)
	}
}

// OWNER/REPO#ref and URL#ref: the marketplace is cloned at that branch or tag.
func TestMarketplaceAtRef(t *testing.T) {
	repo, first := gitRepo(t, "", map[string]string{ManifestPath: `{"name": "m", "owner": {"name": "o"}, "plugins": []}`})
	run(t, repo, "tag", "v1")
	write(t, filepath.Join(repo, "later"), "x")
	run(t, repo, "add", "-A")
	run(t, repo, "commit", "-q", "-m", "later")
	src, err := ParseSource("file://"+repo+"#v1", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := Store{Home: t.TempDir()}
	if _, err := s.AddMarket(src, Policy{}); err != nil {
		t.Fatal(err)
	}
	known, _ := s.Markets()
	if known["m"].Commit != first || known["m"].Source.Ref != "v1" {
		t.Fatalf("known %+v, want commit %s", known["m"], first)
	}
	if _, err := s.AddMarket(src, Policy{}); err == nil || !strings.Contains(err.Error(), "already known") {
		t.Fatalf("added twice: %v", err)
	}
}

// A plugin without a plugin.json (Claude Code's "strict": false) takes the entry as its
// manifest: installed, it keeps the entry's name and its hooks.
func TestEntryIsTheManifestWithoutPluginJSON(t *testing.T) {
	mk := t.TempDir()
	write(t, filepath.Join(mk, ManifestPath), `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "bare-tools", "source": "./p",
		"strict": false, "version": "2.0.0", "category": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}]}`)
	write(t, filepath.Join(mk, "p", "commands", "hi.md"), "say hi")
	s := Store{Home: t.TempDir()}
	if _, err := s.AddMarket(Source{Source: KindDirectory, Path: mk}, Policy{}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Install("bare-tools@m", Policy{})
	if err != nil {
		t.Fatal(err)
	}
	ps, warns := plugin.Load([]string{rec.InstallPath})
	if len(ps) != 1 || ps[0].Name != "bare-tools" || ps[0].Version != "2.0.0" || len(ps[0].Hooks["Stop"]) != 1 || len(ps[0].CommandDirs) != 1 {
		t.Fatalf("plugins %+v warnings %v", ps, warns)
	}
}
