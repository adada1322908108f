//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
)

// Two worker processes on two "machines" (each its own HOME, so neither sees the other's
// status file) share a JetStream store: w1 reaches w2 by name through the worker
// registry, and w2 gets the message once.
func TestWorkersOnTwoMachinesMessageByName(t *testing.T) {
	srv := natstest.Server(t)
	url := srv.URL()
	a, b := newEnv(t), newEnv(t)
	for _, s := range []string{"Slow part", "Quick part"} {
		if _, errOut, code := a.run("", "tasks", "--store", url, "--list", "crew", "add", s); code != 0 {
			t.Fatal(errOut)
		}
	}
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.lead = m.server(scripted.Turn{Text: "unused"})
	m.byTask["1"] = m.server(
		scripted.Turn{ExpectContains: "You claimed task #1", ToolCalls: []scripted.ToolCall{idCall("slow1", "Bash", map[string]string{"command": "sleep 3"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("done1", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})}},
		scripted.Turn{Text: "slow part done"})
	m.byTask["2"] = m.server(
		scripted.Turn{ExpectContains: "You claimed task #2", ToolCalls: []scripted.ToolCall{idCall("hi2", "SendMessage", map[string]any{"to": "w2", "message": "hello from w1 on the other machine", "summary": "hello"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("done2", "TaskUpdate", map[string]any{"taskId": "2", "status": "completed"})}},
		scripted.Turn{Text: "quick part done"})
	m.byName["w2"] = m.server(scripted.Turn{Text: "thanks"})
	a.teamFake(m)
	b.teamFake(m)

	w2 := b.cmd("team", "worker", "--store", url, "--team", "crew", "--name", "w2", "--allowedTools", "Bash(sleep *)")
	out2 := &lockedBuf{}
	w2.Stdout, w2.Stderr = out2, out2
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w2.Process.Kill(); w2.Wait() })
	if !waitFor(20*time.Second, func() bool { return len(m.byTask["1"].Requests()) >= 1 }) {
		t.Fatalf("w2 did not claim task #1:\n%s", out2)
	}
	out1, err := a.cmd("team", "worker", "--store", url, "--team", "crew", "--name", "w1").CombinedOutput()
	if err != nil {
		t.Fatalf("w1: %v\n%s", err, out1)
	}
	if err := w2.Wait(); err != nil {
		t.Fatalf("w2: %v\n%s", err, out2)
	}
	reqs := m.byTask["2"].Requests()
	if len(reqs) < 2 {
		t.Fatalf("w1 made %d requests for task #2:\n%s", len(reqs), out1)
	}
	if body := string(reqs[1].Body); strings.Contains(body, `"is_error":true`) {
		t.Fatalf("w1's message to w2 was refused:\n%.3000s", body)
	}
	// The message joins w2's next request: in the run of its task, or once it is idle.
	var last string
	for _, srv := range []*fakeserver.Server{m.byTask["1"], m.byName["w2"]} {
		for _, r := range srv.Requests() {
			if strings.Contains(string(r.Body), "hello from w1 on the other machine") {
				last = string(r.Body)
			}
		}
	}
	if n := strings.Count(last, "hello from w1 on the other machine"); n != 1 {
		t.Fatalf("w2's conversation holds the message %d times:\n%s", n, out2)
	}
}

// A hook's payload says where the agent that made the call works: the session's
// directory for the lead, its own worktree for a subagent with isolation "worktree"
// (Claude Code's cwd field; a verifying hook reads it to look at the right tree).
func TestHookPayloadCWDIsTheAgentsWorktree(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	log := filepath.Join(t.TempDir(), "hook-inputs.jsonl")
	os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755)
	settings := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"cat >> %s; echo >> %s"}]}]}}`, log, log)
	os.WriteFile(filepath.Join(e.dir, ".claude", "settings.json"), []byte(settings), 0o644)
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("lead1", "Bash", map[string]string{"command": "pwd"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{agentCall("look around", false)}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("child1", "Bash", map[string]string{"command": "pwd"})}},
		scripted.Turn{Text: "CHILD DONE"},
		scripted.Turn{Text: "done"},
	)
	if out, stderr, code := e.run("", "-p", "delegate", "--allowedTools", "Bash(pwd)"); code != 0 || out != "done\n" {
		t.Fatalf("exit %d, out %q\n%s", code, out, stderr)
	}
	data, _ := os.ReadFile(log)
	cwds := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var in struct {
			CWD       string `json:"cwd"`
			ToolUseID string `json:"tool_use_id"`
		}
		if json.Unmarshal([]byte(line), &in) == nil {
			cwds[in.ToolUseID] = in.CWD
		}
	}
	if cwds["lead1"] != e.dir {
		t.Errorf("the lead's call: cwd %q, want %s (%s)", cwds["lead1"], e.dir, data)
	}
	if !strings.Contains(cwds["child1"], filepath.Join(".ouro", "worktrees", "agent-")) {
		t.Errorf("the isolated child's call: cwd %q, want its worktree (%s)", cwds["child1"], data)
	}
}
