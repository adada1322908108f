package team_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
)

// gate holds a provider's request number at (from 0) until open is closed.
type gate struct {
	llm.Provider
	at   int
	open chan struct{}
	mu   sync.Mutex
	n    int
}

func (g *gate) Complete(ctx context.Context, req *llm.Request, on llm.StreamFunc) (*llm.Response, error) {
	g.mu.Lock()
	n := g.n
	g.n++
	g.mu.Unlock()
	if n == g.at {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Provider.Complete(ctx, req, on)
}

func texts(ss ...string) []scripted.Turn {
	var ts []scripted.Turn
	for _, s := range ss {
		ts = append(ts, scripted.Turn{Text: s})
	}
	return ts
}

// A task nobody works on any more is given back: a teammate whose run ends (after the
// reminders) with a task still claimed, the one it was given or one it claimed itself
// with TaskUpdate, releases it and tells the lead, instead of renewing its lease for ever
// while it works on something else. While it holds a task it claimed itself, its state
// shows that task. It does not take a task it gave back again by itself, and the lead,
// whose only teammate gave up on every ready task, is not kept waiting for it.
func TestAnUnfinishedTaskIsGivenBack(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		held := make(chan struct{})
		w1 := &gate{Provider: scripted.New(&scripted.Script{Turns: append([]scripted.Turn{
			{ToolCalls: []scripted.ToolCall{call("claim", "TaskUpdate", map[string]string{"taskId": "2", "owner": "w1", "status": "in_progress"})}}},
			texts("looking at it", "still looking", "I stop here")...)}), at: 1, open: held}
		r := &router{byTask: map[string]*scripted.Provider{"1": scripted.New(&scripted.Script{Turns: texts("a", "b", "c")})},
			byName: map[string]*scripted.Provider{}}
		f := newFixtureOn(t, &named{r: r, w1: w1}, s)
		ctx := context.Background()
		for _, subject := range []string{"parse", "lint"} {
			if _, err := f.board.Create(ctx, subject, "", "", nil); err != nil {
				t.Fatal(err)
			}
		}
		f.spawn(t, "w1", "general-purpose", "Work.")
		waitFor(t, "w1 to show the task it claimed", func() bool {
			for _, m := range f.team.Snapshot().Members {
				if m.Name == "w1" && m.Task == "#2 lint" {
					return true
				}
			}
			return false
		})
		close(held)
		waitFor(t, "both tasks given back", func() bool {
			ms, _ := f.mail.Pending(ctx, "list", team.Lead)
			n := 0
			for _, m := range ms {
				if strings.Contains(m.Text, "is back on the shared list") {
					n++
				}
			}
			return n == 2
		})
		all, err := f.board.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range all {
			if x.Status != task.Pending || x.Owner != "" {
				t.Errorf("task #%s after w1 gave up: %s, owner %q", x.ID, x.Status, x.Owner)
			}
		}
		ms, _ := f.mail.Pending(ctx, "list", team.Lead)
		var reports []string
		for _, m := range ms {
			reports = append(reports, m.Text)
		}
		joined := strings.Join(reports, "\n")
		for _, want := range []string{"Task #2 (lint) is back on the shared list", "Task #1 (parse) is back on the shared list", "without completing it"} {
			if !strings.Contains(joined, want) {
				t.Errorf("the lead was not told %q:\n%s", want, joined)
			}
		}
		if w1.Provider.(*scripted.Provider).Remaining() != 0 || r.byTask["1"].Remaining() != 0 {
			t.Errorf("scripts left: w1 %d, task #1 %d", w1.Provider.(*scripted.Provider).Remaining(), r.byTask["1"].Remaining())
		}
		waitFor(t, "w1 idle", func() bool {
			for _, m := range f.team.Snapshot().Members {
				if m.Name == "w1" {
					return m.Status == team.StatusIdle && m.Task == ""
				}
			}
			return false
		})
		d := f.team.LeadWaiter(time.Minute).BeforeStop(ctx, &agent.Stop{})
		if !d.Continue || !strings.Contains(d.Message, "is back on the shared list") {
			t.Fatalf("the lead is not given the reports at once: %+v", d)
		}
	})
}

// named sends w1's requests to its own provider, the others to the router.
type named struct {
	r  *router
	w1 llm.Provider
}

func (n *named) Name() string { return "scripted" }

func (n *named) Complete(ctx context.Context, req *llm.Request, on llm.StreamFunc) (*llm.Response, error) {
	claimed := false
	for _, m := range req.Messages {
		claimed = claimed || (m.Role == llm.RoleUser && claimedRE.MatchString(m.Text()))
	}
	if strings.Contains(req.System, `You are teammate "w1"`) && !claimed {
		return n.w1.Complete(ctx, req, on)
	}
	return n.r.Complete(ctx, req, on)
}
