package team_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
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

// A teammate whose claim lapsed (paused past its lease) and was taken over is told so
// when it writes the task: its late TaskUpdate is refused with the reason, not answered
// "unchanged", and it does not report the completion the new holder made: the lead
// hears of a task's completion once, from its holder.
func TestALateWriteAfterALostClaimIsRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		late := make(chan struct{})
		one := &gate{Provider: scripted.New(&scripted.Script{Turns: []scripted.Turn{
			{ToolCalls: []scripted.ToolCall{call("c1", "TaskUpdate", map[string]string{"taskId": "1", "status": "completed"})}},
			{ExpectContains: "no longer yours", ToolCalls: []scripted.ToolCall{call("n2", "TaskUpdate", map[string]string{"taskId": "2", "description": "noted"})}},
			{Text: "I will tell the lead."},
		}}), at: 0, open: late}
		r := &router{byTask: map[string]*scripted.Provider{"2": completes("2")},
			byName: map[string]*scripted.Provider{"w1": scripted.New(&scripted.Script{Turns: texts("ready")})}}
		f := newFixtureOn(t, &byTaskOne{r: r, one: one}, s)
		ctx := context.Background()
		for _, subject := range []string{"parse", "lint"} {
			if _, err := f.board.Create(ctx, subject, "", "", nil); err != nil {
				t.Fatal(err)
			}
		}
		// #2 waits for #1: w1 takes #1 first.
		if _, err := f.board.Update(ctx, "2", task.Update{AddBlockedBy: []string{"1"}}); err != nil {
			t.Fatal(err)
		}
		f.spawn(t, "w1", "general-purpose", "Work.")
		waitFor(t, "w1 at work on #1", func() bool {
			one.mu.Lock()
			defer one.mu.Unlock()
			return one.n > 0
		})
		// Its lease ran out while it was paused, and another worker's process took the task
		// over and completed it (one write: nothing can renew the claim in between).
		x, err := s.tasks.Get(ctx, "list", "1")
		if err != nil || x.Owner != "w1" {
			t.Fatalf("#1 before: %+v %v", x, err)
		}
		y := x.Clone()
		y.Owner, y.Holder, y.LeaseUntil = "w2", "elsewhere/w2", time.Now().Add(time.Minute)
		if err := s.tasks.Apply(ctx, "list", []task.Change{{Op: task.Put, ID: "1", Rev: x.Rev, Task: y}}); err != nil {
			t.Fatal(err)
		}
		w2 := task.NewBoard(task.Config{Store: s.tasks, List: "list", Holder: "elsewhere/w2", Lease: time.Minute})
		done := task.Completed
		if _, err := w2.Update(ctx, "1", task.Update{Status: &done}); err != nil {
			t.Fatal(err)
		}
		close(late)
		waitFor(t, "#2 completed", func() bool {
			x, err := f.board.Get(ctx, "2")
			return err == nil && x.Status == task.Completed
		})
		reqs := one.Provider.(*scripted.Provider).Requests()
		if len(reqs) < 2 {
			t.Fatalf("w1 made %d requests on #1", len(reqs))
		}
		data, _ := json.Marshal(reqs[1].Messages[len(reqs[1].Messages)-1])
		if got := string(data); !strings.Contains(got, `completed meanwhile (owner \"w2\")`) || !strings.Contains(got, "Nothing was changed") {
			t.Errorf("the late write's result: %q", got)
		}
		if x, _ := f.board.Get(ctx, "1"); x.Status != task.Completed || x.Owner != "w2" {
			t.Errorf("#1: %+v", x)
		}
		waitFor(t, "w1 idle", func() bool {
			for _, m := range f.team.Snapshot().Members {
				if m.Name == "w1" {
					return m.Status == team.StatusIdle
				}
			}
			return false
		})
		ms, _ := f.mail.Pending(ctx, "list", team.Lead)
		var reports []string
		for _, m := range ms {
			reports = append(reports, m.Text)
		}
		joined := strings.Join(reports, "\n")
		if strings.Contains(joined, "Completed task #1") || !strings.Contains(joined, "Completed task #2") {
			t.Errorf("w1's reports:\n%s", joined)
		}
	})
}

// byTaskOne sends the requests about task #1 to one, the others to the router.
type byTaskOne struct {
	r   *router
	one llm.Provider
}

func (b *byTaskOne) Name() string { return "scripted" }

func (b *byTaskOne) Complete(ctx context.Context, req *llm.Request, on llm.StreamFunc) (*llm.Response, error) {
	key := ""
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			if sm := claimedRE.FindAllStringSubmatch(m.Text(), -1); sm != nil {
				key = sm[len(sm)-1][1]
			}
		}
	}
	if key == "1" && b.one.(*gate).Provider.(*scripted.Provider).Remaining() > 0 {
		return b.one.Complete(ctx, req, on)
	}
	return b.r.Complete(ctx, req, on)
}

// A headless lead whose run ends at its cap of stop continuations takes no message it
// will not deliver: the messages stay in its mailbox, where its next process (ouro -c)
// finds them at once (on JetStream too, where a message taken is hidden for the ack
// wait), and the lead is told why its run ended and what waits, whatever the verbosity.
func TestALeadAtItsContinuationCapTakesNoMessage(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		var mu sync.Mutex
		var warned []string
		s.warn = func(w string) {
			mu.Lock()
			warned = append(warned, w)
			mu.Unlock()
		}
		r := &router{byTask: map[string]*scripted.Provider{}, byName: map[string]*scripted.Provider{
			"w1": scripted.New(&scripted.Script{Turns: []scripted.Turn{
				{ToolCalls: []scripted.ToolCall{call("tell", "SendMessage", map[string]string{"to": "main", "message": "report 1"})}},
				{Text: "told"}}})}}
		f := newFixtureOn(t, r, s)
		ctx := context.Background()
		f.spawn(t, "w1", "general-purpose", "Report.")
		waitFor(t, "w1's report, w1 idle", func() bool {
			ms, _ := f.mail.Pending(ctx, "list", team.Lead)
			idle := false
			for _, m := range f.team.Snapshot().Members {
				idle = m.Status == team.StatusIdle
			}
			return len(ms) == 1 && idle
		})
		d := f.team.LeadWaiter(time.Minute).BeforeStop(ctx, &agent.Stop{Continued: 8, Last: true})
		if d.Continue || d.Message != "" {
			t.Fatalf("at its cap the lead was handed a batch it cannot deliver: %+v", d)
		}
		mu.Lock()
		got := strings.Join(warned, "\n")
		mu.Unlock()
		if !strings.Contains(got, "sent it back 8 times in a row") || !strings.Contains(got, "1 message(s) from teammates wait in its mailbox") || !strings.Contains(got, "ouro -c") {
			t.Errorf("the lead's end is not explained: %q", got)
		}
		f.team.Close()
		next := s.reopen(t)
		ms, err := next.Pending(ctx, "list", team.Lead)
		if err != nil || len(ms) != 1 || ms[0].Text != "report 1" {
			t.Fatalf("the lead's next process finds %+v (%v), want the report", ms, err)
		}
	})
}

// Completing a task and owing its report are one write: a teammate killed -9 right after
// its TaskUpdate (here: a process that completed the task and never got further) loses
// no report. Once a lease has passed, whoever looks at the list next (the lead deciding
// whether its team is done) sends it, in the completer's name, exactly once.
func TestACompletionReportSurvivesItsSendersDeath(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		lease := 300 * time.Millisecond
		tm := team.New(team.Config{Name: "list", Holder: "lead", Agents: newFixtureOn(t, &router{}, s).agent, Poll: 10 * time.Millisecond,
			Open: func() (mailbox.Store, task.Store, time.Duration, error) { return s.mail, s.tasks, lease, nil },
			Warn: func(w string) { t.Log("warn: " + w) }})
		t.Cleanup(tm.Close)
		// The dead worker's process: it claimed #1 and completed it, nothing more.
		dead := task.NewBoard(task.Config{Store: s.tasks, List: "list", Holder: "gone/w9", Lease: lease, OweReport: true})
		for _, subject := range []string{"parse", "lint"} {
			if _, err := dead.Create(ctx, subject, "", "", nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := dead.Update(ctx, "2", task.Update{AddBlockedBy: []string{"1"}}); err != nil {
			t.Fatal(err)
		}
		owner, done := "w9", task.Completed
		if _, err := dead.Update(ctx, "1", task.Update{Owner: &owner}); err != nil {
			t.Fatal(err)
		}
		if _, err := dead.Update(ctx, "1", task.Update{Status: &done}); err != nil {
			t.Fatal(err)
		}
		reports := func() []mailbox.Message {
			var out []mailbox.Message
			ms, _ := s.mail.Recent(ctx, "list", 100)
			for _, m := range ms {
				if m.To == team.Lead && strings.HasPrefix(m.Text, "Completed task #1:") {
					out = append(out, m)
				}
			}
			return out
		}
		// The lead's team is in use: the dead worker had written to it.
		if _, err := tm.Send(ctx, mailbox.Message{From: "w9", To: team.Lead, Text: "starting on #1"}); err != nil {
			t.Fatal(err)
		}
		stop := tm.LeadWaiter(20 * time.Millisecond)
		waitFor(t, "the owed report", func() bool {
			stop.BeforeStop(ctx, &agent.Stop{})
			return len(reports()) > 0
		})
		for range 5 {
			stop.BeforeStop(ctx, &agent.Stop{}) // looking again sends nothing more
		}
		got := reports()
		if len(got) != 1 || got[0].From != "w9" || !strings.Contains(got[0].Text, "Unblocked: #2 lint") || !strings.Contains(got[0].Text, "on w9's behalf") {
			t.Fatalf("reports of #1: %+v", got)
		}
		x, err := s.tasks.Get(ctx, "list", "1")
		if err != nil || x.Report != task.ReportSent(got[0].ID) {
			t.Fatalf("#1's report state: %q, %v", x.Report, err)
		}
	})
}

// A lead continued from its transcript (ouro -c after kill -9) hears from its team at
// once: the reports its workers sent while it was gone join its first request, without
// its having to send a message first, and what its transcript already holds is not
// delivered again. A session that never led the team takes nothing.
func TestAResumedLeadHearsFromItsTeamAtOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		agents := newFixtureOn(t, &router{}, s).agent
		lead := func(conv ...llm.Message) *team.Team {
			ms := s.reopen(t) // each lead is a process of its own
			tm := team.New(team.Config{Name: "list", Holder: "lead", Agents: agents, Poll: 10 * time.Millisecond,
				Open: func() (mailbox.Store, task.Store, time.Duration, error) { return ms, s.tasks, time.Minute, nil },
				Warn: func(w string) { t.Log("warn: " + w) }})
			tm.Resume(conv)
			return tm
		}
		first := func(tm *team.Team) string {
			turn := &agent.Turn{Conv: &agent.Conversation{}, Req: &llm.Request{}}
			if err := tm.LeadInbox().BeforeModel(ctx, turn); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, m := range turn.Conv.Messages {
				b.WriteString(m.Text())
			}
			return b.String()
		}
		report := func(text string) mailbox.Message {
			m, err := s.mail.Send(ctx, "list", mailbox.Message{From: "w1", To: team.Lead, Text: text})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		// The killed lead's transcript holds #1's report (killed before acknowledging it);
		// #2's came while it was gone.
		old := report("Completed task #1: parse")
		report("Completed task #2: lint")

		stranger := lead(llm.UserText("fix the typo"))
		if got := first(stranger); got != "" {
			t.Fatalf("a session that never led the team was handed %q", got)
		}
		if d := stranger.LeadWaiter(time.Minute).BeforeStop(ctx, &agent.Stop{}); d.Continue {
			t.Fatalf("a session that never led the team was sent back: %+v", d)
		}
		stranger.Close()

		received := lead(llm.UserText("lead the team"), llm.UserText(mailbox.Format(old)), llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("noted")}})
		if got := first(received); !strings.Contains(got, "Completed task #2: lint") || strings.Contains(got, "Completed task #1") {
			t.Fatalf("a lead whose transcript holds #1's report got %q at its first request, want #2's only", got)
		}
		received.Close()

		// One killed after telling w1 to start, before any report reached it.
		report("Completed task #3: test")
		sent := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock("tell", "SendMessage", json.RawMessage(`{"to":"w1","message":"start"}`))}}
		told := lead(llm.UserText("lead the team"), sent)
		if got := first(told); !strings.Contains(got, "Completed task #3: test") || strings.Contains(got, "#2") {
			t.Fatalf("a lead that had messaged w1 got %q at its first request, want #3's report", got)
		}
		told.Close()
		if n, err := s.mail.Pending(ctx, "list", team.Lead); err != nil || len(n) != 0 {
			t.Fatalf("left in the lead's mailbox: %+v %v", n, err)
		}
	})
}
