//go:build windows

package procgroup

import (
	"os/exec"
	"testing"
	"time"
)

func TestAttachedProcessRuns(t *testing.T) {
	cmd := exec.Command("cmd.exe", "/c", "exit 3")
	Prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(cmd.Process); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 3 {
		t.Fatalf("exit code %d, want 3: the suspended process did not run", got)
	}
}

func TestKillEndsTheTree(t *testing.T) {
	// cmd.exe starts a second ping of its own; killing the group ends both, so the
	// shared stdout pipe closes and Wait returns long before the pings would.
	cmd := exec.Command("cmd.exe", "/c", "start /b ping -n 60 127.0.0.1 & ping -n 60 127.0.0.1")
	var out limitedBuffer
	cmd.Stdout = &out
	Prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g, err := Attach(cmd.Process)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	start := time.Now()
	g.Kill()
	_ = cmd.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Wait took %s after Kill: something of the tree survived", d)
	}
	g.Kill() // once gone, a no-op
}

type limitedBuffer struct{ n int }

func (b *limitedBuffer) Write(p []byte) (int, error) { b.n += len(p); return len(p), nil }
