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
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/ui"
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
	// stopShell stops the one running.
	shell(cmd string)
	stopShell()
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
	askMsg         struct {
		qs    []tools.Question
		reply chan []tools.Answer
	}
	askDoneMsg struct{ reply chan []tools.Answer }
	todosMsg   struct {
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
	historyMsg struct {
		items   []ui.HistoryItem
		skipped int
	}
	lineReadMsg struct{}
	doneMsg     struct{}
	tickMsg     time.Time
	printedMsg  struct{}
	redrawnMsg  struct{}
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
	thought   thought
	tailSrc   string
	tailOut   string
	tailWidth int
	tools     []*toolBlock
	lastTools []*toolBlock // finished, for Ctrl-O
	partial   string       // REPL output not yet ended by a newline (a question)
	dialog    *dialog
	picker    *picker
	question  *question // the model's question, while it waits for the answer
	todoTitle string
	todos     []todo.Item
	bg        bgMsg
	team      teamMsg

	running   bool
	shelling  bool // a !command runs
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
	status             string // the statusLine command's line, made safe

	shellContext string // !command output for the next prompt
	sent         []sentLine

	outbox   []string
	printing bool
	printed  func(string) // tests: sees what is printed above the live area
	recent   []string     // the last lines printed, for Ctrl-L to draw again
	redraw   bool         // Ctrl-L asked for the screen to be cleared and drawn again
	frameH   int          // the height of the live area drawn last
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
		m.dialog = &dialog{p: msg.p, diff: msg.diff, reply: msg.reply, saveTo: msg.saveTo, opened: m.now()}
	case pickMsg:
		m.flushStream()
		if len(msg.options) == 0 {
			msg.reply <- -1
			break
		}
		m.picker = &picker{title: clean(msg.title), options: msg.options, reply: msg.reply}
	case approveDoneMsg:
		if m.dialog != nil && m.dialog.reply == msg.reply {
			m.dialog = nil
		}
	case askMsg:
		m.flushStream()
		m.question = &question{qs: msg.qs, reply: msg.reply, marked: map[int]bool{}}
	case askDoneMsg:
		if m.question != nil && m.question.reply == msg.reply {
			m.question = nil
		}
	case todosMsg:
		m.todoTitle, m.todos = msg.title, msg.items
	case bgMsg:
		m.bg = msg
	case teamMsg:
		m.team = msg
	case statusMsg:
		m.status = string(msg)
	case runStartMsg:
		m.running, m.runStart, m.outChars, m.outTokens = true, m.now(), 0, 0
		cmds = append(cmds, m.tick())
	case runEndMsg:
		m.flushStream()
		m.flushTools(true)
		m.running = false
		m.cost = msg.totals.CostUSD
		if strings.HasPrefix(m.notice, "interrupting") { // it stopped
			m.notice = ""
		}
	case sessionMsg:
		m.modelName, m.sessionID, m.cwd, m.mode, m.window = msg.model, msg.id, msg.cwd, msg.mode, msg.window
		m.cmds = append(append([]command(nil), builtinCommands...), msg.commands...)
		if m.mode == permission.ModeBypass || m.mode == permission.ModeDontAsk {
			m.modes = append(m.modes[:3:3], m.mode)
		}
	case tickMsg:
		m.ticking = false
		m.frame++
		if m.running || m.dialog != nil || m.question != nil {
			cmds = append(cmds, m.tick())
		}
	case printedMsg:
		m.printing = false
	case redrawnMsg:
		m.printing = false
		// The renderer forgets what it drew, so the live area is drawn whole on the
		// cleared screen: a size message (of the same size) makes it do that.
		cmds = append(cmds, func() tea.Msg { return tea.WindowSizeMsg{Width: m.width, Height: m.height} })
	case shellDoneMsg:
		m.shelling = false
		b := &toolBlock{name: "!", summary: msg.cmd, done: true, failed: msg.failed, result: strings.TrimRight(msg.out, "\n")}
		m.printBlock(b.render(m.th, m.width, "•", false))
		m.lastTools = append(m.lastTools, b)
		m.shellContext += fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stdout>%s</bash-stdout>\n", msg.cmd, strings.TrimRight(msg.out, "\n"))
		m.notice = "the output goes to the model with your next prompt"
	case lineReadMsg:
		m.lineRead()
	case historyMsg:
		m.history(msg)
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

func (m *model) event(msg eventMsg) {
	e := msg.e
	switch e.Type {
	case agent.EventDelta:
		switch e.Delta.Kind {
		case "thinking":
			m.think(clean(e.Delta.Text))
		case "text":
			m.foldThought()
			m.outChars += len(e.Delta.Text)
			if done := m.stream.push(clean(e.Delta.Text)); done != "" {
				m.printBlock(m.md.render(done, m.width))
			}
		case "retry", "waiting":
			if e.Delta.Kind == "retry" { // the answer starts over: what it thought goes
				m.thought.active = false
				m.thought.text.Reset()
			}
			m.flushStream()
			m.print(m.th.dim.Render("[" + clean(e.Delta.Text) + "]"))
		}
	case agent.EventToolStart:
		m.flushStream()
		if e.Call != nil {
			m.tools = append(m.tools, newToolBlock(e.Call, msg.diff, m.now(), m.cwd))
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

// flushStream prints the answer's last block, ending the answer so far (and the
// thinking before it).
func (m *model) flushStream() {
	m.foldThought()
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
		m.thought.newer = false
	}
	if n := len(m.lastTools); n > 20 {
		m.lastTools = m.lastTools[n-20:]
	}
	m.tools = nil
}

// history prints a resumed session's recent turns as they were shown when they ran.
func (m *model) history(h historyMsg) {
	m.flushStream()
	head := "── the conversation so far"
	if h.skipped > 0 {
		head += fmt.Sprintf(" (%d earlier prompt(s) not shown)", h.skipped)
	}
	m.printBlock(m.th.dim.Render(head + " ──"))
	for _, it := range h.items {
		switch {
		case it.Prompt != "":
			m.printBlock(m.th.accent.Render("› ") + strings.ReplaceAll(clean(it.Prompt), "\n", "\n  "))
		case it.Answer != "":
			m.printBlock(m.md.render(clean(it.ShortAnswer()), m.width))
		case it.Call != nil:
			b := newToolBlock(&tool.Call{ID: it.Call.ID, Name: it.Call.Name, Input: it.Call.Input}, nil, m.now(), m.cwd)
			b.done, b.past = true, true
			if it.Result != nil {
				b.result = clean(strings.TrimRight(it.Result.ResultText(), "\n"))
				b.failed = it.Result.IsError
			}
			m.printBlock(b.render(m.th, m.width, "•", false))
		}
	}
	m.printBlock(m.th.dim.Render("── resumed here ──"))
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
