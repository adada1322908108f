//go:build unix

package subagent

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An agent file that is a pipe, a device or too large is skipped with a warning, quickly.
func TestLoadDefinitionsRefusesPipesDevicesAndHugeFiles(t *testing.T) {
	proj := t.TempDir()
	agents := filepath.Join(proj, ".claude", "agents")
	os.MkdirAll(agents, 0o755)
	if err := syscall.Mkfifo(filepath.Join(agents, "pipe.md"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink("/dev/zero", filepath.Join(agents, "zero.md"))
	os.WriteFile(filepath.Join(agents, "huge.md"), []byte("---\nname: huge\ndescription: x\n---\n"+strings.Repeat("y", 2<<20)), 0o644)
	os.WriteFile(filepath.Join(agents, "fine.md"), []byte("---\nname: fine\ndescription: works\n---\nbe fine\n"), 0o644)

	done := make(chan struct{})
	var defs []Definition
	var warns []Warning
	go func() { defs, warns = LoadDefinitions(proj, t.TempDir()); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("LoadDefinitions hangs")
	}
	if len(defs) != 1 || defs[0].Name != "fine" {
		t.Errorf("definitions = %+v, want only fine", defs)
	}
	all := ""
	for _, w := range warns {
		all += w.Path + ": " + w.Message + "\n"
	}
	for _, want := range []string{"a named pipe, not a regular file", "a character device", "huge.md is larger than 1 MiB"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}
