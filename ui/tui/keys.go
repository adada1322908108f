package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ouroagent/ouro/permission"
)

func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	ks := k.String()
	if ks == "ctrl+l" { // clear the screen and draw it again, whatever else is open
		m.redraw = true
		return nil
	}
	if m.picker != nil {
		if i, done := m.picker.key(ks); done {
			m.picker.reply <- i
			if i >= 0 {
				m.print(m.th.dim.Render("  picked " + m.picker.options[i]))
			}
			m.picker = nil
		}
		return nil
	}
	if m.dialog != nil {
		if ks == "ctrl+c" && m.now().Sub(m.lastCtrlC) < 2*time.Second {
			return tea.Quit
		}
		if ks == "esc" && m.dialog.reason == nil || ks == "ctrl+c" {
			m.lastCtrlC = m.now()
			if m.shelling {
				m.eng.stopShell()
			}
			m.eng.interrupt()
			m.notice = "interrupting… (Ctrl-C again leaves)"
			return nil
		}
		if ans, ok := m.dialog.key(ks, k.Text, m.now()); ok {
			m.dialog.reply <- ans
			m.print(m.th.dim.Render(fmt.Sprintf("  %s: %s", m.dialog.p.Call.Name, answerText(ans, m.dialog.saveTo))))
			m.dialog = nil
		}
		return nil
	}
	if q := m.question; q != nil {
		if ks == "ctrl+c" && m.now().Sub(m.lastCtrlC) < 2*time.Second {
			return tea.Quit
		}
		if ks == "esc" && q.text == nil || ks == "ctrl+c" {
			m.lastCtrlC = m.now()
			m.eng.interrupt()
			m.notice = "interrupting… (Ctrl-C again exits)"
			return nil
		}
		if ans, ok := q.key(ks, k.Text); ok {
			q.reply <- ans
			for _, a := range ans {
				m.print(m.th.dim.Render("  " + a.Question + " " + strings.TrimSpace(strings.Join(a.Labels, ", ")+" "+a.Text)))
			}
			m.question = nil
		}
		return nil
	}
	if m.search != nil {
		return m.searchKey(k)
	}
	m.notice = ""
	switch ks {
	case "ctrl+c":
		if m.now().Sub(m.lastCtrlC) < 2*time.Second {
			return tea.Quit
		}
		m.lastCtrlC = m.now()
		if m.running {
			m.eng.interrupt()
			m.notice = "interrupting… press Ctrl-C again to leave"
		} else if m.shelling {
			m.eng.stopShell()
			m.notice = "stopping the command… press Ctrl-C again to leave"
		} else {
			m.input.Reset()
			m.notice = "press Ctrl-C again to leave"
		}
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return tea.Quit
		}
	case "esc":
		switch {
		case len(m.comp) > 0:
			m.comp = nil
		case m.running:
			m.eng.interrupt()
			m.notice = "interrupting…"
		case m.shelling:
			m.eng.stopShell()
			m.notice = "stopping the command…"
		case m.now().Sub(m.lastEsc) < 800*time.Millisecond && m.input.Value() == "":
			m.lastEsc = time.Time{}
			m.submitLine("/rewind")
		default:
			m.lastEsc = m.now()
			if m.input.Value() == "" {
				m.notice = "Esc again opens /rewind"
			}
		}
		return nil
	case "shift+tab":
		m.cycleMode()
		return nil
	case "ctrl+o":
		if m.thought.newer {
			m.expandThought()
		} else if n := len(m.lastTools); n > 0 {
			m.print(m.lastTools[n-1].render(m.th, m.width, "•", true))
		}
		return nil
	case "ctrl+r":
		q := ""
		m.search, m.searchAt = &q, len(m.hist.entries)
		return nil
	case "tab":
		if len(m.comp) > 0 {
			m.acceptCompletion()
		}
		return nil
	case "enter":
		if len(m.comp) > 0 && strings.HasPrefix(m.compWord, "@") {
			m.acceptCompletion()
			return nil
		}
		m.submit()
		return nil
	case "up", "down":
		if len(m.comp) > 0 {
			if ks == "up" {
				m.compSel = (m.compSel + len(m.comp) - 1) % len(m.comp)
			} else {
				m.compSel = (m.compSel + 1) % len(m.comp)
			}
			return nil
		}
		if ks == "up" && m.input.Line() == 0 {
			if s, ok := m.hist.prev(m.input.Value()); ok {
				m.setInput(s)
			}
			return nil
		}
		if ks == "down" && m.input.Line() == m.input.LineCount()-1 {
			if s, ok := m.hist.next(); ok {
				m.setInput(s)
			}
			return nil
		}
	}
	var c tea.Cmd
	m.input, c = m.input.Update(k)
	m.fitInput()
	m.complete()
	return c
}

func answerText(a permission.Answer, saveTo string) string {
	switch a.Choice {
	case permission.Once:
		return "allowed once"
	case permission.Session:
		return "allowed for this session"
	case permission.Always:
		return "allowed always (saved to " + saveTo + ")"
	}
	return "refused: " + a.Reason
}

func (m *model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	q := *m.search
	switch k.String() {
	case "esc", "ctrl+g":
		m.search = nil
		return nil
	case "enter":
		if i := m.hist.search(q, m.searchAt+1); i >= 0 && q != "" {
			m.setInput(m.hist.entries[i])
		}
		m.search = nil
		return nil
	case "ctrl+r":
		if i := m.hist.search(q, m.searchAt); i >= 0 {
			m.searchAt = i
		}
		return nil
	case "backspace":
		if rs := []rune(q); len(rs) > 0 {
			q = string(rs[:len(rs)-1])
		}
	default:
		q += k.Text
	}
	m.search = &q
	if i := m.hist.search(q, len(m.hist.entries)); i >= 0 {
		m.searchAt = i
	} else {
		m.searchAt = -1
	}
	return nil
}

func (m *model) setInput(s string) {
	m.input.SetValue(s)
	m.fitInput()
	m.comp = nil
}

func (m *model) fitInput() {
	m.input.SetHeight(min(max(m.input.LineCount(), 1), 10))
}

func (m *model) complete() {
	m.compWord, m.comp = completions(m.input.Value(), m.cmds, m.cwd)
	if m.compSel >= len(m.comp) {
		m.compSel = 0
	}
}

func (m *model) acceptCompletion() {
	c := m.comp[m.compSel]
	v := m.input.Value()
	v = strings.TrimSuffix(v, m.compWord) + c.name
	if !strings.HasSuffix(c.name, "/") {
		v += " "
	}
	m.input.SetValue(v)
	m.complete()
	if !strings.HasSuffix(c.name, "/") {
		m.comp = nil
	}
}

func (m *model) cycleMode() {
	next := m.modes[0]
	for i, md := range m.modes {
		if md == m.mode {
			next = m.modes[(i+1)%len(m.modes)]
		}
	}
	if err := m.eng.setMode(next); err != nil {
		m.notice = err.Error()
		return
	}
	m.mode = next
}

// submit sends what was typed: a #note goes to memory, a !command to the shell, the rest
// to the REPL as a prompt or command.
func (m *model) submit() {
	text := m.input.Value()
	if strings.TrimSpace(text) == "" {
		if m.partial != "" { // a question waits ("…; Enter cancels"): Enter alone answers it
			m.input.Reset()
			m.submitLine("")
		}
		return
	}
	m.input.Reset()
	m.input.SetHeight(1)
	m.comp = nil
	if err := m.hist.add(text); err != nil {
		m.notice = "history not saved: " + err.Error()
	}
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, "#") && !m.running:
		m.printBlock(m.th.accent.Render("# ") + strings.TrimSpace(t[1:]))
		where, err := m.eng.note(strings.TrimSpace(t[1:]))
		if err != nil {
			m.print(m.th.fail.Render("not remembered: " + err.Error()))
		} else {
			m.print(m.th.dim.Render("  remembered in " + where))
		}
	case strings.HasPrefix(t, "!") && m.shelling:
		m.notice = "a command is running: wait for it, or stop it with Esc"
		m.setInput(text)
	case strings.HasPrefix(t, "!") && !m.running:
		m.printBlock(m.th.accent.Render("! ") + strings.TrimSpace(t[1:]))
		m.shelling = true
		m.eng.shell(strings.TrimSpace(t[1:]))
	default:
		m.submitLine(text)
	}
}

const keysHelp = `Keys: Enter sends (while a turn runs, the prompt waits for it) · Shift-Enter or Alt-Enter: new line
Up/Down: history · Ctrl-R: search it · Tab: complete /commands and @paths · Shift-Tab: permission mode
Esc or Ctrl-C: interrupt the turn (or stop a !command) · Esc Esc on an empty input: /rewind
Ctrl-C twice, or Ctrl-D on an empty input: leave · Ctrl-O: the last tool result whole · Ctrl-L: redraw the screen
!cmd runs a command (asked like the model's) and sends its output with the next prompt · # note: remember
statusLine in settings: its command's first line shows under the footer, refreshed after each answer`

// submitLine hands the line to the REPL and echoes it: at once when the REPL takes it at
// once (nothing runs, or it answers the question asked), else once the REPL reads it
// (lineReadMsg), so that a prompt typed while a turn runs shows after that turn's answer;
// until then it shows as queued. Lines after the first are sent with the REPL's
// continuation (a trailing \), so a prompt of several lines stays one.
func (m *model) submitLine(text string) {
	answer, echoed := m.partial != "", false
	switch {
	case answer:
		m.print(m.th.dim.Render(m.partial) + text)
		m.partial = ""
		echoed = true
	case !m.running && m.queued() == 0:
		m.echo(text)
		echoed = true
	}
	sent := text
	if m.shellContext != "" && !strings.HasPrefix(text, "/") && !answer {
		sent = m.shellContext + "\n" + text
		m.shellContext = ""
	}
	sent = strings.ReplaceAll(sent, "\n", "\\\n")
	m.sent = append(m.sent, sentLine{text: text, lines: strings.Count(sent, "\n") + 1, echoed: echoed})
	m.eng.submit(sent)
}

// echo prints a line as typed (with the keys after /help).
func (m *model) echo(text string) {
	m.printBlock(m.th.accent.Render("› ") + strings.ReplaceAll(text, "\n", "\n  "))
	if strings.TrimSpace(text) == "/help" {
		m.print(m.th.dim.Render(keysHelp))
	}
}

// sentLine is a line handed to the REPL that it has not read yet.
type sentLine struct {
	text   string
	lines  int  // lines the REPL reads for it (a prompt of several is continued)
	echoed bool // already shown
}

// queued is how many lines wait to be shown until the REPL reads them.
func (m *model) queued() int {
	n := 0
	for _, s := range m.sent {
		if !s.echoed {
			n++
		}
	}
	return n
}

// lineRead counts a line the REPL read; a line typed while a turn ran shows now.
func (m *model) lineRead() {
	if len(m.sent) == 0 {
		return
	}
	s := &m.sent[0]
	if s.lines--; s.lines > 0 {
		return
	}
	if !s.echoed {
		m.flushStream()
		m.flushTools(true)
		m.echo(s.text)
	}
	m.sent = m.sent[1:]
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
