package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	mailsql "github.com/ouroagent/ouro/mailbox/sqlitestore"
)

// teamMail opens the env's mailbox store (state.db), as a lead in another process would.
func teamMail(t *testing.T, e *env) *mailsql.Store {
	t.Helper()
	ms, err := mailsql.Open(filepath.Join(e.home, ".ouro", "state.db"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	return ms
}

// A teammate running as its own process is killed (-9) in the middle of a task: its lease
// runs out, a second worker process claims the task, completes it and reports to the
// lead; the message the lead sent the second worker reaches its conversation exactly once
// and is acknowledged.
func TestTeamWorkerKilledMidTaskAnotherFinishes(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "OURO_TASK_LEASE=1s")
	if out, errOut, code := e.run("", "tasks", "--list", "crew", "add", "Write the parser"); code != 0 {
		t.Fatalf("tasks add: exit %d\n%s%s", code, out, errOut)
	}
	ctx := context.Background()
	mail := teamMail(t, e)

	// w1 claims #1 and hangs in a command; then it is killed.
	srvA, a := e.fakeAlso(scripted.Turn{ExpectContains: "You claimed task #1", ToolCalls: bash("sleep 20")})
	w1 := a.cmd("team", "worker", "--team", "crew", "--name", "w1", "--allowedTools", "Bash(sleep *)")
	if err := w1.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(20*time.Second, func() bool { return len(srvA.Requests()) >= 1 }) {
		t.Fatal("w1 sent no request")
	}
	time.Sleep(300 * time.Millisecond) // the command is running
	if err := w1.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = w1.Wait()
	out, _, _ := e.run("", "tasks", "--list", "crew", "show", "1")
	if !strings.Contains(out, "w1") {
		t.Fatalf("task #1 should still be w1's right after the kill:\n%s", out)
	}

	if _, err := mail.Send(ctx, "crew", mailbox.Message{From: "main", To: "w2", Text: "Use the new lexer.", Summary: "lexer"}); err != nil {
		t.Fatal(err)
	}
	srvB, b := e.fakeAlso(
		scripted.Turn{ExpectContains: "Use the new lexer.", Text: "Noted."},
		scripted.Turn{ExpectContains: "You claimed task #1", ToolCalls: []scripted.ToolCall{
			tcall("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})}},
		scripted.Turn{Text: "Parser written."},
	)
	c := b.cmd("team", "worker", "--team", "crew", "--name", "w2")
	outB, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("w2: %v\n%s", err, outB)
	}
	if !strings.Contains(string(outB), "w2 stopped: no open task remains") {
		t.Fatalf("w2 should stop once nothing remains:\n%s", outB)
	}
	if n := srvB.Remaining(); n != 0 {
		t.Fatalf("w2 left %d scripted turns unused:\n%s", n, outB)
	}
	reqs := srvB.Requests()
	if n := strings.Count(string(reqs[len(reqs)-1].Body), "Use the new lexer."); n != 1 {
		t.Fatalf("the lead's message is in w2's conversation %d times, want 1", n)
	}
	out, _, _ = e.run("", "tasks", "--list", "crew", "show", "1")
	if !strings.Contains(out, "completed") || !strings.Contains(out, "w2") {
		t.Fatalf("task #1 should be completed by w2:\n%s", out)
	}
	if p, _ := mail.Pending(ctx, "crew", "w2"); len(p) != 0 {
		t.Fatalf("w2's message was not acknowledged: %+v", p)
	}
	lead, _ := mail.Pending(ctx, "crew", "main")
	var got []string
	for _, m := range lead {
		got = append(got, m.From+": "+m.Text)
	}
	if !strings.Contains(strings.Join(got, "\n"), "w2: Completed task #1: Write the parser.") {
		t.Fatalf("the lead got no completion report from w2: %q", got)
	}
}
