package statusline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeRun records each run: its input, and how many run at once; block holds a run
// until its context ends or release is closed.
type fakeRun struct {
	mu      sync.Mutex
	inputs  []Input
	running int
	most    int
	out     func(n int) (string, error)
	block   chan struct{}
}

func (f *fakeRun) Command(ctx context.Context, command string, stdin []byte, timeout time.Duration) (string, error) {
	var in Input
	if err := json.Unmarshal(stdin, &in); err != nil {
		return "", err
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	n := len(f.inputs)
	f.running++
	f.most = max(f.most, f.running)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
	if f.block != nil {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-f.block:
		}
	}
	return f.out(n)
}

func (f *fakeRun) runs() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.inputs) }

type shown struct {
	mu    sync.Mutex
	texts []string
}

func (s *shown) show(t string) { s.mu.Lock(); s.texts = append(s.texts, t); s.mu.Unlock() }
func (s *shown) last() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.texts) == 0 {
		return "", 0
	}
	return s.texts[len(s.texts)-1], len(s.texts)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// The first run is at the start; a burst of refreshes within the debounce runs the
// command once more, with the state as it is then; the JSON names Claude Code's fields.
func TestStartThenDebouncedRefresh(t *testing.T) {
	f := &fakeRun{out: func(n int) (string, error) { return "\n  run " + string(rune('0'+n)) + "  \nsecond line\n", nil }}
	var s shown
	var mu sync.Mutex
	model := "claude-sonnet-4-5-20250929"
	l := Start(context.Background(), Config{Command: "x", Padding: 2, Run: f, Show: s.show, Debounce: 50 * time.Millisecond,
		Input: func() Input {
			mu.Lock()
			defer mu.Unlock()
			return Input{SessionID: "s1", Model: Model{ID: model, DisplayName: DisplayName(model)}}
		}})
	defer l.Stop()
	waitFor(t, "the first run", func() bool { _, n := s.last(); return n == 1 })
	if got, _ := s.last(); got != "  run 1" {
		t.Fatalf("shown %q", got)
	}
	mu.Lock()
	model = "claude-opus-4-1"
	mu.Unlock()
	for range 10 {
		l.Refresh()
		time.Sleep(5 * time.Millisecond)
	}
	waitFor(t, "the refresh", func() bool { _, n := s.last(); return n == 2 })
	time.Sleep(150 * time.Millisecond)
	if f.runs() != 2 {
		t.Fatalf("%d runs for one burst of refreshes", f.runs())
	}
	in := f.inputs[1]
	if in.HookEventName != "Status" || in.SessionID != "s1" || in.Model.ID != "claude-opus-4-1" || in.Model.DisplayName != "Opus 4.1" {
		t.Fatalf("input %+v", in)
	}
	raw, _ := json.Marshal(Input{})
	for _, k := range []string{`"hook_event_name"`, `"session_id"`, `"transcript_path"`, `"cwd"`, `"model":{"id":"","display_name":""}`,
		`"workspace":{"current_dir":"","project_dir":""`, `"version"`, `"output_style":{"name":""}`,
		`"cost":{"total_cost_usd":0,"total_duration_ms":0,"total_api_duration_ms":0,"total_lines_added":0,"total_lines_removed":0}`,
		`"context_window":{"total_input_tokens":0,"total_output_tokens":0,"context_window_size":0,"current_usage":null,"used_percentage":null,"remaining_percentage":null}`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("the input lacks %s: %s", k, raw)
		}
	}
}

// Never two runs at once: a refresh while one runs cancels it (its answer is not shown)
// and the next starts once it ended.
func TestOneRunAtATime(t *testing.T) {
	f := &fakeRun{block: make(chan struct{}), out: func(n int) (string, error) { return "run", nil }}
	var s shown
	l := Start(context.Background(), Config{Command: "x", Run: f, Show: s.show, Debounce: 10 * time.Millisecond, Input: func() Input { return Input{} }})
	defer l.Stop()
	waitFor(t, "the first run to start", func() bool { return f.runs() == 1 })
	l.Refresh()
	waitFor(t, "the second run to start", func() bool { return f.runs() == 2 })
	close(f.block)
	waitFor(t, "the second run to show", func() bool { _, n := s.last(); return n == 1 })
	if f.most != 1 {
		t.Fatalf("%d runs at once", f.most)
	}
}

// A failing command shows nothing, and so does one that printed only blanks.
func TestFailureShowsNothing(t *testing.T) {
	calls := 0
	f := &fakeRun{out: func(n int) (string, error) {
		calls++
		if n == 2 {
			return "partial", errors.New("failed: exit status 1")
		}
		return [...]string{"", "ok", "", " \n\n"}[n], nil
	}}
	var s shown
	var failed []error
	var mu sync.Mutex
	l := Start(context.Background(), Config{Command: "x", Run: f, Show: s.show, Debounce: time.Millisecond, Input: func() Input { return Input{} },
		Failed: func(err error) { mu.Lock(); failed = append(failed, err); mu.Unlock() }})
	defer l.Stop()
	waitFor(t, "ok", func() bool { got, _ := s.last(); return got == "ok" })
	l.Refresh()
	waitFor(t, "the failure", func() bool { _, n := s.last(); return n == 2 })
	if got, _ := s.last(); got != "" || len(failed) != 1 {
		t.Fatalf("after a failure %q shown, failures %v", got, failed)
	}
	l.Refresh()
	waitFor(t, "the blank output", func() bool { _, n := s.last(); return n == 3 })
	if got, _ := s.last(); got != "" {
		t.Fatalf("blank output showed %q", got)
	}
}

// refreshInterval runs the command again without a refresh.
func TestEvery(t *testing.T) {
	f := &fakeRun{out: func(n int) (string, error) { return "x", nil }}
	var s shown
	l := Start(context.Background(), Config{Command: "x", Run: f, Show: s.show, Every: 30 * time.Millisecond, Input: func() Input { return Input{} }})
	waitFor(t, "three runs", func() bool { return f.runs() >= 3 })
	l.Stop()
}

func TestText(t *testing.T) {
	for _, c := range []struct {
		out  string
		pad  int
		want string
	}{
		{"\n\n  hi there \nmore", 0, "hi there"},
		{"\x1b[0;32mdir\x1b[0m | Sonnet", 1, " \x1b[0;32mdir\x1b[0m | Sonnet\x1b[0m"},
		{"\x1b]52;c;aGk=\x07evil\x1b[2J", 0, `\x1b]52;c;aGk=\x07evil\x1b[2J`},
		{"a\rb", 0, `a\x0db`},
		{"", 3, ""},
	} {
		if got := Text(c.out, c.pad); got != c.want {
			t.Errorf("Text(%q, %d) = %q, want %q", c.out, c.pad, got, c.want)
		}
	}
}

func TestDisplayNameAndUsage(t *testing.T) {
	for id, want := range map[string]string{"claude-sonnet-4-5-20250929": "Sonnet 4.5", "claude-opus-4-1": "Opus 4.1",
		"claude-3-5-haiku-20241022": "Haiku 3.5", "gpt-4o": "gpt-4o", "claude-": "claude-"} {
		if got := DisplayName(id); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", id, got, want)
		}
	}
	c := ContextWindow{ContextWindowSize: 200000}
	c.SetUsage(Usage{InputTokens: 1000, CacheReadInputTokens: 39000, OutputTokens: 500})
	if *c.UsedPercentage != 20 || *c.RemainingPercentage != 80 {
		t.Fatalf("%v %v", *c.UsedPercentage, *c.RemainingPercentage)
	}
}
