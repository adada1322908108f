package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a command creates at a protected path that did not exist is taken back: moved to
// the quarantine, and the note says where. Paths that existed are not touched.
func TestReclaimTakesBackCreatedProtectedPaths(t *testing.T) {
	ws, tmp := realTemp(t), realTemp(t)
	tree(t, ws, ".git/hooks/")
	p := Policy{WriteRoots: []string{ws}, ReadOnly: []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".claude"), filepath.Join(ws, ".ouro")}}
	absent := p.Absent()
	if strings.Join(absent, ",") != filepath.Join(ws, ".claude")+","+filepath.Join(ws, ".ouro") {
		t.Fatalf("Absent = %q", absent)
	}
	if note := Reclaim(absent, tmp); note != "" {
		t.Fatalf("nothing was created, yet: %q", note)
	}
	// The "command" creates one of them, and touches an existing protected folder.
	tree(t, ws, ".claude/settings.json", ".git/hooks/pre-commit")
	note := Reclaim(absent, tmp)
	if !strings.Contains(note, filepath.Join(ws, ".claude")) || !strings.Contains(note, "moved to") || strings.Contains(note, ".ouro") {
		t.Fatalf("note = %q", note)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".claude")); !os.IsNotExist(err) {
		t.Errorf(".claude is still there: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "quarantine", "*", ".claude", "settings.json")); len(m) != 1 {
		t.Errorf("quarantine holds %q", m)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err != nil {
		t.Errorf("an existing protected folder was touched: %v", err)
	}
}
