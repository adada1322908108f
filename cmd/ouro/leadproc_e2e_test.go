//go:build unix

package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/team"
)

// leadTeam reads the lead's team file (what `ouro team --json` prints).
func leadTeam(e *env, list string) team.Snapshot {
	var s team.Snapshot
	data, err := os.ReadFile(filepath.Join(e.home, ".ouro", "teams", list+".json"))
	if err == nil {
		_ = json.Unmarshal(data, &s)
	}
	return s
}

// pidAlive reports whether process pid runs (a zombie waiting for a parent that does not
// reap it counts as ended).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := bytes.LastIndexByte(data, ')'); i > 0 && i+2 < len(data) && data[i+2] == 'Z' {
			return false
		}
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// mailRow is one stored message and whether it was acknowledged.
type mailRow struct {
	mailbox.Message
	acked bool
}

func storedMail(t *testing.T, e *env) []mailRow {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(e.home, ".ouro", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), `SELECT data, acked FROM mail`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []mailRow
	for rows.Next() {
		var data []byte
		var acked int
		if err := rows.Scan(&data, &acked); err != nil {
			t.Fatal(err)
		}
		var r mailRow
		if err := json.Unmarshal(data, &r.Message); err != nil {
			t.Fatal(err)
		}
		r.acked = acked == 1
		out = append(out, r)
	}
	return out
}

// received maps each agent to the message ids its requests to the fake model carried,
// failing on a request that carries one twice.
func received(t *testing.T, servers ...*fakeserver.Server) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for _, srv := range servers {
		for _, r := range srv.Requests() {
			who := "main"
			if sm := teammateRE.FindSubmatch(r.Body); sm != nil {
				who = string(sm[1])
			}
			seen := map[string]bool{}
			for _, id := range mailbox.IDsIn(r.Messages) {
				if seen[id] {
					t.Errorf("a request of %s carries message %s twice", who, id)
				}
				seen[id] = true
				if out[who] == nil {
					out[who] = map[string]bool{}
				}
				out[who][id] = true
			}
		}
	}
	return out
}

// A lead run with --team-process spawns two teammates, each its own `ouro team worker`
// process; they complete a three-task graph (1 → 2, 1 → 3). The teammate that takes #2
// hangs in a command and is killed -9: it is shown failed with its exit status, the lead
// is told, #2 goes back to the list when its lease runs out and the other teammate
// finishes it. Every message reaches its recipient's conversation exactly once, the
// teammates' events are in the lead's stream-json tagged with their names, and no
// worker process is left once the lead has exited.
func TestLeadProcTeamSurvivesAKilledTeammate(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "OURO_TASK_LEASE=2s")
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byTask["1"] = m.server(completeTurns("1")...)
	m.byTask["3"] = m.server(completeTurns("3")...)
	// Whoever takes #2 hangs in its command (and is killed); the next one completes it.
	m.byTask["2"] = m.server(append([]scripted.Turn{{ExpectContains: "You claimed task #2", ToolCalls: bash("sleep 20")}}, completeTurns("2")...)...)
	var creates, spawns []scripted.ToolCall
	for i := 1; i <= 3; i++ {
		creates = append(creates, idCall(fmt.Sprintf("create%d", i), "TaskCreate", map[string]string{"subject": fmt.Sprintf("part %d", i), "description": fmt.Sprintf("write part %d", i)}))
	}
	links := []scripted.ToolCall{
		idCall("link2", "TaskUpdate", map[string]any{"taskId": "2", "addBlockedBy": []string{"1"}}),
		idCall("link3", "TaskUpdate", map[string]any{"taskId": "3", "addBlockedBy": []string{"1"}}),
	}
	for _, n := range []string{"w1", "w2"} {
		spawns = append(spawns, idCall("spawn-"+n, "Agent", map[string]any{"description": "teammate " + n, "prompt": "You write parts; " + n + " is your name.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": n}))
		m.byName[n] = m.server(scripted.Turn{ExpectContains: "is your name.", Text: "ready"})
		m.hold(m.byName[n], 0, 4) // they start once the lead waits
	}
	m.lead = m.server(
		scripted.Turn{ToolCalls: creates},
		scripted.Turn{ToolCalls: links},
		scripted.Turn{ToolCalls: spawns},
		scripted.Turn{ExpectContains: `Spawned teammate "w2"`, Text: "The team is working."},
		// Woken once the team is idle, with the reports and the death at once.
		scripted.Turn{ExpectContains: "process ended unexpectedly", Text: "All three parts are done."},
	)
	e.teamFake(m)

	lead := e.cmd("-p", "--team-process", "--task-list", "crew", "--allowedTools", "Bash(sleep *)",
		"--output-format", "stream-json", "--verbose", "write the parts with a team of processes")
	var out, errOut bytes.Buffer
	lead.Stdout, lead.Stderr = &out, &errOut
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- lead.Wait() }()
	defer func() {
		if lead.ProcessState == nil {
			lead.Process.Kill()
		}
	}()

	// Find the teammate hanging on #2 in the lead's team file, and kill it.
	var victim team.Member
	pids := map[string]int{}
	if !waitFor(60*time.Second, func() bool {
		for _, mem := range leadTeam(e, "crew").Members {
			if mem.Pid > 0 {
				pids[mem.Name] = mem.Pid
			}
			if strings.HasPrefix(mem.Task, "#2 ") && len(m.byTask["2"].Requests()) >= 1 {
				victim = mem
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no teammate took task #2:\n%s\n%s", out.String(), errOut.String())
	}
	if js, _, _ := e.run("", "team", "--list", "crew", "--json"); !strings.Contains(js, fmt.Sprintf(`"pid": %d`, victim.Pid)) {
		t.Fatalf("ouro team --json does not show %s's pid %d:\n%s", victim.Name, victim.Pid, js)
	}
	time.Sleep(300 * time.Millisecond) // its command is running
	if err := syscall.Kill(victim.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("lead: %v\n%s\n%s", err, out.String(), errOut.String())
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("the lead did not finish:\n%s\n%s", out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "All three parts are done.") {
		t.Fatalf("result:\n%s\n%s", out.String(), errOut.String())
	}
	for id, srv := range m.byTask {
		if srv.Remaining() != 0 {
			t.Errorf("task #%s's script has %d turns left", id, srv.Remaining())
		}
	}
	if m.lead.Remaining() != 0 {
		t.Errorf("the lead's script has %d turns left", m.lead.Remaining())
	}
	// The survivor finished #2 (the victim's task), every task is completed by it or the
	// victim, and nobody else.
	survivor := "w1"
	if victim.Name == "w1" {
		survivor = "w2"
	}
	show, _, _ := e.run("", "tasks", "--list", "crew", "show", "2")
	if !strings.Contains(show, "completed") || !strings.Contains(show, survivor) {
		t.Errorf("task #2 should be completed by %s:\n%s", survivor, show)
	}
	// The lead's team file shows the victim failed with its exit status, the survivor stopped.
	snap := leadTeam(e, "crew")
	for _, mem := range snap.Members {
		switch mem.Name {
		case victim.Name:
			if mem.Status != team.StatusFailed || !strings.Contains(mem.Exit, "killed") {
				t.Errorf("the killed teammate is shown %s (%q), want failed, killed", mem.Status, mem.Exit)
			}
		case survivor:
			if mem.Status != team.StatusStopped || mem.Tokens == 0 {
				t.Errorf("the survivor is shown %s with %d tokens", mem.Status, mem.Tokens)
			}
		}
	}
	if len(snap.Members) != 2 {
		t.Errorf("team members: %+v", snap.Members)
	}
	if show, _, _ := e.run("", "team", "--list", "crew"); !strings.Contains(show, "failed") || !strings.Contains(show, "signal: killed") || strings.Contains(show, "Worker process") {
		t.Errorf("ouro team does not show the killed teammate failed, or shows the workers' own (stale) files too:\n%s", show)
	}
	// No worker outlived the lead.
	for name, pid := range pids {
		if pidAlive(pid) {
			t.Errorf("teammate %s (pid %d) outlived its lead", name, pid)
		}
	}
	// Every message reached its recipient's conversation exactly once: the two spawn
	// prompts, three completion reports and the death report.
	var servers []*fakeserver.Server
	servers = append(servers, m.lead)
	for _, s := range m.byName {
		servers = append(servers, s)
	}
	for _, s := range m.byTask {
		servers = append(servers, s)
	}
	got := received(t, servers...)
	rows := storedMail(t, e)
	for _, r := range rows {
		if !r.acked || !got[r.To][r.ID] {
			t.Errorf("message %s (%s → %s: %.60q) acked=%v, in its recipient's conversation: %v", r.ID, r.From, r.To, r.Text, r.acked, got[r.To][r.ID])
		}
	}
	if len(rows) != 6 {
		t.Errorf("%d messages stored, want 6 (2 prompts, 3 reports, 1 death)", len(rows))
	}
	// stream-json: the teammates' conversations, tagged with their names.
	tagged := map[string]int{}
	for _, l := range parseLines(t, out.String()) {
		if a, ok := l["agent"].(string); ok {
			tagged[a]++
		}
	}
	if tagged["w1"] == 0 || tagged["w2"] == 0 {
		t.Errorf("stream-json lines tagged per teammate: %v", tagged)
	}
}

// A lead killed -9 takes its teammate processes with it: the worker, busy in a command,
// stops (the parent-death signal, or its own watch of the lead) instead of working on
// for a lead that is gone.
func TestLeadProcKilledLeadStopsItsWorkers(t *testing.T) {
	e := newEnv(t)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["w1"] = m.server(scripted.Turn{ToolCalls: bash("sleep 30")}, scripted.Turn{Text: "slept"})
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "sleeper", "prompt": "Sleep.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": "w1"})}},
		scripted.Turn{Text: "Waiting for w1."},
		scripted.Turn{Text: "unused"},
	)
	e.teamFake(m)
	lead := e.cmd("-p", "--team-process", "--task-list", "crew", "--allowedTools", "Bash(sleep *)", "sleep with a teammate")
	var out bytes.Buffer
	lead.Stdout, lead.Stderr = &out, &out
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	defer lead.Process.Kill()
	pid := 0
	if !waitFor(60*time.Second, func() bool {
		for _, mem := range leadTeam(e, "crew").Members {
			pid = mem.Pid
		}
		return pid > 0 && len(m.byName["w1"].Requests()) >= 1
	}) {
		t.Fatalf("the teammate did not start:\n%s", out.String())
	}
	time.Sleep(300 * time.Millisecond) // its command is running
	if err := lead.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = lead.Wait()
	if !waitFor(15*time.Second, func() bool { return !pidAlive(pid) }) {
		t.Fatalf("teammate process %d outlived its lead, killed -9", pid)
	}
}

// The protocols work with a teammate process as in the lead's own: a planner started in
// plan mode cannot write before the lead approves its plan (a request id made in the
// worker's process, answered by the lead), its SendMessage reaches the lead, and the
// lead's shutdown request stops it, acknowledged by request id.
func TestLeadProcPlanApprovalAndShutdown(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.dir, ".claude", "agents", "planner.md"), []byte("---\nname: planner\ndescription: Plans first\npermissionMode: plan\n---\nYou plan carefully.\n"), 0o644)
	target := filepath.Join(e.dir, "plan.txt")
	write := func(id string) scripted.ToolCall {
		return idCall(id, "Write", map[string]string{"file_path": target, "content": "planned\n"})
	}
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["p1"] = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{write("early")}},
		scripted.Turn{ExpectContains: "plan mode", ToolCalls: []scripted.ToolCall{idCall("plan1", "ExitPlanMode", map[string]string{"plan": "Write plan.txt"})}},
		scripted.Turn{ExpectContains: "say what goes in it", ToolCalls: []scripted.ToolCall{idCall("plan2", "ExitPlanMode", map[string]string{"plan": "Write plan.txt containing the word planned"})}},
		scripted.Turn{ExpectContains: `approve="true"`, ToolCalls: []scripted.ToolCall{write("late")}},
		scripted.Turn{ExpectContains: "successfully", ToolCalls: []scripted.ToolCall{idCall("tell", "SendMessage", map[string]string{"to": "main", "message": "plan.txt is written."})}},
		scripted.Turn{Text: "done"},
	)
	respond := func(id string, approve bool, feedback string) scripted.ToolCall {
		return idCall("answer-"+id, "SendMessage", map[string]any{"to": "p1", "message": map[string]any{"type": "plan_approval_response", "request_id": id, "approve": approve, "feedback": feedback}})
	}
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "planner", "prompt": "Write plan.txt.",
			"subagent_type": "planner", "run_in_background": true, "name": "p1"})}},
		scripted.Turn{Text: "The planner is planning."},
		scripted.Turn{ExpectContains: "plan-p1-1", ToolCalls: []scripted.ToolCall{respond("plan-p1-1", false, "say what goes in it")}},
		scripted.Turn{Text: "Waiting for the revised plan."},
		scripted.Turn{ExpectContains: "plan-p1-2", ToolCalls: []scripted.ToolCall{respond("plan-p1-2", true, "")}},
		scripted.Turn{Text: "The planner is writing."},
		scripted.Turn{ExpectContains: "plan.txt is written.", ToolCalls: []scripted.ToolCall{idCall("stop", "SendMessage", map[string]any{"to": "p1", "message": map[string]string{"type": "shutdown_request", "reason": "done"}})}},
		scripted.Turn{Text: "The planner wrote plan.txt."},
		// The acknowledgement comes with that request or wakes the lead once more.
		scripted.Turn{ExpectContains: "shutdown_response", Text: "The planner wrote plan.txt."},
	)
	m.hold(m.byName["p1"], 0, 2)
	m.hold(m.byName["p1"], 2, 4)
	m.hold(m.byName["p1"], 3, 6)
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--team-process", "--task-list", "crew", "--permission-mode", "acceptEdits", "--output-format", "json", "have a planner write plan.txt")
	if code != 0 || !strings.Contains(out, "The planner wrote plan.txt.") {
		t.Fatalf("exit %d\n%s\n%s\nthe lead's last request:\n%s", code, out, stderr, m.leadSaw())
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "planned\n" {
		t.Fatalf("plan.txt: %q, %v\n%s", data, err, stderr)
	}
	if rem := m.byName["p1"].Remaining(); rem != 0 {
		t.Fatalf("the planner's script has %d turns left", rem)
	}
	if rem := m.lead.Remaining(); rem > 1 {
		t.Fatalf("the lead's script has %d turns left", rem)
	}
	trs, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*", "subagents", "teammate-p1.jsonl"))
	if len(trs) != 1 {
		t.Fatalf("planner transcript: %v", trs)
	}
	if data, _ := os.ReadFile(trs[0]); !strings.Contains(string(data), "is in plan mode: Write would change something") {
		t.Fatalf("the early write was not refused for plan mode:\n%s", data)
	}
	var ack *mailRow
	for _, r := range storedMail(t, e) {
		if r.Kind == mailbox.ShutdownResponse {
			ack = &r
		}
	}
	if ack == nil || ack.RequestID != "shutdown-p1-1" || ack.From != "p1" {
		t.Fatalf("no shutdown_response naming the request: %+v", ack)
	}
	snap := leadTeam(e, "crew")
	if len(snap.Members) != 1 || snap.Members[0].Pid == 0 || snap.Members[0].Status != team.StatusStopped || !strings.Contains(snap.Members[0].Reason, "shut down at the lead's request") {
		t.Fatalf("the planner after its shutdown: %+v", snap.Members)
	}
}

// A teammate process started with isolation "worktree" works in its own worktree and
// branch: what it writes and commits stays off the main checkout, and its shutdown
// acknowledgement gives the lead the branch to merge (nothing is merged).
func TestLeadProcWorktreeTeammate(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["w1"] = m.server(
		scripted.Turn{ExpectContains: "Write out.txt", ToolCalls: []scripted.ToolCall{idCall("w", "Write", map[string]string{"file_path": "out.txt", "content": "out\n"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("g", "Bash", map[string]string{"command": "git add out.txt && " + commitAs + " 'out'"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("tell", "SendMessage", map[string]string{"to": "main", "message": "out.txt is committed."})}},
		scripted.Turn{Text: "done"},
	)
	m.hold(m.byName["w1"], 0, 2)
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "writer", "prompt": "Write out.txt and commit it.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": "w1", "isolation": "worktree"})}},
		scripted.Turn{ExpectContains: "own git worktree", Text: "Waiting."},
		scripted.Turn{ExpectContains: "out.txt is committed.", ToolCalls: []scripted.ToolCall{idCall("stop", "SendMessage", map[string]any{"to": "w1", "message": map[string]string{"type": "shutdown_request"}})}},
		scripted.Turn{Text: "Stopping w1."},
		scripted.Turn{ExpectContains: "git merge ouro/teammate-w1", Text: "w1's branch is ready to merge."},
	)
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--team-process", "--permission-mode", "acceptEdits", "--allowedTools", "Bash(git *)", "--output-format", "json", "write out.txt in a worktree")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if m.byName["w1"].Remaining() != 0 || m.lead.Remaining() > 1 {
		t.Fatalf("scripts left: w1 %d, lead %d\n%s\n%s", m.byName["w1"].Remaining(), m.lead.Remaining(), out, stderr)
	}
	if data, err := os.ReadFile(filepath.Join(e.dir, ".ouro", "worktrees", "teammate-w1", "out.txt")); err != nil || string(data) != "out\n" {
		t.Fatalf("out.txt in w1's worktree: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
		t.Fatal("the teammate wrote into the main checkout")
	}
	if log := wtGit(t, e.dir, "log", "--format=%s", "main"); log != "init\n" {
		t.Errorf("something was merged into main: %q", log)
	}
	if log := wtGit(t, e.dir, "log", "--format=%s", "ouro/teammate-w1"); !strings.Contains(log, "out\n") {
		t.Errorf("w1's commit is not on its branch: %q", log)
	}
	sessions, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*.jsonl"))
	found := false
	for _, p := range sessions {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "git merge ouro/teammate-w1") {
			found = true
		}
	}
	if !found {
		t.Errorf("no transcript names w1's branch to merge (%d sessions)", len(sessions))
	}
}

// Ctrl-C at a lead run with --team-process ends its teammate processes with it: the
// lead exits, and the worker busy in a command has stopped by then, shown stopped
// because the session ended.
func TestLeadProcInterruptStopsItsWorkers(t *testing.T) {
	e := newEnv(t)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["w1"] = m.server(scripted.Turn{ToolCalls: bash("sleep 30")}, scripted.Turn{Text: "slept"})
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "sleeper", "prompt": "Sleep.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": "w1"})}},
		scripted.Turn{Text: "Waiting for w1."},
		scripted.Turn{Text: "unused"},
	)
	e.teamFake(m)
	lead := e.cmd("-p", "--team-process", "--task-list", "crew", "--allowedTools", "Bash(sleep *)", "sleep with a teammate")
	var out bytes.Buffer
	lead.Stdout, lead.Stderr = &out, &out
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	defer lead.Process.Kill()
	pid := 0
	if !waitFor(60*time.Second, func() bool {
		for _, mem := range leadTeam(e, "crew").Members {
			pid = mem.Pid
		}
		return pid > 0 && len(m.byName["w1"].Requests()) >= 1
	}) {
		t.Fatalf("the teammate did not start:\n%s", out.String())
	}
	time.Sleep(300 * time.Millisecond) // its command is running
	if err := lead.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { lead.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the lead did not end after Ctrl-C:\n%s", out.String())
	}
	if pidAlive(pid) {
		t.Fatalf("teammate process %d outlived its interrupted lead", pid)
	}
	snap := leadTeam(e, "crew")
	if len(snap.Members) != 1 || snap.Members[0].Status != team.StatusStopped {
		t.Fatalf("after Ctrl-C: %+v\n%s", snap.Members, out.String())
	}
}

// --team-budget bounds teammate processes too: a worker that spends the team's tokens
// stops before its next model call, and the lead is told.
func TestLeadProcTeamBudgetStopsAWorker(t *testing.T) {
	e := newEnv(t)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["w1"] = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("list", "TaskList", map[string]any{})}},
		scripted.Turn{Text: "over budget: never asked"},
	)
	m.hold(m.byName["w1"], 0, 2)
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "spender", "prompt": "Look at the tasks.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": "w1"})}},
		scripted.Turn{Text: "Waiting for w1."},
		scripted.Turn{ExpectContains: "the team budget ran out", Text: "The budget is spent."},
	)
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--team-process", "--task-list", "crew", "--team-budget", "tokens=1", "spend the budget")
	if code != 0 || !strings.Contains(out, "The budget is spent.") {
		t.Fatalf("exit %d\n%s\n%s\nthe lead's last request:\n%s", code, out, stderr, m.leadSaw())
	}
	if n := len(m.byName["w1"].Requests()); n != 1 {
		t.Fatalf("the worker made %d model requests, want 1 (the budget stops it before the second)", n)
	}
	snap := leadTeam(e, "crew")
	if len(snap.Members) != 1 || snap.Members[0].Status != team.StatusStopped || !strings.Contains(snap.Members[0].Reason, "team budget") {
		t.Fatalf("after the budget: %+v", snap.Members)
	}
}

// In the REPL, a message a teammate process sends the lead is shown as it arrives and
// wakes the idle lead for a turn of its own; quitting the REPL ends the worker.
func TestLeadProcREPLShowsAndWakesOnATeammatesMessage(t *testing.T) {
	e := newEnv(t)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["w1"] = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("hi", "SendMessage", map[string]string{"to": "main", "message": "The tests pass on my side.", "summary": "tests pass"})}},
		scripted.Turn{Text: "told the lead"},
	)
	m.hold(m.byName["w1"], 0, 2) // it speaks once the lead's turn is over
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "tester", "prompt": "Run the tests.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": "w1"})}},
		scripted.Turn{Text: "w1 is on it."},
		scripted.Turn{ExpectContains: "The tests pass on my side.", Text: "Good news from w1."},
	)
	e.teamFake(m)
	c := e.cmd("--team-process", "--task-list", "crew")
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	fmt.Fprintln(stdin, "get w1 to run the tests")
	if !waitFor(60*time.Second, func() bool { return strings.Contains(out.String(), "Good news from w1.") }) {
		t.Fatalf("the lead was not woken by w1's message:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "tests pass") {
		t.Errorf("w1's message was not shown as it arrived:\n%s", out.String())
	}
	pid := 0
	for _, mem := range leadTeam(e, "crew").Members {
		pid = mem.Pid
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the REPL did not end:\n%s", out.String())
	}
	if pid == 0 || pidAlive(pid) {
		t.Fatalf("teammate process %d after the REPL ended", pid)
	}
}

// syncBuffer is a bytes.Buffer safe to write from a process's output and read meanwhile.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Teammate processes message each other: w1's SendMessage to w2 is accepted in w1's
// process (w2 is one of the lead's members) and reaches w2's conversation exactly once.
func TestLeadProcTeammatesMessageEachOther(t *testing.T) {
	e := newEnv(t)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["w1"] = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("hi", "SendMessage", map[string]string{"to": "w2", "message": "The schema changed: re-read it.", "summary": "schema changed"})}},
		scripted.Turn{ExpectContains: "Message sent to w2", Text: "told w2"},
	)
	// The message comes with w2's prompt or after it.
	m.byName["w2"] = m.server(scripted.Turn{Text: "ready"}, scripted.Turn{Text: "noted"})
	m.hold(m.byName["w1"], 0, 2)
	m.hold(m.byName["w2"], 0, 2)
	var spawns []scripted.ToolCall
	for _, n := range []string{"w1", "w2"} {
		spawns = append(spawns, idCall("spawn-"+n, "Agent", map[string]any{"description": n, "prompt": "Stand by.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": n}))
	}
	m.lead = m.server(scripted.Turn{ToolCalls: spawns}, scripted.Turn{Text: "They talk."})
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--team-process", "--task-list", "crew", "have them talk")
	if code != 0 || !strings.Contains(out, "They talk.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if m.byName["w1"].Remaining() != 0 {
		t.Fatalf("w1's message was not sent:\n%s", stderr)
	}
	got := received(t, m.byName["w1"], m.byName["w2"])
	var sent *mailRow
	for _, r := range storedMail(t, e) {
		if r.From == "w1" && r.To == "w2" {
			sent = &r
		}
	}
	if sent == nil || !sent.acked || !got["w2"][sent.ID] {
		t.Fatalf("w1's message to w2: %+v, in w2's conversation: %v", sent, got["w2"])
	}
}
