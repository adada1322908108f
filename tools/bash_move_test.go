//go:build linux

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
)

// A session entering a worktree moves Bash there: commands start in it, and the sandbox
// given confines writes to it, no longer to the folder the session started in.
func TestBashMoveToConfinesToTheNewRoot(t *testing.T) {
	main := realDir(t, t.TempDir())
	wt := filepath.Join(main, ".ouro", "worktrees", "a")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	b := sandboxed(t, main, true, settings.SandboxNetwork{})
	pol := sandbox.FromSettings(settings.Sandbox{}, []string{wt}, realDir(t, t.TempDir()), b.cfg.Sandbox.TempDir)
	b.MoveTo(wt, &pol)
	if res := runBash(t, b, "pwd -P && echo ok > inside", 0); res.IsError || !strings.Contains(res.Text(), wt) {
		t.Fatalf("after the move: %q", res.Text())
	}
	if res := runBash(t, b, "echo no > "+filepath.Join(main, "outside"), 0); !res.IsError {
		t.Fatalf("a write to the main checkout went through: %q", res.Text())
	}
	if _, err := os.Stat(filepath.Join(main, "outside")); err == nil {
		t.Fatal("the main checkout was written")
	}
	b.MoveTo(main, b.cfg.Sandbox)
	if res := runBash(t, b, "pwd -P && echo back > outside", 0); res.IsError || !strings.HasPrefix(res.Text(), main) {
		t.Fatalf("moving back: %q", res.Text())
	}
}
