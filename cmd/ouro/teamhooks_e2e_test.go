//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/task"
)

// addTask adds a task with a description to list, as any process of the team could.
func addTask(t *testing.T, e *env, list, subject, description string) {
	t.Helper()
	ts, err := harness.OpenTaskStore(context.Background(), "", filepath.Join(e.home, ".ouro"))
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	if _, err := task.NewBoard(task.Config{Store: ts, List: list, Holder: "cli"}).Create(context.Background(), subject, description, "", nil); err != nil {
		t.Fatal(err)
	}
}

// hookLog reads what the hooks appended to log, one JSON payload a line.
func hookLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no hook ran (%v)", err)
	}
	return parseLines(t, string(data))
}

// A project's TaskCompleted hook refuses completion until done.txt exists: a teammate
// (a worker process) that marks its task completed first is told why and the task stays
// open; it creates the file, completes it again and the hook lets it through. Its
// TeammateIdle hook then sends it back once to write its report before it goes idle.
// The hooks see Claude Code's fields.
func TestTeamHooksVerifyCompletionAndIdle(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(e.home, "hooks.jsonl")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {
 "TaskCompleted": [{"hooks": [{"type": "command", "command": "cat >> '`+log+`'; echo >> '`+log+`'; test -f done.txt || { echo 'done.txt is missing: create it, then complete the task' >&2; exit 2; }"}]}],
 "TeammateIdle": [{"hooks": [{"type": "command", "command": "cat >> '`+log+`'; echo >> '`+log+`'; test -f report.md || { echo 'write report.md before you stop' >&2; exit 2; }"}]}]}}`)
	addTask(t, e, "crew", "Write done.txt", "Create done.txt")
	doc, docErr, _ := e.run("", "doctor")
	if !strings.Contains(doc, "TaskCompleted ×1, TeammateIdle ×1") || strings.Contains(doc+docErr, "does not know") {
		t.Fatalf("ouro doctor should list the team hooks as loaded:\n%s%s", doc, docErr)
	}
	complete := tcall("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})
	srv := e.fake(
		scripted.Turn{ExpectContains: "You claimed task #1", ToolCalls: []scripted.ToolCall{complete}},
		scripted.Turn{ExpectContains: "done.txt is missing", ToolCalls: bash("touch done.txt")},
		scripted.Turn{ToolCalls: []scripted.ToolCall{complete}},
		scripted.Turn{Text: "Task done."},
		scripted.Turn{ExpectContains: "write report.md before you stop", ToolCalls: bash("touch report.md")},
		scripted.Turn{Text: "Report written."},
	)
	out, err := e.cmd("team", "worker", "--team", "crew", "--name", "w1", "--allowedTools", "Bash(touch *)").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "w1 stopped: no open task remains") {
		t.Fatalf("w1: %v\n%s", err, out)
	}
	if n := srv.Remaining(); n != 0 {
		t.Fatalf("%d scripted turns left unused:\n%s", n, out)
	}
	reqs := srv.Requests()
	if first := string(reqs[1].Body); !strings.Contains(first, "TaskCompleted hook feedback") || !strings.Contains(first, "is not completed") {
		t.Fatalf("the refusal did not reach the model that tried:\n%s", first)
	}
	show, _, _ := e.run("", "tasks", "--list", "crew", "show", "1")
	if !strings.Contains(show, "completed") {
		t.Fatalf("task #1 should be completed once done.txt exists:\n%s", show)
	}
	var completed, idle []map[string]any
	for _, p := range hookLog(t, log) {
		switch p["hook_event_name"] {
		case "TaskCompleted":
			completed = append(completed, p)
		case "TeammateIdle":
			idle = append(idle, p)
		}
	}
	if len(completed) != 2 || len(idle) != 2 {
		t.Fatalf("want 2 TaskCompleted and 2 TeammateIdle runs, got %d and %d", len(completed), len(idle))
	}
	c := completed[0]
	if c["task_id"] != "1" || c["task_subject"] != "Write done.txt" || c["task_description"] != "Create done.txt" || c["teammate_name"] != "w1" || c["team_name"] != "crew" {
		b, _ := json.Marshal(c)
		t.Fatalf("TaskCompleted input lacks Claude Code's fields: %s", b)
	}
	if idle[0]["teammate_name"] != "w1" || idle[0]["team_name"] != "crew" {
		b, _ := json.Marshal(idle[0])
		t.Fatalf("TeammateIdle input lacks Claude Code's fields: %s", b)
	}
}

// A TaskCreated hook that exits 2 rolls the creation back: the task list stays empty and
// the model that created it reads why.
func TestTaskCreatedHookRollsBack(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(e.home, "hooks.jsonl")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {
 "TaskCreated": [{"hooks": [{"type": "command", "command": "cat >> '`+log+`'; echo >> '`+log+`'; echo 'every task needs a description' >&2; exit 2"}]}]}}`)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskCreate", map[string]any{"subject": "Vague", "description": ""})}},
		scripted.Turn{ExpectContains: "every task needs a description", Text: "Understood."},
	)
	out, errOut, code := e.run("", "-p", "plan", "--task-list", "crew")
	if code != 0 || srv.Remaining() != 0 {
		t.Fatalf("exit %d, %d turns left\n%s%s", code, srv.Remaining(), out, errOut)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "The task was not created") {
		t.Fatalf("the model was not told the creation was rolled back:\n%s", body)
	}
	list, _, _ := e.run("", "tasks", "--list", "crew")
	if strings.Contains(list, "Vague") {
		t.Fatalf("the task the hook refused is still listed:\n%s", list)
	}
	p := hookLog(t, log)
	if len(p) != 1 || p[0]["task_id"] != "1" || p[0]["task_subject"] != "Vague" {
		t.Fatalf("TaskCreated input: %v", p)
	}
}

// A worker killed (as by kill -9) after a message is persisted in its transcript but
// before it is acknowledged: restarted under the same name it reads the delivered ids from
// its last transcript, acknowledges the message and does not deliver it a second time.
func TestTeamWorkerRestartDoesNotDeliverTwice(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	addTask(t, e, "crew", "Tidy up", "")
	mail := teamMail(t, e)
	if _, err := mail.Send(ctx, "crew", mailbox.Message{From: "main", To: "w1", Text: "Use tabs, not spaces.", Summary: "tabs"}); err != nil {
		t.Fatal(err)
	}
	srvA, a := e.fakeAlso(scripted.Turn{Text: "never asked"})
	a.vars = append(a.vars, "OURO_TEST_CRASH_AFTER_PERSIST=1")
	out, err := a.cmd("team", "worker", "--team", "crew", "--name", "w1").CombinedOutput()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the first run of w1 should have been killed at the crash point: %v\n%s", err, out)
	}
	if n := len(srvA.Requests()); n != 0 {
		t.Fatalf("the first run reached the model (%d requests): the crash point is after persisting, before the request", n)
	}
	if p, _ := mail.Pending(ctx, "crew", "w1"); len(p) != 1 {
		t.Fatalf("the message should still be unacknowledged after the crash: %+v", p)
	}
	var status struct {
		Members []struct{ Transcript string } `json:"members"`
	}
	data, _ := os.ReadFile(filepath.Join(e.home, ".ouro", "teams", "crew.worker-w1.json"))
	if err := json.Unmarshal(data, &status); err != nil || len(status.Members) != 1 {
		t.Fatalf("w1's status file: %v\n%s", err, data)
	}
	if tr, _ := os.ReadFile(status.Members[0].Transcript); !strings.Contains(string(tr), "Use tabs, not spaces.") {
		t.Fatalf("the message is not in w1's transcript %s:\n%s", status.Members[0].Transcript, tr)
	}

	srvB, b := e.fakeAlso(
		scripted.Turn{ExpectContains: "You claimed task #1", ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})}},
		scripted.Turn{Text: "Tidied."},
	)
	out, err = b.cmd("team", "worker", "--team", "crew", "--name", "w1").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "w1 stopped: no open task remains") {
		t.Fatalf("w1 restarted: %v\n%s", err, out)
	}
	if srvB.Remaining() != 0 {
		t.Fatalf("the restarted w1 did not follow its script:\n%s", out)
	}
	for i, r := range srvB.Requests() {
		if strings.Contains(string(r.Body), "Use tabs, not spaces.") {
			t.Fatalf("request %d of the restarted w1 delivers the message a second time", i)
		}
	}
	if p, _ := mail.Pending(ctx, "crew", "w1"); len(p) != 0 {
		t.Fatalf("the message was not acknowledged after the restart: %+v", p)
	}
}

// blockOn makes task id wait for blocker.
func blockOn(t *testing.T, e *env, list, id, blocker string) {
	t.Helper()
	ts, err := harness.OpenTaskStore(context.Background(), "", filepath.Join(e.home, ".ouro"))
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	if _, err := task.NewBoard(task.Config{Store: ts, List: list, Holder: "cli"}).Update(context.Background(), id, task.Update{AddBlockedBy: []string{blocker}}); err != nil {
		t.Fatal(err)
	}
}

// Two teammates in two worker processes talk: w1 messages w2 by name through the shared
// store, w2 gets it exactly once in its next request; a message to a name nobody has is
// refused with the members listed.
func TestTeammatesMessageAcrossWorkerProcesses(t *testing.T) {
	e := newEnv(t)
	addTask(t, e, "crew", "Build the API", "")
	addTask(t, e, "crew", "Document the API", "")
	blockOn(t, e, "crew", "2", "1")

	// w1 claims #1 first; its model answers its first request only once w2 is running
	// (idle: #2 waits for #1), so that w2 is a member w1 can name.
	w2Status := filepath.Join(e.home, ".ouro", "teams", "crew.worker-w2.json")
	srv1, a := e.fakeGated(func(n int) {
		if n == 0 {
			waitFor(20*time.Second, func() bool { _, err := os.Stat(w2Status); return err == nil })
		}
	},
		scripted.Turn{ExpectContains: "You claimed task #1", ToolCalls: []scripted.ToolCall{tcall("SendMessage", map[string]any{"to": "w3", "message": "hello?"})}},
		scripted.Turn{ExpectContains: "the team is w1, w2", ToolCalls: []scripted.ToolCall{tcall("SendMessage", map[string]any{"to": "w2", "message": "The API is in api.go.", "summary": "api location"})}},
		scripted.Turn{ExpectContains: "sent to w2", ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})}},
		scripted.Turn{Text: "Built."},
	)
	w1 := a.cmd("team", "worker", "--team", "crew", "--name", "w1", "--max-tasks", "1")
	var out1 strings.Builder
	w1.Stdout, w1.Stderr = &out1, &out1
	if err := w1.Start(); err != nil {
		t.Fatal(err)
	}
	defer w1.Process.Kill()
	if !waitFor(20*time.Second, func() bool { return len(srv1.Requests()) > 0 || srv1.Waiting() }) {
		t.Fatal("w1 sent no request")
	}
	srv2, b := e.fakeAlso(
		scripted.Turn{ExpectContains: "The API is in api.go.", Text: "Noted."},
		scripted.Turn{ExpectContains: "You claimed task #2", ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]any{"taskId": "2", "status": "completed"})}},
		scripted.Turn{Text: "Documented."},
	)
	w2 := b.cmd("team", "worker", "--team", "crew", "--name", "w2")
	var out2 strings.Builder
	w2.Stdout, w2.Stderr = &out2, &out2
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	defer w2.Process.Kill()
	if err := w1.Wait(); err != nil || srv1.Remaining() != 0 {
		t.Fatalf("w1: %v, %d turns left\n%s", err, srv1.Remaining(), out1.String())
	}
	done := make(chan error, 1)
	go func() { done <- w2.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out2.String(), "w2 stopped: no open task remains") {
			t.Fatalf("w2: %v\n%s", err, out2.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("w2 did not finish:\n%s", out2.String())
	}
	if srv2.Remaining() != 0 {
		t.Fatalf("w2 left %d turns:\n%s", srv2.Remaining(), out2.String())
	}
	reqs := srv2.Requests()
	if n := strings.Count(string(reqs[len(reqs)-1].Body), "The API is in api.go."); n != 1 {
		t.Fatalf("w1's message is in w2's conversation %d times, want 1", n)
	}
	if p, _ := teamMail(t, e).Pending(context.Background(), "crew", "w2"); len(p) != 0 {
		t.Fatalf("w2's message was not acknowledged: %+v", p)
	}
}

// gatedServer is a fake model whose n-th request (from 0) waits for before(n) first.
type gatedServer struct {
	*fakeserver.Server
	mu      sync.Mutex
	n       int
	waiting bool
	before  func(int)
}

func (g *gatedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	n := g.n
	g.n++
	g.waiting = true
	g.mu.Unlock()
	g.before(n)
	g.mu.Lock()
	g.waiting = false
	g.mu.Unlock()
	g.Server.ServeHTTP(w, r)
}

// Waiting reports whether a request is held by before.
func (g *gatedServer) Waiting() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// fakeGated is fakeAlso with a hold before each request.
func (e *env) fakeGated(before func(int), turns ...scripted.Turn) (*gatedServer, *env) {
	e.t.Helper()
	srv, err := fakeserver.New(&scripted.Script{Turns: turns})
	if err != nil {
		e.t.Fatal(err)
	}
	g := &gatedServer{Server: srv, before: before}
	hs := httptest.NewServer(g)
	e.t.Cleanup(hs.Close)
	other := &env{t: e.t, home: e.home, dir: e.dir, vars: append(slices.Clone(e.vars), "ANTHROPIC_BASE_URL="+hs.URL, "ANTHROPIC_API_KEY=test-key")}
	return g, other
}

// The terminal shows a teammate's message to the lead as it arrives: the lead spawned an
// in-process teammate and went idle; the teammate's message appears on screen and the
// lead answers it, without anyone typing.
func TestREPLShowsTeammateMessagesAsTheyArrive(t *testing.T) {
	e := newRewindEnv(t)
	lead, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{tcall("Agent", map[string]any{"description": "find the bug", "prompt": "Find the bug.", "subagent_type": "general-purpose", "run_in_background": true, "name": "w1"})}},
		{ExpectContains: "Spawned teammate", Text: "Team started."},
		{ExpectContains: "Found it in parse.go line 12.", Text: "Thanks, w1: fixing parse.go next."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	mate, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{tcall("SendMessage", map[string]any{"to": "main", "message": "Found it in parse.go line 12.", "summary": "bug found in parse.go"})}},
		{Text: "Reported."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if teammateRE.Match(body) {
			<-release // the teammate speaks once the lead is idle
			mate.ServeHTTP(w, r)
			return
		}
		lead.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	e.vars = append(e.vars, "ANTHROPIC_BASE_URL="+hs.URL, "ANTHROPIC_API_KEY=test-key")
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	r.typeLine("start a team")
	r.waitFor(m, "Team started.")
	time.Sleep(300 * time.Millisecond) // the turn is over: the lead is idle
	m = r.mark()
	close(release)
	r.waitFor(m, "[w1 → main] bug found in parse.go")
	r.waitFor(m, "Thanks, w1: fixing parse.go next.")
	if lead.Remaining() != 0 || mate.Remaining() != 0 {
		t.Fatalf("scripts left: lead %d, teammate %d\n%s", lead.Remaining(), mate.Remaining(), r.text()[m:])
	}
	reqs := lead.Requests()
	if n := strings.Count(string(reqs[len(reqs)-1].Body), "Found it in parse.go line 12."); n != 1 {
		t.Fatalf("the message is in the lead's conversation %d times, want 1", n)
	}
	r.exit()
}

// An in-process teammate of a lead (alice) and a teammate in a worker process (w1) talk
// both ways by name, each message arriving once.
func TestInProcessTeammateAndWorkerTalk(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	// w1 stays up without work: #1 waits for #2, which someone else holds.
	addTask(t, e, "crew", "Later", "")
	addTask(t, e, "crew", "Held elsewhere", "")
	blockOn(t, e, "crew", "1", "2")
	ts, err := harness.OpenTaskStore(ctx, "", filepath.Join(e.home, ".ouro"))
	if err != nil {
		t.Fatal(err)
	}
	owner, busy := "someone", task.InProgress
	_, err = task.NewBoard(task.Config{Store: ts, List: "crew", Holder: "cli"}).Update(ctx, "2", task.Update{Owner: &owner, Status: &busy})
	ts.Close()
	if err != nil {
		t.Fatal(err)
	}

	srvW, w := e.fakeAlso(
		scripted.Turn{ExpectContains: "Schema is in db.sql.", ToolCalls: []scripted.ToolCall{tcall("SendMessage", map[string]any{"to": "alice", "message": "Thanks alice, using it."})}},
		scripted.Turn{ExpectContains: "sent to alice", Text: "Replied."},
	)
	w1 := w.cmd("team", "worker", "--team", "crew", "--name", "w1")
	var outW strings.Builder
	w1.Stdout, w1.Stderr = &outW, &outW
	if err := w1.Start(); err != nil {
		t.Fatal(err)
	}
	defer w1.Process.Kill()
	if !waitFor(20*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(e.home, ".ouro", "teams", "crew.worker-w1.json"))
		return err == nil
	}) {
		t.Fatal("w1 wrote no status file")
	}

	alice, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{tcall("SendMessage", map[string]any{"to": "w1", "message": "Schema is in db.sql.", "summary": "schema"})}},
		{ExpectContains: "sent to w1", Text: "Told w1."},
		{ExpectContains: "Thanks alice, using it.", Text: "Good."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	lead, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{tcall("Agent", map[string]any{"description": "schema", "prompt": "Tell w1 where the schema is.", "subagent_type": "general-purpose", "run_in_background": true, "name": "alice"})}},
		{ExpectContains: "Spawned teammate", Text: "Team at work."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if teammateRE.Match(body) {
			alice.ServeHTTP(rw, r)
			return
		}
		if len(lead.Requests()) == 1 { // the lead ends its turn once alice has w1's reply
			waitFor(20*time.Second, func() bool { return len(alice.Requests()) >= 3 })
		}
		lead.ServeHTTP(rw, r)
	}))
	t.Cleanup(hs.Close)
	l := &env{t: t, home: e.home, dir: e.dir, vars: append(slices.Clone(e.vars), "ANTHROPIC_BASE_URL="+hs.URL, "ANTHROPIC_API_KEY=test-key")}
	out, errOut, code := l.run("", "-p", "start", "--task-list", "crew")
	if code != 0 || lead.Remaining() != 0 || alice.Remaining() != 0 {
		t.Fatalf("lead: exit %d, lead %d and alice %d turns left\n%s%s\nw1:\n%s", code, lead.Remaining(), alice.Remaining(), out, errOut, outW.String())
	}
	if srvW.Remaining() != 0 {
		t.Fatalf("w1 left %d turns:\n%s", srvW.Remaining(), outW.String())
	}
	last := func(rs []fakeserver.Recorded) string { return string(rs[len(rs)-1].Body) }
	if n := strings.Count(last(srvW.Requests()), "Schema is in db.sql."); n != 1 {
		t.Fatalf("alice's message is in w1's conversation %d times", n)
	}
	if n := strings.Count(last(alice.Requests()), "Thanks alice, using it."); n != 1 {
		t.Fatalf("w1's reply is in alice's conversation %d times", n)
	}
	mail := teamMail(t, e)
	for _, who := range []string{"w1", "alice"} {
		if p, _ := mail.Pending(ctx, "crew", who); len(p) != 0 {
			t.Fatalf("%s's messages were not acknowledged: %+v", who, p)
		}
	}
}

// Two worker processes cannot answer to one name at once (they would take each other's
// messages); once the first is killed (-9) the name is free again.
func TestTeamWorkerNameIsHeldWhileItRuns(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	addTask(t, e, "crew", "Later", "")
	addTask(t, e, "crew", "Held elsewhere", "")
	blockOn(t, e, "crew", "1", "2")
	ts, err := harness.OpenTaskStore(ctx, "", filepath.Join(e.home, ".ouro"))
	if err != nil {
		t.Fatal(err)
	}
	owner, busy := "someone", task.InProgress
	_, err = task.NewBoard(task.Config{Store: ts, List: "crew", Holder: "cli"}).Update(ctx, "2", task.Update{Owner: &owner, Status: &busy})
	ts.Close()
	if err != nil {
		t.Fatal(err)
	}
	e.fake(scripted.Turn{Text: "unused"})
	w1 := e.cmd("team", "worker", "--team", "crew", "--name", "w1")
	if err := w1.Start(); err != nil {
		t.Fatal(err)
	}
	defer w1.Process.Kill()
	if !waitFor(20*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(e.home, ".ouro", "teams", "crew.worker-w1.json"))
		return err == nil
	}) {
		t.Fatal("w1 wrote no status file")
	}
	_, errOut, code := e.run("", "team", "worker", "--team", "crew", "--name", "w1")
	if code == 0 || !strings.Contains(errOut, `a worker named "w1" of team crew is already running`) {
		t.Fatalf("a second w1 should be refused: exit %d\n%s", code, errOut)
	}
	_ = w1.Process.Kill()
	_ = w1.Wait()
	second := e.cmd("team", "worker", "--team", "crew", "--name", "w1")
	var out strings.Builder
	second.Stdout, second.Stderr = &out, &out
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- second.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("w1 could not start again after the first was killed: %v\n%s", err, out.String())
	case <-time.After(1500 * time.Millisecond):
		_ = second.Process.Kill()
		<-exited
	}
}

// The same rule for an in-process teammate of a headless lead: its completion is refused
// until done.txt exists; once it is, the lead hears what was completed.
func TestTaskCompletedHookInProcessTeammate(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {
 "TaskCompleted": [{"hooks": [{"type": "command", "command": "test -f done.txt || { echo 'done.txt is missing' >&2; exit 2; }"}]}]}}`)
	addTask(t, e, "crew", "Write done.txt", "")
	complete := tcall("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})
	m := &teamModel{t: t, byName: map[string]*fakeserver.Server{}, byTask: map[string]*fakeserver.Server{}}
	m.lead = m.server(
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("Agent", map[string]any{"description": "worker", "prompt": "Join the team.", "subagent_type": "general-purpose", "run_in_background": true, "name": "w1"})}},
		scripted.Turn{ExpectContains: "Spawned teammate", Text: "Waiting for the team."},
		scripted.Turn{ExpectContains: "Completed task #1: Write done.txt.", Text: "All done."},
	)
	m.byName["w1"] = m.server(scripted.Turn{Text: "ready"})
	m.byTask["1"] = m.server(
		scripted.Turn{ExpectContains: "You claimed task #1", ToolCalls: []scripted.ToolCall{complete}},
		scripted.Turn{ExpectContains: "done.txt is missing", ToolCalls: bash("touch done.txt")},
		scripted.Turn{ToolCalls: []scripted.ToolCall{complete}},
		scripted.Turn{Text: "Done."},
	)
	e.teamFake(m)
	out, errOut, code := e.run("", "-p", "go", "--task-list", "crew", "--allowedTools", "Bash(touch *)")
	if code != 0 || m.lead.Remaining() != 0 || m.byTask["1"].Remaining() != 0 {
		t.Fatalf("exit %d; lead %d, task %d turns left\n%s%s", code, m.lead.Remaining(), m.byTask["1"].Remaining(), out, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "done.txt")); err != nil {
		t.Fatal("done.txt was not written")
	}
	show, _, _ := e.run("", "tasks", "--list", "crew", "show", "1")
	if !strings.Contains(show, "completed") {
		t.Fatalf("task #1 should be completed:\n%s", show)
	}
}
