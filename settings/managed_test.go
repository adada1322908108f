package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Managed files bind first: their mode beats --permission-mode and every file, their
// rules come first, a restriction is kept from any file, and a broken managed file stops
// ouro instead of lifting itself.
func TestManagedSettingsBindFirst(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	os.WriteFile(managed, []byte(`{"permissions": {"defaultMode": "plan", "deny": ["Bash(curl *)"]}, "env": {"ANTHROPIC_BASE_URL": "https://gw.example"}}`), 0o644)
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"permissions": {"defaultMode": "acceptEdits", "disableBypassPermissionsMode": "disable"}, "env": {"ANTHROPIC_BASE_URL": "https://evil.example"}}`), 0o644)
	s, err := Load(LoadOptions{ProjectDir: proj, UserHome: home, PermissionMode: "bypassPermissions", Managed: []string{managed, filepath.Join(home, "missing.json")}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode.Value != "plan" || s.Permissions.DefaultMode.Source != managed {
		t.Errorf("mode %q from %q", s.Permissions.DefaultMode.Value, s.Permissions.DefaultMode.Source)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "--permission-mode bypassPermissions is ignored") {
		t.Errorf("warnings %v", s.Warnings)
	}
	if len(s.Permissions.Deny) == 0 || s.Permissions.Deny[0].Text != "Bash(curl *)" || s.Permissions.Deny[0].Source != managed {
		t.Errorf("deny %+v", s.Permissions.Deny)
	}
	if !strings.HasSuffix(s.Permissions.DisableBypass, filepath.Join(".claude", "settings.json")) {
		t.Errorf("disableBypass from %q", s.Permissions.DisableBypass)
	}
	if s.Env["ANTHROPIC_BASE_URL"] != "https://gw.example" || s.EnvTrusted["ANTHROPIC_BASE_URL"] != "https://gw.example" || s.EnvProject["ANTHROPIC_BASE_URL"] != "" {
		t.Errorf("env %v trusted %v project %v", s.Env, s.EnvTrusted, s.EnvProject)
	}
	os.WriteFile(managed, []byte(`{broken`), 0o644)
	if _, err := Load(LoadOptions{ProjectDir: proj, UserHome: home, Managed: []string{managed}}); err == nil || !strings.Contains(err.Error(), "managed settings") {
		t.Errorf("a broken managed file: %v", err)
	}
}

// Claude Code's allowManagedDomainsOnly: set in managed settings, only managed files'
// allowedDomains count (a project cannot widen them); deniedDomains count from anywhere.
func TestManagedDomainsOnly(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	os.WriteFile(managed, []byte(`{"sandbox": {"network": {"allowedDomains": ["corp.example"], "allowManagedDomainsOnly": true}}}`), 0o644)
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"sandbox": {"network": {"allowedDomains": ["evil.example"], "deniedDomains": ["x.corp.example"]}}}`), 0o644)
	s, err := Load(LoadOptions{ProjectDir: proj, UserHome: home, Managed: []string{managed}})
	if err != nil {
		t.Fatal(err)
	}
	n := s.Sandbox.Network
	if strings.Join(n.AllowedDomains, ",") != "corp.example" || strings.Join(n.DeniedDomains, ",") != "x.corp.example" {
		t.Errorf("allowed %q denied %q", n.AllowedDomains, n.DeniedDomains)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "allowManagedDomainsOnly") {
		t.Errorf("warnings %q", s.Warnings)
	}

	// Without it, lists merge as in Claude Code.
	os.WriteFile(managed, []byte(`{"sandbox": {"network": {"allowedDomains": ["corp.example"]}}}`), 0o644)
	s, err = Load(LoadOptions{ProjectDir: proj, UserHome: home, Managed: []string{managed}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Sandbox.Network.AllowedDomains, ","); got != "corp.example,evil.example" {
		t.Errorf("merged allowed %q", got)
	}
}

// Issue 26, D11: managed settings' lockdown keys. allowManagedHooksOnly: only managed
// hooks are kept; allowManagedPermissionRulesOnly: only managed rules, not the user's,
// the project's or the flags'. Each file (and flag) left out is one warning naming it.
func TestManagedLockdownKeys(t *testing.T) {
	tr := newTree(t)
	managed := write(t, filepath.Join(t.TempDir(), "managed-settings.json"), `{"allowManagedHooksOnly": true, "allowManagedPermissionRulesOnly": true,
		"permissions": {"deny": ["Bash(curl *)"], "allow": ["Read"]},
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "managed-hook"}]}]}}`)
	user := write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(*)"]},
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "user-hook"}]}]}}`)
	proj := write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{"permissions": {"ask": ["Read"], "deny": ["Write"]},
		"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "project-hook"}]}]}, "model": "m"}`)
	o := tr.opts()
	o.Managed = []string{managed}
	o.AllowedTools, o.DisallowedTools = []string{"Bash"}, []string{"Edit"}
	s, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(s.Permissions.Allow); len(got) != 1 || got[0] != "Read @ "+managed {
		t.Errorf("allow %q", got)
	}
	if got := texts(s.Permissions.Deny); len(got) != 1 || got[0] != "Bash(curl *) @ "+managed || len(s.Permissions.Ask) != 0 {
		t.Errorf("deny %q ask %q", got, texts(s.Permissions.Ask))
	}
	if len(s.Hooks) != 1 || len(s.Hooks["Stop"]) != 1 || s.Hooks["Stop"][0].Source != managed {
		t.Errorf("hooks %+v", s.Hooks)
	}
	if s.ManagedHooksOnly != managed || s.Permissions.ManagedRulesOnly != managed || s.Model.Value != "m" {
		t.Errorf("lockdown %q %q model %q", s.ManagedHooksOnly, s.Permissions.ManagedRulesOnly, s.Model)
	}
	all := strings.Join(s.Warnings, "\n")
	for _, w := range []string{
		"--disallowedTools Edit is ignored: managed settings (" + managed + ") set allowManagedPermissionRulesOnly",
		"--allowedTools Bash is ignored",
		user + ": permission rules (allow, ask, deny) are ignored", user + ": hooks are ignored: managed settings (" + managed + ") set allowManagedHooksOnly",
		proj + ": permission rules (allow, ask, deny) are ignored", proj + ": hooks are ignored",
	} {
		if strings.Count(all, w) != 1 {
			t.Errorf("want %q once in:\n%s", w, all)
		}
	}
	if len(s.Warnings) != 6 {
		t.Errorf("%d warnings:\n%s", len(s.Warnings), all)
	}

	// Only a managed file may lock down: the keys elsewhere change nothing.
	write(t, user, `{"allowManagedHooksOnly": true, "allowManagedPermissionRulesOnly": true, "permissions": {"allow": ["Bash(*)"]}}`)
	if s, err = Load(tr.opts()); err != nil {
		t.Fatal(err)
	}
	if s.ManagedHooksOnly != "" || s.Permissions.ManagedRulesOnly != "" || len(s.Permissions.Allow) != 1 || len(s.Hooks["PreToolUse"]) != 1 {
		t.Errorf("a user file locked down: %+v", s)
	}
}
