//go:build unix

package skill

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A SKILL.md that is a pipe, a device or endless must not hang or exhaust discovery.
func TestDiscoverRefusesPipesDevicesAndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(dir, ".claude", "skills", name)
		os.MkdirAll(d, 0o755)
		return filepath.Join(d, FileName)
	}
	if err := syscall.Mkfifo(mk("pipe"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink("/dev/zero", mk("zero"))
	os.WriteFile(mk("huge"), []byte("---\ndescription: "+strings.Repeat("x", 2<<20)+"\n---\n"), 0o644)
	os.WriteFile(mk("fine"), []byte("---\ndescription: works\n---\nbody\n"), 0o644)

	done := make(chan struct{})
	var cat *Catalog
	var warns []Warning
	go func() { cat, warns = Discover(Options{Dir: dir, Home: t.TempDir()}); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Discover hangs")
	}
	if cat.Len() != 1 {
		t.Errorf("found %d skills, want only the fine one", cat.Len())
	}
	all := ""
	for _, w := range warns {
		all += w.Path + ": " + w.Message + "\n"
	}
	for _, want := range []string{"pipe/SKILL.md: skipped: ", "a named pipe, not a regular file", "zero/SKILL.md: skipped: ", "a character device", "huge/SKILL.md: skipped: ", "larger than 1 MiB"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}
