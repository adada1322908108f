package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// The policy names the content folders of every protected folder, and Writable counts
// one as writable only while it is a real folder; denyWrite takes one back.
func TestPolicyContentFolders(t *testing.T) {
	cleanGoEnv(t)
	ws, home, elsewhere := realTemp(t), realTemp(t), realTemp(t)
	tree(t, ws, ".claude/settings.json", ".claude/skills/", ".claude/hooks/", ".ouro/agents/", ".ouro/commands/")
	if err := os.Symlink(elsewhere, filepath.Join(ws, ".claude", "commands")); err != nil {
		t.Fatal(err)
	}
	p := FromSettings(settings.Sandbox{Filesystem: settings.SandboxFilesystem{DenyWrite: []string{".ouro/commands"}}}, []string{ws}, home, "")
	for _, want := range []string{".claude/skills", ".claude/agents", ".claude/commands", ".ouro/skills", ".ouro/agents"} {
		if !slices.Contains(p.Content, filepath.Join(ws, want)) {
			t.Errorf("Content %v lacks %s", p.Content, want)
		}
	}
	if slices.Contains(p.Content, filepath.Join(ws, ".ouro", "commands")) {
		t.Errorf("a content folder named in denyWrite is in Content: %v", p.Content)
	}
	for path, want := range map[string]bool{
		".claude/skills/x/SKILL.md":            true,
		".claude/skills":                       true,
		".ouro/agents/a.md":                    true,
		".claude/settings.json":                false,
		".claude/skills/../settings.json":      false,
		".claude/hooks/h":                      false,
		".claude/agents/a.md":                  false, // missing
		".claude/commands/c.md":                false, // a symbolic link
		".ouro/commands/c.md":                  false, // denyWrite
		".claude/skills/x/../../settings.json": false,
		"src/main.go":                          true,
	} {
		if got := p.Writable(filepath.Join(ws, path)); got != want {
			t.Errorf("Writable(%s) = %v, want %v", path, got, want)
		}
	}
	// A hand-made policy cannot open a folder that is not inside a read-only path.
	q := Policy{WriteRoots: []string{ws}, ReadOnly: []string{filepath.Join(ws, ".claude", "skills")}, Content: []string{filepath.Join(ws, ".claude", "skills")}}
	if q.Writable(filepath.Join(ws, ".claude", "skills", "x")) {
		t.Error("a content folder that is itself the read-only path was opened")
	}
}
