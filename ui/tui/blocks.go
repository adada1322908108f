package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/ui"
)

// toolBlock is one tool call on screen: its name, the audit's one-line summary of its
// input, its status and duration, a few lines of its result and, for edits and writes,
// the diff.
type toolBlock struct {
	id, name, summary string
	start             time.Time
	dur               time.Duration
	done, failed      bool
	result            string // the whole result text
	diff              []diffLine
}

const resultPreviewLines = 3

// newToolBlock shows c; paths inside cwd (the workspace) are shown relative to it.
func newToolBlock(c *tool.Call, diff []diffLine, now time.Time, cwd string) *toolBlock {
	return &toolBlock{id: c.ID, name: clean(c.Name), summary: clean(ui.ToolSummary(*c, cwd)), start: now, diff: diff}
}

func (b *toolBlock) finish(r *llm.Block, start, end time.Time) {
	b.done = true
	if r != nil {
		b.result = clean(strings.TrimRight(r.ResultText(), "\n"))
		b.failed = r.IsError
	}
	if !start.IsZero() && !end.IsZero() {
		b.dur = end.Sub(start)
	} else {
		b.dur = time.Since(b.start)
	}
}

// render draws the block width columns wide; expanded shows the whole result.
func (b *toolBlock) render(t *theme, width int, spin string, expanded bool) string {
	return b.renderMax(t, width, spin, expanded, 24)
}

// renderMax draws it with at most maxDiff lines of diff (fewer while it runs, in the
// live area).
func (b *toolBlock) renderMax(t *theme, width int, spin string, expanded bool, maxDiff int) string {
	status := t.running.Render(spin)
	switch {
	case b.done && b.failed:
		status = t.fail.Render("✗")
	case b.done:
		status = t.ok.Render("✓")
	}
	head := fmt.Sprintf("%s %s(%s)", status, t.bold.Render(b.name), oneLine(b.summary))
	if b.done {
		head += t.dim.Render(" · " + fmtDur(b.dur))
	}
	lines := []string{ansi.Truncate(head, width, "…")}
	if len(b.diff) > 0 && !b.failed {
		lines = append(lines, renderDiff(b.diff, t, width-4, maxDiff)...)
	}
	if b.done && b.result != "" && (len(b.diff) == 0 || b.failed) {
		rl := strings.Split(b.result, "\n")
		shown := rl
		if !expanded && len(rl) > resultPreviewLines {
			shown = rl[:resultPreviewLines]
		}
		for i, l := range shown {
			prefix := "  ⎿ "
			if i > 0 {
				prefix = "    "
			}
			st := t.dim
			if b.failed {
				st = t.fail
			}
			lines = append(lines, prefix+st.Render(ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), max(width-4, 10), "…")))
		}
		if len(shown) < len(rl) {
			lines = append(lines, t.dim.Render(fmt.Sprintf("    … +%d lines (ctrl+o to expand)", len(rl)-len(shown))))
		}
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ") }

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// diffLine is one line of a diff: op is ' ', '-', '+' or '~' (skipped context).
type diffLine struct {
	op   byte
	text string
}

// lineDiff is the line diff of a and b with two lines of context around each change.
func lineDiff(a, b string) []diffLine {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var all []diffLine
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l == "" {
				continue
			}
			all = append(all, diffLine{op: op, text: clean(strings.TrimSuffix(l, "\n"))})
		}
	}
	// Keep two lines of context around changes.
	keep := make([]bool, len(all))
	for i, l := range all {
		if l.op != ' ' {
			for j := max(0, i-2); j <= min(len(all)-1, i+2); j++ {
				keep[j] = true
			}
		}
	}
	var out []diffLine
	skipped := false
	for i, l := range all {
		if keep[i] {
			out = append(out, l)
			skipped = false
		} else if !skipped {
			out = append(out, diffLine{op: '~'})
			skipped = true
		}
	}
	return out
}

// renderDiff draws at most maxLines of d, coloured, indented under a tool line.
func renderDiff(d []diffLine, t *theme, width, maxLines int) []string {
	var out []string
	for i, l := range d {
		if i == maxLines {
			out = append(out, t.dim.Render(fmt.Sprintf("    … %d more diff lines", len(d)-i)))
			break
		}
		text := ansi.Truncate(strings.ReplaceAll(l.text, "\t", "    "), max(width-2, 10), "…")
		switch l.op {
		case '-':
			out = append(out, "    "+t.removed.Render("- "+text))
		case '+':
			out = append(out, "    "+t.added.Render("+ "+text))
		case '~':
			out = append(out, "    "+t.hunk.Render("⋯"))
		default:
			out = append(out, "    "+t.dim.Render("  "+text))
		}
	}
	return out
}

// callDiff is the diff an Edit, MultiEdit or Write call would make (read from the file
// on disk as it is now), or nil for other tools.
func callDiff(c *tool.Call) []diffLine {
	var in struct {
		FilePath  string `json:"file_path"`
		Content   *string
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Edits     []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	}
	if json.Unmarshal(c.Input, &in) != nil {
		return nil
	}
	switch c.Name {
	case "Edit":
		return lineDiff(in.OldString, in.NewString)
	case "MultiEdit":
		var out []diffLine
		for _, e := range in.Edits {
			out = append(out, lineDiff(e.OldString, e.NewString)...)
		}
		return out
	case "Write":
		if in.Content == nil {
			return nil
		}
		old := ""
		if fi, err := os.Stat(in.FilePath); err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<20 {
			data, _ := os.ReadFile(in.FilePath)
			old = string(data)
		}
		return lineDiff(old, *in.Content)
	}
	return nil
}
