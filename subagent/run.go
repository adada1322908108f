package subagent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/tool"
)

// runChild runs one child of type d for in and turns its outcome into the parent's result.
func (sh *shared) runChild(ctx context.Context, d Definition, in taskInput, x *tool.Exec) tool.Result {
	if in.Isolation == "worktree" {
		return sh.runIsolated(ctx, d, in, x)
	}
	return sh.runChildOn(ctx, d, in, x, nil)
}

// runChildOn is runChild continuing conv (nil: a fresh conversation).
func (sh *shared) runChildOn(ctx context.Context, d Definition, in taskInput, x *tool.Exec, conv *agent.Conversation) tool.Result {
	out, nested := sh.runOutcome(ctx, d, in, x, override{conv: conv})
	return report(d.Name, out, nested)
}

// runIsolated runs one child in a fresh git worktree and adds to its result what the
// worktree holds (or that it was removed, unchanged).
func (sh *shared) runIsolated(ctx context.Context, d Definition, in taskInput, x *tool.Exec) tool.Result {
	out, nested, extra, err := sh.isolatedOutcome(ctx, d, in, x, override{})
	if err != nil {
		return tool.Errorf("%v", err)
	}
	res := report(d.Name, out, nested)
	if extra != "" {
		res.Content = append(res.Content, llm.TextBlock("\n"+extra))
	}
	return res
}

// isolatedOutcome runs one child in a fresh git worktree named after its call and
// returns, besides how it ended, what the worktree holds for the lead. err means the
// worktree could not be made and the child never ran.
func (sh *shared) isolatedOutcome(ctx context.Context, d Definition, in taskInput, x *tool.Exec, ov override) (agent.Outcome, *Tool, string, error) {
	if sh.cfg.Isolate == nil {
		return agent.Outcome{}, nil, "", errors.New("isolation \"worktree\" is not available in this session; run the agent without isolation")
	}
	callID := x.ID
	if callID == "" {
		callID = directID()
	}
	name := "agent-" + unsafeRE.ReplaceAllString(callID, "-")
	if len(name) > 40 {
		name = "agent-" + name[len(name)-34:]
	}
	iso, err := sh.cfg.Isolate(ctx, name, d)
	if err != nil {
		return agent.Outcome{}, nil, "", fmt.Errorf("subagent %s was not started: its worktree could not be made: %w", d.Name, err)
	}
	ov.iso = iso
	out, nested := sh.runOutcome(ctx, d, in, x, ov)
	extra := ""
	if iso.Finish != nil {
		extra = iso.Finish(context.WithoutCancel(ctx))
	}
	return out, nested, extra, nil
}

// override changes one child's model and token limit (a workflow's agent() options).
type override struct {
	model     string
	maxTokens int
	effort    string
	iso       *Isolation // the child works in its own worktree
	// conv, when set, is the conversation the child continues (a background agent
	// continued by a message).
	conv *agent.Conversation
}

// runOutcome runs one child of type d for in and returns how it ended, with the nested
// Task tool it was given (nil if none) whose usage is its children's.
func (sh *shared) runOutcome(ctx context.Context, d Definition, in taskInput, x *tool.Exec, ov override) (agent.Outcome, *Tool) {
	callID := x.ID
	if callID == "" {
		callID = directID() // run directly, not as a model's call
	}
	b, err := sh.build(d, callID, in.Description, x, ov, extras{})
	if err != nil {
		return agent.Outcome{Status: agent.StatusFailed, Reason: fmt.Sprintf("subagent %s could not start: %v", d.Name, err)}, nil
	}
	if b.tr != nil {
		defer b.tr.close()
	}
	var prompt []llm.Block
	if len(d.Skills) > 0 && sh.cfg.Preload != nil {
		prompt = sh.cfg.Preload(ctx, d)
	}
	prompt = append(prompt, llm.TextBlock(in.Prompt))
	if ov.iso != nil {
		prompt = append(prompt, llm.TextBlock(isolationNote(ov.iso.Dir)))
	}
	if sh.cfg.StartHook != nil {
		if extra := sh.cfg.StartHook(ctx, b.child); extra != "" {
			prompt = append(prompt, llm.TextBlock(extra))
		}
	}
	conv := ov.conv
	if conv == nil {
		conv = &agent.Conversation{}
	}
	out := b.a.Run(withAgent(ctx, b.child.ID, b.dir), conv, prompt...)
	sh.addUsage(out.Usage, out.CostUSD)
	return out, b.nested
}

// extras are what a long-lived child (a teammate) gets besides what its definition says.
type extras struct {
	// tools are added, replacing the parent's tools of the same name.
	tools       []tool.Tool
	beforeModel []agent.BeforeModel
	// gates run first; with modeless set the definition's permissionMode is not applied
	// (the caller's gates enforce it instead, as plan approval does).
	gates    []agent.Gate
	modeless bool
	stops    []agent.BeforeStop
	observer agent.Observer
	system   string // appended to the system prompt
	name     string // names the transcript instead of the type and call id
}

// built is one child agent, ready to run.
type built struct {
	a      *agent.Agent
	reg    *tool.Registry
	nested *Tool
	tr     *transcript
	child  Child
	model  string
	dir    string // its worktree, when isolated ("": the session's directory)
}

// build makes the agent of one child of type d, its tools, seams and transcript.
func (sh *shared) build(d Definition, callID, description string, x *tool.Exec, ov override, ex extras) (*built, error) {
	cfg := sh.cfg
	names := sh.toolNames(d)
	reg := tool.NewRegistry()
	reg.SetOptions(cfg.ToolOptions)
	replaced := map[string]bool{}
	for _, t := range ex.tools {
		replaced[t.Spec().Name] = true
	}
	var nested *Tool
	for _, n := range names {
		pt, ok := cfg.Tools.Get(n)
		if !ok {
			pt, ok = cfg.Named[n]
		}
		if rebound, has := ov.iso.tool(n); has {
			pt, ok = rebound, true
		}
		if ok && n != TaskName && !replaced[n] {
			_ = reg.Add(pt)
		}
	}
	for _, t := range ex.tools {
		if err := reg.Add(t); err != nil {
			return nil, err
		}
	}
	if contains(names, TaskName) {
		nc := cfg
		nc.Depth = cfg.Depth + 1
		nc.Tools = withoutTask(reg) // a nested child gets no more than this child has
		if ov.iso != nil {
			// Its children work in this child's worktree, under its gates.
			nc.Gates, nc.GatesFor, nc.ScopeFor = ov.iso.Gates, ov.iso.GatesFor, nil
		}
		nested, _ = NewTool(nc)
		nested.sh.parent = sh
		_ = reg.Add(nested)
	}

	prov, model := cfg.Provider, cfg.Model
	wantModel := d.Model
	if ov.model != "" {
		wantModel = ov.model
	}
	if cfg.ProviderFor != nil {
		if p, m := cfg.ProviderFor(d.Name, wantModel); p != nil {
			prov, model = p, m
		}
	}
	limits := cfg.Limits
	limits.MaxTurns = cfg.MaxTurns
	if d.MaxTurns > 0 {
		limits.MaxTurns = d.MaxTurns
	}
	if ov.maxTokens > 0 && (limits.MaxTokens <= 0 || ov.maxTokens < limits.MaxTokens) {
		limits.MaxTokens = ov.maxTokens
	}
	gates := cfg.Gates
	if d.PermissionMode != "" && cfg.GatesFor != nil && !ex.modeless {
		gates = cfg.GatesFor(d)
	}
	afterTool, beforeModel, stopHook := cfg.AfterTool, cfg.BeforeModel, cfg.StopHook
	if len(d.Hooks) > 0 && cfg.ScopeFor != nil {
		if sc := cfg.ScopeFor(d); sc != nil {
			gates, afterTool, beforeModel, stopHook = sc.Gates, sc.AfterTool, sc.BeforeModel, sc.StopHook
		}
	}
	if ov.iso != nil {
		gates = ov.iso.Gates
	}
	gates = append(append([]agent.Gate(nil), ex.gates...), gates...)
	beforeModel = append(append([]agent.BeforeModel(nil), beforeModel...), ex.beforeModel...)
	var observers []agent.Observer
	trName := d.Name + "-" + callID
	if ex.name != "" {
		trName = ex.name
	}
	tr := sh.openTranscript(trName, model)
	child := Child{Type: d.Name, ID: callID}
	if tr != nil {
		child.TranscriptPath = tr.w.Path()
	}
	var stops []agent.BeforeStop
	if stopHook != nil {
		if s := stopHook(child); s != nil {
			stops = append(stops, s)
		}
	}
	stops = append(stops, ex.stops...)
	var record func(agent.Event) error
	if tr != nil {
		_ = tr.w.AppendEntry("subagent", map[string]any{"agent_type": d.Name, "parent_tool_use_id": callID,
			"description": description, "depth": cfg.Depth + 1})
		record = tr.record
	}
	if x != nil {
		observers = append(observers, progressOf(d.Name, x))
	}
	if cfg.Observer != nil && ex.name == "" { // a teammate's events go to its own observer
		observers = append(observers, func(e agent.Event) { cfg.Observer(callID, e) })
	}
	if ex.observer != nil {
		observers = append(observers, ex.observer)
	}
	dir := ""
	if ov.iso != nil {
		dir = ov.iso.Dir
	}
	system := systemPrompt(d, cfg.BaseSystem, reg.Names(), dir)
	if ex.system != "" {
		system = strings.TrimRight(system, "\n") + "\n\n" + ex.system + "\n"
	}
	a, err := agent.New(agent.Config{
		Provider: prov, Model: model, System: system,
		Tools: reg, Limits: limits, MaxOutput: cfg.MaxOutput, Effort: ov.effort,
		BeforeModel: beforeModel, Gates: gates, AfterTool: afterTool, BeforeStop: stops,
		Observers: observers, Record: record,
	})
	if err != nil {
		if tr != nil {
			tr.close()
		}
		return nil, err
	}
	b := &built{a: a, reg: reg, nested: nested, tr: tr, child: child, model: model}
	if ov.iso != nil {
		b.dir = ov.iso.Dir
	}
	return b, nil
}

func (iso *Isolation) tool(name string) (tool.Tool, bool) {
	if iso == nil {
		return nil, false
	}
	t, ok := iso.Tools[name]
	return t, ok
}

// report turns a child's outcome into the parent's tool result: the final text and one
// usage line on success; an error saying what happened otherwise, never an empty success.
func report(typ string, out agent.Outcome, nested *Tool) tool.Result {
	u := out.Usage
	if nested != nil {
		nu, _ := nested.Usage()
		u = u.Add(nu)
	}
	status := string(out.Status)
	if out.Status == agent.StatusBudgetExhausted && out.Budget != "" {
		status += " (" + out.Budget + ")"
	}
	line := fmt.Sprintf("[subagent %s: %d turns, %d tokens, %s]", typ, out.Turns, u.Total(), status)
	var denials []string
	for _, dn := range out.Denials {
		s := "[subagent " + typ + ": permission denied for " + dn.ToolName
		if dn.Reason != "" {
			s += ": " + dn.Reason
		}
		denials = append(denials, s+"]")
	}
	extra := line
	if len(denials) > 0 {
		extra = strings.Join(denials, "\n") + "\n" + line
	}
	text := strings.TrimSpace(out.Result)
	if out.Status == agent.StatusCompleted {
		if text == "" {
			return tool.Errorf("Subagent %s finished without a final answer.\n%s", typ, extra)
		}
		return tool.Text(text + "\n\n" + extra)
	}
	var why string
	switch out.Status {
	case agent.StatusBudgetExhausted:
		why = "stopped before finishing: " + out.Reason
	case agent.StatusInterrupted:
		why = "was interrupted before finishing"
	case agent.StatusRefused:
		why = "was refused by the model"
	case agent.StatusNeedsInput:
		why = "stopped to ask a question nobody can answer here: " + out.Question
	default:
		why = "failed: " + out.Reason
	}
	msg := fmt.Sprintf("Subagent %s %s.", typ, why)
	if text != "" {
		msg += "\nIts last message (incomplete):\n" + text
	}
	return tool.Errorf("%s\n%s", msg, extra)
}

// withoutTask returns a registry of r's tools minus Task and Agent (the tools a nested
// Task tool derives its children's subsets from).
func withoutTask(r *tool.Registry) *tool.Registry {
	out := tool.NewRegistry()
	for _, n := range r.Names() {
		if n == TaskName || n == AgentName {
			continue
		}
		t, _ := r.Get(n)
		_ = out.Add(t)
	}
	return out
}

var envRE = regexp.MustCompile(`(?s)<env>.*?</env>`)
var toolsLineRE = regexp.MustCompile(`(?m)^Tools: .*$`)
var dirLineRE = regexp.MustCompile(`(?m)^Working directory: .*$`)

// systemPrompt is the definition's prompt plus the parent's environment block with the
// child's own tools, and its own working directory when it works in one (dir, its
// worktree): a child told the lead's directory would write there by absolute path.
func systemPrompt(d Definition, base string, tools []string, dir string) string {
	p := d.Prompt
	if p == "" {
		p = "You are a subagent. Do the task you are given and answer with a concise final report."
	}
	env := strings.TrimSpace(base)
	if m := envRE.FindString(base); m != "" {
		env = m
	}
	if env == "" {
		return p + "\n"
	}
	env = toolsLineRE.ReplaceAllLiteralString(env, "Tools: "+strings.Join(tools, ", "))
	if dir != "" {
		line := "Working directory: " + dir + " (your own git worktree; the main checkout is not yours to write)"
		if dirLineRE.MatchString(env) {
			env = dirLineRE.ReplaceAllLiteralString(env, line)
		} else if strings.HasSuffix(env, "</env>") {
			env = strings.TrimSuffix(env, "</env>") + line + "\n</env>"
		} else {
			env += "\n" + line
		}
	}
	return p + "\n\n" + env + "\n"
}

// transcript writes a child's run in the session transcript format.
type transcript struct {
	w    *session.Writer
	warn func(string)
	bad  bool
}

var unsafeRE = regexp.MustCompile(`[^A-Za-z0-9_-]`)

func (sh *shared) openTranscript(name, model string) *transcript {
	dir := sh.cfg.TranscriptDir
	if dir == "" {
		return nil
	}
	warn := sh.cfg.Warn
	if warn == nil {
		warn = func(string) {}
	}
	w, err := createTranscript(dir, unsafeRE.ReplaceAllString(name, "_"), model)
	if err != nil {
		warn(fmt.Sprintf("subagent transcript: %v", err))
		return nil
	}
	return &transcript{w: w, warn: warn}
}

// createTranscript starts a new transcript dir/<name>.jsonl with its session line
// (session.CreateFile), so it loads like any session. A name already taken gets a
// numeric suffix.
func createTranscript(dir, name, model string) (*session.Writer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	cwd, _ := os.Getwd()
	path := filepath.Join(dir, name+".jsonl")
	for i := 2; ; i++ {
		w, err := session.CreateFile(path, session.Meta{Model: model, CWD: cwd})
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return w, err
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", name, i))
	}
}

// record writes the child's run into its transcript (the loop's Record): a child whose
// steps cannot be recorded stops, as the session does (a teammate's inbox counts a
// message delivered only once its transcript holds it).
func (t *transcript) record(e agent.Event) error {
	var err error
	switch e.Type {
	case agent.EventMessage:
		err = t.w.AppendMessage(*e.Message)
	case agent.EventToolEnd:
		if !e.Start.IsZero() {
			err = t.w.AppendEntry("tool", map[string]any{"tool_use_id": e.Call.ID, "name": e.Call.Name,
				"start": e.Start, "end": e.End, "is_error": e.Result != nil && e.Result.IsError})
		}
	case agent.EventTurnEnd:
		err = t.w.Sync()
	case agent.EventReplace:
		err = t.w.AppendEntry(session.TypeReplace, map[string]any{"messages": e.Messages})
	case agent.EventOutcome:
		err = t.w.AppendEntry(session.TypeOutcome, e.Outcome)
	}
	if err != nil && !t.bad {
		t.bad = true
		t.warn(fmt.Sprintf("subagent transcript %s: %v", t.w.Path(), err))
	}
	return err
}

func (t *transcript) close() {
	_ = t.w.Sync()
	_ = t.w.Close()
}

// progressOf reports a child's steps as the Task call's progress: each model call and
// each tool it starts, so a person watching sees more than a silent wait.
func progressOf(typ string, x *tool.Exec) agent.Observer {
	return func(e agent.Event) {
		switch e.Type {
		case agent.EventTurnStart:
			x.Progress(tool.Progress{Message: fmt.Sprintf("%s: turn %d", typ, e.Turn)})
		case agent.EventToolStart:
			x.Progress(tool.Progress{Message: typ + ": " + e.Call.Name})
		}
	}
}

// directID names a child whose Task call has no tool_use id (the tool was run directly,
// not through a registry), so its transcript still gets a unique name.
func directID() string { return "direct-" + uuid.NewString()[:8] }

// isolationNote tells a child in a worktree where it works and what to do with its work.
func isolationNote(dir string) string {
	return fmt.Sprintf("You work in your own git worktree, %s: it is your working directory, and the main checkout is outside your reach. Commit your finished work there (git add, git commit); the lead reviews and merges the branch.", dir)
}
