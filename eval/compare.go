package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Comparison is a report set against a baseline.
type Comparison struct {
	Baseline string  // baseline's model / label
	Rows     []Delta // one per metric per task, plus the overall ones (Task == "")
	// Regressions and Improvements are the rows that moved past a threshold, in Rows order.
	Regressions  []Delta
	Improvements []Delta
	// Missing lists the tasks that were not compared, saying why: in the baseline but not
	// in this run, in this run but not in the baseline, or skipped on one side.
	Missing []string
}

// Delta is one metric of one task (Task == "" for the overall metrics) in the baseline and
// in the current report.
type Delta struct {
	Task   string
	Metric string // "success_rate", "invalid_call_rate", "out_of_bounds", "avg_turns", "avg_context_tokens", "false_completion_rate"
	// Base is the baseline's value, Current this run's.
	Base, Current float64
	// Regression and Improvement: the value moved past Compare's thresholds, for the worse
	// or for the better; Note then says how in words.
	Regression  bool
	Improvement bool
	Note        string // e.g. "success rate fell from 100% to 50%"
}

// Thresholds below which a move is noise rather than a change: small rate wobbles and a
// few extra turns or tokens on a nondeterministic model are not worth a red line.
const (
	invalidRateSlack   = 0.01 // invalid call rate must move by more than this
	relativeSlack      = 0.10 // turns and tokens must move by more than 10% …
	turnsAbsoluteSlack = 1    // … and by at least 1 turn
	tokenAbsoluteSlack = 500  // … and tokens by at least 500
	rateEpsilon        = 1e-9 // rates are ratios of small counts; ignore float noise
)

// Compare sets cur against the baseline base, per task (matched by name) and overall.
//
// A metric regresses when, from base to cur:
//   - the success rate is lower;
//   - the invalid call rate is higher by more than 0.01 (one percentage point);
//   - the out-of-bounds requests (a total over the runs, so compare reports made with the
//     same number of runs) are more;
//   - the false completion rate is higher;
//   - the average turns are higher by more than 10% and by at least 1 turn;
//   - the average context tokens are higher by more than 10% and by at least 500 tokens.
//
// An improvement is the same move in the other direction. A task skipped on either side,
// or present on one side only, is not compared and is listed in Missing. The overall rows
// compare the two reports' overall metrics as they are, so when the task sets differ they
// compare different sets; Missing says how.
func Compare(base, cur Report) Comparison {
	c := Comparison{Baseline: reportLabel(base)}
	baseTasks := make(map[string]TaskReport, len(base.Tasks))
	for _, t := range base.Tasks {
		baseTasks[t.Task] = t
	}
	seen := make(map[string]bool, len(cur.Tasks))
	for _, t := range cur.Tasks {
		seen[t.Task] = true
		b, ok := baseTasks[t.Task]
		switch {
		case !ok:
			c.Missing = append(c.Missing, t.Task+": in this run, not in the baseline")
		case b.Skipped != "" || b.Metrics.Runs == 0:
			c.Missing = append(c.Missing, t.Task+": skipped in the baseline, not compared")
		case t.Skipped != "" || t.Metrics.Runs == 0:
			c.Missing = append(c.Missing, t.Task+": skipped in this run, not compared")
		default:
			c.add(t.Task, b.Metrics, t.Metrics)
		}
	}
	for _, t := range base.Tasks {
		if !seen[t.Task] {
			c.Missing = append(c.Missing, t.Task+": in the baseline, not in this run")
		}
	}
	if base.Overall.Runs > 0 && cur.Overall.Runs > 0 {
		c.add("", base.Overall, cur.Overall)
	}
	return c
}

// add judges the six metrics of one task (or overall) and records them.
func (c *Comparison) add(task string, base, cur Metrics) {
	for _, m := range reportMetrics {
		d := Delta{Task: task, Metric: m.Key, Base: m.get(base), Current: m.get(cur)}
		d.Regression, d.Improvement = judge(m.Key, d.Base, d.Current)
		if d.Regression || d.Improvement {
			verb := "fell"
			if d.Current > d.Base {
				verb = "rose"
			}
			d.Note = fmt.Sprintf("%s %s from %s to %s", m.Label, verb, m.fmt(d.Base), m.fmt(d.Current))
		}
		c.Rows = append(c.Rows, d)
		if d.Regression {
			c.Regressions = append(c.Regressions, d)
		}
		if d.Improvement {
			c.Improvements = append(c.Improvements, d)
		}
	}
}

// judge applies the thresholds documented on Compare. Only success rate is better higher.
func judge(metric string, base, cur float64) (regression, improvement bool) {
	// worse reports whether a moved past b in the bad (higher) direction.
	var worse func(a, b float64) bool
	switch metric {
	case "success_rate":
		return cur < base-rateEpsilon, cur > base+rateEpsilon
	case "invalid_call_rate":
		worse = func(a, b float64) bool { return a > b+invalidRateSlack+rateEpsilon }
	case "out_of_bounds", "false_completion_rate":
		worse = func(a, b float64) bool { return a > b+rateEpsilon }
	case "avg_turns":
		worse = func(a, b float64) bool { return a > b*(1+relativeSlack) && a-b >= turnsAbsoluteSlack }
	case "avg_context_tokens":
		worse = func(a, b float64) bool { return a > b*(1+relativeSlack) && a-b >= tokenAbsoluteSlack }
	default:
		return false, false
	}
	// An improvement is the mirror image: the baseline is the one that is worse by more
	// than the thresholds.
	return worse(cur, base), worse(base, cur)
}

// LoadReport reads a results.json written by WriteJSON, typically to use as a baseline.
func LoadReport(path string) (Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Report{}, fmt.Errorf("load report: %w", err)
	}
	// Any JSON object decodes into a Report without error, so first check that this one
	// has the fields every report has.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return Report{}, fmt.Errorf("%s is not a results.json: %w", path, err)
	}
	for _, k := range []string{"overall", "tasks"} {
		if _, ok := fields[k]; !ok {
			return Report{}, fmt.Errorf("%s is not a results.json: no %q field", path, k)
		}
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return Report{}, fmt.Errorf("%s is not a results.json: %w", path, err)
	}
	return r, nil
}

// WriteComparison writes the comparison for a terminal: regressions first, then
// improvements, then how many comparisons did not change and which tasks were not
// compared.
func WriteComparison(w io.Writer, c Comparison) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "against baseline %s\n", c.Baseline)
	for _, d := range c.Regressions {
		fmt.Fprintf(&b, "REGRESSION %s\n", deltaLine(d))
	}
	for _, d := range c.Improvements {
		fmt.Fprintf(&b, "improved   %s\n", deltaLine(d))
	}
	same := len(c.Rows) - len(c.Regressions) - len(c.Improvements)
	fmt.Fprintf(&b, "no change: %d of %d comparisons\n", same, len(c.Rows))
	for _, m := range c.Missing {
		fmt.Fprintf(&b, "not compared: %s\n", m)
	}
	if len(c.Regressions) == 0 {
		b.WriteString("no regressions\n")
	} else {
		fmt.Fprintf(&b, "%d regression%s\n", len(c.Regressions), plural(len(c.Regressions)))
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

// deltaLine is "task: metric base → current".
func deltaLine(d Delta) string {
	task := taskOrOverall(d.Task)
	label, format := d.Metric, fmtNum
	for _, m := range reportMetrics {
		if m.Key == d.Metric {
			label, format = m.Label, m.fmt
		}
	}
	return fmt.Sprintf("%s: %s %s → %s", task, label, format(d.Base), format(d.Current))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// taskOrOverall names a Delta's task for people.
func taskOrOverall(task string) string {
	if task == "" {
		return "overall"
	}
	return task
}
