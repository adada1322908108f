package team_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/team"
)

// Every way Send refuses a message leaves the team usable: the refusal is the one
// expected, and the team's lock is free afterwards (Snapshot takes it; a refusal that
// kept it would hang here), so the next message goes through.
func TestSendRefusalsLeaveTheTeamUsable(t *testing.T) {
	f := newFixture(t, scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "ready"}}}))
	f.spawn(t, "ann", "general-purpose", "wait for messages")
	ctx := context.Background()
	no := false
	for _, c := range []struct {
		m    mailbox.Message
		want string
	}{
		{mailbox.Message{From: team.Lead, To: "nobody", Text: "x"}, `there is no teammate "nobody"`},
		{mailbox.Message{From: "ann", To: "ann", Text: "x"}, "a message to yourself"},
		{mailbox.Message{From: "ann", To: "bob", Kind: mailbox.ShutdownRequest}, `there is no teammate "bob"`},
		{mailbox.Message{From: "ann", To: team.Lead, Kind: mailbox.ShutdownRequest}, "only the lead may send"},
		{mailbox.Message{From: team.Lead, To: team.Lead, Kind: mailbox.ShutdownRequest}, "a message to yourself"},
		{mailbox.Message{From: team.Lead, To: "ann", Kind: mailbox.PlanApprovalResponse, RequestID: "plan-ann-1", Approve: &no}, "has no plan waiting"},
		{mailbox.Message{From: team.Lead, To: "ann", Kind: "bogus"}, `message type "bogus"`},
	} {
		_, err := f.team.Send(ctx, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error saying %q", c.m, err, c.want)
		}
		if s := f.team.Snapshot(); len(s.Members) != 1 {
			t.Fatalf("after %+v: members %+v", c.m, s.Members)
		}
	}
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "ann", Text: "hello"}); err != nil {
		t.Fatalf("a plain message after the refusals: %v", err)
	}
}
