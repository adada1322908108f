package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// statusLine: the most specific file's, whole; a project's is marked as such (the
// caller runs it only in a trusted folder); a type ouro does not run, or no command, is
// left out with a warning; under allowManagedHooksOnly only a managed file's counts.
func TestStatusLineMerge(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".claude", "settings.json")
	projFile := filepath.Join(proj, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.MkdirAll(filepath.Dir(projFile), 0o755)
	os.WriteFile(user, []byte(`{"statusLine": {"type": "command", "command": " ~/.claude/sl.sh ", "padding": 2, "refreshInterval": 5}}`), 0o644)
	s, err := Load(LoadOptions{ProjectDir: proj, UserHome: home})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.StatusLine; got != (StatusLine{Command: "~/.claude/sl.sh", Padding: 2, RefreshInterval: 5, Source: user}) {
		t.Fatalf("user status line %+v", got)
	}

	os.WriteFile(projFile, []byte(`{"statusLine": {"type": "command", "command": "./sl.sh"}}`), 0o644)
	if s, _ = Load(LoadOptions{ProjectDir: proj, UserHome: home}); s.StatusLine != (StatusLine{Command: "./sl.sh", Source: projFile, Project: true}) {
		t.Fatalf("project status line %+v", s.StatusLine)
	}

	local := filepath.Join(proj, ".claude", "settings.local.json")
	os.WriteFile(local, []byte(`{"statusLine": {"command": "./local.sh"}}`), 0o644)
	if s, _ = Load(LoadOptions{ProjectDir: proj, UserHome: home}); s.StatusLine != (StatusLine{Command: "./local.sh", Source: local, Project: true}) {
		t.Fatalf("a local file's status line is a project's too: %+v", s.StatusLine)
	}
	os.Remove(local)

	os.WriteFile(projFile, []byte(`{"statusLine": {"type": "text", "command": "x"}}`), 0o644)
	if s, _ = Load(LoadOptions{ProjectDir: proj, UserHome: home}); s.StatusLine.Source != user || !strings.Contains(strings.Join(s.Warnings, "\n"), `statusLine of type "text" is ignored`) {
		t.Fatalf("a text status line: %+v %q", s.StatusLine, s.Warnings)
	}
	os.WriteFile(projFile, []byte(`{"statusLine": {"type": "command"}}`), 0o644)
	if s, _ = Load(LoadOptions{ProjectDir: proj, UserHome: home}); s.StatusLine.Source != user || !strings.Contains(strings.Join(s.Warnings, "\n"), "it has no command") {
		t.Fatalf("no command: %+v %q", s.StatusLine, s.Warnings)
	}

	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	os.WriteFile(managed, []byte(`{"allowManagedHooksOnly": true}`), 0o644)
	s, _ = Load(LoadOptions{ProjectDir: proj, UserHome: home, Managed: []string{managed}})
	if s.StatusLine.Command != "" || !strings.Contains(strings.Join(s.Warnings, "\n"), user+": statusLine is ignored: managed settings") {
		t.Fatalf("allowManagedHooksOnly: %+v %q", s.StatusLine, s.Warnings)
	}
	os.WriteFile(managed, []byte(`{"allowManagedHooksOnly": true, "statusLine": {"command": "corp-sl"}}`), 0o644)
	if s, _ = Load(LoadOptions{ProjectDir: proj, UserHome: home, Managed: []string{managed}}); s.StatusLine.Command != "corp-sl" || s.StatusLine.Source != managed {
		t.Fatalf("managed status line %+v", s.StatusLine)
	}
}
