// Package harness assembles a working agent from options: the provider for the model, the
// tools, the system prompt, the transcript that records the run and the conversation a
// resumed session continues. The CLI, the REPL, the demo and the examples all start here.
package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// Options configure a session. The zero value is a fresh session in the current
// directory with the default model.
type Options struct {
	Model              string // flag value; "" → OURO_MODEL → llm.DefaultModel
	FallbackModel      string
	SystemPrompt       string // replaces the default system prompt
	AppendSystemPrompt string
	CWD                string // "" → the process's working directory
	Home               string // "" → session.Home() (OURO_HOME or ~/.ouro)
	Limits             agent.Limits
	MaxOutput          int
	// ContextWindow overrides the model table's context window (tokens), for models it
	// does not know (a local server's) or to compact earlier; 0 keeps the table's.
	ContextWindow int

	// Resume names a session ID (or unique prefix) to continue; Continue picks the most
	// recent session of this directory.
	Resume   string
	Continue bool

	// Provider bypasses model resolution (demo, tests, examples). ModelName is then the
	// name sent to it.
	Provider llm.Provider

	// Asker answers AskUserQuestion; nil means headless (the run ends needs_input).
	Asker tools.Asker
	// Approver decides calls the permission policy asks about; nil means headless (what
	// would ask is denied with the reason, and listed in the result's permission_denials).
	Approver permission.Approver
	// ShowUser receives what hooks want the user to see (systemMessage and the like).
	ShowUser func(string)
	// OnTodo receives the todo list each time the model changes it (the REPL draws it).
	OnTodo func([]todo.Item)
	// ChildObserver sees the events of subagents, tagged with the Task call that started
	// them (stream-json's parent_tool_use_id). Children run concurrently: it must be safe
	// for concurrent use.
	ChildObserver func(parentToolUseID string, e agent.Event)
	// SandboxLauncher says the program calls sandbox.MaybeRunLauncher first thing in main
	// (and tests in TestMain), so Bash can run inside the OS sandbox, which works by
	// re-executing the program. Without it Bash runs under permission rules only.
	SandboxLauncher bool

	// The permission flags: --settings (a file or inline JSON), --allowedTools,
	// --disallowedTools, --permission-mode.
	SettingsFlag    string
	AllowedTools    []string
	DisallowedTools []string
	PermissionMode  string
	// Tools, when set, is the complete list of tools offered (Claude Code's --tools):
	// every other built-in tool, Task/Agent and Skill included, is left out. A name that
	// is no tool is an error.
	Tools []string
	// Gates, AfterTool and BeforeStop are extra seams run after the harness's own ones
	// (a mechanism built on the harness, such as the scout's citation check).
	Gates      []agent.Gate
	AfterTool  []agent.AfterTool
	BeforeStop []agent.BeforeStop
	// UserConfigHome is where the user's own configuration is looked for: ~/.claude
	// settings, CLAUDE.md, skills and agents ("" → the home directory). An evaluation
	// points it at an empty folder so a person's setup does not colour its results. The
	// sandbox and `~/` in permission rules keep the real home.
	UserConfigHome string
	// Observers see every event of every run.
	Observers []agent.Observer
	// Version is written into new transcripts.
	Version string
	// Warn receives warnings (transcript repairs, write failures); nil → os.Stderr.
	Warn io.Writer
}

// Session is an assembled agent with its conversation and transcript.
type Session struct {
	Agent *agent.Agent
	Conv  *agent.Conversation
	Model string
	Tools *tool.Registry
	Bash  *tools.Bash
	CWD   string
	// Workspace is where tools may reach: the working directory, plus the session's own
	// tool-results folder so spilled outputs can be read back.
	Workspace *workspace.Workspace
	// Resumed is true when the conversation came from an earlier transcript.
	Resumed bool

	opts       Options
	projectDir string
	writer     *session.Writer
	rec        *recorder
	guard      *guard
	// pending is context for the next prompt from SessionStart hooks.
	pending string
	closed  bool

	// Todos is the session's plan (TodoWrite); Skills the skills found for this project.
	Todos  *todo.List
	Skills *skill.Catalog
	// savedTodos is the list from the transcript being resumed.
	savedTodos json.RawMessage
	// skills are the skills loaded in this session, oldest first.
	skillsMu sync.Mutex
	skills   []invokedSkill
	// task is the Task tool (alias Agent); its children's usage is added to each outcome.
	task *subagent.Tool
	ctx  *contextParts
	// notes holds what tools notify (Exec.Notify) until the next model call.
	notes *notify.Queue
}

// Open resolves the model, builds the tools and opens (or resumes) the transcript.
func Open(opts Options) (*Session, error) {
	if opts.Warn == nil {
		opts.Warn = os.Stderr
	}
	cwd := opts.CWD
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	home := opts.Home
	if home == "" {
		if home, err = session.Home(); err != nil {
			return nil, err
		}
	}

	model := ResolveModel(opts.Model)
	prov := opts.Provider
	if prov == nil {
		if prov, model, err = NewProvider(model, opts.FallbackModel); err != nil {
			return nil, err
		}
	}

	s := &Session{Conv: &agent.Conversation{}, Model: model, CWD: cwd, opts: opts, projectDir: session.ProjectDir(home, cwd)}
	if s.Workspace, err = workspace.New(cwd); err != nil {
		return nil, err
	}
	if err := s.openTranscript(); err != nil {
		return nil, err
	}
	fail := func(err error) (*Session, error) {
		s.writer.Close()
		s.guard.close(context.Background())
		return nil, err
	}
	if err := s.setupGuard(home); err != nil {
		return fail(err)
	}
	s.Todos = todo.NewList()
	if len(s.savedTodos) > 0 {
		if err := s.Todos.Restore(s.savedTodos); err != nil {
			fmt.Fprintf(opts.Warn, "ouro: the saved todo list could not be restored: %v\n", err)
		}
	}
	var warns []skill.Warning
	s.Skills, warns = skill.Discover(skill.Options{Dir: cwd, Home: s.configHome()})
	for _, w := range warns {
		fmt.Fprintf(opts.Warn, "ouro: skill %s\n", w)
	}
	if err := s.buildTools(); err != nil {
		return fail(err)
	}

	system := opts.SystemPrompt
	if system == "" {
		system = DefaultSystemPrompt(cwd, s.offeredNames(append(s.Tools.Names(), "Task", "Agent")))
	}
	system += s.setupContext(prov, model, home)
	if s.Skills.Len() > 0 && len(s.offeredNames([]string{"Skill"})) > 0 {
		system += "\n" + s.Skills.Prompt(0)
	}
	if opts.AppendSystemPrompt != "" {
		system += "\n" + opts.AppendSystemPrompt
	}
	s.rec = &recorder{w: s.writer, warn: opts.Warn}
	g := s.guard
	if err := s.addSubagents(prov, model, system); err != nil {
		return fail(err)
	}
	g.hideDenied(s.Tools)
	if err := s.restrictTools(); err != nil {
		return fail(err)
	}
	reminder := todo.NewReminder(s.Todos, 0)
	observers := append([]agent.Observer{s.rec.observe, g.observe, reminder.Observe}, opts.Observers...)
	s.Agent, err = agent.New(agent.Config{
		Provider: prov, Model: model, System: system, Tools: s.Tools,
		Limits: opts.Limits, MaxOutput: opts.MaxOutput, Observers: observers,
		SideUsage:   s.sideUsage, // subagents and compaction summaries spend the run's budget too
		BeforeModel: append([]agent.BeforeModel{g.hooks, s.notes}, append(s.ctx.seams(), reminder)...),
		Gates:       append([]agent.Gate{g.gate}, opts.Gates...),
		AfterTool:   append([]agent.AfterTool{g.hooks, g}, opts.AfterTool...),
		BeforeStop:  append([]agent.BeforeStop{g.hooks}, opts.BeforeStop...),
	})
	if err != nil {
		return fail(err)
	}
	source := "startup"
	if s.Resumed {
		source = "resume"
	}
	s.pending = g.hooks.SessionStart(context.Background(), source)
	return s, nil
}

// buildTools assembles the built-in tools with Claude Code's names, sharing one file-state
// tracker, and points the output budget at the session's tool-results folder.
func (s *Session) buildTools() error {
	spill := filepath.Join(s.writer.Dir(), "tool-results")
	if err := os.MkdirAll(spill, 0o700); err != nil {
		return fmt.Errorf("tool-results folder: %w", err)
	}
	if err := s.Workspace.AddRoot(spill); err != nil {
		return err
	}
	ws, files := s.Workspace, tools.NewFileState()
	// Bash keeps up to ten budgets of output so the registry can spill it whole; only
	// beyond that does Bash itself cut the middle (and say so).
	s.Bash = tools.NewBash(tools.BashConfig{Dir: s.CWD, MaxOutput: 10 * tool.DefaultOutputBudget,
		Env: s.guard.env, Sandbox: s.guard.sandbox, Within: ws.Contains})
	grep := tools.NewGrep(ws)
	grep.SetReadFilter(s.guard.policy.ReadDenied)
	s.Tools = tool.NewRegistry(
		s.Bash,
		tools.NewGlob(ws), grep, tools.NewLS(ws),
		tools.NewRead(ws, files), tools.NewEdit(ws, files), tools.NewWrite(ws, files),
		tools.NewWebFetch(tools.WebFetchConfig{}),
		tools.NewAskUserQuestion(s.opts.Asker),
		todo.NewTool(s.Todos, s.todoChanged),
	)
	if s.Skills.Len() > 0 {
		if err := s.Tools.Add(skill.NewTool(s.Skills, ws, s.skillInvoked)); err != nil {
			return err
		}
	}
	s.notes = &notify.Queue{}
	s.Tools.SetOptions(tool.Options{SpillDir: spill, Notify: s.notes})
	return nil
}

// configHome is where the user's own configuration is looked for.
func (s *Session) configHome() string {
	if s.opts.UserConfigHome != "" {
		return s.opts.UserConfigHome
	}
	h, _ := os.UserHomeDir()
	return h
}

// restrictTools leaves only the tools Options.Tools names (when it names any).
func (s *Session) restrictTools() error {
	if len(s.opts.Tools) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, n := range s.Tools.Names() {
		have[n] = true
	}
	want := map[string]bool{}
	for _, n := range s.opts.Tools {
		if !have[n] && !s.hiddenByRule(n) {
			names := s.Tools.Names()
			sort.Strings(names)
			return fmt.Errorf("--tools: there is no tool %q; the tools are %s", n, strings.Join(names, ", "))
		}
		want[n] = true
	}
	for _, n := range s.Tools.Names() {
		if !want[n] {
			s.Tools.Remove(n)
		}
	}
	return nil
}

// hiddenByRule reports whether a deny rule already took the tool name out.
func (s *Session) hiddenByRule(name string) bool { return s.guard.policy.Hidden(name) }

// offeredNames filters names down to Options.Tools (all of them when it is empty).
func (s *Session) offeredNames(names []string) []string {
	if len(s.opts.Tools) == 0 {
		return names
	}
	var out []string
	for _, n := range names {
		if slices.Contains(s.opts.Tools, n) {
			out = append(out, n)
		}
	}
	return out
}

// addSubagents offers the Task tool (and its alias Agent): children run their own loop
// with the parent's provider, a subset of its tools, and the same gate and hooks.
func (s *Session) addSubagents(prov llm.Provider, model, system string) error {
	defs, warns := subagent.LoadDefinitions(s.CWD, s.configHome())
	for _, w := range warns {
		fmt.Fprintf(s.opts.Warn, "ouro: agent %s\n", w)
	}
	g := s.guard
	task, alias := subagent.NewTool(subagent.Config{
		Provider: prov, Model: model, BaseSystem: system, Tools: s.Tools,
		ToolOptions: tool.Options{SpillDir: filepath.Join(s.writer.Dir(), "tool-results"), Notify: s.notes},
		Definitions: defs,
		Gates:       []agent.Gate{g.gate}, AfterTool: []agent.AfterTool{g.hooks, g}, BeforeModel: []agent.BeforeModel{g.hooks},
		GatesFor:    g.gatesFor(func(msg string) { fmt.Fprintf(s.opts.Warn, "ouro: %s\n", msg) }),
		ProviderFor: s.providerFor(model),
		StartHook:   g.hooks.SubagentStart, StopHook: g.hooks.Subagent,
		Observer:      s.opts.ChildObserver,
		TranscriptDir: filepath.Join(s.writer.Dir(), "subagents"),
		Limits:        s.opts.Limits, // no child may spend more than the whole run may
		Warn:          func(msg string) { fmt.Fprintf(s.opts.Warn, "ouro: %s\n", msg) },
	})
	s.task = task
	if err := s.Tools.Add(task); err != nil {
		return err
	}
	return s.Tools.Add(alias)
}

// todoChanged records the list in the transcript (so --resume restores it) and shows it.
func (s *Session) todoChanged(items []todo.Item) {
	if err := s.writer.AppendEntry(entryTodo, map[string]any{"todos": items}); err != nil {
		fmt.Fprintf(s.opts.Warn, "ouro: saving the todo list: %v\n", err)
	}
	if s.opts.OnTodo != nil {
		s.opts.OnTodo(items)
	}
}

// entryTodo is the transcript entry holding the todo list after each change.
const entryTodo = "todo"

func (s *Session) openTranscript() error {
	o := s.opts
	if o.Resume == "" && !o.Continue {
		w, err := session.Create(s.projectDir, session.Meta{Model: s.Model, CWD: s.CWD, Version: o.Version})
		if err != nil {
			return fmt.Errorf("create transcript: %w", err)
		}
		s.writer = w
		return nil
	}
	var info session.Info
	var err error
	if o.Resume != "" {
		info, err = session.Find(s.projectDir, o.Resume)
	} else {
		info, err = session.Latest(s.projectDir)
	}
	if err != nil {
		return err
	}
	// Lock the transcript before reading it, so what is read is what the next entry
	// follows; a session another process is writing is forked instead of interleaved.
	w, openErr := session.OpenAppend(info.Path)
	if openErr != nil && !errors.Is(openErr, session.ErrInUse) {
		return fmt.Errorf("reopen transcript: %w", openErr)
	}
	t, err := session.Load(info.Path)
	if err != nil {
		if w != nil {
			w.Close()
		}
		return err
	}
	if w == nil {
		if w, err = session.Fork(s.projectDir, t, session.Meta{Model: s.Model, CWD: s.CWD, Version: o.Version}); err != nil {
			return fmt.Errorf("session %s is in use by another ouro process, and forking it failed: %w", t.ID, err)
		}
		fmt.Fprintf(o.Warn, "ouro: session %s is in use by another ouro process; continuing in a new session %s forked from it\n", t.ID, w.ID())
	}
	s.writer = w
	for _, e := range t.Entries {
		switch e.Type {
		case entryTodo:
			s.savedTodos = e.Data
		case entrySkill:
			var k invokedSkill
			if json.Unmarshal(e.Data, &k) == nil && k.Name != "" {
				s.keepSkill(k.Name, k.Text)
			}
		}
	}
	msgs, repairs := t.Messages()
	for _, w := range t.Warnings {
		fmt.Fprintf(o.Warn, "ouro: transcript %s: %s\n", info.Path, w)
	}
	for _, r := range repairs {
		fmt.Fprintf(o.Warn, "ouro: resumed session repaired: %s\n", r)
	}
	s.Conv.Messages = msgs
	s.Resumed = true
	return nil
}

// ProjectDirFor is where the state of sessions in cwd is kept under home.
func ProjectDirFor(home, cwd string) string {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return session.ProjectDir(home, cwd)
}

// ID is the session ID.
func (s *Session) ID() string { return s.writer.ID() }

// TranscriptPath is where the transcript is written.
func (s *Session) TranscriptPath() string { return s.writer.Path() }

// Run sends prompt and runs the loop to an outcome, recording everything. UserPromptSubmit
// hooks see the prompt first: they may block it (the run then fails with their reason and
// nothing reaches the model) or add context to it.
func (s *Session) Run(ctx context.Context, prompt string) agent.Outcome {
	var input []llm.Block
	if prompt != "" {
		input = []llm.Block{llm.TextBlock(prompt)}
	}
	hooks := s.guard.hooks
	hooks.ClearHalt()
	if prompt != "" && hooks.Has("UserPromptSubmit") {
		extra, blocked, reason, err := hooks.UserPromptSubmit(ctx, prompt)
		if err != nil {
			return agent.Outcome{Status: agent.StatusFailed, Reason: err.Error()}
		}
		if blocked {
			return agent.Outcome{Status: agent.StatusFailed, Reason: "the prompt was blocked by a UserPromptSubmit hook: " + reason}
		}
		if extra != "" {
			input = append(input, llm.TextBlock(extra))
		}
	}
	if s.pending != "" && len(input) > 0 {
		input = append(input, llm.TextBlock(s.pending))
		s.pending = ""
	}
	defer s.guard.policy.ClearTurnRules()
	return s.Agent.Run(ctx, s.Conv, input...)
}

// Policy is the session's permission policy (mode, rules).
func (s *Session) Policy() *permission.Policy { return s.guard.policy }

// AuditPath is where the session's decisions, runs and file changes are logged.
func (s *Session) AuditPath() string { return s.guard.audit.Path() }

// Close runs the SessionEnd hooks and flushes and closes the transcript and the audit.
func (s *Session) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return errors.Join(s.guard.close(context.Background()), s.writer.Sync(), s.writer.Close())
}

// toolRecord is the transcript's account of one executed call: when it ran and whether
// it failed (the result itself is in the user message that follows).
type toolRecord struct {
	ToolUseID string    `json:"tool_use_id"`
	Name      string    `json:"name"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	IsError   bool      `json:"is_error"`
}

// recorder is the observer that writes a run into the transcript: each message as it is
// appended, an fsync at each turn end, and the outcome.
type recorder struct {
	w      *session.Writer
	warn   io.Writer
	warned bool
}

func (r *recorder) observe(e agent.Event) {
	var err error
	switch e.Type {
	case agent.EventMessage:
		err = r.w.AppendMessage(*e.Message)
	case agent.EventToolEnd:
		if !e.Start.IsZero() {
			err = r.w.AppendEntry("tool", toolRecord{ToolUseID: e.Call.ID, Name: e.Call.Name,
				Start: e.Start, End: e.End, IsError: e.Result.IsError})
		}
	case agent.EventReplace:
		err = r.w.AppendEntry(session.TypeReplace, map[string]any{"messages": e.Messages})
	case agent.EventTurnEnd:
		err = r.w.Sync()
	case agent.EventOutcome:
		err = r.w.AppendEntry(session.TypeOutcome, e.Outcome)
		if err == nil {
			err = r.w.Sync()
		}
	}
	if err != nil && !r.warned {
		r.warned = true
		fmt.Fprintf(r.warn, "ouro: WARNING: the transcript %s could not be written (%v); this session may not be resumable\n", r.w.Path(), err)
	}
}
