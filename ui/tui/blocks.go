package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

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
	past              bool   // shown again from an earlier run (on resume): no duration
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
	if b.done && !b.past {
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
