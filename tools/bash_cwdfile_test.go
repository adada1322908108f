//go:build unix

package tools

import (
	"strings"
	"testing"
	"time"
)

// The file the shell reports its directory in is reachable by the command; a pipe or
// /dev/zero put in its place must not hang or exhaust ouro.
func TestBashCwdFileReplacedByPipeOrDevice(t *testing.T) {
	for name, replace := range map[string]string{
		"fifo":      `rm -f "$f" && mkfifo "$f"`,
		"/dev/zero": `rm -f "$f" && ln -s /dev/zero "$f"`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			b := NewBash(BashConfig{Dir: t.TempDir()})
			done := make(chan string, 1)
			go func() {
				res := runBash(t, b, `for f in "$TMPDIR"/ouro-bash-cwd-*; do `+replace+`; done; echo replaced`, 3000)
				done <- res.Text()
			}()
			select {
			case out := <-done:
				if !strings.Contains(out, "replaced") {
					t.Fatalf("output: %s", out)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Bash hangs reading its cwd file")
			}
		})
	}
}
