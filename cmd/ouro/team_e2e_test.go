//go:build unix

package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/session"
	_ "modernc.org/sqlite"
)

// teamModel is the fake model of a team: the lead has a script, each teammate one, and
// each task of the shared list one (which teammate claims which task is a race, so the
// script follows the task). A request goes to the script of the last task its
// conversation claimed while that script has turns left, else to its agent's.
type teamModel struct {
	t      *testing.T
	mu     sync.Mutex
	lead   *fakeserver.Server
	byName map[string]*fakeserver.Server
	byTask map[string]*fakeserver.Server
	// after holds a step of a teammate's script (by its index) until the lead has sent
	// that many requests: a message then reaches the lead when it waits, not with
	// whichever request it happens to send next, so the lead's script is deterministic.
	after map[*fakeserver.Server]map[int]int
}

func (m *teamModel) hold(srv *fakeserver.Server, step, leadRequests int) {
	if m.after == nil {
		m.after = map[*fakeserver.Server]map[int]int{}
	}
	if m.after[srv] == nil {
		m.after[srv] = map[int]int{}
	}
	m.after[srv][step] = leadRequests
}

func (m *teamModel) wait(srv *fakeserver.Server) {
	m.mu.Lock()
	need := m.after[srv][len(srv.Requests())]
	m.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for len(m.lead.Requests()) < need && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

var (
	teammateRE = regexp.MustCompile(`You are teammate \\"([^\\"]+)\\"`)
	claimRE    = regexp.MustCompile(`You claimed task #(\d+)`)
)

func (m *teamModel) server(turns ...scripted.Turn) *fakeserver.Server {
	srv, err := fakeserver.New(&scripted.Script{Turns: turns})
	if err != nil {
		m.t.Fatal(err)
	}
	return srv
}

func (m *teamModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	m.mu.Lock()
	srv := m.lead
	if sm := teammateRE.FindSubmatch(body); sm == nil && bytes.Contains(body, []byte("You are a subagent of ouro")) {
		srv = m.byName["subagent"]
	} else if sm != nil {
		srv = m.byName[string(sm[1])]
		if all := claimRE.FindAllSubmatch(body, -1); all != nil {
			if ts := m.byTask[string(all[len(all)-1][1])]; ts != nil && ts.Remaining() > 0 {
				srv = ts
			}
		}
	}
	m.mu.Unlock()
	if srv == nil {
		http.Error(w, "teamModel: no script for this request", http.StatusBadRequest)
		return
	}
	if srv != m.lead {
		m.wait(srv)
	}
	srv.ServeHTTP(w, r)
}

func (e *env) teamFake(m *teamModel) {
	hs := httptest.NewServer(m)
	e.t.Cleanup(hs.Close)
	e.vars = append(e.vars, "ANTHROPIC_BASE_URL="+hs.URL, "ANTHROPIC_API_KEY=test-key")
}

func idCall(id, name string, in any) scripted.ToolCall {
	c := tcall(name, in)
	c.ID = id
	return c
}

// A lead and three teammates complete a six-task graph through the binary: every task is
// claimed once, each completion reports what it unblocked, every message reaches its
// recipient's transcript exactly once, the lead's message to a teammate gets a reply, and
// shutdown is acknowledged by request id.
func TestTeamCompletesATaskGraph(t *testing.T) {
	e := newEnv(t)
	wtRepo(t, e)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	var creates, links, spawns []scripted.ToolCall
	for i := 1; i <= 6; i++ {
		creates = append(creates, idCall(fmt.Sprintf("create%d", i), "TaskCreate", map[string]string{"subject": fmt.Sprintf("part %d", i), "description": fmt.Sprintf("write out/%d.txt", i)}))
		rel := fmt.Sprintf("out/%d.txt", i)
		m.byTask[fmt.Sprint(i)] = m.server(
			scripted.Turn{ToolCalls: []scripted.ToolCall{idCall(fmt.Sprintf("w%d", i), "Write", map[string]string{"file_path": rel, "content": fmt.Sprintf("part %d\n", i)})}},
			scripted.Turn{ToolCalls: []scripted.ToolCall{idCall(fmt.Sprintf("v%d", i), "Read", map[string]string{"file_path": rel})}},
			scripted.Turn{ExpectContains: fmt.Sprintf("part %d", i), ToolCalls: []scripted.ToolCall{idCall(fmt.Sprintf("g%d", i), "Bash", map[string]string{"command": "git add out && " + commitAs + fmt.Sprintf(" 'part %d'", i)})}},
			scripted.Turn{ToolCalls: []scripted.ToolCall{idCall(fmt.Sprintf("done%d", i), "TaskUpdate", map[string]string{"taskId": fmt.Sprint(i), "status": "completed"})}},
			scripted.Turn{Text: fmt.Sprintf("part %d written, checked and committed", i)},
		)
	}
	// 1 → 2 → 4, 1 → 3 → 5, 4 and 5 → 6.
	for i, by := range map[int][]string{2: {"1"}, 3: {"1"}, 4: {"2"}, 5: {"3"}, 6: {"4", "5"}} {
		links = append(links, idCall(fmt.Sprintf("link%d", i), "TaskUpdate", map[string]any{"taskId": fmt.Sprint(i), "addBlockedBy": by}))
	}
	for _, n := range []string{"w1", "w2", "w3"} {
		spawns = append(spawns, idCall("spawn-"+n, "Agent", map[string]any{"description": "teammate " + n, "prompt": "You write parts of the output.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": n, "isolation": "worktree"}))
		m.byName[n] = m.server(scripted.Turn{Text: "ready"})
	}
	m.byName["w1"] = m.server(scripted.Turn{Text: "ready"},
		scripted.Turn{ExpectContains: "Which part was hardest?", ToolCalls: []scripted.ToolCall{idCall("reply", "SendMessage", map[string]string{"to": "main", "message": "None: all parts were plain writes.", "summary": "none was hard"})}},
		scripted.Turn{Text: "replied"})
	shutdowns := []scripted.ToolCall{}
	for _, n := range []string{"w1", "w2", "w3"} {
		shutdowns = append(shutdowns, idCall("stop-"+n, "SendMessage", map[string]any{"to": n, "message": map[string]string{"type": "shutdown_request", "reason": "all done"}}))
	}
	m.lead = m.server(
		scripted.Turn{ToolCalls: creates},
		scripted.Turn{ToolCalls: links},
		scripted.Turn{ToolCalls: spawns},
		scripted.Turn{ExpectContains: `Spawned teammate "w3"`, Text: "The team is working."},
		// The lead wakes once the team is idle, with every completion report at once.
		scripted.Turn{ExpectContains: "Completed task #6: part 6", ToolCalls: []scripted.ToolCall{idCall("ask", "SendMessage", map[string]string{"to": "w1", "message": "Which part was hardest?", "summary": "question"})}},
		scripted.Turn{ExpectContains: "Message sent to w1", Text: "Waiting for w1."},
		scripted.Turn{ExpectContains: "None: all parts were plain writes.", ToolCalls: shutdowns},
		// The acknowledgements arrive with the next request or, if the teammates are
		// slower, wake the lead once more.
		scripted.Turn{Text: "All six parts are written."},
		scripted.Turn{ExpectContains: "shutdown_response", Text: "All six parts are written."},
	)
	// The teammates start once the lead waits (its 4th request), w1 answers the question
	// once the lead waits again (its 6th).
	for _, n := range []string{"w1", "w2", "w3"} {
		m.hold(m.byName[n], 0, 4)
	}
	m.hold(m.byName["w1"], 1, 6)
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--permission-mode", "acceptEdits", "--allowedTools", "Bash(git *)", "--output-format", "json", "write the six parts with a team")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "All six parts are written.") {
		t.Fatalf("result: %s\n%s", out, stderr)
	}
	// Each teammate worked in its own worktree: every part is committed on exactly one
	// teammate's branch, nothing reached the main checkout, nothing was merged.
	if _, err := os.Stat(filepath.Join(e.dir, "out")); err == nil {
		t.Error("a teammate wrote into the main checkout")
	}
	if log := wtGit(t, e.dir, "log", "--format=%s", "main"); log != "init\n" {
		t.Errorf("something was merged into main: %q", log)
	}
	for i := 1; i <= 6; i++ {
		var on []string
		for _, n := range []string{"w1", "w2", "w3"} {
			if data, err := os.ReadFile(filepath.Join(e.dir, ".ouro", "worktrees", "teammate-"+n, "out", fmt.Sprintf("%d.txt", i))); err == nil && string(data) == fmt.Sprintf("part %d\n", i) {
				on = append(on, n)
				if log := wtGit(t, e.dir, "log", "--format=%s", "ouro/teammate-"+n); !strings.Contains(log, fmt.Sprintf("part %d\n", i)) {
					t.Errorf("part %d is not committed on ouro/teammate-%s: %q", i, n, log)
				}
			}
		}
		if len(on) != 1 {
			t.Errorf("out/%d.txt is in the worktrees of %v, want exactly one", i, on)
		}
		if rem := m.byTask[fmt.Sprint(i)].Remaining(); rem != 0 {
			t.Errorf("task #%d's script has %d turns left", i, rem)
		}
	}
	if rem := m.lead.Remaining(); rem > 1 {
		t.Errorf("the lead's script has %d turns left", rem)
	}

	// Transcripts: who claimed what, and which message ids each agent's conversation holds.
	sessions, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions: %v", sessions)
	}
	received := map[string][]string{} // agent → message ids in its conversation
	claims := map[string]int{}
	load := func(path, who string) {
		tr, err := session.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		msgs, _ := tr.Messages()
		received[who] = append(received[who], mailbox.IDsIn(msgs)...)
		for _, en := range tr.Entries {
			if en.Type == "team_claim" {
				var c map[string]string
				json.Unmarshal(en.Data, &c)
				claims[c["task"]]++
			}
		}
	}
	load(sessions[0], "main")
	// The lead was given each working teammate's branch for merging.
	if lead, err := os.ReadFile(sessions[0]); err != nil || !strings.Contains(string(lead), "git merge ouro/teammate-") {
		t.Errorf("the lead's transcript names no branch to merge (%v)", err)
	}
	teammates, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(sessions[0], ".jsonl"), "subagents", "teammate-*.jsonl"))
	if len(teammates) != 3 {
		t.Fatalf("teammate transcripts: %v", teammates)
	}
	for _, p := range teammates {
		load(p, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "teammate-"), ".jsonl"))
	}
	for i := 1; i <= 6; i++ {
		if claims[fmt.Sprint(i)] != 1 {
			t.Errorf("task #%d was claimed %d times: %v", i, claims[fmt.Sprint(i)], claims)
		}
	}
	// Every message the store holds reached its recipient's conversation exactly once
	// (a shutdown request reaches the teammate's harness, not its model).
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
	n := 0
	for rows.Next() {
		var data []byte
		var acked int
		rows.Scan(&data, &acked)
		var msg mailbox.Message
		json.Unmarshal(data, &msg)
		n++
		if acked != 1 {
			t.Errorf("message %s (%s → %s) was never acknowledged", msg.ID, msg.From, msg.To)
		}
		if msg.Kind == mailbox.ShutdownRequest {
			continue
		}
		count := 0
		for _, id := range received[msg.To] {
			if id == msg.ID {
				count++
			}
		}
		if count != 1 {
			t.Errorf("message %s (%s → %s: %.60q) is in %s's transcript %d times", msg.ID, msg.From, msg.To, msg.Text, msg.To, count)
		}
	}
	// 6 completion reports, a question and its answer, 3 shutdown requests and 3 answers.
	if n != 14 {
		t.Errorf("%d messages stored, want 14", n)
	}
	// ouro team shows the members, stopped, with their tokens.
	show, errOut, code := e.run("", "team")
	if code != 0 || !strings.Contains(show, "w1") || !strings.Contains(show, "stopped") || !strings.Contains(show, "w3") {
		t.Errorf("ouro team (exit %d):\n%s\n%s", code, show, errOut)
	}
}

// A teammate started in plan mode cannot write before the lead approves its plan: its
// Write is refused, its plan reaches the lead as a plan_approval_request with an id, the
// lead's rejection carries the reason, and only after the approval does the write happen.
func TestTeamPlanModeTeammateWaitsForApproval(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.dir, ".claude", "agents", "planner.md"), []byte(`---
name: planner
description: Plans before it changes anything
permissionMode: plan
---
You plan carefully, then do the work.
`), 0o644)
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
	// A message may arrive with the request after a tool call or wake the lead later;
	// a plan left unanswered sends the lead back: either way the next turn sees its id.
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "planner", "prompt": "Write plan.txt.",
			"subagent_type": "planner", "run_in_background": true, "name": "p1"})}},
		scripted.Turn{Text: "The planner is planning."},
		scripted.Turn{ExpectContains: "plan-p1-1", ToolCalls: []scripted.ToolCall{respond("plan-p1-1", false, "say what goes in it")}},
		scripted.Turn{Text: "Waiting for the revised plan."},
		scripted.Turn{ExpectContains: "plan-p1-2", ToolCalls: []scripted.ToolCall{respond("plan-p1-2", true, "")}},
		scripted.Turn{Text: "The planner wrote plan.txt."},
		scripted.Turn{ExpectContains: "plan.txt is written.", Text: "The planner wrote plan.txt."},
	)
	// A teammate waiting for its plan's answer makes no model call: its next run starts
	// with the answer. Each of its runs starts once the lead waits for it.
	m.hold(m.byName["p1"], 0, 2)
	m.hold(m.byName["p1"], 2, 4)
	m.hold(m.byName["p1"], 3, 6)
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--permission-mode", "acceptEdits", "--output-format", "json", "have a planner write plan.txt")
	if code != 0 || !strings.Contains(out, "The planner wrote plan.txt.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "planned\n" {
		sessions, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*", "subagents", "*.jsonl"))
		var trs []string
		for _, p := range sessions {
			d, _ := os.ReadFile(p)
			trs = append(trs, string(d))
		}
		t.Fatalf("plan.txt: %q, %v\n%s\n%s\n%s", data, err, out, stderr, strings.Join(trs, "\n"))
	}
	if rem := m.byName["p1"].Remaining(); rem != 0 {
		t.Fatalf("the planner's script has %d turns left", rem)
	}
	if rem := m.lead.Remaining(); rem > 1 {
		t.Fatalf("the lead's script has %d turns left", rem)
	}
	// The early write was refused, not run: the planner's transcript says so.
	tr, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*", "subagents", "teammate-p1.jsonl"))
	if len(tr) != 1 {
		t.Fatalf("planner transcript: %v", tr)
	}
	data, _ := os.ReadFile(tr[0])
	if !strings.Contains(string(data), "is in plan mode: Write would change something") {
		t.Fatalf("the early write was not refused for plan mode:\n%s", data)
	}
}

// Teammates never prompt anyone: headless, a teammate's permission ask is refused and
// the lead is told, with the teammate's name.
func TestTeamHeadlessPermissionAskIsReportedToTheLead(t *testing.T) {
	e := newEnv(t)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.byName["w1"] = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("b1", "Bash", map[string]string{"command": "touch made-by-w1"})}},
		scripted.Turn{ExpectContains: "Permission denied", Text: "I could not create the file."},
	)
	m.hold(m.byName["w1"], 0, 2)
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("spawn", "Agent", map[string]any{"description": "w1", "prompt": "Create made-by-w1.",
			"subagent_type": "general-purpose", "run_in_background": true, "name": "w1"})}},
		scripted.Turn{Text: "Waiting for w1."},
		scripted.Turn{ExpectContains: "w1 was refused permission for Bash: headless run", Text: "w1 needs Bash allowed."},
	)
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--output-format", "stream-json", "--verbose", "have w1 create a file")
	if code != 0 || !strings.Contains(out, "w1 needs Bash allowed.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// stream-json tags the teammate's events with its name.
	tagged := 0
	for _, l := range parseLines(t, out) {
		if l["agent"] == "w1" {
			tagged++
			if l["type"] == "assistant" && strings.Contains(fmt.Sprint(l["message"]), "main:") {
				t.Errorf("a teammate's line carries the lead's content: %v", l)
			}
		}
	}
	if tagged < 3 {
		t.Errorf("%d stream-json lines are tagged agent w1, want its prompt, its Bash call, the refusal and its answer\n%s", tagged, out)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "made-by-w1")); err == nil {
		t.Fatal("the refused command ran")
	}
}

// A message to a background agent that has finished continues it: it goes on with its
// conversation as a new background task, and its report arrives as a notification.
func TestTeamMessageContinuesAFinishedBackgroundAgent(t *testing.T) {
	e := newEnv(t)
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	child := m.server(
		scripted.Turn{Text: "one"},
		scripted.Turn{ExpectContains: "Now say two.", Text: "two"},
	)
	m.byName["subagent"] = child
	m.hold(child, 0, 2)
	m.hold(child, 1, 4)
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("bga", "Agent", map[string]any{"description": "counter", "prompt": "Say one.",
			"subagent_type": "general-purpose", "run_in_background": true})}},
		scripted.Turn{Text: "Waiting for the counter."},
		scripted.Turn{ExpectContains: "<result>one", ToolCalls: []scripted.ToolCall{idCall("more", "SendMessage", map[string]string{"to": "bga", "message": "Now say two."})}},
		scripted.Turn{ExpectContains: "continues with your message", Text: "Waiting again."},
		scripted.Turn{ExpectContains: "<result>two", Text: "The counter said one, then two."},
	)
	e.teamFake(m)
	out, stderr, code := e.run("", "-p", "--output-format", "json", "count with a background agent")
	if code != 0 || !strings.Contains(out, "The counter said one, then two.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	reqs := child.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the agent got %d requests", len(reqs))
	}
	var texts []string
	for _, msg := range reqs[1].Messages {
		texts = append(texts, msg.Text())
	}
	if joined := strings.Join(texts, "|"); !strings.Contains(joined, "Say one.|one|") {
		t.Fatalf("the continued agent did not keep its conversation: %q", joined)
	}
}

// leadSaw is the last request the lead sent (the tool results it had seen), for a
// failure message: when a lead process ends early, it says what the Agent tool answered.
func (m *teamModel) leadSaw() string {
	reqs := m.lead.Requests()
	if len(reqs) == 0 {
		return "(the lead sent no request)"
	}
	body := string(reqs[len(reqs)-1].Body)
	if len(body) > 4000 {
		body = "…" + body[len(body)-4000:]
	}
	return body
}
