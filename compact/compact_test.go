package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/tool"
)

// bigTool returns size characters naming the file it was asked about.
type bigTool struct {
	name string
	size int
}

func (t bigTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.name, Description: "returns a large output", InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}
}
func (t bigTool) ReadOnly() bool { return true }
func (t bigTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	in := x.Input
	var v struct {
		FilePath string `json:"file_path"`
	}
	_ = json.Unmarshal(in, &v)
	head := "contents of " + v.FilePath + "\n"
	return tool.Text(head + strings.Repeat("abcdefghij", max(0, t.size-len(head))/10)), nil
}

// summarizer is the summary model: it records every prompt and answers with text.
type summarizer struct {
	mu      sync.Mutex
	prompts []string
	text    string
}

func (s *summarizer) Name() string { return "summarizer" }
func (s *summarizer) Complete(ctx context.Context, req *llm.Request, _ llm.StreamFunc) (*llm.Response, error) {
	if len(req.Tools) != 0 {
		return nil, fmt.Errorf("the summary call must not offer tools")
	}
	if err := llm.ValidateConversation(req.Messages); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.prompts = append(s.prompts, req.Messages[0].Text())
	s.mu.Unlock()
	text := s.text
	if text == "" {
		text = "User goal: read every file. Files: src/... Open items: continue reading."
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock(text)}}, StopReason: llm.StopEndTurn,
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 20}}, nil
}

func (s *summarizer) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

// sessionScript is n tool turns (alternating Read and Grep on src/file_<i>.go), an
// optional prompt-too-long fault before turn ptlAt, and a final answer.
func sessionScript(n, ptlAt int) *scripted.Script {
	var turns []scripted.Turn
	for i := range n {
		if i == ptlAt {
			turns = append(turns, scripted.Turn{Fault: &scripted.Fault{PromptTooLong: true}})
		}
		name := "Read"
		if i%2 == 1 {
			name = "Grep"
		}
		turns = append(turns, scripted.Turn{Text: fmt.Sprintf("Step %d.", i),
			ToolCalls: []scripted.ToolCall{{Name: name, Input: json.RawMessage(fmt.Sprintf(`{"file_path":"src/file_%03d.go"}`, i))}}})
	}
	turns = append(turns, scripted.Turn{Text: "All files read."})
	return &scripted.Script{Turns: turns}
}

type session struct {
	out    agent.Outcome
	model  *scripted.Provider
	sum    *summarizer
	comp   *Compactor
	events []Event
	conv   *agent.Conversation
}

func runSession(t testing.TB, cfg Config, script *scripted.Script, size int) *session {
	t.Helper()
	s := &session{model: scripted.New(script), sum: &summarizer{}, conv: &agent.Conversation{}}
	cfg.Provider, cfg.Model = s.sum, "scripted"
	var mu sync.Mutex
	cfg.OnCompact = func(e Event) {
		mu.Lock()
		s.events = append(s.events, e)
		mu.Unlock()
	}
	s.comp = New(cfg)
	reg := tool.NewRegistry(bigTool{"Read", size}, bigTool{"Grep", size})
	reg.SetOptions(tool.Options{OutputBudget: -1})
	a, err := agent.New(agent.Config{Provider: s.model, Model: "scripted", Tools: reg, System: "You are a test agent.",
		BeforeModel: []agent.BeforeModel{s.comp}, Limits: agent.Limits{MaxTurns: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	s.out = a.Run(context.Background(), s.conv, llm.TextBlock("Read every file under src/."))
	return s
}

func checkRequests(t *testing.T, s *session, window int) {
	t.Helper()
	for i, req := range s.model.Requests() {
		if err := llm.ValidateConversation(req.Messages); err != nil {
			t.Fatalf("request %d invalid: %v", i+1, err)
		}
		if est := Estimate(&req); est > window {
			t.Fatalf("request %d is ~%d tokens, over the window of %d", i+1, est, window)
		}
	}
}

func TestLongSessionStaysInWindow(t *testing.T) {
	const window = 60_000
	for _, keep := range []int{6, 12} {
		t.Run(fmt.Sprintf("keep%d", keep), func(t *testing.T) {
			s := runSession(t, Config{Window: window, KeepRecent: keep, TranscriptPath: "/tmp/t.jsonl"}, sessionScript(300, -1), 20_000)
			if s.out.Status != agent.StatusCompleted || s.out.Result != "All files read." {
				t.Fatalf("outcome %s: %s", s.out.Status, s.out.Reason)
			}
			checkRequests(t, s, window)
			if s.model.Remaining() != 0 {
				t.Fatalf("%d script steps left", s.model.Remaining())
			}
			var clears, sums int
			for _, e := range s.events {
				switch e.Layer {
				case LayerClear:
					clears++
				case LayerSummary:
					sums++
				}
			}
			t.Logf("%d clears, %d summaries, peak %d", clears, sums, s.comp.Peak())
			if keep == 6 && clears == 0 {
				t.Fatal("no tool results were cleared")
			}
			if keep == 12 && sums == 0 {
				t.Fatal("keeping 12 results of 5k tokens cannot fit 48k: a summary was expected")
			}
			if p := s.comp.Peak(); p > window || p == 0 {
				t.Fatalf("peak %d", p)
			}
			// Cleared results point at the transcript.
			found := false
			var lastClear []llm.Message
			for _, e := range s.events {
				if e.Layer == LayerClear {
					lastClear = e.Messages
				}
			}
			for _, m := range lastClear {
				for _, b := range m.Content {
					if b.Type == llm.BlockToolResult && strings.HasPrefix(b.ResultText(), "[earlier result of ") {
						found = true
						if !strings.Contains(b.ResultText(), "/tmp/t.jsonl") || !strings.Contains(b.ResultText(), "src/file_") {
							t.Fatalf("pointer %q", b.ResultText())
						}
					}
				}
			}
			if !found && keep == 6 {
				t.Fatal("no pointer in the final history")
			}
			for _, p := range s.sum.Prompts() {
				if !strings.Contains(p, "Files touched in the session: src/file_") {
					t.Fatalf("summary prompt lacks the files touched: %s", textcut.Bytes(p, 500, "…"))
				}
			}
		})
	}
}

func TestPromptTooLongRecovered(t *testing.T) {
	const window = 60_000
	s := runSession(t, Config{Window: window, TranscriptPath: "/tmp/t.jsonl"}, sessionScript(40, 20), 20_000)
	if s.out.Status != agent.StatusCompleted {
		t.Fatalf("outcome %s: %s", s.out.Status, s.out.Reason)
	}
	checkRequests(t, s, window)
	prompts := s.sum.Prompts()
	if len(prompts) != 1 {
		t.Fatalf("%d summaries, want 1 (the reactive one)", len(prompts))
	}
	if !strings.Contains(prompts[0], "src/file_019.go") || !strings.Contains(prompts[0], "src/file_000.go") || !strings.Contains(prompts[0], "/tmp/t.jsonl") {
		t.Fatalf("summary prompt lacks files or transcript: %s", textcut.Bytes(prompts[0], 800, "…"))
	}
	var reactive bool
	for _, e := range s.events {
		if e.Layer == LayerSummary && e.Reactive {
			reactive = true
		}
	}
	if !reactive {
		t.Fatal("no reactive summary event")
	}
	first := s.conv.Messages[0].Text()
	if !strings.Contains(first, "<summary>") {
		t.Fatalf("history does not start with the summary: %s", textcut.Bytes(first, 300, "…"))
	}
}

func TestSummaryNotEnoughFails(t *testing.T) {
	// One result of ~12k tokens in a 10k window: nothing can be cleared (it is the latest
	// batch) and the summary keeps it, so the run fails instead of looping.
	s := runSession(t, Config{Window: 10_000}, sessionScript(3, -1), 50_000)
	if s.out.Status != agent.StatusFailed || !strings.Contains(s.out.Reason, "even after a summary") {
		t.Fatalf("outcome %s: %s", s.out.Status, s.out.Reason)
	}
	if n := len(s.model.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
	if n := len(s.sum.Prompts()); n != 1 {
		t.Fatalf("%d summaries, want 1", n)
	}
}

func TestPreCompactBlocks(t *testing.T) {
	var triggers []string
	s := runSession(t, Config{Window: 10_000, PreCompact: func(ctx context.Context, trigger, _ string) (bool, string) {
		triggers = append(triggers, trigger)
		return true, "hook says no"
	}}, sessionScript(3, -1), 50_000)
	if s.out.Status != agent.StatusFailed || !strings.Contains(s.out.Reason, "hook says no") {
		t.Fatalf("outcome %s: %s", s.out.Status, s.out.Reason)
	}
	if len(triggers) == 0 || triggers[0] != TriggerAuto || len(s.sum.Prompts()) != 0 {
		t.Fatalf("triggers %v, summaries %d", triggers, len(s.sum.Prompts()))
	}
}

func TestManualCompactWithFocus(t *testing.T) {
	s := runSession(t, Config{Window: 200_000, Restore: func() []llm.Block {
		return []llm.Block{llm.TextBlock("<system-reminder>The current todo list:\n1. [in_progress] read files\n</system-reminder>")}
	}}, sessionScript(5, -1), 2_000)
	if s.out.Status != agent.StatusCompleted {
		t.Fatalf("outcome %s: %s", s.out.Status, s.out.Reason)
	}
	var post []string
	s.comp.cfg.PostCompact = func(ctx context.Context, trigger string) { post = append(post, trigger) }
	before := len(s.conv.Messages)
	if err := s.comp.Compact(context.Background(), s.conv, "the parser bug"); err != nil {
		t.Fatal(err)
	}
	if err := llm.ValidateConversation(s.conv.Messages); err != nil {
		t.Fatal(err)
	}
	if len(s.conv.Messages) >= before {
		t.Fatalf("history not shorter: %d -> %d", before, len(s.conv.Messages))
	}
	p := s.sum.Prompts()
	if len(p) != 1 || !strings.Contains(p[0], "Focus the summary on: the parser bug") || !strings.Contains(p[0], "[in_progress] read files") {
		t.Fatalf("prompts %d: %s", len(p), textcut.Bytes(strings.Join(p, "|"), 600, "…"))
	}
	first := s.conv.Messages[0]
	if !strings.Contains(first.Text(), "<summary>") || !strings.Contains(first.Text(), "[in_progress] read files") {
		t.Fatalf("first message: %s", first.Text())
	}
	if len(post) != 1 || post[0] != TriggerManual || s.events[len(s.events)-1].Trigger != TriggerManual {
		t.Fatalf("post %v", post)
	}
	// The conversation goes on from the compacted history.
	s.conv.Messages = append(s.conv.Messages, llm.UserText("go on"))
	if err := llm.ValidateConversation(s.conv.Messages); err != nil {
		t.Fatal(err)
	}
}

func TestClearKeepsRecentAndLatest(t *testing.T) {
	c := New(Config{Window: 1000, KeepRecent: 2, TranscriptPath: "T"})
	msgs := history(10, 4000)
	out, n := c.clear(msgs, len(msgs), 0)
	if n != 10-1-2 {
		t.Fatalf("cleared %d, want 7", n)
	}
	if err := llm.ValidateConversation(out); err != nil {
		t.Fatal(err)
	}
	// The input is not modified.
	if strings.HasPrefix(msgs[2].Content[0].ResultText(), "[earlier") {
		t.Fatal("clear modified its input")
	}
	last := out[len(out)-1].Content[0].ResultText()
	if strings.HasPrefix(last, "[earlier") {
		t.Fatal("latest batch cleared")
	}
	want := "[earlier result of Read src/f0.go (4000 chars) cleared to save context; it is in the transcript at T]"
	if got := out[2].Content[0].ResultText(); got != want {
		t.Fatalf("pointer %q", got)
	}
}

// history is a user prompt then n exchanges of one Read of size chars each.
func history(n, size int) []llm.Message {
	msgs := []llm.Message{llm.UserText("start")}
	for i := range n {
		id := fmt.Sprintf("t%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock(id, "Read", json.RawMessage(fmt.Sprintf(`{"file_path":"src/f%d.go"}`, i)))}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResultBlock(id, strings.Repeat("x", size), false)}})
	}
	return msgs
}

func BenchmarkCompactPass(b *testing.B) {
	c := New(Config{Window: 100_000, TranscriptPath: "T"})
	msgs := history(500, 2000) // 1,001 messages
	b.ReportAllocs()
	for b.Loop() {
		if _, n := c.clear(msgs, len(msgs), 10_000); n == 0 {
			b.Fatal("nothing cleared")
		}
	}
}

func BenchmarkSession300(b *testing.B) {
	for b.Loop() {
		s := runSession(b, Config{Window: 60_000}, sessionScript(300, -1), 20_000)
		if s.out.Status != agent.StatusCompleted {
			b.Fatalf("%s: %s", s.out.Status, s.out.Reason)
		}
		b.ReportMetric(float64(s.comp.Peak()), "peak-tokens")
	}
}

func TestClearPointsAtSpillFile(t *testing.T) {
	c := New(Config{Window: 1000, KeepRecent: 1, TranscriptPath: "T"})
	msgs := history(4, 100)
	msgs[2].Content[0] = llm.ToolResultBlock("t0", strings.Repeat("h", 1000)+"\n\n[… 50000 characters (10 lines) of 52000 left out of this view; the full output is in /s/t0.txt; Read it with offset/limit to see the rest.]\n\n"+strings.Repeat("t", 1000), false)
	out, n := c.clear(msgs, len(msgs), 0)
	if n != 1 {
		t.Fatalf("cleared %d", n)
	}
	if got := out[2].Content[0].ResultText(); !strings.HasSuffix(got, "; the full output is in /s/t0.txt]") {
		t.Fatalf("pointer %q", got)
	}
}

func TestDefaults(t *testing.T) {
	c := New(Config{Model: "claude-sonnet-5"})
	cfg := c.Config()
	if cfg.Window != 200_000 || cfg.Threshold != 0.8 || cfg.KeepRecent != 6 || c.Budget() != 160_000 {
		t.Fatalf("%+v budget %d", cfg, c.Budget())
	}
}

type shortenedTool struct{ omitted int64 }

func (shortenedTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Big", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (shortenedTool) ReadOnly() bool { return true }
func (s shortenedTool) Run(context.Context, *tool.Exec) (tool.Result, error) {
	res := tool.Text(strings.Repeat("x\n", 5000))
	res.Omitted = s.omitted
	return res, nil
}

// Clearing a spilled result keeps saying truthfully what the file holds: the full
// output, or only what the tool returned when the tool had already left part out.
func TestClearSaysWhatTheSpillFileHolds(t *testing.T) {
	for _, tc := range []struct {
		omitted int64
		want    string
	}{
		{0, "; the full output is in "},
		{70_000, "; what the tool returned (the tool had already left part of its output out) is in "},
	} {
		dir := t.TempDir()
		r := tool.NewRegistry(shortenedTool{tc.omitted})
		r.SetOptions(tool.Options{OutputBudget: 1000, SpillDir: dir})
		res := r.Run(context.Background(), tool.Call{ID: "t0", Name: "Big", Input: json.RawMessage(`{}`)})
		c := New(Config{Window: 1000, KeepRecent: 1, TranscriptPath: "T"})
		msgs := history(4, 100)
		msgs[2].Content[0] = llm.ToolResultBlock("t0", res.Text(), false)
		out, n := c.clear(msgs, len(msgs), 0)
		if n != 1 {
			t.Fatalf("cleared %d", n)
		}
		if got := out[2].Content[0].ResultText(); !strings.HasSuffix(got, tc.want+filepath.Join(dir, "t0.txt")+"]") {
			t.Errorf("omitted %d: pointer %q", tc.omitted, got)
		}
	}
}
