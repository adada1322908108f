package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/llm/scripted"
)

// The goal survives compaction (the summary's restore puts it back, and the model is not
// told twice) and resume (the transcript keeps it, and its clearing).
func TestGoalSurvivesCompactionAndResume(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, prov := open(t, home, cwd, []scripted.Turn{
		{ExpectContains: "The user set a goal for this session: ship v2", Text: "done"},
		{Text: `{"met": true, "reason": "shown"}`},       // the evaluator
		{Text: "Summary: the user wants v2 shipped."},    // the compaction summary
		{ExpectContains: "go on", Text: "still on it"},   // after the summary
		{Text: `{"met": true, "reason": "shown again"}`}, // the evaluator
	}, func(o *Options) { o.Goal = GoalOptions{Condition: "ship v2"} })
	ctx := context.Background()
	if out := s.Run(ctx, "start"); !out.OK() {
		t.Fatalf("first run: %+v", out)
	}
	if err := s.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if out := s.Run(ctx, "go on"); !out.OK() {
		t.Fatalf("run after the summary: %+v", out)
	}
	reqs := prov.Requests()
	var sent strings.Builder
	for _, m := range reqs[len(reqs)-2].Messages {
		sent.WriteString(m.Text())
	}
	if n := strings.Count(sent.String(), "The user set a goal for this session: ship v2"); n != 1 {
		t.Fatalf("the request after the summary has the goal %d times:\n%s", n, sent.String())
	}
	id := s.ID()
	if err := s.SetGoal(goal.State{Condition: "ship v3"}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	r, _ := open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, func(o *Options) { o.Resume.ID = id })
	if r.Goal().Condition != "ship v3" {
		t.Fatalf("resumed goal = %+v", r.Goal())
	}
	if err := r.SetGoal(goal.State{}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r2, _ := open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, func(o *Options) { o.Resume.ID = id })
	if r2.Goal().Active() {
		t.Fatalf("a cleared goal came back: %+v", r2.Goal())
	}
	// A flag given on resume replaces the saved goal.
	r2.Close()
	r3, _ := open(t, home, cwd, []scripted.Turn{{Text: "unused"}}, func(o *Options) {
		o.Resume.ID = id
		o.Goal = GoalOptions{Condition: "ship v4"}
	})
	if r3.Goal().Condition != "ship v4" {
		t.Fatalf("goal = %+v", r3.Goal())
	}
}

// A saved goal that is oversized (a transcript edited by hand) is left out with a
// warning; the session opens.
func TestBrokenSavedGoalIsLeftOut(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, _ := open(t, home, cwd, []scripted.Turn{{Text: "x"}}, nil)
	id := s.ID()
	w := s.writer
	if err := w.AppendEntry(goal.EntryState, map[string]any{"condition": strings.Repeat("x", 10_000)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, _ := open(t, home, cwd, []scripted.Turn{{Text: "x"}}, func(o *Options) { o.Resume.ID = id })
	if r.Goal().Active() {
		t.Fatal("an oversized saved goal was taken")
	}
}

// The check runs in the sandbox, as Bash does: it cannot write outside the workspace,
// even where sandbox.excludedCommands would let the model's Bash out.
func TestGoalCheckRunsUnderTheGuard(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	outside := filepath.Join(t.TempDir(), "escaped")
	s, _ := open(t, home, cwd, []scripted.Turn{{Text: "x"}}, func(o *Options) {
		o.Access.Mode = "" // default mode: a check that writes would ask, and the flag approves it
		o.Access.Deny = []string{"Bash(curl *)"}
		// The model's echo would run outside the sandbox; the check's never does.
		o.Access.Settings = `{"sandbox": {"excludedCommands": ["echo"]}}`
		o.Access.SandboxLauncher = true
	})
	c := goalCheck{goal.NewCheck(goalShell(s.guard), s.Workspace, cwd)}
	if r := c.run(context.Background(), "curl http://example.com"); !r.Refused || !strings.Contains(r.Output, "Bash(curl *)") {
		t.Fatalf("a denied check ran: %+v", r)
	}
	if r := c.run(context.Background(), "echo ok > inside.txt && cat inside.txt"); !r.Passed || !strings.Contains(r.Output, "ok") {
		t.Fatalf("the user's own check was not run: %+v", r)
	}
	if s.guard.sandbox == nil {
		t.Skip("no OS sandbox here")
	}
	r := c.run(context.Background(), "echo x > "+outside)
	if _, err := os.Stat(outside); err == nil || r.Passed {
		t.Fatalf("the check wrote outside the workspace: %+v", r)
	}
}

// A settings file with a round limit out of range is reported and the default used: a
// repository's file cannot stop ouro from starting.
func TestGoalSettingsOutOfRangeWarns(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".claude", "settings.json"), []byte(`{"goal":{"maxRounds":100000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	s, _ := open(t, home, cwd, []scripted.Turn{{Text: "x"}}, func(o *Options) { o.UI.Warn = &warn })
	if s.GoalRounds() != goal.DefaultMaxRounds || !strings.Contains(warn.String(), "goal.maxRounds must be between 1 and 100") {
		t.Fatalf("rounds %d, warnings %q", s.GoalRounds(), warn.String())
	}
}

// goalCheck runs check commands as the session's goal does, with the default timeout.
type goalCheck struct {
	check func(context.Context, string, time.Duration) goal.CheckResult
}

func (c goalCheck) run(ctx context.Context, command string) goal.CheckResult {
	return c.check(ctx, command, goal.DefaultCheckTimeout)
}
