package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/gitbash"
	"github.com/ouroagent/ouro/tool"
)

func runGitBash(t *testing.T, b *Bash, command string, timeoutMS float64) tool.Result {
	t.Helper()
	in := map[string]any{"command": command}
	if timeoutMS != 0 {
		in["timeout"] = timeoutMS
	}
	raw, _ := json.Marshal(in)
	res, err := b.Run(context.Background(), tool.ExecInput(raw))
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	return res
}

func TestGitBashRunsCommands(t *testing.T) {
	if _, err := gitbash.Locate(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	b := NewBash(BashConfig{Dir: dir})
	if d := b.Spec().Description; !strings.Contains(d, "Git Bash") || !strings.Contains(d, "no OS sandbox") {
		t.Errorf("description does not say it runs in Git Bash without a sandbox:\n%s", d)
	}
	// In the empty folder, * stays *: the command reached bash unexpanded.
	res := runGitBash(t, b, `echo "a  b" *; mkdir sub && cd sub; exit 3`, 0)
	if !res.IsError || !strings.Contains(res.Text(), "a  b *") || !strings.Contains(res.Text(), "Exit code 3") {
		t.Errorf("result %q", res.Text())
	}
	if got, want := strings.ToLower(filepath.Clean(b.Cwd())), strings.ToLower(filepath.Join(dir, "sub")); got != want {
		t.Errorf("Cwd() = %q, want %q", got, want)
	}
}

func TestGitBashTimeoutKillsTheTree(t *testing.T) {
	if _, err := gitbash.Locate(); err != nil {
		t.Skip(err)
	}
	b := NewBash(BashConfig{Dir: t.TempDir()})
	start := time.Now()
	// The background sleep holds the output pipe: only killing the whole job returns.
	res := runGitBash(t, b, "sleep 60 & echo partial; sleep 60", 1000)
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the call took %s", d)
	}
	if !res.IsError || !strings.Contains(res.Text(), "timed out") || !strings.Contains(res.Text(), "partial") {
		t.Errorf("result %q", res.Text())
	}
}

func TestNoGitBashSaysHowToGetIt(t *testing.T) {
	t.Setenv(gitbash.EnvVar, filepath.Join(t.TempDir(), "missing", "bash.exe"))
	b := NewBash(BashConfig{Dir: t.TempDir()})
	_, err := b.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"command":"echo hi"}`)))
	if err == nil || !strings.Contains(err.Error(), gitbash.EnvVar) {
		t.Fatalf("Run = %v, want an error naming %s", err, gitbash.EnvVar)
	}
}
