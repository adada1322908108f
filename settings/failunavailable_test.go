package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

// Only the person's own settings may let sandboxed commands run without a sandbox
// (sandbox.failIfUnavailable: false); a project's false is ignored with a warning, a
// project's true still applies (issue 27, section 1).
func TestFailIfUnavailableIsThePersonsCall(t *testing.T) {
	tr := newTree(t)
	proj := write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), `{"sandbox":{"failIfUnavailable":false}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Sandbox.FailIfUnavailable != nil {
		t.Errorf("a project's false was taken: %v", s.Sandbox.FailIfUnavailable.Value)
	}
	if len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], proj+": sandbox.failIfUnavailable false is ignored") {
		t.Errorf("warnings %q", s.Warnings)
	}

	user := write(t, filepath.Join(tr.home, ".ouro", "settings.json"), `{"sandbox":{"failIfUnavailable":false}}`)
	if s, err = Load(tr.opts()); err != nil {
		t.Fatal(err)
	}
	if f := s.Sandbox.FailIfUnavailable; f == nil || f.Value || f.Source != user {
		t.Errorf("the person's false: %v", f)
	}

	write(t, filepath.Join(tr.proj, ".ouro", "settings.json"), `{"sandbox":{"failIfUnavailable":true}}`)
	if s, err = Load(tr.opts()); err != nil {
		t.Fatal(err)
	}
	if f := s.Sandbox.FailIfUnavailable; f == nil || !f.Value || len(s.Warnings) != 0 {
		t.Errorf("a project's true: %v, warnings %q", f, s.Warnings)
	}
}
