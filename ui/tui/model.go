package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/todo"
)

// engine is what the screen drives: the REPL behind it (see run.go), or a fake in tests.
type engine interface {
	// submit sends one line of input (a prompt, a command, an answer to a question).
	submit(line string)
	// interrupt stops the turn that runs.
	interrupt()
	// setMode changes the permission mode.
	setMode(m permission.Mode) error
	// note saves a #note to the project's memory and says where.
	note(text string) (string, error)
	// shell runs a !command through the permission gate; its output joins the context.
	shell(cmd string)
}

// Messages from the engine.
type (
	eventMsg struct {
		e    agent.Event
		diff []diffLine // for a tool start: the diff an edit or write makes
	}
	outputMsg  string // what the REPL printed
	approveMsg struct {
		p      permission.Prompt
		diff   []diffLine
		reply  chan permission.Answer
		saveTo string
	}
	approveDoneMsg struct{ reply chan permission.Answer }
	todosMsg       struct {
		title string
		items []todo.Item
	}
	runStartMsg struct{}
	runEndMsg   struct{ o, totals agent.Outcome }
	sessionMsg  struct {
		model, id, cwd string
		mode           permission.Mode
		window         int
		commands       []command
	}
	doneMsg    struct{}
	tickMsg    time.Time
	printedMsg struct{}
)

type model struct {
	eng    engine
	th     *theme
	md     *markdown
	color  bool
	width  int
	height int
	now    func() time.Time

	input    textarea.Model
	hist     *history
	cmds     []command
	cwd      string
	comp     []command
	compWord string
	compSel  int
	search   *string // Ctrl-R query while searching history
	searchAt int

	stream    mdStream
	tailSrc   string
	tailOut   string
	tailWidth int
	tools     []*toolBlock
	lastTools []*toolBlock // finished, for Ctrl-O
	partial   string       // REPL output not yet ended by a newline (a question)
	dialog    *dialog
	todoTitle string
	todos     []todo.Item
	bg        bgMsg
	team      teamMsg

	running   bool
	runStart  time.Time
	outChars  int
	outTokens int
	frame     int
	ticking   bool

	modelName, sessionID string
	mode                 permission.Mode
	modes                []permission.Mode
	window, ctxUsed      int
	cost                 float64

	lastCtrlC, lastEsc time.Time
	notice             string

	shellContext string // !command output for the next prompt

	outbox   []string
	printing bool
	printed  func(string) // tests: sees what is printed above the live area
}

func newModel(eng engine, width, height int, dark, color bool, hist *history) *model {
	th := newTheme(dark, color)
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.Placeholder = "Ask ouro… (/ for commands, @ for files, ! for shell, # to remember)"
	ta.SetStyles(textarea.DefaultStyles(dark))
	st := ta.Styles()
	st.Focused.CursorLine = lipgloss.NewStyle()
	if !color { // NO_COLOR: faint and reverse only
		plain := textarea.StyleState{Placeholder: lipgloss.NewStyle().Faint(true)}
		st.Focused, st.Blurred = plain, plain
	}
	ta.SetStyles(st)
	ta.KeyMap.InsertNewline.SetKeys("shift+enter", "alt+enter", "ctrl+j")
	ta.CharLimit = 0
	ta.MaxHeight = 10
	ta.SetHeight(1)
	ta.Focus()
	m := &model{eng: eng, th: th, md: newMarkdown(th), color: color, input: ta, hist: hist,
		cmds: builtinCommands, now: time.Now, modes: []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan}}
	m.resize(width, height)
	return m
}

func (m *model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, 8)
	m.input.SetWidth(m.width - 2)
	m.tailWidth = 0 // the live block re-flows
}

func (m *model) Init() tea.Cmd { return tea.RequestBackgroundColor }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg:
		if dark := msg.IsDark(); dark != m.th.dark {
			m.th = newTheme(dark, m.color)
			m.md = newMarkdown(m.th)
			m.tailWidth = 0
		}
	case tea.KeyPressMsg:
		cmds = append(cmds, m.key(msg))
	case tea.PasteMsg:
		if m.dialog == nil {
			var c tea.Cmd
			m.input, c = m.input.Update(msg)
			cmds = append(cmds, c)
			m.fitInput()
		}
	case eventMsg:
		m.event(msg)
	case outputMsg:
		m.output(string(msg))
	case approveMsg:
		m.flushStream()
		msg.p.Summary, msg.p.Reach = clean(msg.p.Summary), clean(msg.p.Reach)
		if msg.saveTo == "" {
			msg.saveTo = ".ouro/settings.local.json"
		}
		m.dialog = &dialog{p: msg.p, diff: msg.diff, reply: msg.reply, saveTo: msg.saveTo}
	case approveDoneMsg:
		if m.dialog != nil && m.dialog.reply == msg.reply {
			m.dialog = nil
		}
	case todosMsg:
		m.todoTitle, m.todos = msg.title, msg.items
	case bgMsg:
		m.bg = msg
	case teamMsg:
		m.team = msg
	case runStartMsg:
		m.running, m.runStart, m.outChars, m.outTokens = true, m.now(), 0, 0
		cmds = append(cmds, m.tick())
	case runEndMsg:
		m.flushStream()
		m.flushTools(true)
		m.running = false
		m.cost = msg.totals.CostUSD
	case sessionMsg:
		m.modelName, m.sessionID, m.cwd, m.mode, m.window = msg.model, msg.id, msg.cwd, msg.mode, msg.window
		m.cmds = append(append([]command(nil), builtinCommands...), msg.commands...)
		if m.mode == permission.ModeBypass || m.mode == permission.ModeDontAsk {
			m.modes = append(m.modes[:3:3], m.mode)
		}
	case tickMsg:
		m.ticking = false
		m.frame++
		if m.running || m.dialog != nil {
			cmds = append(cmds, m.tick())
		}
	case printedMsg:
		m.printing = false
	case shellDoneMsg:
		b := &toolBlock{name: "!", summary: msg.cmd, done: true, failed: msg.failed, result: strings.TrimRight(msg.out, "\n")}
		m.printBlock(b.render(m.th, m.width, "•", false))
		m.lastTools = append(m.lastTools, b)
		m.shellContext += fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stdout>%s</bash-stdout>\n", msg.cmd, strings.TrimRight(msg.out, "\n"))
		m.notice = "the output goes to the model with your next prompt"
	case doneMsg:
		m.flushStream()
		m.flushTools(true)
		return m, tea.Sequence(m.flush(), tea.Quit)
	default:
		var c tea.Cmd
		m.input, c = m.input.Update(msg)
		cmds = append(cmds, c)
	}
	cmds = append(cmds, m.flush())
	return m, tea.Batch(cmds...)
}

func (m *model) tick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// print queues styled lines to go above the live area, in order.
func (m *model) print(s string) {
	if m.printed != nil {
		m.printed(s)
	}
	m.outbox = append(m.outbox, s)
}

// printBlock prints s after a blank line, as the blocks of a conversation are spaced.
func (m *model) printBlock(s string) { m.print("\n" + s) }

// flush prints the queue; one print is in flight at a time, so the order holds.
func (m *model) flush() tea.Cmd {
	if m.printing || len(m.outbox) == 0 {
		return nil
	}
	text := strings.Join(m.outbox, "\n")
	m.outbox = m.outbox[:0]
	m.printing = true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

func (m *model) event(msg eventMsg) {
	e := msg.e
	switch e.Type {
	case agent.EventDelta:
		switch e.Delta.Kind {
		case "text":
			m.outChars += len(e.Delta.Text)
			if done := m.stream.push(clean(e.Delta.Text)); done != "" {
				m.printBlock(m.md.render(done, m.width))
			}
		case "retry", "waiting":
			m.flushStream()
			m.print(m.th.dim.Render("[" + clean(e.Delta.Text) + "]"))
		}
	case agent.EventToolStart:
		m.flushStream()
		if e.Call != nil {
			m.tools = append(m.tools, newToolBlock(e.Call, msg.diff, m.now()))
		}
	case agent.EventToolEnd:
		for _, b := range m.tools {
			if e.Call != nil && b.id == e.Call.ID && !b.done {
				b.finish(e.Result, e.Start, e.End)
			}
		}
		m.flushTools(false)
	case agent.EventNotice:
		m.flushStream()
		m.print(m.th.dim.Render("[" + clean(e.Text) + "]"))
	case agent.EventMessage:
		if e.Response != nil { // an answer: its usage replaces the estimate
			u := e.Response.Usage
			m.outTokens += u.OutputTokens
			m.ctxUsed = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens + u.OutputTokens
			m.outChars = 0
		}
	case agent.EventTurnEnd:
		m.flushStream()
	}
}

// flushStream prints the answer's last block, ending the answer so far.
func (m *model) flushStream() {
	if rest := m.stream.flush(); strings.TrimSpace(rest) != "" {
		m.printBlock(m.md.render(rest, m.width))
	}
	m.tailSrc, m.tailOut = "", ""
}

// flushTools prints the tool blocks once all of them ended (or when forced).
func (m *model) flushTools(force bool) {
	for _, b := range m.tools {
		if !b.done && !force {
			return
		}
	}
	for _, b := range m.tools {
		m.printBlock(b.render(m.th, m.width, "•", false))
		m.lastTools = append(m.lastTools, b)
	}
	if n := len(m.lastTools); n > 20 {
		m.lastTools = m.lastTools[n-20:]
	}
	m.tools = nil
}

// output takes what the REPL printed: whole lines go above, a partial one (a question
// waiting for its answer) stays in the live area.
func (m *model) output(s string) {
	m.flushStream()
	s = m.partial + clean(s)
	i := strings.LastIndexByte(s, '\n')
	m.partial = s[i+1:]
	if i < 0 {
		return
	}
	m.print(strings.TrimRight(ansi.Wrap(s[:i], m.width, ""), "\n"))
}

func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	ks := k.String()
	if m.dialog != nil {
		if ks == "ctrl+c" && m.now().Sub(m.lastCtrlC) < 2*time.Second {
			return tea.Quit
		}
		if ks == "esc" && m.dialog.reason == nil || ks == "ctrl+c" {
			m.lastCtrlC = m.now()
			m.eng.interrupt()
			m.notice = "interrupting… (Ctrl-C again exits)"
			return nil
		}
		if ans, ok := m.dialog.key(ks, k.Text); ok {
			m.dialog.reply <- ans
			m.print(m.th.dim.Render(fmt.Sprintf("  %s: %s", m.dialog.p.Call.Name, answerText(ans, m.dialog.saveTo))))
			m.dialog = nil
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
			m.notice = "interrupting… press Ctrl-C again to exit"
		} else {
			m.input.Reset()
			m.notice = "press Ctrl-C again to exit"
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
		if n := len(m.lastTools); n > 0 {
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
	case strings.HasPrefix(t, "!") && !m.running:
		m.printBlock(m.th.accent.Render("! ") + strings.TrimSpace(t[1:]))
		m.eng.shell(strings.TrimSpace(t[1:]))
	default:
		m.submitLine(text)
	}
}

const keysHelp = `Keys: Enter sends · Shift-Enter or Alt-Enter: new line · Up/Down: history · Ctrl-R: search it
Tab: complete /commands and @paths · Shift-Tab: permission mode · Ctrl-O: the last tool result whole
Esc: interrupt the turn · Esc Esc: /rewind · Ctrl-C twice or Ctrl-D: leave
!cmd runs a command (asked like the model's) and sends its output with the next prompt · # note: remember`

// submitLine echoes the line and hands it to the REPL. Lines after the first are sent
// with the REPL's continuation (a trailing \), so a prompt of several lines stays one.
func (m *model) submitLine(text string) {
	if m.partial == "" {
		m.printBlock(m.th.accent.Render("› ") + strings.ReplaceAll(text, "\n", "\n  "))
	} else {
		m.print(m.th.dim.Render(m.partial) + text)
		m.partial = ""
	}
	if strings.TrimSpace(text) == "/help" {
		m.print(m.th.dim.Render(keysHelp))
	}
	if m.shellContext != "" && !strings.HasPrefix(text, "/") && m.partial == "" {
		text = m.shellContext + "\n" + text
		m.shellContext = ""
	}
	m.eng.submit(strings.ReplaceAll(text, "\n", "\\\n"))
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (m *model) View() tea.View {
	v := tea.NewView(m.render())
	return v
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
	for _, b := range m.tools {
		parts = append(parts, b.renderMax(m.th, m.width, spin, false, 4))
	}
	if m.dialog != nil {
		parts = append(parts, m.dialog.view(m.th, m.width, m.height))
	}
	if m.running {
		el := m.now().Sub(m.runStart).Round(time.Second)
		tok := m.outTokens + m.outChars/4
		parts = append(parts, m.th.running.Render(spin+" Working… ")+m.th.dim.Render(fmt.Sprintf("%s · ↓ %d tokens · esc to interrupt", el, tok)))
	}
	if m.partial != "" {
		parts = append(parts, m.th.warn.Render(ansi.Wrap(m.partial, m.width, "")))
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
	return ansi.Truncate(m.th.dim.Render(strings.Join(parts, " · ")), m.width, "…")
}
