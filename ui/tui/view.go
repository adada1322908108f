package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/todo"
)

func (m *model) View() tea.View {
	frame := m.render()
	m.frameH = strings.Count(frame, "\n") + 1
	return tea.NewView(frame)
}

// render draws the live area: the answer's block being written, running tools, a
// question or permission dialog, the status line, the input and the footer.
func (m *model) render() string {
	var parts []string
	spin := spinFrames[m.frame%len(spinFrames)]
	if tail := m.stream.tail(); strings.TrimSpace(tail) != "" {
		if tail != m.tailSrc || m.tailWidth != m.width {
			m.tailSrc, m.tailWidth = tail, m.width
			m.tailOut = m.md.render(tail, m.width)
		}
		out := m.tailOut
		// Never taller than the screen leaves room for: the rest is printed when it ends.
		if lines := strings.Split(out, "\n"); len(lines) > m.height-8 {
			out = strings.Join(lines[len(lines)-max(m.height-8, 1):], "\n")
		}
		parts = append(parts, out)
	}
	if m.thought.active {
		parts = append(parts, m.thinkingLine(spin))
	}
	for _, b := range m.tools {
		parts = append(parts, b.renderMax(m.th, m.width, spin, false, 4))
	}
	if m.dialog != nil {
		parts = append(parts, m.dialog.view(m.th, m.width, m.height))
	} else if m.question != nil {
		parts = append(parts, m.question.view(m.th, m.width))
	}
	if m.picker != nil {
		parts = append(parts, m.picker.view(m.th, m.width, m.height))
	}
	if m.running {
		el := m.now().Sub(m.runStart).Round(time.Second)
		tok := m.outTokens + m.outChars/4
		parts = append(parts, m.th.running.Render(spin+" Working… ")+m.th.dim.Render(fmt.Sprintf("%s · ↓ %d tokens · esc to interrupt", el, tok)))
	}
	if m.partial != "" {
		parts = append(parts, m.th.warn.Render(ansi.Wrap(m.partial, m.width, "")))
	}
	for _, s := range m.sent {
		if !s.echoed { // typed while a turn runs: shown in the conversation once sent
			parts = append(parts, ansi.Truncate(m.th.dim.Render("queued › "+oneLine(s.text)), m.width, "…"))
		}
	}
	bottom := m.bottom()
	parts = append(parts, bottom)
	return strings.Join(parts, "\n")
}

// bottom is the input with its completion menu, the todo panel (beside it on a wide
// screen, above it otherwise), the notice and the footer.
func (m *model) bottom() string {
	panel := m.todoPanel()
	w := m.width
	if panel != "" && m.width >= 100 {
		w = m.width - 34 // the panel goes beside the input
	}
	if m.input.Width() != w-2 {
		m.input.SetWidth(w - 2)
	}
	rule := m.th.rule.Render(strings.Repeat("─", w))
	var in string
	if m.search != nil {
		match := ""
		if m.searchAt >= 0 && m.searchAt < len(m.hist.entries) {
			match = oneLine(m.hist.entries[m.searchAt])
		}
		in = ansi.Truncate(fmt.Sprintf("(reverse-i-search)`%s': %s", *m.search, match), m.width, "…")
	} else {
		in = m.input.View()
	}
	var menu []string
	nameW := 0
	for _, c := range m.comp {
		nameW = max(nameW, ansi.StringWidth(c.name))
	}
	for i, c := range m.comp {
		if i == 6 {
			menu = append(menu, m.th.dim.Render(fmt.Sprintf("  … %d more", len(m.comp)-6)))
			break
		}
		l := "  " + c.name
		if c.desc != "" {
			l += strings.Repeat(" ", nameW-ansi.StringWidth(c.name)) + "  " + m.th.dim.Render(c.desc)
		}
		l = ansi.Truncate(l, m.width, "…")
		if i == m.compSel {
			l = m.th.selected.Render(ansi.Strip(l))
		}
		menu = append(menu, l)
	}
	block := rule + "\n" + in + "\n" + rule
	if len(menu) > 0 {
		block += "\n" + strings.Join(menu, "\n")
	}
	if panel != "" {
		if m.width >= 100 {
			block = lipgloss.JoinHorizontal(lipgloss.Top, block, " ", panel)
		} else {
			block = panel + "\n" + block
		}
	}
	foot := m.footer()
	if m.notice != "" {
		foot = m.th.warn.Render(m.notice) + "\n" + foot
	}
	return block + "\n" + foot
}

func (m *model) todoPanel() string {
	if len(m.todos) == 0 && len(m.bg) == 0 && len(m.team) == 0 {
		return ""
	}
	w := 32
	if m.width < 100 {
		w = m.width
	}
	var lines []string
	if len(m.team) > 0 {
		lines = append(lines, m.th.bold.Render(fmt.Sprintf("Team (%d)", len(m.team))))
		for i, tm := range m.team {
			if i == 6 {
				lines = append(lines, m.th.dim.Render(fmt.Sprintf("… %d more (ouro team)", len(m.team)-6)))
				break
			}
			st := m.th.dim
			if tm.status == "working" {
				st = m.th.running
			}
			line := clean(tm.name) + " " + st.Render(tm.status)
			if tm.task != "" {
				line += m.th.dim.Render(" · " + clean(tm.task))
			}
			lines = append(lines, ansi.Truncate(line, w, "…"))
		}
	}
	if len(m.bg) > 0 {
		lines = append(lines, m.th.bold.Render(fmt.Sprintf("Background (%d running)", len(m.bg))))
		for i, b := range m.bg {
			if i == 4 {
				lines = append(lines, m.th.dim.Render(fmt.Sprintf("… %d more (/tasks)", len(m.bg)-4)))
				break
			}
			lines = append(lines, ansi.Truncate(m.th.running.Render("⏵ ")+clean(b.desc)+m.th.dim.Render(" · "+fmtDur(m.now().Sub(b.started).Round(time.Second))), w, "…"))
		}
	}
	if len(m.todos) == 0 {
		return strings.Join(lines, "\n")
	}
	lines = append(lines, m.th.bold.Render(m.todoTitle))
	for i, it := range m.todos {
		if i == 8 {
			lines = append(lines, m.th.dim.Render(fmt.Sprintf("… %d more", len(m.todos)-8)))
			break
		}
		mark, st := "☐", lipgloss.NewStyle()
		switch it.Status {
		case todo.Completed:
			mark, st = "☑", m.th.dim.Strikethrough(true)
		case todo.InProgress:
			mark, st = "◐", m.th.running
		}
		text := clean(it.Content)
		if it.Status == todo.InProgress && it.ActiveForm != "" {
			text = clean(it.ActiveForm)
		}
		lines = append(lines, ansi.Truncate(mark+" "+st.Render(text), w, "…"))
	}
	return strings.Join(lines, "\n")
}

func (m *model) footer() string {
	mode := string(m.mode)
	if mode == "" {
		mode = "default"
	}
	parts := []string{m.modelName, mode + " (shift+tab)"}
	if m.window > 0 && m.ctxUsed > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d%%", m.ctxUsed*100/m.window))
	}
	parts = append(parts, fmt.Sprintf("$%.4f", m.cost))
	foot := ansi.Truncate(m.th.dim.Render(strings.Join(parts, " · ")), m.width, "…")
	if m.status != "" { // the statusLine command's line, under the footer as in Claude Code
		foot += "\n" + ansi.Truncate(m.status, m.width, "") + "\x1b[0m"
	}
	return foot
}
