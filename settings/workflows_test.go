package settings

import (
	"path/filepath"
	"testing"
)

// A project's settings file cannot opt into workflows (they spend the user's money); the
// user's own file can.
func TestWorkflowsOptInOnlyFromTheUser(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.proj, ".claude", "settings.json"), `{"workflows": true}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Workflows != nil {
		t.Fatalf("a project file opted in: %v", *s.Workflows)
	}
	write(t, filepath.Join(tr.home, ".claude", "settings.json"), `{"workflows": true}`)
	if s, err = Load(tr.opts()); err != nil || s.Workflows == nil || !*s.Workflows {
		t.Fatalf("the user's file did not opt in: %v %v", s.Workflows, err)
	}
}
