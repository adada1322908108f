package eval

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
)

// Chart geometry, in SVG user units: a label column, the bars, and room for the value.
const (
	chartLabelWidth = 220
	chartBarWidth   = 320
	chartValueWidth = 90
	chartRowHeight  = 22
	chartBarHeight  = 14
	chartLabelRunes = 30 // longer task names are cut so they do not run into the bars
)

// htmlView and the types below are what renderHTML sees: every number already formatted
// and every position computed, so rendering only places them.
type htmlView struct {
	Model, TaskSet, Date, Duration, Version string
	Big                                     []htmlBig
	Charts                                  []htmlChart
	Runs                                    []htmlRun
	Cmp                                     *htmlComparison
}

type htmlBig struct{ Label, Value, Detail string }

type htmlChart struct {
	Title              string
	Width, Height      int
	LabelX, BarX, BarH int
	Bars               []htmlBar
}

type htmlBar struct {
	Label, FullLabel, Value string
	Y, TextY                int
	W, ValueX               float64
}

type htmlRun struct {
	Task                                    string
	Run                                     int
	Status                                  string
	Skipped                                 bool
	Success, Claimed, FalseCompletion       bool
	Calls, Invalid, OutOfBounds, Turns      int
	Tokens                                  string
	Failures, InvalidLines, OutOfBoundLines []string
	Transcript                              string
	TranscriptURL                           string // already a URL: escaped for HTML only
}

type htmlComparison struct {
	Baseline    string
	Regressions int
	Rows        []htmlDelta
	Missing     []string
}

type htmlDelta struct {
	Task, Metric, Base, Current, Note string
	Class                             string
}

// WriteHTML writes the report as one self-contained HTML page (no scripts, no external
// assets, so it can be mailed or archived as is): the header, the six overall numbers, an
// inline SVG bar chart per metric with a bar per task, the per-run table and, when cmp is
// not nil, the comparison with a baseline with its regressions highlighted.
func WriteHTML(w io.Writer, r Report, cmp *Comparison) error {
	v := htmlView{Model: r.Model, TaskSet: r.TaskSet, Version: r.Version}
	if v.Model == "" {
		v.Model = "(no model)"
	}
	if r.Script != "" {
		v.Model += " (" + r.Script + ")"
	}
	if !r.Started.IsZero() {
		v.Date = r.Started.Format("2006-01-02 15:04 MST")
	}
	v.Duration = r.Duration.Round(time.Second).String()

	o := r.Overall
	v.Big = []htmlBig{
		{"task success rate", fmtPct(o.SuccessRate), fmt.Sprintf("%d runs", o.Runs)},
		{"invalid tool call rate", fmtPct(o.InvalidCallRate), fmt.Sprintf("%d of %d calls", o.InvalidCalls, o.ToolCalls)},
		{"out-of-bounds requests", fmt.Sprint(o.OutOfBounds), "total over the runs"},
		{"average turns", fmtNum(o.AvgTurns), "model calls per run"},
		{"context tokens", fmtTokens(o.AvgContextTokens), fmt.Sprintf("input tokens per run; about %s tool definitions, %s tool results",
			fmtTokens(o.AvgToolDefinitionTokens), fmtTokens(o.AvgToolResultTokens))},
		{"false completion rate", fmtPct(o.FalseCompletionRate), fmt.Sprintf("%d claimed done but failed", o.FalseCompletions)},
	}
	for _, m := range reportMetrics {
		v.Charts = append(v.Charts, buildChart(m, r.Tasks))
	}
	for _, t := range r.Tasks {
		for _, run := range t.Runs {
			v.Runs = append(v.Runs, buildRun(run))
		}
	}
	if cmp != nil {
		v.Cmp = buildComparison(*cmp)
	}
	if _, err := io.WriteString(w, renderHTML(v)); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// buildChart lays out one metric's bars. Rates are drawn against 100% so that a set of
// equally poor tasks does not look full; counts and averages against the largest value.
func buildChart(m metricDef, tasks []TaskReport) htmlChart {
	c := htmlChart{
		Title:  m.Label,
		Width:  chartLabelWidth + chartBarWidth + chartValueWidth,
		Height: max(1, len(tasks))*chartRowHeight + 8,
		LabelX: chartLabelWidth - 8,
		BarX:   chartLabelWidth,
		BarH:   chartBarHeight,
	}
	scale := 1.0
	if !m.Rate {
		scale = 0
		for _, t := range tasks {
			if t.Skipped == "" {
				scale = max(scale, m.get(t.Metrics))
			}
		}
	}
	for i, t := range tasks {
		b := htmlBar{
			Label:     textcut.Runes(t.Task, chartLabelRunes, "…"),
			FullLabel: t.Task,
			Y:         4 + i*chartRowHeight + (chartRowHeight-chartBarHeight)/2,
			TextY:     4 + i*chartRowHeight + chartRowHeight/2 + 4,
		}
		if t.Skipped != "" {
			b.Value = "skipped"
		} else {
			val := m.get(t.Metrics)
			b.Value = m.fmt(val)
			if scale > 0 {
				b.W = min(1, max(0, val/scale)) * chartBarWidth
			}
		}
		b.ValueX = float64(chartLabelWidth) + b.W + 6
		c.Bars = append(c.Bars, b)
	}
	return c
}

func buildRun(run RunResult) htmlRun {
	h := htmlRun{
		Task:            run.Task,
		Run:             run.Run,
		Status:          run.Status,
		Skipped:         run.Skipped != "",
		Success:         run.Success,
		Claimed:         run.Claimed,
		FalseCompletion: run.FalseCompletion,
		Calls:           run.ToolCalls,
		Invalid:         run.InvalidCalls,
		OutOfBounds:     run.OutOfBounds,
		Turns:           run.Turns,
		Tokens:          fmtTokens(float64(run.ContextTokens)),
		Failures:        run.Failures,
		InvalidLines:    run.Invalid,
		OutOfBoundLines: run.OutOfBound,
		Transcript:      run.Transcript,
	}
	if h.Skipped {
		h.Status = "skipped"
		h.Failures = []string{run.Skipped}
	}
	if run.Reason != "" && !run.Success {
		h.Status += ": " + run.Reason
	}
	if run.Transcript != "" {
		h.TranscriptURL = fileURL(run.Transcript)
	}
	return h
}

// fileURL makes a file:// link to a transcript; a relative path is taken from the current
// directory, where the run wrote it. The URL is built by net/url, which escapes the path.
func fileURL(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}

func buildComparison(c Comparison) *htmlComparison {
	h := &htmlComparison{Baseline: c.Baseline, Regressions: len(c.Regressions), Missing: c.Missing}
	labels := make(map[string]metricDef, len(reportMetrics))
	for _, m := range reportMetrics {
		labels[m.Key] = m
	}
	for _, d := range c.Rows {
		m, ok := labels[d.Metric]
		if !ok {
			m = metricDef{Label: d.Metric, fmt: fmtNum}
		}
		row := htmlDelta{
			Task:    taskOrOverall(d.Task),
			Metric:  m.Label,
			Base:    m.fmt(d.Base),
			Current: m.fmt(d.Current),
			Note:    d.Note,
		}
		switch {
		case d.Regression:
			row.Class = "regression"
		case d.Improvement:
			row.Class = "improvement"
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}
