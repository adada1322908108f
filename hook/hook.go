// Package hook runs lifecycle hooks: command hooks configured in settings files, with
// Claude Code's protocol (JSON on stdin, exit 2 blocks, JSON on stdout), and in-process
// Go hooks for library users. A Runner plugs into the loop through its seams: PreToolUse
// behind the permission gate, PostToolUse as an agent.AfterTool, Stop as an
// agent.BeforeStop, and continue:false as an agent.BeforeModel that ends the run.
package hook

import (
	"context"
	"errors"
	"fmt"
	"github.com/ouroagent/ouro/internal/credenv"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
)

// Event names, spelled as in settings files.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PermissionRequest  = "PermissionRequest"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Notification       = "Notification"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	Stop               = "Stop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	SessionEnd         = "SessionEnd"
	StopFailure        = "StopFailure"
	PostToolBatch      = "PostToolBatch"
	Setup              = "Setup"
	WorktreeCreate     = "WorktreeCreate"
	WorktreeRemove     = "WorktreeRemove"
	TaskCreated        = "TaskCreated"
	TaskCompleted      = "TaskCompleted"
	TeammateIdle       = "TeammateIdle"
	PermissionDenied   = "PermissionDenied"
	CwdChanged         = "CwdChanged"
	FileChanged        = "FileChanged"
	InstructionsLoaded = "InstructionsLoaded"
	ConfigChange       = "ConfigChange"
)

// events lists every known event with what its matcher is compared against ("" means
// the matcher is ignored and every hook of the event runs).
var events = map[string]string{
	SessionStart:       "source",
	UserPromptSubmit:   "",
	PreToolUse:         "tool_name",
	PermissionRequest:  "tool_name",
	PostToolUse:        "tool_name",
	PostToolUseFailure: "tool_name",
	Notification:       "",
	SubagentStart:      "agent_type",
	SubagentStop:       "agent_type",
	Stop:               "",
	PreCompact:         "trigger",
	PostCompact:        "trigger",
	SessionEnd:         "reason",
	StopFailure:        "error_type",
	PostToolBatch:      "",
	Setup:              "trigger",
	WorktreeCreate:     "",
	WorktreeRemove:     "",
	TaskCreated:        "",
	TaskCompleted:      "",
	TeammateIdle:       "",
	PermissionDenied:   "tool_name",
	CwdChanged:         "",
	FileChanged:        "file_name", // the changed file's base name; the matcher also names the files watched
	InstructionsLoaded: "load_reason",
	ConfigChange:       "source",
}

// blockable events are those where exit code 2 (or decision "block") changes what
// happens; elsewhere a hook's stderr on exit 2 is only shown to the user.
var blockable = map[string]bool{
	PreToolUse: true, PermissionRequest: true, PostToolUse: true, PostToolUseFailure: true,
	UserPromptSubmit: true, Stop: true, SubagentStop: true, PreCompact: true, PostToolBatch: true,
	TaskCreated: true, TaskCompleted: true, TeammateIdle: true, ConfigChange: true,
}

// maxPreContext bounds the PreToolUse context kept for calls that have no result yet.
const maxPreContext = 1024

// DefaultTimeout is how long a hook may run when neither the hook nor the Config says.
const DefaultTimeout = 600 * time.Second

// Func is an in-process hook. Run receives the same payload a command hook reads on
// stdin and answers with the same output a command hook prints; Output{Decision:
// "block", Reason: ...} is the equivalent of exit code 2. A returned error is a
// non-blocking error: it is reported and the action proceeds.
type Func struct {
	// Matcher selects the occurrences the hook runs for, as in settings files.
	Matcher string
	// Name identifies the hook in reports.
	Name string
	Run  func(ctx context.Context, in Input) (Output, error)
}

// Config configures a Runner.
type Config struct {
	// Hooks maps event names to matcher groups, as in settings.Settings.Hooks.
	Hooks map[string][]settings.HookMatcher
	// ManagedOnly names the managed settings file that sets allowManagedHooksOnly ("" when
	// none does): Hooks are then the managed ones only, and Scoped and Add take no more
	// (a skill's, an agent's front matter hooks), each refusal a warning.
	ManagedOnly string
	// ProjectDir is where command hooks run and what CLAUDE_PROJECT_DIR and
	// OURO_PROJECT_DIR say; empty means the current directory.
	ProjectDir string
	// CWDOf, when set, names the working directory of the agent a context belongs to when
	// it is not the session's (a subagent or teammate in its own worktree): the payload's
	// cwd for that agent's events.
	CWDOf func(context.Context) string
	// SessionID, TranscriptPath and CWD go into every payload; CWD defaults to ProjectDir.
	SessionID      string
	TranscriptPath string
	CWD            string
	// PermissionMode reports the current mode for the payload; nil means "default".
	PermissionMode func() string
	// Funcs are in-process hooks by event name.
	Funcs map[string][]Func
	// DefaultTimeout applies to hooks without their own timeout (0 means 600 s).
	DefaultTimeout time.Duration
	// Env is added to the process environment of command hooks ("KEY=value").
	Env []string
	// Observer, when set, receives every hook run (for audit and diagnostics). It may be
	// called from several goroutines at once when hooks fire concurrently.
	Observer func(Run)
	// ShowUser, when set, receives what hooks want the user (not the model) to see:
	// systemMessage, stderr of exit 2 on events that cannot block, stop reasons.
	ShowUser func(string)
	// Judge, when set, answers prompt hooks (see prompt.go); without it they are skipped.
	Judge Judge
	// SpillDir receives hook output too long for the conversation (the session's
	// tool-results folder): every text a hook gives the model or the user (stderr,
	// plain stdout, reason, additionalContext, systemMessage ...) is kept within
	// tool.DefaultOutputBudget characters, its head and tail, with a line naming the file
	// that holds the whole. "" means the whole is not saved.
	SpillDir string
	// SandboxWritable, when set, reports whether sandboxed commands may write path: the
	// CLAUDE_ENV_FILE folder, whose scripts every later Bash command sources, sandboxed or
	// not, is made where they cannot (see envParent).
	SandboxWritable func(path string) bool
	// WaitRewake makes a Stop wait for the asyncRewake hooks still running, so that their
	// exit code 2 can send the model back (headless runs, which end at the stop).
	WaitRewake bool
	// OnRewake, when set, receives the wake-ups of asyncRewake hooks (the REPL starts a
	// turn with the text once it is idle: UI.Wake); a turn it starts must give the text
	// to UserPrompt unchanged. Otherwise they go where Deliver says.
	OnRewake func(text string)
	// Deliver, when set, receives what async hooks leave for the model instead of the
	// runner keeping it for the next request (BeforeModel) or stop: the session's
	// notification queue, which reaches the model at its next request.
	Deliver func(text string)
}

// Run reports one hook execution.
type Run struct {
	Event    string
	Matcher  string
	Command  string // the command line, or "func:" + Func.Name
	Source   string // the settings file the hook came from ("" for a Func)
	ExitCode int    // -1 when the hook did not exit by itself (timeout, start failure, Func)
	Duration time.Duration
	Outcome  string // one of the Outcome constants
	// Decision is what the hook decided, if anything: allow, deny, ask, block or approve
	// (from its JSON output or "block" for exit code 2).
	Decision string
	// Message is the stderr of a blocking or failed run, or the error.
	Message string
}

// Outcomes of a hook run.
const (
	OutcomeSuccess   = "success"   // exit 0
	OutcomeBlocked   = "blocked"   // exit 2 on an event that can block
	OutcomeError     = "error"     // any other exit code or bad output: reported, the action proceeds
	OutcomeTimeout   = "timeout"   // killed at its timeout: the action proceeds
	OutcomeCancelled = "cancelled" // the caller's context ended first
)

// HaltError says a hook answered continue:false: the agent stops, and Reason (the hook's
// stopReason) is for the user.
type HaltError struct {
	Event   string
	Command string
	Reason  string
}

func (e *HaltError) Error() string {
	msg := fmt.Sprintf("a %s hook (%s) stopped the run", e.Event, e.Command)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Runner runs the configured hooks. It is safe for concurrent use.
type Runner struct {
	cfg   Config
	shell string
	env   []string
	hooks map[string][]entry

	// bg runs the async hooks; scoped runners share their root's.
	bg *background
	// cwd is the session's working directory for payloads once it moved (SetCWD); nil
	// or empty: cfg.CWD. Scoped runners share their root's.
	cwd *atomic.Pointer[string]
	// hmu guards hooks, which Add extends while the session runs.
	hmu sync.RWMutex

	mu          sync.Mutex
	halt        *HaltError
	preContext  map[string]string            // tool_use_id → PreToolUse additionalContext
	stopBlocked map[*agent.Conversation]bool // the last Stop hooks of this conversation blocked
	batches     map[*agent.Conversation]string
	warnings    []string
}

// Warnings are what New skipped but did not refuse (hooks of a type ouro does not run).
func (r *Runner) Warnings() []string { return append([]string(nil), r.warnings...) }

// entry is one configured hook: a command or a Func.
type entry struct {
	match   matcher
	matcher string
	source  string
	command string
	timeout time.Duration
	fn      *Func
	// cond is the hook's "if": a permission rule the call must match (tool events).
	cond *permission.Rule
	// url, headers and allowedEnv make an http hook: the event's JSON is POSTed to url.
	url        string
	headers    map[string]string
	allowedEnv []string
	// async runs the command in the background; rewake also wakes the model on exit 2.
	async, rewake bool
	// pluginRoot is CLAUDE_PLUGIN_ROOT for a plugin's hook.
	pluginRoot string
	// argv is the exec form's program and arguments (no shell); nil for the shell form,
	// command.
	argv []string
}

func (e entry) name() string {
	if e.fn != nil {
		return "func:" + e.fn.Name
	}
	if e.url != "" {
		return "http:" + e.url
	}
	if e.argv != nil {
		return strings.Join(e.argv, " ")
	}
	return e.command
}

// New checks cfg and returns a Runner. Unknown events, unsupported hook types, empty
// commands, negative timeouts and invalid matcher patterns are errors naming the file.
func New(cfg Config) (*Runner, error) {
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	if cfg.ProjectDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("hook: project directory: %w", err)
		}
		cfg.ProjectDir = wd
	}
	if cfg.CWD == "" {
		cfg.CWD = cfg.ProjectDir
	}
	r := &Runner{
		cfg:         cfg,
		hooks:       map[string][]entry{},
		preContext:  map[string]string{},
		stopBlocked: map[*agent.Conversation]bool{},
		batches:     map[*agent.Conversation]string{},
	}
	var errs []error
	r.hooks, r.warnings, errs = r.compile(cfg.Hooks)
	for _, ev := range sortedKeys(cfg.Funcs) {
		if _, ok := events[ev]; !ok {
			errs = append(errs, fmt.Errorf("hook: Go hooks: unknown hook event %q", ev))
			continue
		}
		for i := range cfg.Funcs[ev] {
			f := &cfg.Funcs[ev][i]
			if f.Run == nil {
				errs = append(errs, fmt.Errorf("hook: Go hooks: %s hook %q has no Run function", ev, f.Name))
				continue
			}
			mt, err := compileEventMatcher(ev, f.Matcher)
			if err != nil {
				errs = append(errs, fmt.Errorf("hook: Go hooks: %s hook %q matcher: %w", ev, f.Name, err))
				continue
			}
			r.hooks[ev] = append(r.hooks[ev], entry{match: mt, matcher: f.Matcher, fn: f})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r.shell = hookShell()
	// ouro's credentials are kept from hooks: a hook's output reaches the model. (An
	// http hook's headers still expand the variables its allowedEnvVars name.)
	r.env = append(credenv.Strip(append(os.Environ(), cfg.Env...)),
		"CLAUDE_PROJECT_DIR="+cfg.ProjectDir, "OURO_PROJECT_DIR="+cfg.ProjectDir)
	r.bg = newBackground()
	r.cwd = &atomic.Pointer[string]{}
	return r, nil
}

// SetCWD says the session's working directory moved (into a git worktree and back): the
// payloads' cwd says so from now on. Commands still run in the project directory.
func (r *Runner) SetCWD(dir string) { r.cwd.Store(&dir) }

// Has reports whether any hook is configured for event.
func (r *Runner) Has(event string) bool { return len(r.entries(event)) > 0 }

// entries returns the hooks of event (a snapshot: Add may add more meanwhile).
func (r *Runner) entries(event string) []entry {
	r.hmu.RLock()
	defer r.hmu.RUnlock()
	return r.hooks[event]
}

// Halted returns the pending continue:false of a hook, if any, without clearing it.
func (r *Runner) Halted() *HaltError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.halt
}

// ClearHalt forgets a pending continue:false (UserPromptSubmit does this for a new prompt).
func (r *Runner) ClearHalt() {
	r.mu.Lock()
	r.halt = nil
	r.mu.Unlock()
}

func (r *Runner) takeHalt() *HaltError {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.halt
	r.halt = nil
	return h
}

func (r *Runner) setHalt(h *HaltError) {
	r.mu.Lock()
	if r.halt == nil {
		r.halt = h
	}
	r.mu.Unlock()
	msg := "Stopped by a " + h.Event + " hook"
	if h.Reason != "" {
		msg += ": " + h.Reason
	}
	r.show(msg)
}

func (r *Runner) show(msg string) {
	if r.cfg.ShowUser != nil && strings.TrimSpace(msg) != "" {
		r.cfg.ShowUser(msg)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// compile checks hooks as read from settings files (or an agent's frontmatter) and
// returns their entries by event. What ouro cannot run is a warning (the rest of the
// setup must still start); a hook that is wrong (an empty command, a negative timeout,
// a bad matcher) is an error naming its file.
func (r *Runner) compile(hooks map[string][]settings.HookMatcher) (map[string][]entry, []string, []error) {
	cfg := r.cfg
	out := map[string][]entry{}
	var warnings []string
	var errs []error
	for _, ev := range sortedKeys(hooks) {
		for _, m := range hooks[ev] {
			src := m.Source
			if src == "" {
				src = "settings"
			}
			if _, ok := events[ev]; !ok {
				// Claude Code keeps adding events (Setup, PostToolBatch ...): a setup
				// written for a newer version must still start; these hooks are skipped.
				warnings = append(warnings, fmt.Sprintf("%s: hooks on the event %q are skipped: ouro does not know it (it knows %s)", src, ev, strings.Join(sortedKeys(events), ", ")))
				continue
			}
			mt, err := compileEventMatcher(ev, m.Matcher)
			if err != nil {
				errs = append(errs, fmt.Errorf("hook: %s: %s matcher: %w", src, ev, err))
				continue
			}
			for _, h := range m.Hooks {
				if (h.Async || h.AsyncRewake) && h.Type != "command" {
					warnings = append(warnings, fmt.Sprintf("%s: a %s hook of type %q runs synchronously: async and asyncRewake apply to command hooks only", src, ev, h.Type))
				}
				switch {
				case (h.Type == "prompt" || h.Type == "agent") && promptEvents[ev] && cfg.Judge != nil && strings.TrimSpace(h.Prompt) != "":
					out[ev] = append(out[ev], entry{match: mt, matcher: m.Matcher, source: m.Source, fn: r.promptFunc(h)})
					continue
				case h.Type == "prompt" || h.Type == "agent":
					// Claude Code's model-evaluated hooks: a setup that has them must still
					// start, so those ouro cannot run are skipped, loudly.
					why := "ouro runs prompt and agent hooks on Stop, SubagentStop, PreToolUse, PostToolUse and UserPromptSubmit only"
					switch {
					case cfg.Judge == nil:
						why = "no model is available to judge it"
					case strings.TrimSpace(h.Prompt) == "":
						why = "it has no prompt"
					}
					warnings = append(warnings, fmt.Sprintf("%s: a %s hook of type %q is skipped: %s", src, ev, h.Type, why))
					continue
				case h.Type == "http":
					u, err := url.Parse(h.URL)
					if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
						warnings = append(warnings, fmt.Sprintf("%s: a %s http hook is skipped: its url %q is not an absolute http(s) URL", src, ev, h.URL))
						continue
					}
					if h.Timeout < 0 {
						errs = append(errs, fmt.Errorf("hook: %s: %s hook %q has a negative timeout", src, ev, h.URL))
						continue
					}
					out[ev] = append(out[ev], entry{match: mt, matcher: m.Matcher, source: m.Source, url: h.URL, headers: h.Headers,
						allowedEnv: h.AllowedEnvVars, timeout: time.Duration(h.Timeout * float64(time.Second))})
					continue
				case h.Type != "command":
					warnings = append(warnings, fmt.Sprintf("%s: a %s hook of type %q is skipped: ouro runs command, prompt and agent hooks", src, ev, h.Type))
					continue
				case strings.TrimSpace(h.Command) == "":
					errs = append(errs, fmt.Errorf("hook: %s: %s hook has an empty command", src, ev))
					continue
				case h.Timeout < 0:
					errs = append(errs, fmt.Errorf("hook: %s: %s hook %q has a negative timeout", src, ev, h.Command))
					continue
				}
				if h.Shell != "" && h.Shell != "bash" && h.Args == nil {
					warnings = append(warnings, fmt.Sprintf("%s: a %s hook with \"shell\": %q is skipped: ouro runs the shell form in bash", src, ev, h.Shell))
					continue
				}
				e := entry{match: mt, matcher: m.Matcher, source: m.Source, command: h.Command, timeout: time.Duration(h.Timeout * float64(time.Second)),
					async: h.Async || h.AsyncRewake, rewake: h.AsyncRewake, pluginRoot: m.PluginRoot}
				if h.Args != nil {
					// Claude Code's exec form: one program and its arguments, no shell; the
					// placeholders are replaced inside each element as plain text, so a
					// folder whose name holds shell syntax stays a name.
					e.argv = make([]string, 0, 1+len(h.Args))
					for _, a := range append([]string{h.Command}, h.Args...) {
						e.argv = append(e.argv, r.placeholders(a, m.PluginRoot))
					}
				}
				// The shell form is not edited: the shell expands $CLAUDE_PLUGIN_ROOT and
				// $CLAUDE_PROJECT_DIR from the environment, as a value, never as program
				// text (a plugin folder named $(touch x) stays a name).
				if why := programTaken(e.command, e.argv); why != "" {
					warnings = append(warnings, fmt.Sprintf("%s: a %s hook (%s) is skipped: %s; a hook's input is the event's JSON, which holds what the model wrote, and must never run as a program", src, ev, e.name(), why))
					continue
				}
				if strings.TrimSpace(h.If) != "" {
					if events[ev] != "tool_name" {
						warnings = append(warnings, fmt.Sprintf("%s: a %s hook's \"if\" is ignored: it applies to tool events only", src, ev))
					} else if cond, err := permission.ParseRule(settings.Rule{Text: h.If, Source: src, Root: r.cfg.ProjectDir}); err != nil {
						warnings = append(warnings, fmt.Sprintf("%s: a %s hook is skipped: its \"if\" %v", src, ev, err))
						continue
					} else {
						e.cond = &cond
					}
				}
				out[ev] = append(out[ev], e)
			}
		}
	}
	return out, warnings, errs
}

// placeholders replaces ${CLAUDE_PROJECT_DIR} and ${CLAUDE_PLUGIN_ROOT} in one element
// of an exec-form hook, as plain text.
func (r *Runner) placeholders(s, pluginRoot string) string {
	s = strings.ReplaceAll(s, "${CLAUDE_PROJECT_DIR}", r.cfg.ProjectDir)
	if pluginRoot != "" {
		s = strings.ReplaceAll(s, "${CLAUDE_PLUGIN_ROOT}", pluginRoot)
	}
	return s
}

// KnownEvent reports whether name is a hook event ouro runs hooks for.
func KnownEvent(name string) bool { _, ok := events[name]; return ok }
