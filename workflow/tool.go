package workflow

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

	"github.com/ouroagent/ouro/background"
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
	// SaveDir receives each run's script (<run id>.js).
	SaveDir string
	// Runner runs the agents; Engine checks and runs the scripts and keeps the journal.
	Runner Runner
	Engine Engine
	// Background runs each workflow as a background task under its run id: TaskOutput
	// and TaskStop reach it, and its end is a <task-notification> (a headless run waits
	// for it as for any background task).
	Background *background.Manager
	// Budget is each run's token ceiling (0: none).
	Budget int
}

// Tool is the Workflow tool. Runs go on in the background (the session's background
// manager) after the call returns.
type Tool struct {
	cfg ToolConfig

	mu   sync.Mutex
	runs []*progress // every run this tool started, oldest first
}

// NewTool returns the Workflow tool.
func NewTool(cfg ToolConfig) *Tool { return &Tool{cfg: cfg} }

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
		if t.running(in.ResumeFromRunID) {
			return tool.Errorf("Workflow run %s is still running in this session: resuming it now would run its unfinished agents twice. Wait for its <task-notification>, or stop it with TaskStop first.", in.ResumeFromRunID), nil
		}
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
	pg := newProgress(id, meta)
	info, err := t.cfg.Background.StartWork(x, background.KindWorkflow, id, meta.Name, func(ctx context.Context, out io.Writer) (string, error) {
		res, err := eng.Run(ctx, script, Options{Runner: t.cfg.Runner, Args: in.Args,
			Resume: in.ResumeFromRunID, RunID: id, Budget: t.cfg.Budget, Observe: t.observe(pg, out),
			Resolve: func(name string) (Script, error) { return FindSaved(SavedDirs(t.cfg.CWD), name) }})
		if err != nil {
			res = Result{RunID: id, Meta: meta, Status: StatusFailed, Error: err.Error()}
		}
		t.mu.Lock()
		pg.status, pg.err = res.Status, res.Error
		t.mu.Unlock()
		fmt.Fprintf(out, "workflow %s %s: %d agents (%d replayed from the journal), %d tokens\n", id, res.Status, res.Agents, res.Replayed, res.Tokens)
		if res.Status != StatusCompleted {
			return "", fmt.Errorf("%s: %s", res.Status, res.Error)
		}
		return string(res.Value), nil
	})
	if err != nil {
		_ = os.Remove(saved)
		return tool.Errorf("The workflow was not started: %v", err), nil
	}
	t.mu.Lock()
	t.runs = append(t.runs, pg)
	t.mu.Unlock()
	msg := fmt.Sprintf("Workflow %q started in the background.\nRun id: %s\nScript saved to: %s\nProgress is written to: %s\nA <task-notification> arrives when it ends (TaskOutput and TaskStop take the run id). To resume it after a stop, call Workflow with resumeFromRunId: %q.",
		meta.Name, id, saved, info.Output, id)
	return tool.Text(msg), nil
}

// running reports whether run id, started by this tool, is still going.
func (t *Tool) running(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pg := range t.runs {
		if pg.id == id {
			return pg.status == StatusRunning
		}
	}
	return false
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
