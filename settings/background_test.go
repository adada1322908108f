package settings

import (
	"path/filepath"
	"testing"
)

// background.maxRunning comes from the most specific file that sets it, which is named.
func TestBackgroundMaxRunningMostSpecificWins(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.ouroHome, "settings.json"), `{"background":{"maxRunning":3}}`)
	local := write(t, filepath.Join(tr.proj, ".ouro", "settings.local.json"), `{"background":{"maxRunning":5}}`)
	s, err := Load(tr.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s.Background.MaxRunning.Value != 5 || s.Background.MaxRunning.Source != local {
		t.Errorf("background = %+v, want 5 from %s", s.Background, local)
	}
	s, err = Load(newTree(t).opts())
	if err != nil || s.Background.MaxRunning.Value != 0 || s.Background.MaxRunning.Source != "" {
		t.Errorf("unset: %+v, %v", s.Background, err)
	}
}
