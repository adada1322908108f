//go:build linux || darwin

package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

func TestBashCwdResetWhenItLeavesTheAllowedDirectories(t *testing.T) {
	dir := realDir(t, t.TempDir())
	b := NewBash(BashConfig{Dir: dir, Within: func(d string) bool { return d == dir || strings.HasPrefix(d, dir+"/") }})
	run := func(cmd string) string {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		res, err := b.Run(context.Background(), tool.ExecInput(in))
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	if out := run("mkdir -p sub && cd sub"); strings.Contains(out, "reset") || b.Cwd() != filepath.Join(dir, "sub") {
		t.Fatalf("cd inside: %q, cwd %s", out, b.Cwd())
	}
	if out := run("cd /"); !strings.Contains(out, "Shell cwd was reset to "+dir) {
		t.Fatalf("cd outside: %q", out)
	}
	if out := run("pwd"); !strings.Contains(out, dir) || b.Cwd() != dir {
		t.Fatalf("after the reset: %q, cwd %s", out, b.Cwd())
	}
}
