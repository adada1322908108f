package fleet

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// The sandbox's project-relative paths are made absolute under the session's folder,
// so they mean for git in the clone what they mean for the agent's commands; absolute
// ("//") and home paths stay as written.
func TestAnchoredKeepsPathsMeaningTheProject(t *testing.T) {
	var sb settings.Sandbox
	sb.Filesystem.AllowWrite = []string{"out", "/build", "//abs/x", "~", "~/cache"}
	sb.Filesystem.DenyWrite = []string{"secret"}
	got := anchored(sb, "/work/p")
	if want := []string{"//work/p/out", "//work/p/build", "//abs/x", "~", "~/cache"}; !slices.Equal(got.Filesystem.AllowWrite, want) {
		t.Errorf("allowWrite = %q, want %q", got.Filesystem.AllowWrite, want)
	}
	if want := []string{"//work/p/secret"}; !slices.Equal(got.Filesystem.DenyWrite, want) {
		t.Errorf("denyWrite = %q, want %q", got.Filesystem.DenyWrite, want)
	}
	if sb.Filesystem.AllowWrite[0] != "out" {
		t.Error("anchored changed the settings it was given")
	}
}

// A worker's clone is kept under XDG_DATA_HOME when it is absolute, else under
// ~/.local/share, with the team's and worker's names escaped into one folder each.
func TestRepoDirIsUnderTheDataHome(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	dir, err := RepoDir("t1", "w/1")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Join(data, "ouro", "fleet"), dir)
	if err != nil || filepath.Base(dir) != "repo" || len(filepath.SplitList(rel)) != 1 || filepath.Dir(filepath.Dir(rel)) != "t1" {
		t.Errorf("RepoDir = %s (rel %s), want <data>/ouro/fleet/t1/<w/1 escaped>/repo", dir, rel)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // os.UserHomeDir on Windows
	t.Setenv("XDG_DATA_HOME", "relative")
	if dir, _ := RepoDir("t1", "w1"); !filepath.IsAbs(dir) || filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(dir)))) != filepath.Join(home, ".local", "share", "ouro") {
		t.Errorf("with a relative XDG_DATA_HOME, RepoDir = %s, want it under %s", dir, filepath.Join(home, ".local", "share"))
	}
}
