// Package tui is ouro's terminal interface, used when standard input and output are both
// terminals: the answer streams as rendered Markdown, tool calls are compact blocks with
// diffs for edits, permission questions are dialogs, and the input keeps a history per
// project, completes commands and paths, and takes !commands and #notes.
//
// It is a screen in front of the line REPL (ui.REPL), not a second one: the REPL keeps
// running prompts, commands, questions, /rewind and the turns mechanisms ask for, and
// reads the lines this package sends it; this package draws what happens (ui.Screen).
//
// Memory: the binary that runs this screen also runs every headless `ouro -p`, and Go
// initialises every linked package in every run. glamour (Charm's Markdown renderer)
// links chroma, whose package initialisation parses all of its lexers and styles:
// measured with TestPeakMemory, a 3-turn headless task went from 23.1 MB to 29.4 MB
// (over the 26 MB guard) with glamour linked, and to 23.6 MB with goldmark alone. So
// Markdown is parsed by goldmark (which glamour uses too) and drawn here with lipgloss,
// and code blocks go through the small highlighter in highlight.go.
package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/ui"
)

// Options configure Run.
type Options struct {
	In      *os.File // the terminal
	Out     *os.File
	Version string
	Harness harness.Options
	First   string // a prompt from the command line
}

// Run runs the interactive session on the terminal until /exit, Ctrl-D on an empty
// input, or Ctrl-C twice.
func Run(ctx context.Context, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	sigs := make(chan os.Signal, 1)
	e := &replEngine{lines: pw, sigs: sigs, ctx: ctx, queue: make(chan string, 256)}
	e.status = &status{e: e, version: o.Version}
	go e.feed()
	out := &screenWriter{e: e, direct: o.Out}
	r := &ui.REPL{In: pr, Out: out, Err: out, Version: o.Version, Options: o.Harness, Signals: sigs, Screen: e}

	color := os.Getenv("NO_COLOR") == ""
	w, h := 80, 24
	hist := loadHistory(historyPath())
	m := newModel(e, w, h, true, color, hist)
	if o.First != "" { // the prompt given on the command line runs first: show it as typed
		m.printBlock(m.th.accent.Render("› ") + clean(o.First))
	}
	opts := []tea.ProgramOption{tea.WithInput(o.In), tea.WithOutput(o.Out), tea.WithContext(ctx)}
	if !color {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(m, opts...)
	e.p = p

	replErr := make(chan error, 1)
	go func() {
		err := r.Run(ctx, o.First)
		e.done.Store(true)
		p.Send(doneMsg{})
		replErr <- err
	}()
	_, err := p.Run()
	e.stopped.Store(true)
	// Leaving: the REPL reads the end of its input, and a turn still running stops.
	_ = pw.Close()
	if !e.done.Load() {
		e.interrupt()
		cancel()
	}
	if rerr := <-replErr; rerr != nil {
		return rerr
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("terminal interface: %w", err)
	}
	return nil
}

func historyPath() string {
	home, err := session.Home()
	if err != nil {
		return ""
	}
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return filepath.Join(harness.ProjectDirFor(home, cwd), "prompt-history.jsonl")
}

// replEngine joins the REPL and the screen: it is the REPL's ui.Screen, and the model's
// engine.
type replEngine struct {
	p     *tea.Program
	lines io.Writer
	sigs  chan os.Signal
	ctx   context.Context

	mu       sync.Mutex
	sess     *harness.Session
	queue    chan string
	done     atomic.Bool // the REPL returned
	stopped  atomic.Bool // the screen ended
	shellSeq atomic.Int64
	shellMu  sync.Mutex
	shellEnd context.CancelFunc // stops the !command that runs
	pollOnce sync.Once
	running  atomic.Bool // a run started and was not interrupted yet
	status   *status     // the statusLine command's runs
}

// bgMsg lists the background tasks that run.
type bgMsg []bgItem

// teamMsg lists the session's teammates.
type teamMsg []teamItem

type teamItem struct{ name, status, task string }

type bgItem struct {
	desc    string
	started time.Time
}

// pollBackground tells the screen, once a second, which background tasks run.
func (e *replEngine) pollBackground() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var last string
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
		}
		s := e.session()
		if s == nil || s.Background == nil {
			continue
		}
		if snap, ok := s.Team(); ok {
			var tm teamMsg
			for _, mb := range snap.Members {
				tm = append(tm, teamItem{name: mb.Name, status: string(mb.Status), task: oneLine(mb.Task)})
			}
			e.send(tm)
		}
		var items bgMsg
		var key strings.Builder
		for _, in := range s.Background.List() {
			if in.Status == background.StatusRunning {
				d := in.Description
				if d == "" {
					d = in.Command
				}
				items = append(items, bgItem{desc: oneLine(d), started: in.Started})
				key.WriteString(in.ID + ",")
			}
		}
		if key.String() != last || len(items) > 0 { // running ones: their time moves on
			last = key.String()
			e.send(items)
		}
	}
}

func (e *replEngine) send(msg tea.Msg) {
	if !e.stopped.Load() {
		e.p.Send(msg)
	}
}

// ui.Screen

func (e *replEngine) Opened(s *harness.Session) {
	e.mu.Lock()
	e.sess = s
	e.mu.Unlock()
	e.pollOnce.Do(func() { go e.pollBackground() })
	msg := sessionMsg{model: s.Model, id: s.ID(), cwd: s.CWD, mode: s.Policy().Mode(),
		window: llm.LookupModel(s.Model).ContextWindow}
	for _, sk := range s.Skills.Skills() {
		if sk.UserInvocable {
			msg.commands = append(msg.commands, command{name: "/" + sk.Name, desc: oneLine(textcut.Runes(sk.Description, 80, "…"))})
		}
	}
	e.send(msg)
	e.status.open(s)
}

func (e *replEngine) Observe(ev agent.Event) {
	msg := eventMsg{e: ev}
	if ev.Type == agent.EventToolStart && ev.Call != nil {
		msg.diff = callDiff(ev.Call) // before the call runs: the file as it was
	}
	e.status.observe(ev, msg.diff)
	e.send(msg)
}

func (e *replEngine) Approve(ctx context.Context, p permission.Prompt) (permission.Answer, error) {
	if e.stopped.Load() {
		return permission.Answer{Choice: permission.No, Reason: "the user left"}, nil
	}
	reply := make(chan permission.Answer, 1)
	msg := approveMsg{p: p, diff: callDiff(&p.Call), reply: reply}
	if s := e.session(); s != nil {
		msg.saveTo = s.Policy().LocalSettingsPath()
	}
	e.send(msg)
	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		e.send(approveDoneMsg{reply: reply})
		return permission.Answer{Choice: permission.No, Reason: "the user interrupted"}, ctx.Err()
	case <-e.ctx.Done():
		return permission.Answer{Choice: permission.No, Reason: "the user left"}, e.ctx.Err()
	}
}

// Pick offers the options in the screen (ui.Picker) and waits for the choice.
func (e *replEngine) Pick(title string, options []string) (int, bool) {
	if e.stopped.Load() {
		return 0, false
	}
	reply := make(chan int, 1)
	e.send(pickMsg{title: title, options: options, reply: reply})
	select {
	case i := <-reply:
		return i, i >= 0
	case <-e.ctx.Done():
		return 0, false
	}
}

// Ask puts the model's questions (AskUserQuestion) to the user as a picker.
func (e *replEngine) Ask(ctx context.Context, qs []tools.Question) ([]tools.Answer, error) {
	if e.stopped.Load() {
		return nil, errors.New("the user left")
	}
	reply := make(chan []tools.Answer, 1)
	e.send(askMsg{qs: qs, reply: reply})
	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		e.send(askDoneMsg{reply: reply})
		return nil, fmt.Errorf("the user interrupted: %w", ctx.Err())
	case <-e.ctx.Done():
		return nil, fmt.Errorf("the user left: %w", e.ctx.Err())
	}
}

func (e *replEngine) Todos(title string, items []todo.Item) {
	e.send(todosMsg{title: title, items: append([]todo.Item(nil), items...)})
}

func (e *replEngine) History(items []ui.HistoryItem, skipped int) {
	e.send(historyMsg{items: items, skipped: skipped})
}

func (e *replEngine) LineRead(string) { e.send(lineReadMsg{}) }

func (e *replEngine) RunStarted(string) {
	e.running.Store(true)
	e.send(runStartMsg{})
}

func (e *replEngine) RunEnded(o, totals agent.Outcome) {
	e.running.Store(false)
	e.send(runEndMsg{o: o, totals: totals})
	e.status.ended(totals)
}

// engine

// submit queues a line for the REPL, which reads it when it is ready for one (after the
// run, or as the answer to its question); lines keep the order they were typed in.
func (e *replEngine) submit(line string) { e.queue <- line }

// feed writes the queued lines to the REPL's input, one at a time.
func (e *replEngine) feed() {
	for {
		select {
		case <-e.ctx.Done():
			return
		case line := <-e.queue:
			if _, err := io.WriteString(e.lines, line+"\n"); err != nil {
				return // the REPL is gone
			}
		}
	}
}

// interrupt stops the run, once: the REPL takes an interrupt while idle as a first
// Ctrl-C, and a second as leaving (os.Exit, which would leave the terminal raw), so
// extra presses of Esc while the run ends must not reach it.
func (e *replEngine) interrupt() {
	if !e.running.CompareAndSwap(true, false) {
		return
	}
	select {
	case e.sigs <- os.Interrupt:
	default: // one is already on its way
	}
}

func (e *replEngine) session() *harness.Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sess
}

func (e *replEngine) setMode(m permission.Mode) error {
	s := e.session()
	if s == nil {
		return fmt.Errorf("no session yet")
	}
	defer e.status.refresh()
	return s.Policy().SetMode(m)
}

// note saves text as a project memory named after its first words.
func (e *replEngine) note(text string) (string, error) {
	s := e.session()
	if s == nil || len(s.MemoryStores()) == 0 {
		return "", fmt.Errorf("this session has no memory store")
	}
	if text == "" {
		return "", fmt.Errorf("write the note after #, e.g. # the tests need make gen first")
	}
	st := s.MemoryStores()[0]
	rec := memory.Record{Name: noteName(text), Description: textcut.Runes(oneLine(text), 150, "…"), Type: memory.TypeProject,
		Source: "session " + s.ID() + " (#note)", Body: text + "\n"}
	if err := st.Save(rec); err != nil {
		return "", err
	}
	return st.Path(rec.Name), nil
}

func noteName(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 40 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "note"
	}
	return fmt.Sprintf("note-%s-%d", name, time.Now().Unix()%100000)
}

// shellDoneMsg is a !command's output.
type shellDoneMsg struct {
	cmd, out string
	failed   bool
}

// shell runs cmd with the session's Bash tool after the session's gates (the permission
// policy, hooks, the audit) let it through, as a call of the model's would be.
func (e *replEngine) shell(cmd string) {
	s := e.session()
	if s == nil {
		e.send(shellDoneMsg{cmd: cmd, out: "not run: the session is not open yet", failed: true})
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	e.shellMu.Lock()
	e.shellEnd = cancel
	e.shellMu.Unlock()
	go func() {
		defer e.stopShell()
		in, _ := json.Marshal(map[string]string{"command": cmd})
		call := tool.Call{ID: fmt.Sprintf("user_shell_%d", e.shellSeq.Add(1)), Name: "Bash", Input: in}
		for _, g := range s.Agent.Config().Gates {
			d := g.Gate(ctx, call)
			if d.Deny {
				e.send(shellDoneMsg{cmd: cmd, out: "not run: " + d.Reason, failed: true})
				return
			}
			if d.UpdatedInput != nil {
				call.Input = d.UpdatedInput
			}
		}
		v, bad, ok := s.Tools.Check(call)
		if !ok {
			e.send(shellDoneMsg{cmd: cmd, out: bad.Text(), failed: true})
			return
		}
		res := s.Tools.RunValid(ctx, v, nil)
		out := res.Text()
		if ctx.Err() != nil && e.ctx.Err() == nil {
			out = strings.TrimRight(out, "\n") + "\n[stopped by the user]"
		}
		e.send(shellDoneMsg{cmd: cmd, out: out, failed: res.IsError || ctx.Err() != nil})
	}()
}

// stopShell stops the !command that runs, if one does.
func (e *replEngine) stopShell() {
	e.shellMu.Lock()
	end := e.shellEnd
	e.shellEnd = nil
	e.shellMu.Unlock()
	if end != nil {
		end()
	}
}

// screenWriter takes what the REPL prints: to the screen while it runs, to the terminal
// once it ended (the memories saved on the way out).
type screenWriter struct {
	e      *replEngine
	direct io.Writer
	mu     sync.Mutex
}

func (w *screenWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.e.stopped.Load() {
		return w.direct.Write(b)
	}
	w.e.send(outputMsg(string(b)))
	return len(b), nil
}
