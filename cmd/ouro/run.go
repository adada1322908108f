package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/termsafe"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/sdkproto"
	"github.com/ouroagent/ouro/structured"
	"github.com/ouroagent/ouro/ui"
)

type runFlags struct {
	print        bool
	outputFormat string
	maxTurns     int
	maxBudget    float64
	maxDuration  time.Duration
	model        string
	fallback     string
	resume       string
	cont         bool
	system       string
	appendSystem string
	settings     string
	allowed      []string
	disallowed   []string
	tools        []string
	allTools     bool // --tools default
	mode         string
	skipPerms    bool
	window       int
	verbose      bool
	addDirs      []string
	sessionID    string
	inputFormat  string
	partial      bool
	goal         goalFlags
	jsonSchema   string          // --json-schema as given: inline JSON or a file
	schema       json.RawMessage // what it holds, once read
	init         bool
	initOnly     bool
	maintenance  bool
	pluginDirs   []string
	taskList     string
	teamBudget   agent.Limits
	teamProcess  bool
	store        string
	workflows    bool
	words        string // the user's own prompt: the arguments, else what is piped in
	mcpConfig    []string
	strictMCP    bool
	sdk          sdkFlags
	think        thinkFlags
}

func (f *runFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.BoolVarP(&f.print, "print", "p", false, "run the prompt headless, print the result and exit")
	fl.StringVar(&f.outputFormat, "output-format", "text", "headless output: text, json or stream-json")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "stop after this many model turns (0 = no limit)")
	fl.Float64Var(&f.maxBudget, "max-budget-usd", 0, "stop once the run has cost this much (0 = no limit)")
	fl.DurationVar(&f.maxDuration, "max-duration", 0, "stop the run after this much wall time, e.g. 10m (0 = no limit)")
	fl.StringVar(&f.model, "model", "", "model: a Claude model name, openai:NAME or scripted:FILE (default $OURO_MODEL)")
	fl.StringVar(&f.fallback, "fallback-model", "", "Claude model to switch to when the main one stays overloaded")
	fl.StringVarP(&f.resume, "resume", "r", "", "resume the session with this ID (or unique prefix); -r alone resumes the most recent")
	fl.BoolVarP(&f.cont, "continue", "c", false, "continue the most recent session in this directory")
	fl.StringVar(&f.system, "system-prompt", "", "replace the system prompt")
	fl.StringVar(&f.appendSystem, "append-system-prompt", "", "append to the system prompt")
	fl.StringVar(&f.settings, "settings", "", "extra settings: a JSON file or an inline JSON object")
	fl.StringArrayVar(&f.allowed, "allowedTools", nil, `rules to allow without asking, e.g. "Bash(go test *)" Edit (comma- or space-separated)`)
	fl.StringArrayVar(&f.disallowed, "disallowedTools", nil, `rules to deny, e.g. "Bash(git push *)"; a bare tool name removes the tool`)
	fl.StringArrayVar(&f.tools, "tools", nil, `offer only these tools, e.g. "Read,Grep,Glob"; "default": all (the default, except for a model with a context window of 32k or less: Read,Edit,Write,Bash,Glob,Grep)`)
	fl.BoolVar(&f.workflows, "workflows", false, "offer the Workflow tool (scripts that fan work out to many agents; they can spend a lot)")
	fl.StringVar(&f.mode, "permission-mode", "", "default, acceptEdits, plan, dontAsk or bypassPermissions")
	fl.IntVar(&f.window, "context-window", envInt("OURO_CONTEXT_WINDOW"), "the model's context window in tokens, when the built-in table does not know it (local models); compaction keeps requests under 80% of it")
	fl.BoolVar(&f.skipPerms, "dangerously-skip-permissions", false, "same as --permission-mode bypassPermissions (hard-denied commands stay refused)")
	fl.BoolVar(&f.verbose, "verbose", false, "headless: also print the run's notices (retries, continuations, compaction) on stderr")
	fl.StringArrayVar(&f.addDirs, "add-dir", nil, "another directory the tools may work in, like the working directory (repeatable)")
	fl.StringVar(&f.sessionID, "session-id", "", "the ID (a UUID) the new session gets")
	fl.StringVar(&f.inputFormat, "input-format", inputText, "headless input: text, or stream-json (Claude Code's user-message JSON lines on standard input, one turn each)")
	// Claude Code spells these two both ways.
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name {
		case "allowed-tools":
			name = "allowedTools"
		case "disallowed-tools":
			name = "disallowedTools"
		}
		return pflag.NormalizedName(name)
	})
	fl.BoolVar(&f.partial, "include-partial-messages", false, "with --output-format stream-json: also write the answer as it streams (stream_event lines)")
	f.goal.register(c)
	fl.StringVar(&f.jsonSchema, "json-schema", "", `with -p: the final answer must match this JSON schema (inline JSON or a file); the model gives it through the StructuredOutput tool and the result carries it as structured_output`)
	fl.BoolVar(&f.init, "init", false, `run the Setup hooks (trigger "init") before the session starts`)
	fl.BoolVar(&f.initOnly, "init-only", false, `run the Setup hooks (trigger "init") and the SessionStart hooks, then exit`)
	fl.BoolVar(&f.maintenance, "maintenance", false, `run the Setup hooks (trigger "maintenance") before the session starts`)
	fl.StringArrayVar(&f.pluginDirs, "plugin-dir", nil, "load a Claude Code plugin from this folder: its hooks, skills, agents and commands (repeatable)")
	fl.Var(budgetFlag{&f.teamBudget}, "team-budget", "bound all teammates together: turns=N,tokens=N,cost=USD,time=DURATION (any of them)")
	fl.BoolVar(&f.teamProcess, "team-process", false, "run each teammate as its own ouro process, so that a crash is contained")
	fl.StringVar(&f.store, "store", "", "keep task lists and workflow journals on NATS JetStream: nats://HOST:PORT (default $OURO_STORE, store.url in your settings, else ~/.ouro/state.db)")
	fl.StringVar(&f.taskList, "task-list", "", "work on this shared task list (default $OURO_TASK_LIST, $CLAUDE_CODE_TASK_LIST_ID, else the session's own)")
	fl.StringArrayVar(&f.mcpConfig, "mcp-config", nil, `MCP servers to load: a JSON file or an inline {"mcpServers":{...}} (repeatable)`)
	fl.BoolVar(&f.strictMCP, "strict-mcp-config", false, "use only the MCP servers of --mcp-config, ignoring every other MCP configuration")
	f.sdk.register(c)
	f.think.register(c)
}

func (f *runFlags) options() harness.Options {
	m := harness.ModelOptions{Name: f.model, Fallback: f.fallback, ContextWindow: f.window}
	_ = f.think.options(&m) // checked in runMain
	return harness.Options{
		Model:  m,
		Prompt: harness.Prompt{System: f.system, Append: f.appendSystem},
		Limits: agent.Limits{MaxTurns: f.maxTurns, MaxCostUSD: f.maxBudget, MaxDuration: f.maxDuration},
		Resume: harness.Resume{ID: f.resume, Latest: f.cont, NewID: f.sessionID, Fork: f.sdk.fork},
		Dirs:   harness.Dirs{Add: f.addDirs},
		Setup:  f.setupTrigger(),
		// The flag is the user's own choice of plugins for this run.
		Plugins: f.pluginDirs,
		Access: harness.Access{Settings: f.settings, Allow: splitRules(f.allowed), Deny: splitRules(f.disallowed),
			Tools: splitRules(f.tools), AllTools: f.allTools, Mode: f.permissionMode(), SandboxLauncher: true, Workflows: f.workflows},
		MCP:         harness.MCP{Configs: f.mcpConfig, Strict: f.strictMCP},
		Version:     version,
		Goal:        f.goal.options(),
		JSONSchema:  f.schema,
		TaskList:    f.taskList,
		TeamBudget:  f.teamBudget,
		TeamProcess: f.teamProcess,
		Store:       f.store,
	}
}

// setupTrigger is the Setup hooks' trigger the flags ask for ("" for none).
func (f *runFlags) setupTrigger() string {
	switch {
	case f.init || f.initOnly:
		return "init"
	case f.maintenance:
		return "maintenance"
	}
	return ""
}

func (f *runFlags) permissionMode() string {
	if f.skipPerms {
		return "bypassPermissions"
	}
	return f.mode
}

// splitRules accepts rules separated by commas or spaces, as Claude Code does
// ("Bash(git log *) Edit,Read"), keeping both inside parentheses.
func splitRules(in []string) []string {
	var out []string
	for _, s := range in {
		depth, start := 0, 0
		for i, r := range s {
			switch {
			case r == '(':
				depth++
			case r == ')':
				depth--
			case (r == ' ' || r == ',') && depth == 0:
				if w := strings.TrimSpace(s[start:i]); w != "" {
					out = append(out, w)
				}
				start = i + 1
			}
		}
		if w := strings.TrimSpace(s[start:]); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func runMain(cmd *cobra.Command, f *runFlags, args []string) error {
	if f.resume == latestSession { // a bare -r: the most recent session, as --continue
		if f.cont {
			return fmt.Errorf("--resume and --continue are exclusive: pick one")
		}
		f.resume, f.cont = "", true
	}
	if err := f.sdk.apply(cmd, f); err != nil {
		return err
	}
	if err := f.think.options(&harness.ModelOptions{}); err != nil {
		return err
	}
	if f.skipPerms && f.mode != "" && f.mode != "bypassPermissions" {
		return fmt.Errorf("--dangerously-skip-permissions contradicts --permission-mode %s", f.mode)
	}
	if f.resume != "" && f.cont {
		return fmt.Errorf("--resume and --continue are exclusive: pick one")
	}
	if f.sessionID != "" {
		if f.resume != "" || f.cont {
			return fmt.Errorf("--session-id names a new session; it cannot be combined with --resume or --continue")
		}
		if _, err := uuid.Parse(f.sessionID); err != nil {
			return fmt.Errorf("--session-id %q is not a UUID (e.g. %s)", f.sessionID, uuid.NewString())
		}
	}
	if f.maxTurns < 0 || f.maxBudget < 0 || f.maxDuration < 0 || f.window < 0 {
		return fmt.Errorf("--max-turns, --max-budget-usd, --max-duration and --context-window must not be negative")
	}
	if err := f.checkFormats(cmd, args); err != nil {
		return err
	}
	if err := f.goal.validate(cmd); err != nil {
		return err
	}
	if cmd.Flags().Changed("json-schema") {
		if !f.print {
			return fmt.Errorf("--json-schema shapes the result of a headless run: use it with -p")
		}
		schema, err := structured.Parse(f.jsonSchema)
		if err != nil {
			return err
		}
		f.schema = schema
	}
	if (f.init || f.initOnly) && f.maintenance {
		return fmt.Errorf("--maintenance runs the Setup hooks with another trigger than --init and --init-only: pick one")
	}
	prompt := strings.Join(args, " ")
	if f.initOnly {
		if prompt != "" {
			return fmt.Errorf("--init-only runs the Setup and SessionStart hooks and exits: it takes no prompt")
		}
		// The repository's hooks are all it runs: at a terminal, only in a trusted folder.
		if err := checkTrust(cmd); err != nil {
			return err
		}
		return runInitOnly(cmd, f)
	}
	if f.print && f.inputFormat == inputStreamJSON {
		return runHeadless(cmd, f, "")
	}
	if f.print {
		if stdin, ok, err := readPipedStdin(cmd.InOrStdin()); err != nil {
			return err
		} else if ok {
			if prompt == "" {
				f.words = stdin // the prompt itself, piped
			}
			prompt = strings.TrimSpace(strings.Join([]string{prompt, stdin}, "\n\n"))
		}
		if f.words == "" {
			f.words = strings.Join(args, " ") // piped data after them is not the user's words
		}
		return runHeadless(cmd, f, prompt)
	}
	if cmd.Flags().Changed("output-format") {
		return fmt.Errorf("--output-format only applies with -p")
	}
	return runREPL(cmd, f, prompt)
}

// readPipedStdin reads standard input when it is a pipe or a file, not a terminal.
func readPipedStdin(in io.Reader) (string, bool, error) {
	file, ok := in.(*os.File)
	if !ok {
		return "", false, nil
	}
	st, err := file.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 || (st.Mode()&os.ModeNamedPipe == 0 && !st.Mode().IsRegular()) {
		return "", false, nil
	}
	data, err := io.ReadAll(io.LimitReader(file, 10<<20))
	if err != nil {
		return "", false, fmt.Errorf("read standard input: %w", err)
	}
	return string(data), len(strings.TrimSpace(string(data))) > 0, nil
}

func runHeadless(cmd *cobra.Command, f *runFlags, prompt string) error {
	streamIn := f.inputFormat == inputStreamJSON
	if strings.TrimSpace(prompt) == "" && f.resume == "" && !f.cont && !streamIn {
		return fmt.Errorf("-p needs a prompt: ouro -p \"what to do\" (or pipe it on standard input)")
	}
	// What reaches stderr carries outside text too (hook messages, MCP servers' questions,
	// denial reasons that quote a command, the model's question).
	out, errOut := cmd.OutOrStdout(), io.Writer(termsafe.NewWriter(cmd.ErrOrStderr()))
	h, err := ui.NewHeadless(out, f.outputFormat)
	if err != nil {
		return err
	}
	opts := f.options()
	// A model call that keeps failing says what it waits for (stderr, in every format).
	waiting := func(e agent.Event) {
		switch {
		case e.Type == agent.EventDelta && e.Delta.Kind == "waiting":
			fmt.Fprintf(errOut, "ouro: %s\n", e.Delta.Text)
		case f.verbose && e.Type == agent.EventNotice:
			fmt.Fprintf(errOut, "ouro: %s\n", e.Text)
		}
	}
	opts.UI = harness.UI{Observers: []agent.Observer{h.Observe, waiting}, ChildObserver: h.ObserveChild, TeammateObserver: h.ObserveTeammate, Warn: errOut, OnTasks: h.TaskList,
		OneShot: !streamIn,
		// What hooks want the user to see (systemMessage): on stderr, and as an event in
		// stream-json.
		ShowUser: func(msg string) {
			fmt.Fprintf(errOut, "ouro: hook: %s\n", msg)
			h.HookMessage(msg)
		}}
	// An MCP server asking for input is declined (nobody is there), on stderr and as a
	// stream-json event.
	opts.MCP.Elicit = ui.HeadlessElicit
	opts.MCP.OnElicit = func(e *mcpclient.Elicitation, a mcpclient.Answer) {
		fmt.Fprintf(errOut, "ouro: mcp: %s asked for input (%s): %s, %s\n", e.Server, ui.Clip(e.Message, 120), a.Action, a.Reason)
		h.MCPElicitation(e, a)
	}
	var in *streamInput // the Agent SDK's control protocol comes with the input
	var initReq *sdkproto.Request
	if streamIn {
		in = newStreamInput(h, errOut)
		if initReq, err = in.start(cmd.Context(), cmd.InOrStdin(), &opts, f); err != nil {
			return err
		}
	}
	sess, err := harness.Open(opts)
	if err != nil {
		in.failed(initReq, err)
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if in != nil {
		in.opened(sess, initReq)
	}
	sess.WaitMCP(ctx)
	h.Start(ui.Init{SessionID: sess.ID(), CWD: sess.CWD, Model: sess.Model, Tools: sess.Tools.Names(), Version: version, OutputStyle: sess.OutputStyle(),
		PermissionMode: string(sess.Policy().Mode()), MCPServers: mcpServers(sess, errOut)})
	if f.partial {
		h.IncludePartialMessages(sess.Model)
	}
	if streamIn {
		return runStreamTurns(ctx, cmd, sess, h, in)
	}
	sess.OfferWorkflows(f.words) // the user's own words, before a command's file replaces them
	if prompt, err = slashPrompt(ctx, sess, prompt); err != nil {
		sess.Close()
		return err
	}
	o := sess.Run(ctx, prompt)
	rememberOnExit(ctx, sess, o.Turns, errOut)
	h.StructuredOutput(sess.TakeStructuredOutput())
	werr := h.Finish(o, errOut)
	if err := sess.Close(); err != nil {
		fmt.Fprintf(errOut, "ouro: closing the transcript: %v\n", err)
	}
	if werr != nil {
		return fmt.Errorf("writing output: %w", werr)
	}
	if code := ui.ExitCode(o); code != 0 {
		return exitError{code}
	}
	return nil
}

// rememberOnExit extracts memories from a headless run that made model turns, when the
// settings ask for it.
func rememberOnExit(ctx context.Context, sess *harness.Session, turns int, errOut io.Writer) {
	if !sess.ExtractOnExit(false) || turns == 0 {
		return
	}
	rem, err := sess.Remember(ctx)
	if err != nil {
		fmt.Fprintf(errOut, "ouro: saving memories from this run failed: %v\n", err)
	} else if rem.Usage.Total() > 0 {
		fmt.Fprintf(errOut, "ouro: memory extraction saved %d record(s) for %d tokens, $%.4f\n", len(rem.Saved), rem.Usage.Total(), rem.CostUSD)
	}
}

// runInitOnly opens a session (the Setup hooks with trigger "init", then SessionStart),
// closes it and exits: one-time preparation in CI or scripts, as Claude Code's --init-only.
func runInitOnly(cmd *cobra.Command, f *runFlags) error {
	opts := f.options()
	errOut := cmd.ErrOrStderr()
	opts.UI = harness.UI{Warn: errOut, ShowUser: func(msg string) { fmt.Fprintf(errOut, "ouro: hook: %s\n", msg) }}
	sess, err := harness.Open(opts)
	if err != nil {
		return err
	}
	return sess.Close()
}

func notifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}

// envInt reads an integer default from the environment (0 when unset or not a number).
func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}
