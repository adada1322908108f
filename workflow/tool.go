package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// ToolName is the Workflow tool's name.
const ToolName = "Workflow"

// ToolConfig is what the Workflow tool needs from its session.
type ToolConfig struct {
	// CWD is the project: saved workflows are found under it, scriptPath is relative to it.
	CWD string
	// Within reports whether a path may be read (the session's workspace); nil allows CWD only.
	Within func(path string) bool
	// SaveDir receives each run's script (<run id>.js) and result (<run id>.result.json).
	SaveDir string
	// Runner runs the agents; Engine checks and runs the scripts and keeps the journal.
	Runner Runner
	Engine Engine
	// Budget is each run's token ceiling (0: none).
	Budget int
	// HoldForStop keeps the end-of-run notifications for BeforeStop (a headless run, which
	// waits for its workflows when the model stops) instead of the session's queue.
	HoldForStop bool
	// Warn receives problems (the journal could not be opened); nil drops them.
	Warn func(string)
}

// Tool is the Workflow tool. Runs go on in the background after the call returns; Close
// stops them.
type Tool struct {
	cfg    ToolConfig
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	runs    []*progress // every run this tool started, oldest first
	running int
	waiting int
	mail    []string
	changed chan struct{}
}

// NewTool returns the Workflow tool.
func NewTool(cfg ToolConfig) *Tool {
	ctx, cancel := context.WithCancel(context.Background())
	return &Tool{cfg: cfg, ctx: ctx, cancel: cancel, changed: make(chan struct{})}
}

const toolSchema = `{"type":"object","properties":{
"script":{"type":"string","maxLength":524288,"description":"The workflow: JavaScript beginning with export const meta = {name, description, phases?}"},
"name":{"type":"string","description":"A saved workflow (.ouro/workflows/ or .claude/workflows/NAME.js)"},
"scriptPath":{"type":"string","description":"A workflow file; wins over script and name"},
"args":{"description":"Any JSON value, given to the script as args"},
"resumeFromRunId":{"type":"string","pattern":"^wf_[a-z0-9-]{6,}$","description":"Replay this run's finished agent calls, run the rest"}},
"additionalProperties":false}`

// Spec implements tool.Tool.
func (t *Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ToolName, InputSchema: json.RawMessage(toolSchema),
		Description: `Run a workflow script in the background: plain JavaScript (top-level await) that orchestrates subagents. Globals: agent(prompt, {label, phase, schema, model, agentType}) → Promise of the final text (the validated object with schema; null if the agent died); parallel([() => …]) waits for all, failures become null; pipeline(items, (prev, item, i) => …, …) moves each item through the stages independently; phase(title), log(msg), args, budget {total, spent(), remaining()}, workflow(name, args). Date.now(), Math.random() and new Date() throw; no filesystem or network. Returns at once with a run id; a <task-notification> arrives when it ends.`}
}

// ReadOnly implements tool.Tool: its agents may write.
func (t *Tool) ReadOnly() bool { return false }

type toolInput struct {
	Script          string          `json:"script"`
	Name            string          `json:"name"`
	ScriptPath      string          `json:"scriptPath"`
	Args            json.RawMessage `json:"args"`
	ResumeFromRunID string          `json:"resumeFromRunId"`
}

// Run implements tool.Tool: it checks the script, saves it and starts the run.
func (t *Tool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	var in toolInput
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Errorf("Invalid input for Workflow: %v", err), nil
	}
	eng := t.cfg.Engine
	script, err := t.resolve(ctx, in)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	meta, err := eng.Check(ctx, script.Source)
	if err != nil {
		return tool.Errorf("The workflow was not started: %v", err), nil
	}
	if string(in.Args) == "null" {
		in.Args = nil
	}
	if in.ResumeFromRunID != "" {
		prev, err := eng.Journal(ctx, in.ResumeFromRunID)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return tool.Errorf("There is no workflow run %s to resume (the journal has no such run).", in.ResumeFromRunID), nil
			}
			return tool.Errorf("The workflow journal: %v", err), nil
		}
		if in.Args == nil && prev.Args != "" {
			in.Args = json.RawMessage(prev.Args) // a resume without args keeps the run's own
		}
	}
	id := NewRunID()
	saved := filepath.Join(t.cfg.SaveDir, id+".js")
	if err := os.MkdirAll(t.cfg.SaveDir, 0o700); err != nil {
		return tool.Errorf("Could not save the script: %v", err), nil
	}
	if err := os.WriteFile(saved, []byte(script.Source), 0o600); err != nil {
		return tool.Errorf("Could not save the script: %v", err), nil
	}
	if script.Path == "" {
		script.Path = saved
	}
	pg := &progress{id: id, name: meta.Name, status: StatusRunning}
	t.mu.Lock()
	t.running++
	t.runs = append(t.runs, pg)
	t.mu.Unlock()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		res, err := eng.Run(t.ctx, script, Options{Runner: t.cfg.Runner, Args: in.Args,
			Resume: in.ResumeFromRunID, RunID: id, Budget: t.cfg.Budget, Observe: t.observe(pg),
			Resolve: func(name string) (Script, error) { return FindSaved(SavedDirs(t.cfg.CWD), name) }})
		if err != nil {
			res = Result{RunID: id, Meta: meta, Status: StatusFailed, Error: err.Error(), Value: json.RawMessage("null")}
		}
		t.mu.Lock()
		pg.status, pg.tokens, pg.err = res.Status, res.Tokens, res.Error
		t.mu.Unlock()
		t.finish(notification(res, x.ID, t.writeResult(res)), x)
	}()
	msg := fmt.Sprintf("Workflow %q started in the background.\nRun id: %s\nScript saved to: %s\nA <task-notification> arrives when it ends. To resume it after a stop, call Workflow with resumeFromRunId: %q.",
		meta.Name, id, saved, id)
	return tool.Text(msg), nil
}

// resolve picks the script: scriptPath wins, then name, then script, then the script of
// the run being resumed.
func (t *Tool) resolve(ctx context.Context, in toolInput) (Script, error) {
	switch {
	case in.ScriptPath != "":
		p := in.ScriptPath
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.cfg.CWD, p)
		}
		p = filepath.Clean(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real // a link inside the project may point outside it
		}
		within := t.cfg.Within
		if within == nil {
			within = func(q string) bool {
				rel, err := filepath.Rel(t.cfg.CWD, q)
				return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
			}
		}
		if !within(p) {
			return Script{}, fmt.Errorf("scriptPath %s is outside the working directory; copy the workflow into the project", in.ScriptPath)
		}
		st, err := os.Stat(p)
		if err != nil {
			return Script{}, fmt.Errorf("scriptPath: %v", err)
		}
		if !st.Mode().IsRegular() || st.Size() > MaxScriptBytes {
			return Script{}, fmt.Errorf("scriptPath %s is not a file of at most 512 KiB", in.ScriptPath)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return Script{}, fmt.Errorf("scriptPath: %v", err)
		}
		return Script{Name: filepath.Base(p), Path: p, Source: string(b)}, nil
	case in.Name != "":
		return FindSaved(SavedDirs(t.cfg.CWD), in.Name)
	case in.Script != "":
		if len(in.Script) > MaxScriptBytes {
			return Script{}, fmt.Errorf("the script is %d bytes; the limit is %d (512 KiB)", len(in.Script), MaxScriptBytes)
		}
		return Script{Source: in.Script}, nil
	case in.ResumeFromRunID != "":
		r, err := t.cfg.Engine.Journal(ctx, in.ResumeFromRunID)
		if err != nil {
			return Script{}, fmt.Errorf("there is no workflow run %s to resume: %v", in.ResumeFromRunID, err)
		}
		return Script{Name: r.Name, Path: r.ScriptPath, Source: r.Script}, nil
	}
	return Script{}, errors.New("give the workflow as script, name (a saved workflow) or scriptPath")
}

// writeResult saves a run's outcome next to its script; the notification points to it.
func (t *Tool) writeResult(res Result) string {
	path := filepath.Join(t.cfg.SaveDir, res.RunID+".result.json")
	b, _ := json.MarshalIndent(map[string]any{"run_id": res.RunID, "name": res.Meta.Name, "status": res.Status,
		"error": res.Error, "result": res.Value, "tokens": res.Tokens, "agents": res.Agents, "replayed": res.Replayed}, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil && t.cfg.Warn != nil {
		t.cfg.Warn("workflow: saving the result: " + err.Error())
	}
	return path
}

var tagEscaper = strings.NewReplacer("<task-notification", "&lt;task-notification", "</task-notification", "&lt;/task-notification",
	"<result", "&lt;result", "</result", "&lt;/result")

// notification is the <task-notification> for a run that ended.
func notification(res Result, toolUseID, output string) string {
	status := res.Status
	summary := fmt.Sprintf("Workflow %q %s (%d agents, %d replayed from the journal, %d tokens)", res.Meta.Name, status, res.Agents, res.Replayed, res.Tokens)
	if res.Error != "" {
		summary += ": " + res.Error
	}
	result := string(res.Value)
	if len(result) > 20000 {
		result = result[:20000] + "\n[… the rest is in the output file]"
	}
	var b strings.Builder
	b.WriteString("<task-notification>\n")
	fmt.Fprintf(&b, "<task-id>%s</task-id>\n", res.RunID)
	if toolUseID != "" {
		fmt.Fprintf(&b, "<tool-use-id>%s</tool-use-id>\n", toolUseID)
	}
	fmt.Fprintf(&b, "<output-file>%s</output-file>\n<status>%s</status>\n<summary>%s</summary>\n", output, status, tagEscaper.Replace(summary))
	fmt.Fprintf(&b, "<result>%s</result>\n</task-notification>\n", tagEscaper.Replace(result))
	fmt.Fprintf(&b, "Read the output file to retrieve the result: %s", output)
	return b.String()
}

// finish delivers a run's notification: held for BeforeStop when a stop is waiting or
// the session holds them, otherwise to the session's queue.
func (t *Tool) finish(text string, x *tool.Exec) {
	t.mu.Lock()
	t.running--
	hold := t.cfg.HoldForStop || t.waiting > 0
	if hold {
		t.mail = append(t.mail, text)
	}
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	if !hold {
		x.Notify(text)
	}
}

// BeforeStop implements agent.BeforeStop for a session that must not end while its
// workflows run (headless): it waits for them and sends the model their notifications.
func (t *Tool) BeforeStop(ctx context.Context, _ *agent.Stop) agent.StopDecision {
	t.mu.Lock()
	t.waiting++
	for t.running > 0 {
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		t.mu.Lock()
		if ctx.Err() != nil {
			break
		}
	}
	t.waiting--
	mail := t.mail
	t.mail = nil
	t.mu.Unlock()
	if len(mail) == 0 {
		return agent.StopDecision{}
	}
	return agent.StopDecision{Continue: true, Message: strings.Join(mail, "\n\n")}
}

// Close stops the runs still going and waits for them.
func (t *Tool) Close() {
	t.cancel()
	t.wg.Wait()
}

// progress is what /workflows shows of one run.
type progress struct {
	id, name, phase, status, err  string
	started, done, failed, replay int
	tokens                        int
}

func (t *Tool) observe(pg *progress) func(Event) {
	return func(e Event) {
		t.mu.Lock()
		defer t.mu.Unlock()
		switch e.Kind {
		case "phase":
			pg.phase = e.Label
		case "agent_start":
			pg.started++
		case "agent_end":
			switch e.Status {
			case "replayed":
				pg.replay++
			case CallDone:
				pg.done++
			default:
				pg.failed++
			}
			pg.tokens += e.Tokens
		}
	}
}

// Render says how each run of this session is going (the REPL's /workflows).
func (t *Tool) Render() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.runs) == 0 {
		return "No workflow runs yet in this session."
	}
	var b strings.Builder
	for _, p := range t.runs {
		fmt.Fprintf(&b, "%s  %s  %s", p.id, p.name, p.status)
		if p.phase != "" {
			fmt.Fprintf(&b, "  phase %q", p.phase)
		}
		fmt.Fprintf(&b, "  agents: %d running, %d done, %d failed, %d replayed  %d tokens\n",
			max(0, p.started-p.done-p.failed), p.done, p.failed, p.replay, p.tokens)
		if p.err != "" {
			fmt.Fprintf(&b, "    %s\n", p.err)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
