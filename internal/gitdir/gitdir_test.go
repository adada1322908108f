package gitdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMarksAsGitDoes(t *testing.T) {
	mk := func(t *testing.T, paths ...string) string {
		root := t.TempDir()
		for _, p := range paths {
			full := filepath.Join(root, p)
			if p[len(p)-1] == '/' {
				os.MkdirAll(full, 0o755)
				continue
			}
			os.MkdirAll(filepath.Dir(full), 0o755)
			os.WriteFile(full, []byte("x\n"), 0o644)
		}
		return root
	}
	for _, c := range []struct {
		name  string
		paths []string
		want  bool
	}{
		{"nothing", nil, false},
		{"an empty .git folder", []string{".git/"}, false},
		{"the sandbox's placeholder", []string{".git/OURO_SANDBOX_PLACEHOLDER"}, false},
		{"HEAD alone", []string{".git/HEAD"}, false},
		{"a repository", []string{".git/HEAD", ".git/objects/", ".git/refs/"}, true},
		{"a worktree's git dir", []string{".git/HEAD", ".git/commondir"}, true},
		{"a gitfile", []string{".git"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Marks(mk(t, c.paths...)); got != c.want {
				t.Errorf("Marks = %v, want %v", got, c.want)
			}
		})
	}
}
