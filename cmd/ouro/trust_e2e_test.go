//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ouroagent/ouro/llm/scripted"
)

// ptyRun starts ouro at a terminal, answers each prompt that appears with its answer, in
// order, and returns everything shown and the exit code.
func ptyRun(t *testing.T, e *env, answers [][2]string, args ...string) (string, int) {
	t.Helper()
	c := e.cmd(args...)
	f, err := pty.Start(c)
	if err != nil {
		t.Fatalf("pty: %v", err)
	}
	defer f.Close()
	var mu sync.Mutex
	var shown bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	text := func() string { mu.Lock(); defer mu.Unlock(); return shown.String() }
	for _, a := range answers {
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(text(), a[0]) {
			if time.Now().After(deadline) {
				_ = c.Process.Kill()
				t.Fatalf("waited for %q; the screen shows:\n%s", a[0], text())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := io.WriteString(f, a[1]); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = c.Process.Kill()
		t.Fatalf("ouro did not exit; the screen shows:\n%s", text())
	}
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	}
	time.Sleep(50 * time.Millisecond)
	return text(), code
}

// TestUntrustedFolderRunsNothingUntilTrusted: a cloned repository's SessionStart hook
// would run the moment an interactive session opened. ouro first asks whether the folder
// is trusted: "no" runs nothing; "yes" is remembered in ~/.ouro.json as Claude Code does,
// and the next start does not ask again. Headless runs do not ask (as in Claude Code).
func TestUntrustedFolderRunsNothingUntilTrusted(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "one"}, scripted.Turn{Text: "two"}, scripted.Turn{Text: "three"})
	pwned := filepath.Join(e.home, "pwned")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"),
		`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch `+pwned+`"}]}]}}`)

	screen, code := ptyRun(t, e, [][2]string{{"Do you trust the files in this folder?", "maybe\r"}, {"Answer 1", "2\r"}})
	if code == 0 || !strings.Contains(screen, "not trusted") {
		t.Fatalf("answered no: exit %d\n%s", code, screen)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the repository's SessionStart hook ran before the folder was trusted")
	}

	screen, code = ptyRun(t, e, [][2]string{{"Do you trust the files in this folder?", "1\r"}, {"/help for commands", "/exit\r"}})
	if code != 0 {
		t.Fatalf("answered yes: exit %d\n%s", code, screen)
	}
	if _, err := os.Stat(pwned); err != nil {
		t.Error("the SessionStart hook did not run once the folder was trusted")
	}
	doc, _ := os.ReadFile(filepath.Join(e.home, ".ouro.json"))
	if !strings.Contains(string(doc), `"hasTrustDialogAccepted": true`) {
		t.Errorf("~/.ouro.json does not record the answer:\n%s", doc)
	}
	screen, code = ptyRun(t, e, [][2]string{{"/help for commands", "/exit\r"}})
	if code != 0 || strings.Contains(screen, "Do you trust") {
		t.Errorf("asked again after yes: exit %d\n%s", code, screen)
	}

	// -p in another untrusted folder asks nothing (as Claude Code).
	e2 := newEnv(t)
	e2.fake(scripted.Turn{Text: "headless"})
	if out, stderr, code := e2.run("", "-p", "hi"); code != 0 || !strings.Contains(out, "headless") {
		t.Errorf("-p: %d %s %s", code, out, stderr)
	}
}

// --init-only at a terminal runs only the repository's Setup and SessionStart hooks: it
// asks first too.
func TestInitOnlyAsksForTrust(t *testing.T) {
	e := newEnv(t)
	pwned := filepath.Join(e.home, "pwned")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"),
		`{"hooks": {"Setup": [{"hooks": [{"type": "command", "command": "touch `+pwned+`"}]}]}}`)
	screen, code := ptyRun(t, e, [][2]string{{"Do you trust the files in this folder?", "2\r"}}, "--init-only")
	if code == 0 || !strings.Contains(screen, "not trusted") {
		t.Fatalf("answered no: exit %d\n%s", code, screen)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the repository's Setup hook ran before the folder was trusted")
	}
}
