package ui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/termsafe"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tools"
)

// REPL is the interactive line interface.
type REPL struct {
	In       io.Reader
	Out, Err io.Writer
	Version  string
	// Options opens each session; the REPL adds its own observer and asker.
	Options harness.Options
	// Signals delivers interrupts; nil means os.Interrupt and SIGTERM from the OS.
	Signals <-chan os.Signal
	// Screen, when set, draws runs, todos and permission dialogs instead of the plain
	// lines (the terminal UI); nil is the line mode.
	Screen Screen

	lines   chan lineOrErr // every line of input, read by one goroutine
	wakes   wakeQueue      // turns mechanisms asked for, run when idle
	inMu    sync.Mutex     // one reader of lines at a time (prompt, question, approval)
	sess    *harness.Session
	totals  agent.Outcome
	runs    int
	midLine bool
	// thinking is true while the model's extended thinking streams (shown as one line).
	thinking bool
	woke     bool // the prompt read last is a turn a mechanism asked for, not the user's
	// carry is what the next open keeps of the session before it (see reopen).
	carry *permission.Carried
}

const replHelp = `Commands:
  /help            this help
  /skills          the skills found; /<skill-name> [args] runs one
  /todos           the current todo list
  /tasks           background tasks: what runs, how the others ended
  /workflows       how this session's workflow runs are going
  /goal [CONDITION|off]  show, set or clear the goal each stop is judged against
  /compact [focus] summarise the conversation so far to free context
  /loop [5m] TASK  run TASK now and again every 5m (or when the model says); /loop stop
  /remember        save durable facts from this conversation to the project's memory
  /rewind [N]      put the code and/or conversation back to before prompt N
  /cost            tokens, cost and time of this session
  /status          model, where requests go (base URL) and where the key comes from,
                   session, mode, context and cost
  /model [NAME]    pick the model from those of the providers configured, or switch to
                   NAME; a name no provider knows is refused (with the close ones):
                   /model --force NAME uses it as it is; /model [NAME] --effort LEVEL
                   sets the effort too
  /effort [LEVEL]  the effort (low, medium, high, xhigh, max; auto: the model's default)
                   and whether extended thinking is on; LEVEL sets the effort
  /resume [N]      pick an earlier session of this folder to continue
  /permissions     the mode and rules; /permissions allow|ask|deny RULE saves one,
                   /permissions remove RULE drops one (allow WebSearch: the model
                   searches the web without asking; Anthropic models only)
  /memory          what the project and you have remembered
  /init [force]    write AGENTS.md from a read-only scout of the repository
  /doctor          check the configuration
  /config          the effective settings and the files they came from
  /add-dir DIR     another directory the tools may work in, for this session
  /agents          the agent types (subagents) found
  /output-style [NAME]  the output styles (default, Explanatory, Learning, your own);
                   NAME saves one, used from the next session on
  /hooks           the hooks configured and the file each came from
  /context         what fills the context window: system prompt, tools, memory, messages
  /export [PATH]   write the conversation to a file
  /mcp             MCP servers: status, tools, errors; /mcp reconnect NAME starts one again,
                   /mcp login NAME logs in to a remote one (OAuth);
                   /mcp__<server>__<prompt> runs a prompt; a plugin's servers are
                   plugin:<plugin>:<server> (tools mcp__plugin_<plugin>_<server>__<tool>)
  /clear           start a new session (the old transcript stays on disk)
  /exit            leave (Ctrl-D works too)
Plugins (from the shell): ouro plugin marketplace add|list|remove, ouro plugin
  install|uninstall|list|enable|disable NAME@MARKET; enabled ones load at session start`

// replKeys are the line mode's keys (the terminal interface prints its own).
const replKeys = `While the model works, Ctrl-C interrupts the turn; a second Ctrl-C leaves ouro.
End a line with \ to continue the prompt on the next line.`

// Run reads prompts until /exit or end of input. The first prompt may come from argv.
func (r *REPL) Run(ctx context.Context, first string) error {
	// Everything the REPL prints carries text from outside (the model's answer, tool
	// results, teammates' messages, hook messages): none of it may drive the terminal.
	r.Out, r.Err = termsafe.NewWriter(r.Out), termsafe.NewWriter(r.Err)
	r.lines = make(chan lineOrErr)
	r.wakes.init()
	go r.readLines()
	sigs := r.Signals
	if sigs == nil {
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sigs = ch
	}
	if err := r.open(); err != nil {
		return err
	}
	defer func() { r.closeSession() }()
	defer r.rememberOnExit()
	keys := "/help for commands · Ctrl-C interrupts · Ctrl-C twice or Ctrl-D leaves"
	if r.Screen != nil {
		keys = "/help for commands and keys · Esc interrupts · Esc Esc rewinds · Ctrl-C twice or Ctrl-D leaves"
	}
	fmt.Fprintf(r.Out, "ouro %s · model %s · session %s\n%s\n%s\n", r.Version, r.sess.Model, r.sess.ID(), r.sess.CWD, keys)
	if r.sess.Resumed {
		fmt.Fprintf(r.Out, "(resumed: %d messages of history)\n", len(r.sess.Conv.Messages))
		r.showHistory()
	}

	// Interrupts at the prompt: the first warns, a second within 2 s exits.
	var (
		mu        sync.Mutex
		cancelRun context.CancelFunc
		lastIdle  time.Time
	)
	exit := make(chan struct{})
	var exitOnce sync.Once
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-exit:
				return
			case <-sigs:
				mu.Lock()
				c := cancelRun
				switch {
				case c != nil:
					cancelRun = nil
					mu.Unlock()
					if r.Screen == nil { // the screen says it itself, for the key that was pressed
						fmt.Fprintln(r.Err, "\n[interrupting… press Ctrl-C again to leave]")
					}
					c()
					continue
				case time.Since(lastIdle) < 2*time.Second:
					mu.Unlock()
					fmt.Fprintln(r.Err, "\nbye")
					r.closeSession()
					os.Exit(130)
				default:
					lastIdle = time.Now()
					mu.Unlock()
					fmt.Fprintln(r.Err, "\n(press Ctrl-C again to leave, or type /exit)")
				}
			}
		}
	}()
	defer exitOnce.Do(func() { close(exit) })

	prompt := first
	for {
		r.woke = false
		if prompt == "" {
			line, err := r.readPrompt()
			if err != nil {
				if errors.Is(err, io.EOF) {
					fmt.Fprintln(r.Out)
					return nil
				}
				return err
			}
			prompt = line
		}
		p := strings.TrimSpace(prompt)
		prompt = ""
		if p == "" {
			continue
		}
		// Only the user's own words opt in to workflows, not a skill's body that replaces them.
		typed := p
		skill := false
		if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "/mcp__") { // MCP prompts: Session.Run
			if skill = r.isSkill(p); !skill {
				quit, err := r.command(p)
				if err != nil {
					fmt.Fprintln(r.Err, "ouro:", err)
				}
				if quit {
					return nil
				}
				continue
			}
		}
		// The turn starts here, so that Ctrl-C also stops a skill's !`command`s.
		runCtx, cancel := context.WithCancel(ctx)
		mu.Lock()
		cancelRun = cancel
		mu.Unlock()
		if r.Screen != nil {
			r.Screen.RunStarted(p)
		}
		var o agent.Outcome
		if skill {
			text, err := r.skillPrompt(runCtx, p)
			switch {
			case runCtx.Err() != nil:
				o = agent.Outcome{Status: agent.StatusInterrupted, Reason: "interrupted while the skill's commands ran; nothing was sent"}
			case err != nil:
				fmt.Fprintln(r.Err, "ouro:", err)
				o = agent.Outcome{Status: agent.StatusFailed, Reason: err.Error()}
			default:
				p = text // /<skill> args: the skill's body, with its arguments, is the prompt
			}
		}
		if o.Status == "" {
			if !r.woke && r.sess.OfferWorkflows(typed) {
				fmt.Fprintln(r.Err, "[the Workflow tool is offered from now on: your prompt asks for a workflow]")
			}
			o = r.sess.Run(runCtx, p)
		}
		mu.Lock()
		// A Ctrl-C during the turn cleared cancelRun; a second one now would exit.
		interrupted := cancelRun == nil
		cancelRun = nil
		mu.Unlock()
		cancel()
		r.account(o)
		r.endLine()
		if r.Screen != nil {
			r.Screen.RunEnded(o, r.totals)
		}
		switch {
		case o.Status == agent.StatusCompleted:
		case interrupted || o.Status == agent.StatusInterrupted:
			fmt.Fprintln(r.Err, "[turn interrupted; the conversation keeps what happened so far]")
		default:
			fmt.Fprintln(r.Err, StatusLine(o))
		}
	}
}

func (r *REPL) open() error {
	opts := r.Options
	opts.UI.Asker = &replAsker{r: r}
	approver := &replApprover{r: r}
	opts.UI.Approver = approver
	opts.UI.ApproveGrant = approver.approveGrant
	opts.MCP.Approve = approver.approveMCP
	opts.MCP.Elicit = approver.elicitMCP
	opts.UI.OnTodo = func(items []todo.Item) {
		r.endLine()
		title := "Todos"
		if r.sess != nil && r.sess.Todos.Tool() != todo.ToolName {
			title = "Tasks (" + r.sess.TaskList + ")" // the task list, mirrored
		}
		fmt.Fprintf(r.Out, "%s:\n%s\n", title, indentLines(todo.Render(items), "  "))
	}
	opts.UI.ShowUser = func(msg string) { r.endLine(); fmt.Fprintf(r.Err, "[hook] %s\n", msg) }
	opts.UI.Observers = append(append([]agent.Observer(nil), opts.UI.Observers...), r.observe)
	opts.UI.Wake = r.wakes.push
	opts.UI.OnTeamMessage = func(m mailbox.Message) {
		what := m.Summary
		if what == "" {
			what = m.Text
		}
		if m.Kind != mailbox.Text {
			what = string(m.Kind) + " " + m.RequestID + ": " + what
		}
		r.endLine()
		fmt.Fprintf(r.Out, "[%s → %s] %s\n", m.From, m.To, Clip(what, 200))
	}
	opts.UI.Confirm = r.confirm
	if opts.UI.Warn == nil {
		opts.UI.Warn = r.Err
	}
	if sc := r.Screen; sc != nil {
		opts.UI.Approver = sc
		if a, ok := sc.(tools.Asker); ok {
			opts.UI.Asker = a // the screen's picker, not a question in its input
		}
		opts.UI.OnTodo = func(items []todo.Item) {
			title := "Todos"
			if r.sess != nil && r.sess.Todos.Tool() != todo.ToolName {
				title = "Tasks (" + r.sess.TaskList + ")"
			}
			sc.Todos(title, items)
		}
		opts.UI.Observers[len(opts.UI.Observers)-1] = sc.Observe
	}
	s, err := harness.Open(opts)
	if err != nil {
		return err
	}
	if c := r.carry; c != nil {
		r.carry = nil
		if err := s.Policy().Restore(*c); err != nil {
			fmt.Fprintf(r.Err, "ouro: not everything of the permissions carried over: %v\n", err)
		}
	}
	r.sess = s
	if r.Screen != nil {
		r.Screen.Opened(s)
	}
	return nil
}

func (r *REPL) closeSession() {
	if r.sess != nil {
		if err := r.sess.Close(); err != nil {
			fmt.Fprintln(r.Err, "ouro: closing the transcript:", err)
		}
	}
}

func (r *REPL) command(line string) (quit bool, err error) {
	name, _, _ := strings.Cut(line, " ")
	switch name {
	case "/help", "/?":
		fmt.Fprintln(r.Out, replHelp)
		if r.Screen == nil {
			fmt.Fprintln(r.Out, replKeys)
		}
	case "/exit", "/quit":
		return true, nil
	case "/skills":
		if r.sess.Skills.Len() == 0 {
			fmt.Fprintln(r.Out, "No skills found (looked in .ouro/skills, .claude/skills, .agents/skills, .ouro/commands and .claude/commands here and above, and in your home).")
			break
		}
		for _, sk := range r.sess.Skills.Skills() {
			if !sk.UserInvocable {
				continue // the model's alone
			}
			head := "/" + sk.Name
			if sk.ArgumentHint != "" {
				head += " " + sk.ArgumentHint
			}
			where := sk.Dir
			if sk.Command { // a command is its file
				where = sk.Path
			}
			fmt.Fprintf(r.Out, "%s  %s\n    %s\n", head, Clip(sk.Description, 200), where)
		}
	case "/loop":
		return false, r.loop(line)
	case "/mcp":
		return false, r.mcpCommand(strings.TrimSpace(strings.TrimPrefix(line, name)))
	case "/todos":
		fmt.Fprintln(r.Out, r.sess.Todos.Render())
	case "/rewind":
		return false, r.rewind(strings.TrimPrefix(line, name))
	case "/workflows":
		fmt.Fprintln(r.Out, r.sess.WorkflowProgress())
	case "/goal":
		return false, goalCommand(r.sess, strings.TrimPrefix(line, name), r.Out)
	case "/tasks":
		fmt.Fprintln(r.Out, r.sess.Background.Render())
	case "/compact":
		_, focus, _ := strings.Cut(line, " ")
		before := len(r.sess.Conv.Messages)
		if err := r.sess.Compact(context.Background(), strings.TrimSpace(focus)); err != nil {
			return false, fmt.Errorf("compact: %w", err)
		}
		fmt.Fprintf(r.Out, "compacted: %d messages became %d\n", before, len(r.sess.Conv.Messages))
	case "/remember":
		rem, err := r.sess.Remember(context.Background())
		if err != nil {
			return false, fmt.Errorf("remember: %w", err)
		}
		if len(rem.Saved) == 0 {
			fmt.Fprintln(r.Out, "nothing new worth remembering")
		}
		r.showRemembered(rem)
	case "/cost":
		o := r.totals
		fmt.Fprintf(r.Out, "session %s: %d runs, %d turns, %d input + %d output tokens (cache: %d read, %d written), $%.4f, %s (API %s)\n",
			r.sess.ID(), r.runs, o.Turns, o.Usage.InputTokens, o.Usage.OutputTokens,
			o.Usage.CacheReadInputTokens, o.Usage.CacheCreationInputTokens, o.CostUSD,
			o.Duration.Round(time.Millisecond), o.APIDuration.Round(time.Millisecond))
	case "/clear":
		old := r.sess
		r.Options.Resume = harness.Resume{}
		if err := r.open(); err != nil {
			r.sess = old
			return false, err
		}
		if err := old.Close(); err != nil {
			fmt.Fprintln(r.Err, "ouro: closing the transcript:", err)
		}
		r.totals, r.runs = agent.Outcome{}, 0
		fmt.Fprintf(r.Out, "new session %s (the previous one is kept: ouro --resume %s)\n", r.sess.ID(), old.ID())
	default:
		if handled, err := r.moreCommand(name, line); handled {
			return false, err
		}
		return false, fmt.Errorf("unknown command %s; /help lists the commands", name)
	}
	return false, nil
}

func (r *REPL) account(o agent.Outcome) {
	r.runs++
	t := &r.totals
	t.Turns += o.Turns
	t.Usage = t.Usage.Add(o.Usage)
	t.CostUSD += o.CostUSD
	t.Duration += o.Duration
	t.APIDuration += o.APIDuration
}

type lineOrErr struct {
	line string
	err  error
}

// readLines feeds every input line to r.lines, so that whoever waits for one (the prompt,
// a question, an approval) can give up when the turn is interrupted.
func (r *REPL) readLines() {
	br := bufio.NewReader(r.In)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			r.lines <- lineOrErr{line: stripEscapes(strings.TrimRight(line, "\r\n"))} // arrow keys are not text
		}
		if err != nil {
			r.lines <- lineOrErr{err: err}
			close(r.lines)
			return
		}
	}
}

// readLine returns the next line, or ctx's error if it ends first.
func (r *REPL) readLine(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-r.lines:
		if !ok {
			return "", io.EOF
		}
		r.took(l)
		return l.line, l.err
	}
}

// took tells the screen a line of input was taken (it shows a line typed while a turn
// ran once the line is read, after that turn's answer).
func (r *REPL) took(l lineOrErr) {
	if r.Screen != nil && l.err == nil {
		r.Screen.LineRead(l.line)
	}
}

// readPrompt reads one prompt; a line ending in \ continues on the next. A turn a
// mechanism asked for (UI.Wake) is taken instead when it comes while nothing is typed.
func (r *REPL) readPrompt() (string, error) {
	r.inMu.Lock()
	defer r.inMu.Unlock()
	if w, ok := r.wakes.pop(); ok {
		return r.woken(w), nil
	}
	if r.Screen == nil {
		fmt.Fprint(r.Out, "\n› ")
	}
	var parts []string
	for {
		var (
			line string
			err  error
		)
		if len(parts) == 0 {
			select {
			case <-r.wakes.ready:
				if w, ok := r.wakes.pop(); ok {
					return r.woken(w), nil
				}
				continue
			case l, ok := <-r.lines:
				if !ok {
					return "", io.EOF
				}
				r.took(l)
				line, err = l.line, l.err
			}
		} else {
			line, err = r.readLine(context.Background())
		}
		if err != nil {
			return "", err
		}
		if strings.HasSuffix(line, `\`) {
			parts = append(parts, strings.TrimSuffix(line, `\`))
			if r.Screen == nil {
				fmt.Fprint(r.Out, "… ")
			}
			continue
		}
		parts = append(parts, line)
		return strings.Join(parts, "\n"), nil
	}
}

// observe renders a run as it happens: streamed text, each tool call and a short result.
func (r *REPL) observe(e agent.Event) {
	switch e.Type {
	case agent.EventDelta:
		switch e.Delta.Kind {
		case "thinking":
			if !r.thinking && e.Delta.Text != "" {
				r.endLine()
				fmt.Fprintln(r.Out, "✻ thinking…")
				r.thinking = true
			}
		case "text":
			r.thinking = false
			fmt.Fprint(r.Out, e.Delta.Text)
			r.midLine = !strings.HasSuffix(e.Delta.Text, "\n")
		case "retry":
			r.endLine()
			fmt.Fprintf(r.Err, "[%s; the answer starts over]\n", e.Delta.Text)
		case "waiting":
			r.endLine()
			fmt.Fprintf(r.Err, "[%s]\n", e.Delta.Text)
		}
	case agent.EventToolStart:
		r.endLine()
		r.thinking = false
		fmt.Fprintf(r.Out, "⏺ %s(%s)\n", e.Call.Name, callSummary(e.Call.Name, RelInput(e.Call.Input, r.sess.CWD)))
	case agent.EventToolProgress:
		fmt.Fprintf(r.Out, "  ⋯ %s\n", Clip(strings.ReplaceAll(e.Progress.Message, "\n", " "), 100))
	case agent.EventToolEnd:
		fmt.Fprintf(r.Out, "  ⎿ %s\n", resultSummary(e.Result))
	case agent.EventNotice:
		r.endLine()
		fmt.Fprintf(r.Err, "[%s]\n", e.Text)
	case agent.EventTurnEnd:
		r.endLine()
		r.thinking = false
	}
}

func (r *REPL) endLine() {
	if r.midLine {
		fmt.Fprintln(r.Out)
		r.midLine = false
	}
}

func callSummary(name string, input []byte) string {
	var m map[string]any
	if err := jsonUnmarshal(input, &m); err != nil {
		return Clip(string(input), 80)
	}
	for _, k := range []string{"command", "file_path", "pattern", "url", "query", "description"} {
		if v, ok := m[k].(string); ok {
			return Clip(strings.ReplaceAll(v, "\n", " ⏎ "), 100)
		}
	}
	return Clip(compactJSON(input), 100)
}

func resultSummary(b *llm.Block) string {
	text := strings.TrimRight(b.ResultText(), "\n")
	lines := strings.Count(text, "\n") + 1
	first, _, _ := strings.Cut(text, "\n")
	s := Clip(first, 100)
	if lines > 1 {
		s += fmt.Sprintf(" (+%d lines)", lines-1)
	}
	if b.IsError {
		s = "error: " + s
	}
	return s
}

// replAsker answers AskUserQuestion from the terminal.
type replAsker struct{ r *REPL }

func (a *replAsker) Ask(ctx context.Context, qs []tools.Question) ([]tools.Answer, error) {
	r := a.r
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	out := make([]tools.Answer, 0, len(qs))
	for _, q := range qs {
		fmt.Fprintf(r.Out, "\n? %s\n", q.Question)
		for i, o := range q.Options {
			fmt.Fprintf(r.Out, "  %d. %s — %s\n", i+1, o.Label, o.Description)
		}
		hint := "number"
		if q.MultiSelect {
			hint = "numbers separated by commas"
		}
		fmt.Fprintf(r.Out, "answer (%s, or your own words): ", hint)
		line, err := r.readLine(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		out = append(out, parseAnswer(q, strings.TrimSpace(line)))
	}
	return out, nil
}

func parseAnswer(q tools.Question, line string) tools.Answer {
	ans := tools.Answer{Question: q.Question}
	var labels []string
	for _, f := range strings.Split(line, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > len(q.Options) {
			ans.Text = line
			return ans
		}
		labels = append(labels, q.Options[n-1].Label)
	}
	if !q.MultiSelect && len(labels) > 1 {
		ans.Text = line
		return ans
	}
	ans.Labels = labels
	return ans
}

// isSkill reports whether line is "/<skill-name> args".
func (r *REPL) isSkill(line string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	_, ok := r.sess.Skills.Get(name)
	return ok
}

// skillPrompt turns "/<skill-name> args" into the skill's body with its arguments; its
// !`command`s run under ctx.
func (r *REPL) skillPrompt(ctx context.Context, line string) (string, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	return r.sess.InvokeSkill(ctx, name, strings.TrimSpace(args))
}

func indentLines(s, pad string) string { return pad + strings.ReplaceAll(s, "\n", "\n"+pad) }

// rememberOnExit extracts durable facts from the session into the project's memory when
// it ends, as /remember does, if anything was run. Failures are reported, not fatal.
func (r *REPL) rememberOnExit() {
	if r.runs == 0 || r.sess == nil || !r.sess.ExtractOnExit(true) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rem, err := r.sess.Remember(ctx)
	if err != nil {
		fmt.Fprintf(r.Err, "ouro: saving memories from this session failed: %v\n", err)
		return
	}
	r.showRemembered(rem)
}

// showRemembered lists what was saved and what the model calls for it cost.
func (r *REPL) showRemembered(rem harness.Remembered) {
	for _, rec := range rem.Saved {
		fmt.Fprintf(r.Out, "remembered %s: %s\n", rec.Name, rec.Description)
	}
	if rem.Usage.Total() > 0 {
		fmt.Fprintf(r.Err, "[memory extraction: %d tokens, $%.4f]\n", rem.Usage.Total(), rem.CostUSD)
	}
}
