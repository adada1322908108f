package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// metricsReport builds a report straight from per-task metrics, for comparisons.
func metricsReport(model string, overall Metrics, tasks ...TaskReport) Report {
	return Report{Model: model, Overall: overall, Tasks: tasks}
}

func TestCompare(t *testing.T) {
	steady := Metrics{Runs: 2, SuccessRate: 1, InvalidCallRate: 0.05, AvgTurns: 4, AvgContextTokens: 10000}
	base := metricsReport("base",
		Metrics{Runs: 10, SuccessRate: 1, AvgTurns: 4, AvgContextTokens: 10000},
		TaskReport{Task: "success-drop", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgTurns: 4}},
		TaskReport{Task: "turns-noise", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgTurns: 4}},
		TaskReport{Task: "turns-up", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgTurns: 4}},
		TaskReport{Task: "turns-down", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgTurns: 6}},
		TaskReport{Task: "tokens", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgContextTokens: 10000}},
		TaskReport{Task: "tokens-small", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgContextTokens: 1000}},
		TaskReport{Task: "rates", Metrics: steady},
		TaskReport{Task: "skipped-now", Metrics: steady},
		TaskReport{Task: "gone", Metrics: steady},
	)
	cur := metricsReport("cur",
		Metrics{Runs: 10, SuccessRate: 0.9, AvgTurns: 4.2, AvgContextTokens: 10400},
		TaskReport{Task: "success-drop", Metrics: Metrics{Runs: 2, SuccessRate: 0.5, AvgTurns: 4}},
		TaskReport{Task: "turns-noise", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgTurns: 4.2}},
		TaskReport{Task: "turns-up", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgTurns: 6}},
		TaskReport{Task: "turns-down", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgTurns: 4}},
		TaskReport{Task: "tokens", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgContextTokens: 10500}},      // +5%
		TaskReport{Task: "tokens-small", Metrics: Metrics{Runs: 2, SuccessRate: 1, AvgContextTokens: 1400}}, // +40% but < 500
		TaskReport{Task: "rates", Metrics: Metrics{Runs: 2, SuccessRate: 1, InvalidCallRate: 0.055, OutOfBounds: 1,
			FalseCompletionRate: 0.5, FalseCompletions: 1, AvgTurns: 4, AvgContextTokens: 10000}},
		TaskReport{Task: "skipped-now", Skipped: "python3 not found"},
		TaskReport{Task: "new", Metrics: steady},
	)
	c := Compare(base, cur)

	key := func(ds []Delta) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Task+"/"+d.Metric)
		}
		sort.Strings(out)
		return out
	}
	wantReg := []string{
		"/success_rate",
		"rates/false_completion_rate",
		"rates/out_of_bounds",
		"success-drop/success_rate",
		"turns-up/avg_turns",
	}
	if got := key(c.Regressions); !reflect.DeepEqual(got, wantReg) {
		t.Errorf("regressions = %q\nwant %q", got, wantReg)
	}
	if got, want := key(c.Improvements), []string{"turns-down/avg_turns"}; !reflect.DeepEqual(got, want) {
		t.Errorf("improvements = %q, want %q", got, want)
	}
	// 7 tasks compared and the overall, six metrics each.
	if len(c.Rows) != 8*6 {
		t.Errorf("%d rows, want %d", len(c.Rows), 8*6)
	}
	for _, d := range c.Rows {
		if (d.Regression || d.Improvement) != (d.Note != "") {
			t.Errorf("%s/%s: note %q with regression=%v improvement=%v", d.Task, d.Metric, d.Note, d.Regression, d.Improvement)
		}
		if d.Task == "success-drop" && d.Metric == "success_rate" && d.Note != "success rate fell from 100% to 50%" {
			t.Errorf("note = %q", d.Note)
		}
	}
	wantMissing := []string{
		"skipped-now: skipped in this run, not compared",
		"new: in this run, not in the baseline",
		"gone: in the baseline, not in this run",
	}
	if !reflect.DeepEqual(c.Missing, wantMissing) {
		t.Errorf("missing = %q\nwant %q", c.Missing, wantMissing)
	}
	if c.Baseline != "base" {
		t.Errorf("baseline = %q", c.Baseline)
	}
}

func TestJudgeThresholds(t *testing.T) {
	tests := []struct {
		metric         string
		base, cur      float64
		regress, impro bool
	}{
		{"success_rate", 1, 0.5, true, false},
		{"success_rate", 0.5, 1, false, true},
		{"success_rate", 2.0 / 3, 2.0 / 3, false, false},
		{"invalid_call_rate", 0.05, 0.06, false, false}, // exactly one point: not more than 0.01
		{"invalid_call_rate", 0.05, 0.07, true, false},
		{"invalid_call_rate", 0.07, 0.05, false, true},
		{"out_of_bounds", 0, 1, true, false},
		{"out_of_bounds", 2, 1, false, true},
		{"false_completion_rate", 0, 0.25, true, false},
		{"avg_turns", 4, 4.2, false, false},
		{"avg_turns", 4, 6, true, false},
		{"avg_turns", 30, 32, false, false}, // 2 turns but under 10%
		{"avg_turns", 4, 4.6, false, false}, // 15% but under 1 turn
		{"avg_turns", 6, 4, false, true},
		{"avg_context_tokens", 10000, 10500, false, false}, // +5%
		{"avg_context_tokens", 10000, 12000, true, false},
		{"avg_context_tokens", 1000, 1400, false, false}, // +40% but only 400 tokens
		{"avg_context_tokens", 12000, 10000, false, true},
	}
	for _, tt := range tests {
		r, i := judge(tt.metric, tt.base, tt.cur)
		if r != tt.regress || i != tt.impro {
			t.Errorf("%s %v → %v: regression=%v improvement=%v, want %v %v", tt.metric, tt.base, tt.cur, r, i, tt.regress, tt.impro)
		}
	}
}

func TestWriteComparison(t *testing.T) {
	base := sampleReport()
	cur := sampleReport()
	cur.Tasks[1] = taskReport("scout-entry", KindScout,
		RunResult{Claimed: true, FalseCompletion: true, ToolCalls: 5, Turns: 3, ContextTokens: 800})
	cur.Overall = Summarize(append(append([]RunResult{}, cur.Tasks[0].Runs...), cur.Tasks[1].Runs...))

	var b bytes.Buffer
	if err := WriteComparison(&b, Compare(base, cur)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	reg := strings.Index(out, "REGRESSION scout-entry: success rate 100% → 0%\n")
	if reg < 0 {
		t.Fatalf("no success regression line:\n%s", out)
	}
	if !strings.Contains(out, "REGRESSION scout-entry: false completion rate 0% → 100%\n") {
		t.Errorf("no false completion regression line:\n%s", out)
	}
	if !strings.Contains(out, "REGRESSION overall: success rate 66.7% → 33.3%\n") {
		t.Errorf("no overall regression line:\n%s", out)
	}
	if same := strings.Index(out, "no change: 14 of 18 comparisons"); same < reg {
		t.Errorf("no-change summary missing or before the regressions:\n%s", out)
	}
	if strings.Contains(out, "no regressions") {
		t.Errorf("says no regressions:\n%s", out)
	}

	b.Reset()
	if err := WriteComparison(&b, Compare(base, base)); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "no regressions\n") || strings.Contains(out, "REGRESSION") {
		t.Errorf("identical reports:\n%s", out)
	}
}

func TestLoadReport(t *testing.T) {
	dir := t.TempDir()
	want := sampleReport()
	path := filepath.Join(dir, "results.json")
	var b bytes.Buffer
	if err := WriteJSON(&b, want); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip changed the report:\ngot  %+v\nwant %+v", got, want)
	}

	for name, content := range map[string]string{
		"notes.txt":  "these are not the results you are looking for",
		"other.json": `{"name": "package.json, say"}`,
		"list.json":  `[1, 2]`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadReport(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("LoadReport(%s) error = %v, want one naming the file", name, err)
		}
	}
	if _, err := LoadReport(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("missing file error = %v", err)
	}
}
