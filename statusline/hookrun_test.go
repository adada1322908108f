//go:build unix

package statusline

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/hook"
)

// Through the hooks' runner: a command past its timeout is killed and shows nothing,
// and a command that reads its input shows what it printed, made safe.
func TestThroughHookRunner(t *testing.T) {
	r, err := hook.New(hook.Config{ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var failed []error
	var s shown
	start := time.Now()
	l := Start(context.Background(), Config{Command: "sleep 30; echo late", Run: r, Show: s.show, Timeout: 200 * time.Millisecond,
		Input: func() Input { return Input{} }, Failed: func(err error) { mu.Lock(); failed = append(failed, err); mu.Unlock() }})
	waitFor(t, "the timeout", func() bool { _, n := s.last(); return n == 1 })
	l.Stop()
	if got, _ := s.last(); got != "" || time.Since(start) > 3*time.Second || len(failed) != 1 || !strings.Contains(failed[0].Error(), "timed out") {
		t.Fatalf("a slow command showed %q after %v, failures %v", got, time.Since(start), failed)
	}

	var s2 shown
	l = Start(context.Background(), Config{Command: `grep -q '"display_name":"Opus 4.1"' && printf '\033]0;t\007\033[1mok\033[0m\n'`, Run: r, Show: s2.show,
		Input: func() Input { return Input{Model: Model{ID: "claude-opus-4-1", DisplayName: "Opus 4.1"}} }})
	defer l.Stop()
	waitFor(t, "the output", func() bool { _, n := s2.last(); return n == 1 })
	if got, _ := s2.last(); got != `\x1b]0;t\x07`+"\x1b[1mok\x1b[0m\x1b[0m" {
		t.Fatalf("shown %q", got)
	}
}
