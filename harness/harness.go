// Package harness assembles a working agent from options: the provider for the model, the
// tools, the system prompt, the transcript that records the run and the conversation a
// resumed session continues. The CLI, the REPL, the demo and the scout entry point all
// start here.
//
// Every mechanism joins the session as a mechanism.Part (its tools, seams, observers,
// prompt section); Open builds the harness's own Parts, joins those it is given
// (Options.Extensions) and assembles the list into one agent.
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
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/checkpoint"
	"github.com/ouroagent/ouro/cron"
	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/keyhelper"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/mailbox"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/needsinput"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/plugin/market"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/structured"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
	"github.com/ouroagent/ouro/todo"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workspace"
	"github.com/ouroagent/ouro/worktree"
)

// Options configure a session. The zero value is a fresh session in the current
// directory with the default model.
type Options struct {
	Model  ModelOptions
	Dirs   Dirs
	Resume Resume
	Prompt Prompt
	// Limits bound each run (turns, time, tokens, cost); the zero value bounds nothing.
	Limits agent.Limits
	Access Access
	UI     UI
	Goal   GoalOptions
	// JSONSchema, when set, is the schema the run's final answer must match (--json-schema,
	// the Agent SDK's jsonSchema): the model answers through StructuredOutput.
	JSONSchema json.RawMessage
	// Extensions are mechanisms from outside the harness (the scout's citation check,
	// the fix guard); their Parts come after the harness's own, so the permission gate
	// and hooks decide first.
	Extensions []mechanism.Joiner
	// MCP adds MCP servers to those of the configuration files (--mcp-config).
	MCP MCP
	// Version is written into new transcripts.
	Version string
	// Setup, when set, runs the Setup hooks with this trigger ("init" or "maintenance",
	// Claude Code's --init and --maintenance) before SessionStart; what they print joins
	// the first prompt's context.
	Setup string
	// Plugins are folders holding Claude Code plugins (--plugin-dir): their hooks,
	// skills, agents and commands join the session's.
	Plugins []string
	// TaskList names a task list shared with other sessions (--task-list); "" →
	// OURO_TASK_LIST, CLAUDE_CODE_TASK_LIST_ID, else the session's own list.
	TaskList string
	// Agents are agent types defined by the caller (Claude Code's --agents, the Agent
	// SDK's agents): they join those of .claude/agents and the plugins.
	Agents []subagent.Definition
	// Store is where task lists and workflow journals are kept (--store): a NATS
	// JetStream URL; "" → OURO_STORE, the store.url setting, else state.db.
	Store string
	// TeamBudget bounds the lead's teammates together (turns, tokens, cost, time).
	TeamBudget agent.Limits
	// TeamProcess runs each teammate as its own `ouro team worker` process
	// (--team-process), so that a crash is contained (teamproc.go).
	TeamProcess bool
}

// ModelOptions say which model serves the session and how.
type ModelOptions struct {
	Name     string // flag value; "" → OURO_MODEL → llm.DefaultModel
	Fallback string // the Claude model to switch to when the main one stays overloaded
	// Provider bypasses model resolution (demo, tests, examples); Name is then the name
	// sent to it.
	Provider llm.Provider
	// MaxOutput is the output token limit per response; 0 → the model's.
	MaxOutput int
	// ContextWindow overrides the model table's context window (tokens), for models it
	// does not know (a local server's) or to compact earlier; 0 keeps the table's.
	ContextWindow int
	// Effort is the effort of each request (--effort; one of llm.Efforts); "" →
	// CLAUDE_CODE_EFFORT_LEVEL → the effortLevel setting → the model's default.
	Effort string
	// Thinking, when set, turns extended thinking on (Budget > 0) or off (--thinking,
	// --max-thinking-tokens); nil → MAX_THINKING_TOKENS → alwaysThinkingEnabled → off.
	Thinking *llm.Thinking
	// ThinkingDisplay is how thinking comes back when it is on (--thinking-display:
	// summarized or omitted); "" → the model's default.
	ThinkingDisplay string
}

// Dirs are where the session works and keeps its state.
type Dirs struct {
	CWD  string // "" → the process's working directory
	Home string // ouro's state; "" → session.Home() (OURO_HOME or ~/.ouro)
	// UserConfig is where the user's own configuration is looked for: ~/.claude
	// settings, CLAUDE.md, skills and agents ("" → the home directory). An evaluation
	// points it at an empty folder so a person's setup does not colour its results. The
	// sandbox and `~/` in permission rules keep the real home.
	UserConfig string
	// Add are more working directories the tools may reach, as the working directory
	// (Claude Code's --add-dir).
	Add []string
}

// Resume picks an earlier session to continue: ID names one (or a unique prefix), Latest
// the most recent of this directory. The zero value starts a new session; NewID, when
// set, is the ID the new session gets (Claude Code's --session-id, a UUID).
type Resume struct {
	ID     string
	Latest bool
	NewID  string
	// Fork resumes into a new session (ID NewID, else a fresh one) holding a copy of the
	// resumed conversation, which stays as it was (Claude Code's --fork-session).
	Fork bool
}

// Prompt shapes the system prompt.
type Prompt struct {
	System string // replaces the default system prompt
	Append string // added at the end
}

// Access is what the model may use: the permission flags (--settings, a file or inline
// JSON; --allowedTools, --disallowedTools, --permission-mode), the tools offered and the
// OS sandbox.
type Access struct {
	Settings string
	Allow    []string
	Deny     []string
	Mode     string
	// Tools, when set, is the complete list of tools offered (Claude Code's --tools):
	// every other tool, Task/Agent and Skill included, is left out. A name that is no
	// tool is an error.
	Tools []string
	// AllTools offers every tool even to a model with a small context window, which
	// otherwise gets SmallModelTools when Tools is empty (--tools default).
	AllTools bool
	// Workflows offers the Workflow tool (Claude Code's opt-in; also "workflows": true in
	// the user's own settings).
	Workflows bool
	// SandboxLauncher says the program calls sandbox.MaybeRunLauncher first thing in main
	// (and tests in TestMain), so Bash can run inside the OS sandbox, which works by
	// re-executing the program. Without it Bash runs under permission rules only.
	SandboxLauncher bool
}

// UI is how the session reaches whoever runs it.
type UI struct {
	// Asker answers AskUserQuestion; nil means headless (the run ends needs_input).
	Asker tools.Asker
	// OneShot says the final answer goes to nobody who can reply in this session (ouro -p
	// without streaming input): a final answer that asks a question ends the run
	// needs_input, as AskUserQuestion does.
	OneShot bool
	// Editor is the editor the session runs in (ACP's client file system): Read, Edit and
	// Write read and write text files through it. nil: the disk alone.
	Editor tools.Editor
	// Approver decides calls the permission policy asks about; nil means headless (what
	// would ask is denied with the reason, and listed in the result's permission_denials).
	Approver permission.Approver
	// PromptApprover, when set and Approver is not, decides what would ask in a run
	// nobody watches at a terminal (the Agent SDK's canUseTool, --permission-prompt-tool
	// stdio) instead of refusing it.
	PromptApprover permission.Approver
	// HookFuncs are in-process hooks by event (the Agent SDK's hook callbacks); they run
	// with the settings' hooks, in the same order.
	HookFuncs map[string][]hook.Func
	// ShowUser receives what hooks want the user to see (systemMessage and the like).
	ShowUser func(string)
	// OnTodo receives the todo list each time the model changes it (the REPL draws it);
	// the task list's changes come as todo items too.
	OnTodo func([]todo.Item)
	// OnTasks receives the whole task list each time it changes (stream-json).
	OnTasks func(list string, tasks []task.Task)
	// Observers see every event of every run.
	Observers []agent.Observer
	// ChildObserver sees the events of subagents, tagged with the Task call that started
	// them (stream-json's parent_tool_use_id). Children run concurrently: it must be safe
	// for concurrent use.
	ChildObserver func(parentToolUseID string, e agent.Event)
	// ApproveGrant asks whether a skill or agent file whose content an ouro session wrote
	// (and nobody reviewed) may grant what it asks for (allowed-tools, a looser
	// permissionMode); why says what happened to the file. nil means headless: such
	// grants are ignored with a warning.
	ApproveGrant func(path, what, why string) bool
	// Warn receives warnings (transcript repairs, write failures); nil → os.Stderr.
	Warn io.Writer
	// Wake asks for a turn of its own when the session is idle (a schedule fired, a
	// background task ended while nobody typed): the REPL runs w.Prompt as the next
	// prompt once the current turn, if any, has ended, never in the middle of one. nil
	// means nobody is at the keyboard (headless): a mechanism then delivers its work
	// another way, or not at all, and says so. Safe for concurrent use.
	Wake func(w Wake)
	// Confirm asks the person a yes/no question while the session opens (a scheduled
	// job nobody approved, a missed one to run); nil means nobody is there to ask.
	Confirm func(question string) bool
	// OnTeamMessage is told of each message a teammate sends the lead, as it is sent.
	OnTeamMessage func(mailbox.Message)
	// TeammateObserver sees every event of every teammate, tagged with its name. Safe
	// for concurrent use.
	TeammateObserver func(name string, e agent.Event)
}

// Wake is a turn a mechanism asks for: Source names it for the user ("cron",
// "background"), Prompt is the user message the turn starts with.
type Wake struct {
	Source string
	Prompt string
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
	// Todos is the session's plan (TodoWrite, or the task list mirrored); Skills the
	// skills found for this project; TaskList the name of the session's task list.
	Todos    *todo.List
	Skills   *skill.Catalog
	TaskList string
	// Background runs what the model started with run_in_background (the REPL's /tasks).
	Background *background.Manager

	provider llm.Provider
	// modelOpts are the session's model options, for SwitchModel.
	modelOpts ModelOptions
	env       func(string) string // the connection variables (nil: the provider was given)
	keys      *keyhelper.Helper   // the apiKeyHelper (nil for none), for SwitchModel
	conn      resolve.Connection
	warn      io.Writer
	writer    *session.Writer
	guard     *guard
	bg        *notify.Work
	grants    *grant.Session
	tap       *hook.FailureTap
	// pending is context for the next prompt from SessionStart hooks.
	pending string
	closed  bool

	agents []subagent.Definition // the definitions found, for /agents
	system string                // the system prompt, for /context
	styles styles                // the output styles, for /output-style
	parts  []mechanism.Part      // the assembled parts, in phase order
	// userConfig is the user's own configuration folder (the home of ~/.claude).
	userConfig string
	search     *searchModel // the model WebSearch searches with
}

// Open resolves the model, opens (or resumes) the transcript, builds the guard and every
// mechanism, and assembles them into an agent. Each step takes what the steps before it
// returned.
func Open(opts Options) (*Session, error) {
	warn := opts.UI.Warn
	if warn == nil {
		warn = os.Stderr
	}
	dirs, err := locate(opts.Dirs)
	if err != nil {
		return nil, err
	}
	set, err := loadSettings(dirs, opts.Access, warn, opts.UI.ApproveGrant)
	if err != nil {
		return nil, err
	}
	if opts.Store, err = ResolveStore(opts.Store, set); err != nil {
		return nil, err
	}
	env := settingsEnv(set, warn)
	tune := tuned(&opts.Model, env, warn)
	m, err := connect(opts.Model, set.Model.Value, env, resolve.KeyHelper(set, env, dirs.cwd, warn), warn)
	if err != nil {
		return nil, err
	}
	m.tune = tune
	// A Claude model's window is never this small: there --context-window only makes
	// compaction come sooner, and the tools stay.
	if len(opts.Access.Tools) == 0 && !opts.Access.AllTools && smallWindow(m.window) && m.provider.Name() != "anthropic" {
		opts.Access.Tools = SmallModelTools
		fmt.Fprintf(warn, "ouro: %s has a context window of %d tokens: it is offered only %s (every tool's definition would take about 4,500 of those tokens in each request); --tools default offers them all, --tools NAME,... others\n",
			m.name, m.window, strings.Join(SmallModelTools, ", "))
	}
	conn := resolve.Connection{Provider: "given by the caller"}
	if !m.explicit {
		conn = resolve.Describe(resolve.Name(opts.Model.Name, set.Model.Value, env), set, env)
	}
	ws, err := workspace.New(dirs.cwd)
	if err != nil {
		return nil, err
	}
	for _, d := range opts.Dirs.Add {
		if err := ws.AddRoot(d); err != nil {
			return nil, fmt.Errorf("--add-dir: %w", err)
		}
	}
	tr, err := openTranscript(dirs, m.name, opts.Resume, opts.Version, warn)
	if err != nil {
		return nil, err
	}
	pruneSessions(dirs.home, set, warn)
	if set.Workflows != nil && *set.Workflows {
		opts.Access.Workflows = true
	}
	spent := &spending{}
	// Plugins (--plugin-dir, then the installed ones enabledPlugins enables) add hooks, skills and agents; what an ouro session wrote
	// into them grants nothing until reviewed, as for the skill and agent folders.
	installed, managedPlugins := EnabledPlugins(dirs.cwd, dirs.config, dirs.home, warn)
	plugins := loadPlugins(append(slices.Clip(opts.Plugins), installed...), warn)
	grants := grant.Begin(dirs.project, dirs.cwd, dirs.config, dirs.home, tr.w.ID(), opts.UI.ApproveGrant, warn,
		append(pluginRoots(plugins), market.Store{Home: dirs.home}.InstalledFile())...)
	addPluginHooks(set, plugins, managedPlugins, grants.Allow, warn)
	// What tools notify (Exec.Notify) waits in notes until the next model call.
	notes := &notify.Queue{}
	menv := mechanismEnv(dirs, ws, tr, notes, opts.UI, warn)
	g, err := setupGuard(menv, guardEnv{settings: set, dirs: dirs, ws: ws, w: tr.w, model: m, access: opts.Access, ui: opts.UI,
		offered: offeredBy(opts.Access.Tools), spent: spent, warn: warn, spill: tr.spillDir(), saved: grants.Wrote})
	if err != nil {
		g.close(context.Background())
		grants.Close()
		tr.w.Close()
		return nil, err
	}
	s, err := assemble(opts, menv, notes, dirs, m, ws, tr, g, grants, plugins, spent, warn)
	if err != nil {
		g.close(context.Background())
		grants.Close()
		tr.w.Close()
		return nil, err
	}
	s.conn = conn
	return s, nil
}

// assemble builds the mechanisms on the guard and the transcript, joins the extensions
// and makes the agent.
func assemble(opts Options, env mechanism.Env, notes *notify.Queue, dirs dirs, m model, ws *workspace.Workspace, tr *transcript, g *guard, grants *grant.Session, plugins []plugin.Plugin, spent *spending, warn io.Writer) (*Session, error) {
	offered := offeredBy(opts.Access.Tools)
	// Background work joins first: the tools, worktrees, subagents, team and workflows
	// start their tasks on its manager; so do the checkpoints, which Write and Edit record
	// into.
	first, err := joinAll(env,
		mechanism.With(notify.Join, notify.JoinConfig{Queue: notes, MaxRunning: g.settings.Background.MaxRunning.Value, Source: g.settings.Background.MaxRunning.Source}),
		mechanism.With(checkpoint.Join, checkpoint.JoinConfig{Session: tr.w.ID()}),
	)
	if err != nil {
		return nil, err
	}
	bg, _ := mechanism.Handle[*notify.Work](first)
	cp, _ := mechanism.Handle[*checkpoint.Store](first)
	search := &searchModel{}
	search.set(m.provider, m.name)
	builtin, bash, err := builtinTools(dirs.cwd, ws, tr, g, opts.UI, bg.Manager(), cp, webSearchConfig(search, spent), m.bashLimits())
	if err != nil {
		return nil, err
	}
	// The worktrees move Bash; a resumed session is back in its worktree before the
	// others join.
	early, err := joinAll(env, mechanism.With(worktree.Join, worktreeConfig(g, bash, bg.Manager(), m.bashLimits())))
	if err != nil {
		return nil, err
	}
	wts, _ := mechanism.Handle[*worktree.Trees](early)
	// After a resumed session's move back into its worktree: the directory the hooks'
	// files are watched in is where the session works.
	events, err := hookEvents(g, bash, dirs, opts.Access, opts.UI.ShowUser, warn)
	if err != nil {
		return nil, err
	}
	plan := todo.NewList()   // the todo list, which the task list mirrors itself into too
	var own []mechanism.Part // what a summary must not lose is restored from every part
	ext, err := join(opts.Extensions, env)
	if err != nil {
		return nil, err
	}
	for i := range ext {
		ext[i].Gates = g.audited(ext[i].Name, ext[i].Gates)
	}
	// The list of joiners: each mechanism joins itself from its own package.
	joined, err := joinAll(env,
		mechanism.With(memory.Join, contextConfig(dirs, m, tr, g, spent, func() []llm.Block { return mechanism.Restore(own...)() })),
		mechanism.With(task.Join, taskConfig(dirs, tr, opts, plan, g.hooks)),
		mechanism.With(todo.Join, todo.JoinConfig{List: plan, OnChange: opts.UI.OnTodo}),
		mechanism.With(skill.Join, skillsConfig(dirs, g, grants.Allow, offered, pluginSkills(plugins, warn), skillShell(g, ws, bash, nil))),
		mechanism.With(cron.Join, cron.JoinConfig{}),
		mechanism.With(goal.Join, goalConfig(opts.Goal, g.settings, m, g, spent)),
		mechanism.With(structured.Join, structured.JoinConfig{Schema: opts.JSONSchema}),
		mechanism.With(needsinput.Join, needsinput.JoinConfig{Headless: opts.UI.OneShot, SmallModel: smallWindow(m.window)}),
	)
	if err != nil {
		return nil, err
	}
	tl, _ := mechanism.Handle[*task.Session](joined)
	skills, _ := mechanism.Handle[*skill.Log](joined)
	wts.SetSkillTool(skillToolFor(skills, g))
	toolOpts := tool.Options{SpillDir: tr.spillDir(), Notify: notes}
	// Notifications are delivered after compaction has had its say, so a summary never
	// swallows one the model has not read.
	own = append([]mechanism.Part{g.part, events, builtin, {Name: "notifications", Phase: mechanism.PhaseNotify, BeforeModel: []agent.BeforeModel{notes}},
		grants.Part()}, joined...)
	own = append(append(own, first...), early...)
	mechanism.Order(own)
	reg, err := register(toolOpts, slices.Concat(own, ext)...)
	if err != nil {
		return nil, err
	}
	named := hideByDefault(reg, opts.Access.Tools)
	style := loadStyles(dirs, g.settings, warn)
	system := systemPrompt(opts.Prompt, dirs.cwd, style.cur, g.settings.Attribution, slices.Concat(own, ext))
	lead, err := joinAll(env, mechanism.With(subagent.Join, delegationConfig(delegationEnv{d: dirs, ws: ws, m: m, system: system, reg: reg, named: named,
		toolOpts: toolOpts, g: g, gr: grants, opts: opts, extra: append(pluginAgents(plugins, warn), opts.Agents...), bgw: bg, wts: wts, sk: skills, warn: warn})))
	if err != nil {
		return nil, err
	}
	sub, _ := mechanism.Handle[*subagent.Agents](lead)
	delegated, err := joinAll(env,
		mechanism.With(team.Join, teamConfig(dirs, tr, tl, g.hooks, sub.Task, bg, opts)),
		mechanism.With(workflow.Join, workflowConfig(opts, dirs, tr, sub.Task, bg)),
	)
	if err != nil {
		return nil, err
	}
	lead = append(lead, delegated...)
	mechanism.Order(lead)
	if reg, err = offer(reg, lead, g, opts.Access.Tools); err != nil {
		return nil, err
	}
	if wf, ok := mechanism.Handle[*workflow.Offer](lead); ok {
		wf.OfferedLater(reg, g.policy.Hidden)
	}

	rec := &recorder{w: tr.w, warn: warn}
	tap := &hook.FailureTap{Provider: skills.Serve(m.provider, providerFor(m, warn))}
	cfg := agent.Config{
		Provider: tap, Model: m.name, System: system, Tools: reg,
		Limits: opts.Limits, MaxOutput: opts.Model.MaxOutput, Record: rec.record,
		// Subagents and compaction summaries spend the run's budget too.
		SideUsage: func() (llm.Usage, float64) { return spent.with(sub.Task.Usage()) },
	}
	cfg.Effort, cfg.Thinking = thinkingFor(opts.Model, g.settings, m.env, m.tune.MaxThinkingTokens, warn)
	parts := slices.Concat(own, lead, ext)
	remote, err := joinAll(env, mechanism.With(mcpclient.Join, mcpConfig(opts, dirs, reg, g.policy.Hidden, plugins, m.tune)))
	if err != nil {
		return nil, err
	}
	g.policy.SetTools(reg) // each call is judged by what its tool says it does (tool.Describer)
	parts = append(parts, remote...)
	if mcps, ok := mechanism.Handle[*mcpclient.Session](remote); ok {
		g.policy.SetReadOnlyTools(mcps.ReadOnly)
	}
	mechanism.Order(parts)
	mechanism.Seams(&cfg, parts...)
	cfg.Observers = append(cfg.Observers, opts.UI.Observers...)
	a, err := agent.New(cfg)
	if err != nil {
		_ = mechanism.Close(remote)
		return nil, err
	}
	s := &Session{
		Agent: a, Conv: &agent.Conversation{Messages: tr.messages}, Model: m.name, Tools: reg, Bash: bash,
		CWD: dirs.cwd, Workspace: ws, Resumed: tr.resumed, Todos: plan, Skills: skills.Catalog(), TaskList: tl.Name(),
		provider: m.provider, modelOpts: opts.Model, env: m.env, keys: m.keys, warn: warn, writer: tr.w, guard: g, grants: grants, tap: tap,
		Background: bg.Manager(), bg: bg,
		agents: sub.Definitions, system: system, parts: parts, styles: style, userConfig: dirs.config, search: search,
	}
	source := "startup"
	if s.Resumed {
		source = "resume"
	}
	var pending []string
	if opts.Setup != "" {
		pending = append(pending, g.hooks.Setup(context.Background(), opts.Setup))
	}
	pending = append(pending, g.hooks.SessionStart(context.Background(), source))
	s.pending = strings.TrimSpace(strings.Join(pending, "\n"))
	mechanism.Start(parts)
	return s, nil
}

// dirs are the session's places, resolved.
type dirs struct {
	cwd     string // absolute, symlinks resolved
	home    string // ouro's state
	project string // this directory's state under home
	config  string // the user's own configuration
}

func locate(d Dirs) (dirs, error) {
	cwd := d.CWD
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return dirs{}, fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return dirs{}, fmt.Errorf("working directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	home := d.Home
	if home == "" {
		if home, err = session.Home(); err != nil {
			return dirs{}, err
		}
	}
	config := d.UserConfig
	if config == "" {
		config, _ = os.UserHomeDir()
	}
	return dirs{cwd: cwd, home: home, project: session.ProjectDir(home, cwd), config: config}, nil
}

// ID is the session ID.
func (s *Session) ID() string { return s.writer.ID() }

// TranscriptPath is where the transcript is written.
func (s *Session) TranscriptPath() string { return s.writer.Path() }

// Run sends prompt and runs the loop to an outcome, recording everything. UserPromptSubmit
// hooks see the prompt first: they may block it (the run then fails with their reason and
// nothing reaches the model) or add context to it.
func (s *Session) Run(ctx context.Context, prompt string) agent.Outcome {
	prompt, attached, err := s.mcp().Input(ctx, prompt)
	if err != nil {
		return agent.Outcome{Status: agent.StatusFailed, Reason: err.Error()}
	}
	var input []llm.Block
	if prompt != "" {
		input = append([]llm.Block{llm.TextBlock(prompt)}, attached...)
	}
	return s.RunBlocks(ctx, input)
}

// RunBlocks is Run with a prompt made of content blocks (text and images, as a
// stream-json input line carries them); hooks see the text blocks, joined by newlines.
func (s *Session) RunBlocks(ctx context.Context, input []llm.Block) agent.Outcome {
	var texts []string
	for _, b := range input {
		if b.Type == llm.BlockText {
			texts = append(texts, b.Text)
		}
	}
	prompt := strings.Join(texts, "\n")
	input = append([]llm.Block(nil), input...)
	hooks := s.guard.hooks
	hooks.ClearHalt()
	if prompt != "" {
		hooks.UserPrompt(prompt)
	}
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
	defer s.skills().EndTurn()
	s.beginCheckpoint(input, prompt)
	defer s.team().WakeIfIdle() // what teammates sent after the run's last request
	defer s.bg.Running(prompt)()
	out := s.Agent.Run(ctx, s.Conv, input...)
	hooks.StopFailed(ctx, s.tap, out)
	return out
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
	s.team().Close() // teammates finish their current tool call and stop
	s.bg.Close()     // nothing the session started outlives it (a workflow's journal stays resumable)
	// The joined parts close in the reverse of phase order: MCP servers, then the
	// scheduler (session-only jobs die with the session).
	closed := mechanism.Close(s.parts)
	err := s.guard.close(context.Background()) // SessionEnd hooks run here
	s.grants.Close()
	return errors.Join(closed, err, s.writer.Sync(), s.writer.Close())
}
