package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/permission"
)

func bgCall(cmd string) scripted.ToolCall {
	in, _ := json.Marshal(map[string]any{"command": cmd, "run_in_background": true})
	return scripted.ToolCall{Name: "Bash", Input: in}
}

func requestText(r llm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		for _, bl := range m.Content {
			b.WriteString(bl.Text + bl.ResultText() + "\n")
		}
	}
	return b.String()
}

// A project's settings may lower the limit, and cannot raise it past the hard cap.
func TestBackgroundLimitFromSettings(t *testing.T) {
	cwd := t.TempDir()
	write := func(n int) {
		data, _ := json.Marshal(map[string]any{"background": map[string]any{"maxRunning": n}})
		os.MkdirAll(filepath.Join(cwd, ".ouro"), 0o755)
		if err := os.WriteFile(filepath.Join(cwd, ".ouro", "settings.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(100000)
	var warn bytes.Buffer
	s, _ := open(t, t.TempDir(), cwd, []scripted.Turn{{Text: "ok"}}, func(o *Options) { o.UI.Warn = &warn })
	if s.Background.MaxRunning() != background.HardMaxRunning || !strings.Contains(warn.String(), "background.maxRunning 100000") {
		t.Errorf("max %d, warnings %q", s.Background.MaxRunning(), warn.String())
	}

	write(1)
	s, p := open(t, t.TempDir(), cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{bgCall("sleep 0.3; echo first"), bgCall("echo second")}},
		{Text: "one waits"},
		// Both end within the Waiter's settling time of each other, and arrive together
		// unless the machine is slow to start the second.
		{ExpectContains: "<task-notification>", Text: "seen"},
		{ExpectContains: "<task-notification>", Text: "seen"},
	}, nil)
	if o := s.Run(context.Background(), "two at once"); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	if got := requestText(p.Requests()[1]); !strings.Contains(got, "queued: position 1 of 1; starts when one of the 1 running background tasks ends") {
		t.Errorf("the second start was not queued:\n%s", got)
	}
	reqs := p.Requests()
	if last := requestText(reqs[len(reqs)-1]); strings.Count(last, "<task-notification>") != 2 || !strings.Contains(last, "second") {
		t.Errorf("the headless run did not wait for the queued command (%d requests):\n%s", len(reqs), last)
	}
}

// A command still queued when the process ends is not lost: the resumed session tells
// the model it never started.
func TestBackgroundQueuedCommandLostWithTheProcessIsReported(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".ouro"), 0o755)
	os.WriteFile(filepath.Join(cwd, ".ouro", "settings.json"), []byte(`{"background":{"maxRunning":1}}`), 0o644)
	var warn bytes.Buffer
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{bgCall("sleep 30"), bgCall("echo never")}},
		{Text: "left them"},
	}, func(o *Options) { o.UI.Warn = &warn; o.UI.Wake = func(Wake) {} })
	if o := s.Run(context.Background(), "go"); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	id := s.ID()
	s.Close()
	if !strings.Contains(warn.String(), "was still queued and never started; it has been dropped") {
		t.Errorf("warnings: %s", warn.String())
	}
	s, p := open(t, home, cwd, []scripted.Turn{{ExpectContains: "never started", Text: "seen"}}, func(o *Options) { o.Resume.ID = id })
	if o := s.Run(context.Background(), "what happened?"); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	got := requestText(p.Requests()[0])
	if !strings.Contains(got, "it was still queued, waiting for a free slot, when the ouro process ended; it never started") || !strings.Contains(got, "the ouro process running it ended first") {
		t.Errorf("the resumed request:\n%s", got)
	}
}

// With someone at the keyboard (UI.Wake), a task that ends between runs asks for a turn
// carrying its notification; one that ends during a run is delivered by the queue, and
// never both.
func TestBackgroundWakesBetweenRunsOnly(t *testing.T) {
	var mu sync.Mutex
	var wakes []Wake
	woken := make(chan struct{}, 4)
	s, p := open(t, t.TempDir(), t.TempDir(), []scripted.Turn{
		// The quick task ends during the second call (not before its request: the gate).
		{ToolCalls: []scripted.ToolCall{bgCall("while [ ! -e gate ]; do sleep 0.05; done; echo quick")}},
		{ToolCalls: bash("touch gate; sleep 2")},
		{ExpectContains: "<task-notification>", ToolCalls: []scripted.ToolCall{bgCall("sleep 0.5; echo later")}},
		{Text: "it runs"},
		{ExpectContains: "later", Text: "seen"},
	}, func(o *Options) {
		o.UI.Wake = func(w Wake) {
			mu.Lock()
			wakes = append(wakes, w)
			mu.Unlock()
			woken <- struct{}{}
		}
	})
	if o := s.Run(context.Background(), "go"); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	select {
	case <-woken:
	case <-time.After(10 * time.Second):
		t.Fatal("no wake")
	}
	mu.Lock()
	if len(wakes) != 1 || wakes[0].Source != "background" || !strings.Contains(wakes[0].Prompt, "later") || strings.Contains(wakes[0].Prompt, "quick") {
		t.Fatalf("wakes %+v", wakes)
	}
	prompt := wakes[0].Prompt
	mu.Unlock()
	if o := s.Run(context.Background(), prompt); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	reqs := p.Requests()
	last := requestText(reqs[len(reqs)-1])
	if n := strings.Count(last, "<task-notification>"); n != 2 {
		t.Errorf("%d notifications in the conversation, want 2 (each once):\n%s", n, last)
	}
}

type askedApprover struct {
	mu    sync.Mutex
	asked []string
}

func (a *askedApprover) Approve(_ context.Context, p permission.Prompt) (permission.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, p.Summary)
	return permission.Answer{Choice: permission.Once}, nil
}

// A background agent never takes over the person's prompt: what would ask is refused,
// as in a headless run, and the refusal says why.
func TestBackgroundAgentDoesNotAsk(t *testing.T) {
	cwd := t.TempDir()
	ap := &askedApprover{}
	task, _ := json.Marshal(map[string]any{"description": "touch", "prompt": "make a file", "subagent_type": "general-purpose", "run_in_background": true})
	s, p := open(t, t.TempDir(), cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: "Task", Input: task}, bash("sleep 4")[0]}},
		{ExpectContains: "make a file", ToolCalls: bash("touch made-by-agent")}, // the child
		{ExpectContains: "background agent: ", Text: "I was not allowed to."},   // the child
		{Text: "waiting"},
		{ExpectContains: "<task-notification>", Text: "done"},
	}, func(o *Options) { o.Access.Mode = "default"; o.UI.Approver = ap })
	if o := s.Run(context.Background(), "delegate"); !o.OK() {
		t.Fatalf("%s: %s\n%s", o.Status, o.Reason, requestText(p.Requests()[len(p.Requests())-1]))
	}
	if len(ap.asked) != 0 {
		t.Errorf("the person was asked: %v", ap.asked)
	}
	if _, err := os.Stat(filepath.Join(cwd, "made-by-agent")); err == nil {
		t.Error("the file was made")
	}
}

// A wake the REPL never ran (it was left first) is no delivery: the resumed session asks
// for it again; once run, it is not asked for again.
func TestBackgroundWakeNotRunIsRedelivered(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	wakes := make(chan Wake, 4)
	withWake := func(id string) func(*Options) {
		return func(o *Options) {
			o.UI.Wake = func(w Wake) { wakes <- w }
			o.Resume.ID = id
		}
	}
	next := func() Wake {
		t.Helper()
		select {
		case w := <-wakes:
			return w
		case <-time.After(10 * time.Second):
			t.Fatal("no wake")
			return Wake{}
		}
	}
	s, _ := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{bgCall("sleep 0.3; echo late")}},
		{Text: "started"},
	}, withWake(""))
	if o := s.Run(context.Background(), "go"); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	first := next()
	id := s.ID()
	s.Close()

	s, p := open(t, home, cwd, []scripted.Turn{{ExpectContains: "late", Text: "seen"}}, withWake(id))
	if again := next(); again.Prompt != first.Prompt {
		t.Fatalf("resumed wake %q, want %q", again.Prompt, first.Prompt)
	}
	if o := s.Run(context.Background(), first.Prompt); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	if n := strings.Count(requestText(p.Requests()[0]), "<task-notification>"); n != 1 {
		t.Errorf("%d notifications in the request", n)
	}
	s.Close()

	open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, withWake(id))
	select {
	case w := <-wakes:
		t.Errorf("delivered again after it ran: %q", w.Prompt)
	case <-time.After(300 * time.Millisecond):
	}
}

// Compaction neither loses nor repeats a notification: one queued when a run ended (its
// turn limit) waits through /compact and reaches the next request after the summary;
// the tasks still running are restored after the summary.
func TestBackgroundNotificationSurvivesCompaction(t *testing.T) {
	s, p := open(t, t.TempDir(), t.TempDir(), []scripted.Turn{
		// The quick task ends only once the second request has gone (the file appears).
		{ToolCalls: []scripted.ToolCall{bgCall("while [ ! -e gate ]; do sleep 0.05; done; echo quick-one"), bgCall("sleep 2")}},
		{ToolCalls: bash("touch gate; sleep 1")},
		{Text: "<summary>the user started two background commands</summary>"}, // the summary call
		{Text: "noted"},
		{ExpectContains: "<task-notification>", Text: "the second ended too"}, // the run waited for it
	}, func(o *Options) { o.Limits.MaxTurns = 2 })
	if o := s.Run(context.Background(), "go"); o.Status != "budget_exhausted" {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	if err := s.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if o := s.Run(context.Background(), "next"); !o.OK() {
		t.Fatalf("%s: %s", o.Status, o.Reason)
	}
	reqs := p.Requests()
	// Under load the quick task may end after the summary: either way its notification
	// is in the conversation once when the run ends.
	final := requestText(reqs[len(reqs)-1])
	if n := strings.Count(final, "<task-notification>"); n != 2 || strings.Count(final, "Last lines of output:\nquick-one") != 1 {
		t.Errorf("%d notifications after the summary:\n%s", n, final)
	}
	last := requestText(reqs[3])
	if !strings.Contains(last, "Background tasks still running") || !strings.Contains(last, "(sleep 2, output") {
		t.Errorf("the running task was not restored after the summary:\n%s", last)
	}
}
