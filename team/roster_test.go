package team_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// In-process teammates message each other by name, exactly once; a teammate in another
// process (named by the roster) is reached through the store; a name nobody has is refused
// with every member listed, and the roster cannot smuggle in the lead or a bad name.
func TestTeammatesMessageEachOther(t *testing.T) {
	r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{
		"a": scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{ToolCalls: []scripted.ToolCall{call("s1", "SendMessage", map[string]string{"to": "ghost", "message": "hi"})}},
			{ExpectContains: "the team is a, b, w9, and", ToolCalls: []scripted.ToolCall{
				call("s2", "SendMessage", map[string]string{"to": "b", "message": "Schema is in db.sql."}),
				call("s3", "SendMessage", map[string]string{"to": "w9", "message": "Hello, other process."})}},
			{Text: "told them"},
		}}),
		"b": scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{Text: "waiting"},
			{ExpectContains: "Schema is in db.sql.", Text: "got it"},
		}}),
	}}
	mail := mailbox.NewMemStore()
	var toLead []mailbox.Message
	reg := tool.NewRegistry()
	agents, _ := subagent.NewTool(subagent.Config{Provider: r, Model: "scripted", Tools: reg})
	tm := team.New(team.Config{Name: "list", Holder: "lead", Agents: agents, Poll: 10 * time.Millisecond,
		Open: func() (mailbox.Store, task.Store, time.Duration, error) {
			return mail, task.NewMemStore(), time.Minute, nil
		},
		Roster:    func(context.Context) []string { return []string{"w9", "main", "MAIN", "../x", "a"} },
		OnMessage: func(m mailbox.Message) { toLead = append(toLead, m) },
		Warn:      func(s string) { t.Log("warn: " + s) }})
	agents.SetSpawner(tm)
	t.Cleanup(tm.Close)
	f := &fixture{team: tm, agent: agents}
	f.spawn(t, "b", "general-purpose", "Wait for messages.")
	waitFor(t, "b idle", func() bool { return r.byName["b"].Remaining() == 1 })
	f.spawn(t, "a", "general-purpose", "Tell b and w9.")
	waitFor(t, "b to get a's message", func() bool { return r.byName["b"].Remaining() == 0 && r.byName["a"].Remaining() == 0 })
	ctx := context.Background()
	waitFor(t, "b's message acknowledged", func() bool { p, _ := mail.Pending(ctx, "list", "b"); return len(p) == 0 })
	reqs := r.byName["b"].Requests()
	if n := strings.Count(reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Content[0].Text, "Schema is in db.sql."); n != 1 {
		t.Fatalf("b got the message %d times", n)
	}
	p, _ := mail.Pending(ctx, "list", "w9")
	if len(p) != 1 || p[0].From != "a" || p[0].Text != "Hello, other process." {
		t.Fatalf("w9's mailbox: %+v", p)
	}
	if len(toLead) != 0 {
		t.Fatalf("a message to a teammate reached the lead's screen: %+v", toLead)
	}
	if _, err := tm.Send(ctx, mailbox.Message{From: "a", To: "../x", Text: "x"}); err == nil {
		t.Fatal("a bad name from the roster was accepted")
	}
}
