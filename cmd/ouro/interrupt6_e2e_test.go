package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Ctrl-C while a /command's !`command` runs stops that command, sends nothing to the
// model, and leaves the REPL ready for the next prompt.
func TestREPLInterruptsASkillsCommand(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.dir, ".claude", "commands"), 0o755)
	os.WriteFile(filepath.Join(e.dir, ".claude", "commands", "slow.md"),
		[]byte("---\ndescription: slow\nallowed-tools: Bash(sleep *)\n---\nContext: !`sleep 77.6131`\nThen answer.\n"), 0o644)
	srv := e.fake(scripted.Turn{ExpectContains: "after the interrupt", Text: "still here"}, scripted.Turn{Text: "[]"})
	c := e.cmd()
	stdin, _ := c.StdinPipe()
	out := &lockedBuf{}
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	fmt.Fprintln(stdin, "/slow")
	eventually(t, "the command to start", func() bool { return sleepMarkerRuns() }, out.String)
	start := time.Now()
	c.Process.Signal(syscall.SIGINT)
	eventually(t, "the interrupt", func() bool { return strings.Contains(out.String(), "interrupted") }, out.String)
	if time.Since(start) > 20*time.Second || sleepMarkerRuns() {
		t.Fatalf("the skill's command was not stopped:\n%s", out)
	}
	fmt.Fprintln(stdin, "after the interrupt")
	eventually(t, "the next prompt's answer", func() bool { return strings.Contains(out.String(), "still here") }, out.String)
	fmt.Fprintln(stdin, "/exit")
	stdin.Close()
	c.Wait()
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "Then answer.") {
			t.Fatalf("the interrupted command's prompt was sent:\n%.1000s", r.Body)
		}
	}
}

// sleepMarkerRuns reports whether the test's `sleep 77.6131` runs on this machine.
func sleepMarkerRuns() bool {
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		data, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && string(data) == "sleep\x0077.6131\x00" {
			return true
		}
	}
	return false
}
