package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// metricDef is one of the six metrics, described once so the table, the HTML charts and
// the baseline comparison name, read and format it the same way.
type metricDef struct {
	Key   string // the JSON field name, also Delta.Metric
	Label string // words for people
	// Rate metrics are in [0,1] and shown as percentages.
	Rate bool
	get  func(Metrics) float64
	fmt  func(float64) string
}

// reportMetrics lists the six metrics in the seed's order.
var reportMetrics = []metricDef{
	{Key: "success_rate", Label: "success rate", Rate: true, get: func(m Metrics) float64 { return m.SuccessRate }, fmt: fmtPct},
	{Key: "invalid_call_rate", Label: "invalid call rate", Rate: true, get: func(m Metrics) float64 { return m.InvalidCallRate }, fmt: fmtPct},
	{Key: "out_of_bounds", Label: "out-of-bounds requests", get: func(m Metrics) float64 { return float64(m.OutOfBounds) }, fmt: fmtNum},
	{Key: "avg_turns", Label: "avg turns", get: func(m Metrics) float64 { return m.AvgTurns }, fmt: fmtNum},
	{Key: "avg_context_tokens", Label: "avg context tokens", get: func(m Metrics) float64 { return m.AvgContextTokens }, fmt: fmtTokens},
	{Key: "false_completion_rate", Label: "false completion rate", Rate: true, get: func(m Metrics) float64 { return m.FalseCompletionRate }, fmt: fmtPct},
}

// fmtPct shows a rate as a percentage, without a decimal when it is whole (100%, 66.7%).
func fmtPct(rate float64) string {
	return fmtNum(rate*100) + "%"
}

// fmtNum shows a count or an average with at most one decimal (4, 4.2).
func fmtNum(v float64) string {
	r := math.Round(v*10) / 10
	if r == math.Trunc(r) {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// fmtTokens shows a token count the way people read them (850, 12.3k, 1.2M).
func fmtTokens(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return fmtNum(v/1e6) + "M"
	case a >= 1e3:
		return fmtNum(v/1e3) + "k"
	default:
		return fmtNum(v)
	}
}

// reportLabel names a report for headers and for a comparison's baseline: the model, the
// scripted trajectory if any, and when it ran.
func reportLabel(r Report) string {
	s := r.Model
	if s == "" {
		s = "(no model)"
	}
	if r.Script != "" {
		s += " (" + r.Script + ")"
	}
	if !r.Started.IsZero() {
		s += " " + r.Started.Format("2006-01-02 15:04")
	}
	return s
}

// tableRow is the table's cells for one set of metrics, shared by task rows and OVERALL.
func tableRow(name, kind string, m Metrics) string {
	return fmt.Sprintf("%s\t%s\t%d\t%s\t%d/%d (%s)\t%d\t%s\t%s\t%d (%s)\t",
		name, kind, m.Runs, fmtPct(m.SuccessRate),
		m.InvalidCalls, m.ToolCalls, fmtPct(m.InvalidCallRate),
		m.OutOfBounds, fmtNum(m.AvgTurns), fmtTokens(m.AvgContextTokens),
		m.FalseCompletions, fmtPct(m.FalseCompletionRate))
}

// WriteTable writes the report as a plain terminal table: one row per task and an OVERALL
// row, then the reasons behind the numbers (each failure, invalid call and out-of-bounds
// request, one indented line per item) so a bad number can be traced without opening the
// JSON.
func WriteTable(w io.Writer, r Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "model %s", reportLabel(r))
	if r.TaskSet != "" {
		fmt.Fprintf(&b, "  task set %s", r.TaskSet)
	}
	if r.Duration > 0 {
		fmt.Fprintf(&b, "  duration %s", r.Duration.Round(time.Second))
	}
	b.WriteString("\n\n")

	var tb bytes.Buffer
	tw := tabwriter.NewWriter(&tb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tKIND\tRUNS\tSUCCESS\tINVALID CALLS\tOUT OF BOUNDS\tAVG TURNS\tAVG CONTEXT\tFALSE COMPLETIONS\t")
	for _, t := range r.Tasks {
		if t.Skipped != "" {
			// Every column gets a cell so the block stays aligned; the reason is the
			// line's last, unterminated cell so a long one does not widen a column.
			fmt.Fprintf(tw, "%s\t%s\t0\t%sskipped: %s\n", t.Task, t.Kind, strings.Repeat("-\t", 6), oneLine(t.Skipped))
			continue
		}
		fmt.Fprintln(tw, tableRow(t.Task, t.Kind, t.Metrics))
	}
	// An empty row keeps the column block unbroken; it becomes the separator below.
	fmt.Fprintln(tw, strings.Repeat("\t", 9))
	fmt.Fprintln(tw, tableRow("OVERALL", "", r.Overall))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	lines := strings.Split(strings.TrimRight(tb.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	// As wide as the header: a skipped task's reason runs past the columns.
	width := len(lines[0])
	lines[len(lines)-2] = strings.Repeat("-", width)
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n")
	if o := r.Overall; o.AvgToolDefinitionTokens+o.AvgToolResultTokens > 0 {
		fmt.Fprintf(&b, "of the context per run, about %s is tool definitions and %s tool results\n",
			fmtTokens(o.AvgToolDefinitionTokens), fmtTokens(o.AvgToolResultTokens))
	}

	writeRunLines(&b, r, "failures", func(run RunResult) []string {
		if run.Success || run.Skipped != "" {
			return nil
		}
		if len(run.Failures) == 0 {
			why := "failed, no reason recorded"
			if run.Status != "" {
				why += " (status " + run.Status + ")"
			}
			return []string{why}
		}
		return run.Failures
	})
	writeRunLines(&b, r, "invalid calls", func(run RunResult) []string { return run.Invalid })
	writeRunLines(&b, r, "out-of-bounds requests", func(run RunResult) []string { return run.OutOfBound })
	writeRunLines(&b, r, "skipped runs", func(run RunResult) []string {
		if run.Skipped == "" {
			return nil
		}
		return []string{run.Skipped}
	})

	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// writeRunLines writes a titled section with one indented "task run N: item" line per item
// that pick returns, and nothing at all when there are none. Runs of a task skipped as a
// whole are left out: the task's row already says why.
func writeRunLines(b *bytes.Buffer, r Report, title string, pick func(RunResult) []string) {
	wrote := false
	for _, t := range r.Tasks {
		if t.Skipped != "" {
			continue
		}
		for _, run := range t.Runs {
			for _, item := range pick(run) {
				if !wrote {
					fmt.Fprintf(b, "\n%s:\n", title)
					wrote = true
				}
				fmt.Fprintf(b, "  %s run %d: %s\n", t.Task, run.Run, indentMore(item))
			}
		}
	}
}

// indentMore keeps a multi-line item (test output) visibly inside its entry.
func indentMore(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// oneLine folds a text onto one line for a table cell.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// WriteJSON writes the report as indented JSON, the results.json that LoadReport reads back
// as a baseline.
func WriteJSON(w io.Writer, r Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	data = append(data, '\n')
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
