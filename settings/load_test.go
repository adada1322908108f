package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// tree lays out a home and a project and returns LoadOptions pointing at them.
type tree struct {
	home, ouroHome, proj string
}

func newTree(t *testing.T) tree {
	t.Helper()
	dir := t.TempDir()
	tr := tree{home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj")}
	tr.ouroHome = filepath.Join(tr.home, ".ouro")
	for _, d := range []string{tr.home, tr.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func (tr tree) opts() LoadOptions {
	return LoadOptions{UserHome: tr.home, OuroHome: tr.ouroHome, ProjectDir: tr.proj}
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func texts(rs []Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Text+" @ "+r.Source)
	}
	return out
}

func TestLoadMergesEveryLevelMostSpecificFirst(t *testing.T) {
	tr := newTree(t)
	f := map[string]string{
		"ouroUser":     write(t, filepath.Join(tr.ouroHome, "settings.json"), `{"permissions":{"allow":["A1"],"defaultMode":"plan"},"model":"user-ouro","env":{"X":"ouro-user","U":"u"}}`),
		"claudeUser":   write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"permissions":{"allow":["A0"],"deny":["D0"],"defaultMode":"dontAsk"},"model":"user-claude"}`),
		"claudeProj":   write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{"permissions":{"allow":["A2"],"ask":["Q2"]},"env":{"X":"claude-proj"}}`),
		"ouroProj":     write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), `{"permissions":{"allow":["A3"],"defaultMode":"plan"},"env":{"X":"ouro-proj"}}`),
		"claudeLocal":  write(t, filepath.Join(tr.proj, ".claude", "settings.local.json"), `{"permissions":{"allow":["A4"]},"model":"claude-local"}`),
		"ouroLocal":    write(t, filepath.Join(tr.proj, ".ouro", "settings.local.json"), `{"permissions":{"deny":["D5"]},"model":"ouro-local"}`),
		"settingsFile": write(t, filepath.Join(tr.proj, "extra.json"), `{"permissions":{"allow":["A6"]}}`),
	}
	o := tr.opts()
	o.Settings = "extra.json"
	o.AllowedTools = []string{"Bash(go test *)"}
	o.DisallowedTools = []string{"WebFetch"}
	s, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	wantAllow := []string{
		"Bash(go test *) @ --allowedTools",
		"A6 @ " + f["settingsFile"],
		"A4 @ " + f["claudeLocal"],
		"A3 @ " + f["ouroProj"],
		"A2 @ " + f["claudeProj"],
		"A1 @ " + f["ouroUser"],
		"A0 @ " + f["claudeUser"],
	}
	if got := texts(s.Permissions.Allow); !reflect.DeepEqual(got, wantAllow) {
		t.Errorf("allow:\n got %q\nwant %q", got, wantAllow)
	}
	wantDeny := []string{"WebFetch @ --disallowedTools", "D5 @ " + f["ouroLocal"], "D0 @ " + f["claudeUser"]}
	if got := texts(s.Permissions.Deny); !reflect.DeepEqual(got, wantDeny) {
		t.Errorf("deny:\n got %q\nwant %q", got, wantDeny)
	}
	if got := texts(s.Permissions.Ask); !reflect.DeepEqual(got, []string{"Q2 @ " + f["claudeProj"]}) {
		t.Errorf("ask: %q", got)
	}
	if s.Permissions.DefaultMode.Value != "plan" || s.Permissions.DefaultMode.Source != f["ouroProj"] {
		t.Errorf("defaultMode = %q from %s, want the project's plan over the user's", s.Permissions.DefaultMode.Value, s.Permissions.DefaultMode.Source)
	}
	if s.Model.Value != "ouro-local" {
		t.Errorf("model = %q, want .ouro/settings.local.json's over .claude's", s.Model)
	}
	if s.Env["X"] != "ouro-proj" || s.Env["U"] != "u" {
		t.Errorf("env = %v, want X from .ouro/settings.json and U from the user file", s.Env)
	}
	for _, r := range s.Permissions.Allow {
		want := tr.proj
		if strings.HasPrefix(r.Source, tr.home) {
			want = tr.home
		}
		if r.Root != want {
			t.Errorf("rule %s from %s has root %q, want %q", r.Text, r.Source, r.Root, want)
		}
	}
}

func TestLoadFlagModeWinsAndDefaultsHome(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.proj, ".ouro", "settings.local.json"), `{"permissions":{"defaultMode":"plan"}}`)
	o := tr.opts()
	o.PermissionMode = "bypassPermissions"
	s, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode.Value != "bypassPermissions" {
		t.Errorf("mode = %q, want the flag's", s.Permissions.DefaultMode.Value)
	}

	// OuroHome defaults to UserHome/.ouro.
	write(t, filepath.Join(tr.home, ".ouro", "settings.json"), `{"model":"from-default-ouro-home"}`)
	s, err = Load(LoadOptions{UserHome: tr.home, ProjectDir: tr.proj})
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Value != "from-default-ouro-home" {
		t.Errorf("model = %q: ~/.ouro/settings.json was not read by default", s.Model)
	}
}

func TestLoadInlineSettingsFlag(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), `{"model":"file"}`)
	o := tr.opts()
	o.Settings = ` {"model":"inline","permissions":{"deny":["Bash(rm *)"]}}`
	s, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Value != "inline" {
		t.Errorf("model = %q, want --settings to win", s.Model)
	}
	if len(s.Permissions.Deny) != 1 || s.Permissions.Deny[0].Source != "--settings" || s.Permissions.Deny[0].Root != tr.proj {
		t.Errorf("deny = %+v", s.Permissions.Deny)
	}

	o.Settings = "missing.json"
	if _, err := Load(o); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing --settings file: err = %v", err)
	}
}

func TestLoadHooksConcatenateWithSource(t *testing.T) {
	tr := newTree(t)
	user := write(t, filepath.Join(tr.home, ".claude", "settings.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"user.sh","timeout":5}]}]}}`)
	proj := write(t, filepath.Join(tr.proj, ".claude", "settings.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Edit|Write","hooks":[{"type":"command","command":"\"${CLAUDE_PROJECT_DIR}\"/check.sh"}]}],
		  "Stop":[{"hooks":[{"type":"command","command":"stop.sh"}]}]}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	pre := s.Hooks["PreToolUse"]
	if len(pre) != 2 {
		t.Fatalf("PreToolUse = %+v", pre)
	}
	if pre[0].Source != proj || pre[0].Matcher != "Edit|Write" || pre[0].Hooks[0].Command != `"${CLAUDE_PROJECT_DIR}"/check.sh` {
		t.Errorf("first PreToolUse group = %+v (want the project's, ${VAR} unexpanded)", pre[0])
	}
	if pre[1].Source != user || pre[1].Hooks[0].Timeout != 5 {
		t.Errorf("second PreToolUse group = %+v", pre[1])
	}
	if len(s.Hooks["Stop"]) != 1 || s.Hooks["Stop"][0].Source != proj {
		t.Errorf("Stop = %+v", s.Hooks["Stop"])
	}
}

func TestLoadSandboxAndDirectories(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.home, ".claude", "settings.json"),
		`{"sandbox":{"enabled":true,"network":{"allow":true,"allowPorts":[443]},"filesystem":{"allowWrite":["~/.cargo", "/build", "//opt/cache"],"denyRead":["~/.ssh"]}},
		  "permissions":{"additionalDirectories":["shared"]}}`)
	write(t, filepath.Join(tr.ouroHome, "settings.json"),
		`{"sandbox":{"enabled":false},"permissions":{"additionalDirectories":["../docs", "/abs"]}}`)
	write(t, filepath.Join(tr.proj, ".ouro", "settings.json"),
		`{"sandbox":{"network":{"allow":false,"allowPorts":[22]},"filesystem":{"denyWrite":["secrets"],"denyRead":["/**/.env", "//etc/ssl/private"]}},
		  "permissions":{"additionalDirectories":["sub"]}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Sandbox.Enabled == nil || s.Sandbox.Enabled.Value {
		t.Errorf("sandbox.enabled = %v, want ~/.ouro's explicit false over ~/.claude's true", s.Sandbox.Enabled)
	}
	if s.Sandbox.Network.Allow == nil || *s.Sandbox.Network.Allow {
		t.Error("sandbox.network.allow: the project's false must win over the user's true")
	}
	if !reflect.DeepEqual(s.Sandbox.Network.AllowPorts, []int{22, 443}) {
		t.Errorf("ports = %v", s.Sandbox.Network.AllowPorts)
	}
	// "/x" and "x" lie under the root of the file that names them, as rule specifiers do:
	// the home folder for a user file, the project for a project file.
	wantAllow := []string{"~/.cargo", "/" + filepath.Join(tr.home, "build"), "//opt/cache"}
	wantDeny := []string{"/" + filepath.Join(tr.proj, "secrets")}
	if !reflect.DeepEqual(s.Sandbox.Filesystem.AllowWrite, wantAllow) || !reflect.DeepEqual(s.Sandbox.Filesystem.DenyWrite, wantDeny) {
		t.Errorf("filesystem = %+v, want allow %q deny %q", s.Sandbox.Filesystem, wantAllow, wantDeny)
	}
	// denyRead is anchored like them, and merged from every file (the project's first).
	wantRead := []string{"/" + filepath.Join(tr.proj, "**/.env"), "//etc/ssl/private", "~/.ssh"}
	if !reflect.DeepEqual(s.Sandbox.Filesystem.DenyRead, wantRead) {
		t.Errorf("denyRead = %q, want %q", s.Sandbox.Filesystem.DenyRead, wantRead)
	}
	want := []string{filepath.Join(tr.proj, "sub"), filepath.Join(filepath.Dir(tr.home), "docs"), "/abs", filepath.Join(tr.home, "shared")}
	if !reflect.DeepEqual(s.Permissions.AdditionalDirectories, want) {
		t.Errorf("additionalDirectories = %q, want %q", s.Permissions.AdditionalDirectories, want)
	}

	empty, err := Load(LoadOptions{UserHome: t.TempDir(), ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if empty.Sandbox.Enabled != nil || empty.Hooks != nil || len(empty.Permissions.Allow) != 0 {
		t.Errorf("no files should give zero settings, got %+v", empty)
	}
}

func TestLoadErrorsNameFileAndPosition(t *testing.T) {
	cases := []struct {
		name, content string
		want          []string
	}{
		{"syntax", "{\n  \"permissions\": {\n    \"allow\": [\"Bash\",]\n  }\n}", []string{":3:22:", "invalid JSON", "']'"}},
		{"truncated", "{\"permissions\": {", []string{":1:17:", "invalid JSON"}},
		{"wrong type", "{\"permissions\": {\n\"allow\": [\"Read\", 7]}}", []string{":2:19:", "permissions.allow", "a string", "number"}},
		{"not an object", "[1, 2]", []string{":1:", "must hold a JSON object"}},
		{"hooks wrong shape", `{"hooks": {"Stop": {"hooks": []}}}`, []string{":1:20:", "hooks must be a list, not object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			path := write(t, filepath.Join(tr.proj, ".claude", "settings.json"), c.content)
			s, err := Load(tr.opts())
			if err != nil {
				t.Fatalf("a broken project file stops loading: %v", err)
			}
			if len(s.Warnings) != 1 {
				t.Fatalf("warnings = %q, want one", s.Warnings)
			}
			msg := s.Warnings[0]
			for _, w := range append(c.want, path) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestLoadIgnoresUnknownKeysAndEmptyFiles(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{"statusLine":{"type":"command"},"permissions":{"allow":["Read"],"disableBypassPermissionsMode":"disable"},"apiKeyHelper":"x"}`)
	write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), "  \n")
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Permissions.Allow) != 1 || s.Permissions.Allow[0].Text != "Read" {
		t.Errorf("allow = %+v", s.Permissions.Allow)
	}
}

func TestLoadReadsAFileOnceWhenTheProjectIsTheHome(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"permissions":{"deny":["Bash(rm *)"]}}`)
	s, err := Load(LoadOptions{UserHome: tr.home, ProjectDir: tr.home})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Permissions.Deny) != 1 {
		t.Errorf("deny = %+v, want the file read once", s.Permissions.Deny)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	tr := newTree(t)
	// A directory where the file should be cannot be read.
	if err := os.MkdirAll(filepath.Join(tr.proj, ".ouro", "settings.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Load(tr.opts())
	if err != nil || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], filepath.Join(".ouro", "settings.json")) {
		t.Errorf("err = %v, warnings %q", err, s.Warnings)
	}
}

func TestLoadRootsAreRealPaths(t *testing.T) {
	tr := newTree(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(tr.proj, link); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), `{"permissions":{"allow":["Edit(/src/**)"]}}`)
	s, err := Load(LoadOptions{UserHome: tr.home, ProjectDir: link, AllowedTools: []string{"Read"}})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(tr.proj)
	if len(s.Permissions.Allow) != 2 {
		t.Fatalf("allow = %+v", s.Permissions.Allow)
	}
	for _, r := range s.Permissions.Allow {
		if r.Root != real {
			t.Errorf("%s: root %q, want the real project folder %q", r.Text, r.Root, real)
		}
	}
}

// The goal keys, like other scalars, come from the most specific file that sets them.
func TestGoalSettingsMostSpecificWins(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"goal":{"maxRounds":3,"model":"haiku"}}`)
	write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{"goal":{"maxRounds":12}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Goal.MaxRounds != 12 || s.Goal.Model != "haiku" {
		t.Fatalf("goal settings = %+v", s.Goal)
	}
}

func TestCleanupPeriodDaysIsTheUsersCall(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A repository that would delete its visitors' history after a day is not obeyed.
	write(filepath.Join(proj, ".claude", "settings.json"), `{"cleanupPeriodDays": 1}`)
	s, err := Load(LoadOptions{UserHome: home, ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if s.CleanupPeriodDays.Value != 0 || s.CleanupPeriod() != 30*24*time.Hour {
		t.Errorf("project file set the retention: %d days", s.CleanupPeriodDays.Value)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "cleanupPeriodDays is ignored") {
		t.Errorf("warnings = %q", s.Warnings)
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"cleanupPeriodDays": 90}`)
	if s, err = Load(LoadOptions{UserHome: home, ProjectDir: proj}); err != nil || s.CleanupPeriodDays.Value != 90 {
		t.Errorf("user's 90 days: got %d, %v", s.CleanupPeriodDays.Value, err)
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"cleanupPeriodDays": 0}`)
	if s, err = Load(LoadOptions{UserHome: home, ProjectDir: proj}); err != nil || s.CleanupPeriod() != 30*24*time.Hour || !strings.Contains(strings.Join(s.Warnings, "\n"), "at least 1") {
		t.Errorf("0 days: got %v, %q, %v", s.CleanupPeriod(), s.Warnings, err)
	}
}

// A huge cleanupPeriodDays ("keep forever") is a long period, never one that overflows
// into a negative one (a cutoff in the future would delete every session).
func TestCleanupPeriodHugeDaysDoesNotOverflow(t *testing.T) {
	for _, d := range []int{106752, 999999, 1 << 40} {
		if got := (Settings{CleanupPeriodDays: Sourced[int]{Value: d}}).CleanupPeriod(); got < 365*24*time.Hour {
			t.Errorf("cleanupPeriodDays %d: period %v", d, got)
		}
	}
}
