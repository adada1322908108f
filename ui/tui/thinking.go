package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// thought is the model's extended thinking of one answer: while it streams, the live
// area shows one line, "✻ Thinking…" and the line being thought; once the answer goes on
// (text, a tool call, the end of the turn) it is printed folded, one line saying how
// long it took, and Ctrl-O prints it whole.
type thought struct {
	text    strings.Builder
	start   time.Time
	active  bool
	last    string // the whole text of the last thought folded, for Ctrl-O
	newer   bool   // the last thing folded is that thought (not a tool block)
	elapsed time.Duration
}

// think takes a piece of thinking.
func (m *model) think(s string) {
	if !m.thought.active {
		m.flushStream()
		m.thought.active, m.thought.start = true, m.now()
		m.thought.text.Reset()
	}
	m.thought.text.WriteString(s)
	m.outChars += len(s)
}

// foldThought ends the thinking being shown, printing it folded.
func (m *model) foldThought() {
	t := &m.thought
	if !t.active {
		return
	}
	t.active = false
	text := strings.TrimSpace(t.text.String())
	t.text.Reset()
	if text == "" {
		return
	}
	t.last, t.newer, t.elapsed = text, true, m.now().Sub(t.start)
	m.printBlock(m.th.dim.Render(ansi.Truncate(fmt.Sprintf("✻ Thought for %s · %d lines (ctrl+o to expand)", fmtDur(t.elapsed), strings.Count(text, "\n")+1), m.width, "…")))
}

// thinkingLine is the live area's line while thinking streams: the last line thought.
func (m *model) thinkingLine(spin string) string {
	text := strings.TrimSpace(m.thought.text.String())
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	head := m.th.running.Render(spin+" Thinking…") + " "
	return ansi.Truncate(head+m.th.dim.Render(oneLine(text)), m.width, "…")
}

// expandThought prints the last thought whole (Ctrl-O), dim and wrapped.
func (m *model) expandThought() {
	t := m.thought
	head := fmt.Sprintf("✻ Thought for %s:", fmtDur(t.elapsed))
	m.print(m.th.dim.Render(head + "\n" + strings.TrimRight(ansi.Wrap(t.last, max(m.width-2, 10), ""), "\n")))
}
