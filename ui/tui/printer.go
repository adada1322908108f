package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// What goes above the live area is printed by the renderer (tea.Println), which makes
// room for it by scrolling the screen and moving up over it and the live area. It can
// only move up as far as the top of the screen: a print that with the live area is
// taller than the screen (a /doctor or /help at 80x24) left the renderer drawing the
// live area where it no longer was, over the lines printed (the input on a rule, old
// footers left behind). So the text goes out in pieces that fit beside the live area,
// one at a time and in order.

// print queues styled lines to go above the live area, in order.
func (m *model) print(s string) {
	if m.printed != nil {
		m.printed(s)
	}
	m.outbox = append(m.outbox, s)
}

// printBlock prints s after a blank line, as the blocks of a conversation are spaced.
func (m *model) printBlock(s string) { m.print("\n" + s) }

// recentMax bounds the lines kept for Ctrl-L: more than any screen shows.
const recentMax = 500

// clearScreen clears the terminal and puts the cursor at its top left.
const clearScreen = "\x1b[H\x1b[2J"

// flush prints the next piece of the queue; one print is in flight at a time, so the
// order holds.
func (m *model) flush() tea.Cmd {
	text, redraw, ok := m.nextPrint()
	if !ok {
		return nil
	}
	m.printing = true
	if redraw {
		// The renderer does not know the screen was cleared: a size message (of the
		// same size) makes it forget what it drew and draw the live area whole.
		size := tea.WindowSizeMsg{Width: m.width, Height: m.height}
		return tea.Sequence(tea.Println(text), func() tea.Msg { return size }, func() tea.Msg { return printedMsg{} })
	}
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// nextPrint takes what the next print writes: the queue's first lines, as many as fit
// beside the live area, or, for Ctrl-L once the queue is empty, the screen cleared and
// the last lines printed again.
func (m *model) nextPrint() (text string, redraw, ok bool) {
	if m.printing {
		return "", false, false
	}
	room := m.printRoom()
	if len(m.outbox) == 0 {
		if !m.redraw {
			return "", false, false
		}
		m.redraw = false
		var tail []string
		for i := len(m.recent) - 1; i >= 0; i-- {
			if rows := m.rows(m.recent[i]); rows <= room {
				room -= rows
				tail = append(tail, m.recent[i])
				continue
			}
			break
		}
		for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
			tail[i], tail[j] = tail[j], tail[i]
		}
		return clearScreen + strings.Join(tail, "\n"), true, true
	}
	lines := strings.Split(strings.Join(m.outbox, "\n"), "\n")
	n, rows := 0, 0
	for n < len(lines) {
		r := m.rows(lines[n])
		if n > 0 && rows+r > room {
			break
		}
		rows += r
		n++
	}
	m.outbox = m.outbox[:0]
	if n < len(lines) {
		m.outbox = append(m.outbox, strings.Join(lines[n:], "\n"))
	}
	m.recent = append(m.recent, lines[:n]...)
	if len(m.recent) > recentMax {
		m.recent = append(m.recent[:0], m.recent[len(m.recent)-recentMax:]...)
	}
	return strings.Join(lines[:n], "\n"), false, true
}

// printRoom is how many rows a print may take: the screen less the live area, as drawn
// last and as it is now (the renderer may still hold either), and a row to spare.
func (m *model) printRoom() int {
	live := max(m.frameH, strings.Count(m.render(), "\n")+1)
	return max(m.height-live-1, 1)
}

// rows is how many rows the renderer counts for a line (one more for each full width).
func (m *model) rows(line string) int { return 1 + ansi.StringWidth(line)/m.width }
