package settings

import (
	"path/filepath"
	"testing"
)

// Every settings file Load reads is watched under Claude Code's source name for it.
func TestWatchedFilesSources(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	got := map[string]string{}
	for _, w := range WatchedFiles(LoadOptions{UserHome: home, ProjectDir: proj, Managed: []string{"/etc/claude-code/managed-settings.json"}, Settings: `{"model":"x"}`}) {
		got[w.Path] = w.Source
	}
	proj, home = realPath(proj), realPath(home)
	want := map[string]string{
		filepath.Join(home, ".claude", "settings.json"):       "user_settings",
		filepath.Join(home, ".ouro", "settings.json"):         "user_settings",
		filepath.Join(proj, ".claude", "settings.json"):       "project_settings",
		filepath.Join(proj, ".ouro", "settings.json"):         "project_settings",
		filepath.Join(proj, ".claude", "settings.local.json"): "local_settings",
		filepath.Join(proj, ".ouro", "settings.local.json"):   "local_settings",
		"/etc/claude-code/managed-settings.json":              "policy_settings",
	}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("%s: %q, want %q", p, got[p], s)
		}
	}
	if len(got) != len(want) {
		t.Errorf("watched %v", got)
	}
}
