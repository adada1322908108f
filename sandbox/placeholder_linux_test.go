//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func placeholderPolicy(root string) Policy {
	return Policy{WriteRoots: []string{root}, ReadOnly: []string{filepath.Join(root, ".git")}}
}

// Two commands at once (two sessions in one folder) share the placeholder: the first to
// end leaves it to the other, the last removes it.
func TestGitPlaceholderLastHolderRemovesIt(t *testing.T) {
	root := realTemp(t)
	git := filepath.Join(root, ".git")
	p := placeholderPolicy(root)
	a := p.HoldPlaceholders()
	if !isPlaceholder(git) {
		t.Fatal("no placeholder while a command runs")
	}
	b := p.HoldPlaceholders()
	a.Release()
	if !isPlaceholder(git) {
		t.Fatal("the first command to end removed the placeholder the second still needs")
	}
	b.Release()
	if _, err := os.Lstat(git); !os.IsNotExist(err) {
		t.Fatalf("the placeholder outlived its commands: %v", err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// One left by a killed ouro is recognised, used and removed; what is not a placeholder
// (a repository, a gitfile, the user's own empty folder) is never touched.
func TestGitPlaceholderLeftoverAndUserFolders(t *testing.T) {
	root := realTemp(t)
	git := filepath.Join(root, ".git")
	if !makePlaceholder(git) { // as a kill -9 midway leaves it
		t.Fatal("makePlaceholder")
	}
	g := placeholderPolicy(root).HoldPlaceholders()
	if len(g.held) != 1 {
		t.Fatal("a leftover placeholder was not used")
	}
	g.Release()
	if _, err := os.Lstat(git); !os.IsNotExist(err) {
		t.Fatal("a leftover placeholder was not removed")
	}

	for name, setup := range map[string]func(string) error{
		"an empty folder": func(p string) error { return os.Mkdir(p, 0o755) },
		"a gitfile":       func(p string) error { return os.WriteFile(p, []byte("gitdir: elsewhere\n"), 0o644) },
		"a repository": func(p string) error {
			tree(t, filepath.Dir(p), ".git/HEAD", ".git/objects/", ".git/refs/")
			return nil
		},
		"a folder with the note and more": func(p string) error {
			tree(t, filepath.Dir(p), ".git/"+placeholderNote, ".git/HEAD")
			return nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := realTemp(t)
			git := filepath.Join(root, ".git")
			if err := setup(git); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(git)
			g := placeholderPolicy(root).HoldPlaceholders()
			if len(g.held) != 0 {
				t.Error("held something that is no placeholder")
			}
			g.Release()
			after, err := os.Lstat(git)
			if err != nil || !os.SameFile(before, after) {
				t.Errorf("touched: %v", err)
			}
		})
	}
}

// The placeholder is no repository for git's purposes, and the sandbox protects all of it.
func TestGitPlaceholderIsNoRepository(t *testing.T) {
	root := realTemp(t)
	git := filepath.Join(root, ".git")
	if !makePlaceholder(git) {
		t.Fatal("makePlaceholder")
	}
	defer os.RemoveAll(git)
	if got := gitMetadata(git); len(got) != 1 || got[0] != git {
		t.Errorf("gitMetadata(placeholder) = %v, want all of it", got)
	}
}
