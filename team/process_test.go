//go:build unix

package team_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/tool"
)

// TestHelperWorker is not a test: it is the teammate process of the tests below, its
// behaviour chosen by TEAM_HELPER.
func TestHelperWorker(t *testing.T) {
	mode := os.Getenv("TEAM_HELPER")
	if mode == "" {
		t.Skip("a helper process")
	}
	line := func(m team.Member) {
		json.NewEncoder(os.Stdout).Encode(team.Line{Member: &m})
	}
	switch mode {
	case "crash":
		line(team.Member{Name: "w1", Status: team.StatusWorking, Task: "#1 parse", Tokens: 10})
		fmt.Fprintln(os.Stderr, "panic: boom")
		os.Exit(3)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		line(team.Member{Name: "w1", Status: team.StatusIdle})
	case "reader":
		// Idle, then (once the test says so) idle having read message 1: the state lines
		// of a worker that took its prompt, the second still to come.
		line(team.Member{Name: "w1", Status: team.StatusIdle})
		for {
			if _, err := os.Stat(os.Getenv("TEAM_HELPER_READ")); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		line(team.Member{Name: "w1", Status: team.StatusIdle, LastRead: "1"})
	case "spender":
		line(team.Member{Name: "w1", Status: team.StatusWorking, Tokens: 1000, CostUSD: 0.5})
		m := llm.UserText("hello from the worker")
		json.NewEncoder(os.Stdout).Encode(team.Line{Message: &m})
	}
	time.Sleep(time.Minute)
	os.Exit(0)
}

type procFixture struct {
	team     *team.Team
	mail     *mailbox.MemStore
	tasks    *task.MemStore
	agent    *subagent.Tool
	launched atomic.Int32
	events   atomic.Int32
	mu       sync.Mutex
	told     []mailbox.Message // what OnMessage heard
}

func (f *procFixture) heard() []mailbox.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mailbox.Message(nil), f.told...)
}

// newProcFixture is a lead whose teammates are processes: the helper above in mode,
// or sleep(1) when mode is "sleep".
func newProcFixture(t *testing.T, mode string, budget agent.Limits) *procFixture {
	f := &procFixture{mail: mailbox.NewMemStore(), tasks: task.NewMemStore()}
	f.agent, _ = subagent.NewTool(subagent.Config{Provider: scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "unused"}}}), Model: "scripted", Tools: tool.NewRegistry()})
	f.team = team.New(team.Config{Name: "list", Holder: "lead", Agents: f.agent, Poll: 10 * time.Millisecond, Budget: budget,
		Grace: 300 * time.Millisecond,
		Open:  func() (mailbox.Store, task.Store, time.Duration, error) { return f.mail, f.tasks, time.Minute, nil },
		Warn:  func(s string) { t.Log("warn: " + s) },
		OnMessage: func(m mailbox.Message) {
			f.mu.Lock()
			f.told = append(f.told, m)
			f.mu.Unlock()
		},
		Observer: func(name string, e agent.Event) {
			if name == "w1" && e.Message != nil && e.Message.Text() == "hello from the worker" {
				f.events.Add(1)
			}
		},
		Launch: func(spec team.WorkerSpec) (*exec.Cmd, error) {
			f.launched.Add(1)
			if mode == "sleep" {
				return exec.Command("sleep", "60"), nil
			}
			c := exec.Command(os.Args[0], "-test.run=^TestHelperWorker$")
			c.Env = append(os.Environ(), "TEAM_HELPER="+mode)
			return c, nil
		}})
	f.agent.SetSpawner(f.team)
	t.Cleanup(f.team.Close)
	return f
}

func (f *procFixture) spawn(name string) tool.Result {
	in, _ := json.Marshal(map[string]any{"description": "d", "prompt": "Work.", "subagent_type": "general-purpose", "run_in_background": true, "name": name})
	res, _ := f.agent.Run(context.Background(), tool.NewExec(tool.Call{ID: "spawn-" + name, Name: "Agent", Input: in}, nil, nil))
	return res
}

func (f *procFixture) member(name string) team.Member {
	for _, m := range f.team.Snapshot().Members {
		if m.Name == name {
			return m
		}
	}
	return team.Member{}
}

func alive(pid int) bool {
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if s := string(data); strings.Contains(s[strings.LastIndexByte(s, ')')+1:], " Z ") {
			return false
		}
	}
	return syscall.Kill(pid, 0) == nil
}

// A teammate process that dies is shown failed with its exit status and the end of its
// error output, and the lead is told what it held and what it never read. The name can
// then be spawned again, and the new process gets the unread messages.
func TestProcessTeammateDeathIsReported(t *testing.T) {
	f := newProcFixture(t, "crash", agent.Limits{})
	if res := f.spawn("w1"); res.IsError || !strings.Contains(res.Text(), "its own process") {
		t.Fatalf("spawn: %s", res.Text())
	}
	waitFor(t, "w1 to fail", func() bool { return f.member("w1").Status == team.StatusFailed })
	m := f.member("w1")
	if m.Exit != "exit status 3" || !strings.Contains(m.Stderr, "panic: boom") || m.Task != "#1 parse" {
		t.Fatalf("failed member: %+v", m)
	}
	var report string
	waitFor(t, "the report", func() bool {
		ms, _ := f.mail.Pending(context.Background(), "list", team.Lead)
		for _, x := range ms {
			report = x.Text
		}
		return report != ""
	})
	for _, want := range []string{"w1's process ended unexpectedly (exit status 3)", "task #1 parse", "panic: boom", "1 message(s) to it were never read"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if !strings.Contains(team.Render(f.team.Snapshot()), "failed") {
		t.Errorf("ouro team does not show it failed:\n%s", team.Render(f.team.Snapshot()))
	}
	// A dead teammate's name can be spawned again; its prompt and the old one wait for it.
	if res := f.spawn("w1"); res.IsError {
		t.Fatalf("respawn: %s", res.Text())
	}
	if ms, _ := f.mail.Pending(context.Background(), "list", "w1"); len(ms) != 2 {
		t.Fatalf("w1's mailbox holds %d messages, want the two prompts", len(ms))
	}
}

// A teammate process that ignores SIGTERM is killed with its group once the grace period
// is over: the lead's end is not held up, and nothing is left running.
func TestProcessTeammateIgnoringShutdownIsKilled(t *testing.T) {
	f := newProcFixture(t, "stubborn", agent.Limits{})
	f.spawn("w1")
	waitFor(t, "w1 to report", func() bool { return f.member("w1").Status == team.StatusIdle })
	pid := f.member("w1").Pid
	start := time.Now()
	f.team.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("closing took %s", d)
	}
	if alive(pid) {
		t.Fatalf("the stubborn teammate %d outlived the team", pid)
	}
	if m := f.member("w1"); m.Status != team.StatusFailed || !strings.Contains(m.Exit, "killed") {
		t.Errorf("a teammate killed at the end: %+v", m)
	}
}

// A model spawning 65 process teammates gets 64; the 65th is refused before anything
// starts, and all 64 end with the team.
func TestProcessTeammatesAreBounded(t *testing.T) {
	f := newProcFixture(t, "sleep", agent.Limits{})
	for i := 1; i <= team.MaxProcessMembers; i++ {
		if res := f.spawn(fmt.Sprintf("w%d", i)); res.IsError {
			t.Fatalf("spawn %d: %s", i, res.Text())
		}
	}
	if res := f.spawn("w65"); !res.IsError || !strings.Contains(res.Text(), "the most allowed") {
		t.Fatalf("the 65th: %s", res.Text())
	}
	if n := f.launched.Load(); n != team.MaxProcessMembers {
		t.Fatalf("%d processes launched", n)
	}
	var pids []int
	for _, m := range f.team.Snapshot().Members {
		pids = append(pids, m.Pid)
	}
	f.team.Close()
	for _, pid := range pids {
		if alive(pid) {
			t.Fatalf("teammate %d outlived the team", pid)
		}
	}
}

// A teammate's name becomes a command-line value: one that looks like a flag or a path
// is refused before any process starts.
func TestProcessTeammateNamesAreNotFlagsOrPaths(t *testing.T) {
	f := newProcFixture(t, "sleep", agent.Limits{})
	for _, name := range []string{"--store=nats://evil:4222", "-x", "../../etc", "a/b", "..", "main", "MAIN"} {
		if res := f.spawn(name); !res.IsError {
			t.Errorf("%q was accepted: %s", name, res.Text())
		}
	}
	if n := f.launched.Load(); n != 0 {
		t.Fatalf("%d processes launched", n)
	}
}

// The team budget counts what process teammates report: one over it is asked to stop
// (a shutdown request it reads before its next model call). Its conversation reaches the
// lead's observer, tagged with its name.
func TestProcessTeammateOverTheTeamBudgetIsStopped(t *testing.T) {
	f := newProcFixture(t, "spender", agent.Limits{MaxTokens: 500})
	f.spawn("w1")
	var req mailbox.Message
	waitFor(t, "the shutdown request", func() bool {
		ms, _ := f.mail.Pending(context.Background(), "list", "w1")
		for _, m := range ms {
			if m.Kind == mailbox.ShutdownRequest {
				req = m
			}
		}
		return req.ID != ""
	})
	if !strings.Contains(req.Text, "team budget ran out (1000 of 500 tokens)") {
		t.Errorf("shutdown request: %q", req.Text)
	}
	waitFor(t, "the forwarded event", func() bool { return f.events.Load() == 1 })
}

// A plan a process teammate sends (its request id made in its own process) can be
// answered by the lead once it reached the lead's conversation; an id it never sent
// cannot.
func TestProcessTeammatePlanCanBeAnswered(t *testing.T) {
	f := newProcFixture(t, "sleep", agent.Limits{})
	f.spawn("p1")
	ctx := context.Background()
	if _, err := f.mail.Send(ctx, "list", mailbox.Message{From: "p1", To: team.Lead, Kind: mailbox.PlanApprovalRequest, RequestID: "plan-p1-1", Text: "the plan"}); err != nil {
		t.Fatal(err)
	}
	yes := true
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: "plan-p1-1", Approve: &yes}); err == nil {
		t.Fatal("a plan the lead has not seen was answered")
	}
	turn := &agent.Turn{Conv: &agent.Conversation{}, Req: &llm.Request{}}
	if err := f.team.LeadInbox().BeforeModel(ctx, turn); err != nil || len(turn.Conv.Messages) != 1 {
		t.Fatalf("delivery: %v %+v", err, turn.Conv.Messages)
	}
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: "plan-p1-2", Approve: &yes}); err == nil {
		t.Fatal("a request p1 never made was answered")
	}
	if _, err := f.team.Send(ctx, mailbox.Message{From: team.Lead, To: "p1", Kind: mailbox.PlanApprovalResponse, RequestID: "plan-p1-1", Approve: &yes, Text: "go"}); err != nil {
		t.Fatalf("answering the plan: %v", err)
	}
}

// A message a teammate process sent the lead (from its own process) reaches the lead's
// OnMessage (the REPL shows it, an idle lead wakes) when the worker reports the change;
// messages from other senders are not its to announce.
func TestProcessTeammateMessagesAreAnnounced(t *testing.T) {
	f := newProcFixture(t, "stubborn", agent.Limits{})
	ctx := context.Background()
	if _, err := f.mail.Send(ctx, "list", mailbox.Message{From: "w1", To: team.Lead, Text: "I found the bug."}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.mail.Send(ctx, "list", mailbox.Message{From: "w9", To: team.Lead, Text: "not a teammate of this lead"}); err != nil {
		t.Fatal(err)
	}
	f.spawn("w1")
	waitFor(t, "the announcement", func() bool { return len(f.heard()) > 0 })
	time.Sleep(50 * time.Millisecond)
	got := f.heard()
	if len(got) != 1 || got[0].Text != "I found the bug." {
		t.Fatalf("OnMessage heard %+v", got)
	}
}

// A lead deciding whether its team is done reads two things with no order between them:
// a teammate process's state lines (through a pipe) and its mailbox (the store). A worker
// that took its prompt (acknowledged in the store) while its "working" line is still on
// the way must not pass for idle with nothing to do: the lead would end with its teammate
// at work. Once its state shows the message read, idle means idle.
func TestProcessTeammateIdleLineOlderThanItsMailboxIsBusy(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "read")
	t.Setenv("TEAM_HELPER_READ", ready)
	f := newProcFixture(t, "reader", agent.Limits{})
	if res := f.spawn("w1"); res.IsError {
		t.Fatalf("spawn: %s", res.Text())
	}
	waitFor(t, "w1's idle line", func() bool { return f.member("w1").Status == team.StatusIdle })
	ctx := context.Background()
	ms, _ := f.mail.Pending(ctx, "list", "w1")
	if len(ms) != 1 || ms[0].ID != "1" {
		t.Fatalf("w1's mailbox: %+v", ms)
	}
	// The worker takes its prompt; the line saying so has not reached the lead yet.
	if err := f.mail.Ack(ctx, "list", "w1", []string{ms[0].ID}); err != nil {
		t.Fatal(err)
	}
	stop := f.team.LeadWaiter(30 * time.Millisecond)
	if d := stop.BeforeStop(ctx, &agent.Stop{}); !d.Continue || !strings.Contains(d.Message, "still working") {
		t.Fatalf("the lead would stop while w1 works on its prompt: %+v", d)
	}
	if err := os.WriteFile(ready, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "w1's state having read its prompt", func() bool { return f.member("w1").LastRead == "1" })
	if d := stop.BeforeStop(ctx, &agent.Stop{}); d.Continue {
		t.Fatalf("w1 is idle with nothing to do, yet the lead is held: %+v", d)
	}
}
