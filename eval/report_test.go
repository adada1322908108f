package eval

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// taskReport builds a TaskReport the way the runner does, metrics from Summarize.
func taskReport(name, kind string, runs ...RunResult) TaskReport {
	for i := range runs {
		runs[i].Task, runs[i].Kind, runs[i].Run = name, kind, i+1
	}
	return TaskReport{Task: name, Kind: kind, Metrics: Summarize(runs), Runs: runs}
}

// sampleReport has a task with a failing run, a clean task and a skipped task.
func sampleReport() Report {
	tasks := []TaskReport{
		taskReport("fix-off-by-one", KindFix,
			RunResult{Success: true, Claimed: true, ToolCalls: 10, Turns: 4, ContextTokens: 12000, Status: "completed"},
			RunResult{
				Claimed: true, FalseCompletion: true, Status: "completed",
				Failures:     []string{"test command failed: FAIL TestSum", "changed a file it should not: go.mod"},
				ToolCalls:    10,
				InvalidCalls: 1, Invalid: []string{"edit: old_string not found (repeated)"},
				OutOfBounds: 1, OutOfBound: []string{"read /etc/passwd: outside the workspace"},
				Turns: 6, ContextTokens: 12600,
				Transcript: "out/fix-off-by-one-2.jsonl",
			}),
		taskReport("scout-entry", KindScout,
			RunResult{Success: true, Claimed: true, ToolCalls: 5, Turns: 3, ContextTokens: 800, Status: "completed"}),
		{Task: "py-slugify", Kind: KindFix, Skipped: "python3 not found",
			Runs: []RunResult{{Task: "py-slugify", Kind: KindFix, Run: 1, Skipped: "python3 not found"}}},
	}
	var all []RunResult
	for _, t := range tasks {
		all = append(all, t.Runs...)
	}
	return Report{
		Model:    "claude-test",
		TaskSet:  "eval/tasks",
		Started:  time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC),
		Duration: 95 * time.Second,
		Overall:  Summarize(all),
		Tasks:    tasks,
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Log("\n" + out)
	lines := strings.Split(out, "\n")
	row := func(prefix string) []string {
		t.Helper()
		for _, l := range lines {
			if strings.HasPrefix(l, prefix+" ") {
				return strings.Fields(l)
			}
		}
		t.Fatalf("no row %q in\n%s", prefix, out)
		return nil
	}
	// Overall: 3 runs, 2 successes, 1 invalid of 25 calls, 1 out of bounds,
	// 13/3 turns, 25400/3 tokens, 1 false completion.
	tests := []struct {
		row  string
		want []string
	}{
		{"fix-off-by-one", []string{"fix-off-by-one", "fix", "2", "50%", "1/20", "(5%)", "1", "5", "12.3k", "1", "(50%)"}},
		{"scout-entry", []string{"scout-entry", "scout", "1", "100%", "0/5", "(0%)", "0", "3", "800", "0", "(0%)"}},
		{"OVERALL", []string{"OVERALL", "3", "66.7%", "1/25", "(4%)", "1", "4.3", "8.5k", "1", "(33.3%)"}},
	}
	for _, tt := range tests {
		if got := row(tt.row); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("row %s = %q, want %q", tt.row, got, tt.want)
		}
	}
	if got := row("py-slugify"); !strings.Contains(strings.Join(got, " "), "skipped: python3 not found") {
		t.Errorf("skipped row = %q", got)
	}
	for _, want := range []string{
		"  fix-off-by-one run 2: test command failed: FAIL TestSum\n",
		"  fix-off-by-one run 2: changed a file it should not: go.mod\n",
		"  fix-off-by-one run 2: edit: old_string not found (repeated)\n",
		"  fix-off-by-one run 2: read /etc/passwd: outside the workspace\n",
		"\n---",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if strings.Contains(out, "run 1: test command failed") || strings.Contains(out, "py-slugify run 1") {
		t.Errorf("table lists a successful run's or a skipped task's run:\n%s", out)
	}
	// The columns line up: every cell of the header starts where the rows' cells do.
	header, overall := lines[2], lines[len(lines)-1]
	for _, l := range lines {
		if strings.HasPrefix(l, "OVERALL") {
			overall = l
		}
	}
	if i, j := strings.Index(header, "SUCCESS"), strings.Index(overall, "66.7%"); i != j {
		t.Errorf("SUCCESS column at %d in the header, %d in OVERALL:\n%s", i, j, out)
	}
}

func TestFormatters(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtPct(1), "100%"},
		{fmtPct(0.5), "50%"},
		{fmtPct(2.0 / 3), "66.7%"},
		{fmtPct(0), "0%"},
		{fmtNum(4.25), "4.3"},
		{fmtNum(4), "4"},
		{fmtTokens(850), "850"},
		{fmtTokens(12345), "12.3k"},
		{fmtTokens(1_250_000), "1.3M"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
