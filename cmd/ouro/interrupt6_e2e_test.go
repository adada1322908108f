//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/workflow/wfproc"
)

// Ctrl-C while a /command's !`command` runs stops that command, sends nothing to the
// model, and leaves the REPL ready for the next prompt.
func TestREPLInterruptsASkillsCommand(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.dir, ".claude", "commands"), 0o755)
	os.WriteFile(filepath.Join(e.dir, ".claude", "commands", "slow.md"),
		[]byte("---\ndescription: slow\nallowed-tools: Bash(sleep *)\n---\nContext: !`sleep 77.6131`\nThen answer.\n"), 0o644)
	srv := e.fake(scripted.Turn{ExpectContains: "after the interrupt", Text: "still here"}, scripted.Turn{Text: "[]"})
	c, stdin, out := e.startREPL()
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

// A subagent's skill grants its allowed-tools to that subagent only: the parent's own
// call to the same command is still asked about (and refused, headless).
func TestSubagentSkillRulesStayInTheSubagent(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.dir, ".claude", "skills", "toucher"), 0o755)
	os.WriteFile(filepath.Join(e.dir, ".claude", "skills", "toucher", "SKILL.md"),
		[]byte("---\nname: toucher\ndescription: Touches files\nallowed-tools: Bash(touch *)\n---\nTouch what you are asked to.\n"), 0o644)
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("t1", "Task", map[string]string{"description": "touch", "prompt": "touch child.txt", "subagent_type": "general-purpose"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("s1", "Skill", map[string]string{"skill": "toucher"})}},
		scripted.Turn{ExpectContains: "Touch what you are asked to.", ToolCalls: []scripted.ToolCall{idCall("b1", "Bash", map[string]string{"command": "touch child.txt"})}},
		scripted.Turn{Text: "child touched"},
		scripted.Turn{ExpectContains: "child touched", ToolCalls: []scripted.ToolCall{idCall("b2", "Bash", map[string]string{"command": "touch parent.txt"})}},
		scripted.Turn{Text: "parent done"},
	)
	out, stderr, code := e.run("", "-p", "delegate")
	if code != 0 || !strings.Contains(out, "parent done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "child.txt")); err != nil {
		t.Errorf("the subagent's skill did not allow its own call: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "parent.txt")); err == nil {
		t.Error("the subagent's skill rule allowed the parent's call")
	}
}

// A Ctrl-C at the terminal reaches every process of its foreground group. It interrupts
// the REPL's turn; it must not kill the workflow engine (ouro in its engine mode, a
// process of its own group) running a background run.
func TestTerminalCtrlCLeavesBackgroundWorkflowRunning(t *testing.T) {
	e := newEnv(t)
	script := `export const meta = { name: 'slow', description: 'one slow step' };
return await agent('do the slow step', {label: 'slow'});`
	in, _ := json.Marshal(map[string]any{"script": script})
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.lead = m.server(scripted.Turn{ToolCalls: []scripted.ToolCall{{ID: "toolu_wf_slow", Name: "Workflow", Input: in}}},
		scripted.Turn{Text: "the run is on its way"}, scripted.Turn{Text: "[]"})
	sub := m.server(scripted.Turn{Fault: &scripted.Fault{Status: 529, Message: "overloaded", RetryAfter: 30}, Times: 10})
	m.byName["subagent"] = sub
	e.teamFake(m)
	c := e.cmd("--workflows", "--allowedTools", "Workflow")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's foreground group
	stdin, _ := c.StdinPipe()
	out := &lockedBuf{}
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	fmt.Fprintln(stdin, "run the slow workflow")
	eventually(t, "the workflow's agent call", func() bool { return len(sub.Requests()) >= 1 && strings.Contains(out.String(), "on its way") }, out.String)
	helper := childWithArg(c.Process.Pid, wfproc.ModeArg)
	if helper == 0 {
		t.Fatalf("no workflow engine (ouro %s) under ouro:\n%s", wfproc.ModeArg, out)
	}
	syscall.Kill(-c.Process.Pid, syscall.SIGINT) // the user's Ctrl-C, to the whole group
	time.Sleep(time.Second)
	if !alive(helper) {
		t.Fatalf("the terminal's Ctrl-C killed the background workflow's engine:\n%s", out)
	}
	fmt.Fprintln(stdin, "/workflows")
	eventually(t, "the run's progress", func() bool { return strings.Contains(out.String(), "agents: 1 running, 0 done, 0 failed") }, out.String)
}

// childWithArg is the pid of a descendant of root whose first argument is arg (0 if none).
func childWithArg(root int, arg string) int {
	parent := map[int]int{}
	first := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		var pid int
		if _, err := fmt.Sscanf(d.Name(), "%d", &pid); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat) // pid (comm) state ppid ...
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i {
			continue
		}
		var state string
		var ppid int
		fmt.Sscanf(s[j+2:], "%s %d", &state, &ppid)
		parent[pid] = ppid
		if cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline")); err == nil {
			if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 {
				first[pid] = args[1]
			}
		}
	}
	for pid, a := range first {
		if a != arg {
			continue
		}
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				return pid
			}
		}
	}
	return 0
}
