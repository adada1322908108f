package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Tool names, Claude Code's, and the legacy names it still accepts.
const (
	OutputName     = "TaskOutput"
	StopName       = "TaskStop"
	LegacyOutput   = "BashOutput"
	LegacyStop     = "KillShell"
	outputRunes    = 30_000
	defaultBlockMS = 30_000
	maxBlockMS     = 600_000
	// freePolls is how many non-blocking polls of a running task in a row are answered
	// at once; later ones wait (PollWait) so a polling loop cannot spin.
	freePolls = 3
)

// Tools returns TaskOutput and TaskStop, and their legacy aliases BashOutput and
// KillShell (same schemas).
func (m *Manager) Tools() (output, stop, legacyOutput, legacyStop tool.Tool) {
	return &outputTool{m: m, name: OutputName}, &stopTool{m: m, name: StopName},
		&outputTool{m: m, name: LegacyOutput}, &stopTool{m: m, name: LegacyStop}
}

type outputTool struct {
	m    *Manager
	name string
}

func (t *outputTool) Spec() llm.ToolSpec {
	if t.name == LegacyOutput { // Claude Code's older BashOutput, with its own schema
		return llm.ToolSpec{Name: t.name,
			Description: "Deprecated: use TaskOutput. Gets the output of a background shell so far; filter keeps the lines matching a regular expression.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"bash_id":{"type":"string"},"filter":{"type":"string"}},"required":["bash_id"],"additionalProperties":false}`),
		}
	}
	return llm.ToolSpec{Name: t.name,
		Description: "Gets the status and output of a background task (Bash or agent run with run_in_background). block=true waits for it to end, up to timeout ms (at most 600000). You are notified when a task ends, so do not poll; reading its output file with Read works too.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string"},"block":{"type":"boolean","default":true},"timeout":{"type":"number","default":30000}},"required":["task_id","block","timeout"],"additionalProperties":false}`),
	}
}

func (t *outputTool) ReadOnly() bool { return true }

// Describe implements tool.Describer: reading a job's output changes nothing.
func (t *outputTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t *outputTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	var in struct {
		TaskID  string   `json:"task_id"`
		BashID  string   `json:"bash_id"` // BashOutput's name for it
		Filter  string   `json:"filter"`  // BashOutput's
		Block   *bool    `json:"block"`
		Timeout *float64 `json:"timeout"`
	}
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Result{}, fmt.Errorf("invalid %s input: %w", t.name, err)
	}
	id := strings.TrimSpace(in.TaskID)
	if id == "" {
		id = strings.TrimSpace(in.BashID)
	}
	if id == "" {
		return tool.Errorf("%s needs task_id: the id a background Bash or agent call returned.", t.name), nil
	}
	var filter *regexp.Regexp
	if in.Filter != "" {
		re, err := regexp.Compile(in.Filter)
		if err != nil {
			return tool.Errorf("filter is not a valid regular expression: %v", err), nil
		}
		filter = re
	}
	// BashOutput never waited; TaskOutput waits unless told not to.
	block := t.name != LegacyOutput && (in.Block == nil || *in.Block)
	wait := time.Duration(defaultBlockMS) * time.Millisecond
	if in.Timeout != nil {
		if *in.Timeout < 0 {
			return tool.Errorf("timeout must not be negative (milliseconds, at most %d).", maxBlockMS), nil
		}
		wait = time.Duration(min(*in.Timeout, maxBlockMS)) * time.Millisecond
	}
	m := t.m
	m.mu.Lock()
	tk, ok := m.tasks[id]
	if !ok {
		known := m.idsLocked()
		m.mu.Unlock()
		return tool.Result{}, m.unknown(id, known)
	}
	note := ""
	if !block && tk.live() {
		if size := tk.out.size(); size != tk.polled {
			tk.polled, tk.polls = size, 0
		}
		tk.polls++
		if tk.polls > freePolls {
			block, wait = true, min(m.cfg.PollWait, max(wait, m.cfg.PollWait))
			note = fmt.Sprintf("(%d polls in a row without new output: this one waited up to %s. You are notified when the task ends; do other work meanwhile.)\n", tk.polls, m.cfg.PollWait)
		}
	} else {
		tk.polls = 0
	}
	done := tk.done
	m.mu.Unlock()

	retrieval := "success"
	if block {
		timer := time.NewTimer(wait)
		select {
		case <-done:
		case <-timer.C:
			retrieval = "timeout"
		case <-ctx.Done():
			timer.Stop()
			return tool.Result{}, ctx.Err()
		}
		timer.Stop()
	} else {
		select {
		case <-done:
		default:
			retrieval = "not_ready"
		}
	}
	info := m.infoOf(tk)
	m.mu.Lock()
	result := tk.result
	pos, n := m.positionLocked(tk)
	running := m.running
	m.mu.Unlock()
	var b strings.Builder
	b.WriteString(note)
	fmt.Fprintf(&b, "<retrieval_status>%s</retrieval_status>\n<task_id>%s</task_id>\n<task_type>%s</task_type>\n<status>%s</status>\n",
		retrieval, info.ID, info.Kind, info.Status)
	if info.ExitCode != nil {
		fmt.Fprintf(&b, "<exit_code>%d</exit_code>\n", *info.ExitCode)
	}
	if pos > 0 {
		fmt.Fprintf(&b, "<queue_position>%d of %d; starts when one of the %d running background tasks ends</queue_position>\n", pos, n, running)
	}
	out := result
	if info.Kind == KindBash || out == "" {
		out = readTail(info.Output, outputRunes)
	}
	if filter != nil {
		var kept []string
		for _, l := range strings.Split(out, "\n") {
			if filter.MatchString(l) {
				kept = append(kept, l)
			}
		}
		out = strings.Join(kept, "\n")
	}
	fmt.Fprintf(&b, "<output>\n%s\n</output>", strings.TrimRight(out, "\n"))
	return tool.Text(b.String()), nil
}

// readTail is the end of an output file, at most n bytes, said to be cut when it is.
func readTail(path string, n int64) string {
	data, cut, err := tailBytesOf(path, n)
	if err != nil {
		return fmt.Sprintf("(the output file %s could not be read: %v)", path, err)
	}
	s := strings.ToValidUTF8(string(data), "")
	if cut {
		s = fmt.Sprintf("[… earlier output left out; the whole output is in %s]\n", path) + s
	}
	return s
}

func tailBytesOf(path string, n int64) ([]byte, bool, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	cut := st.Size() > n
	if cut {
		if _, err := f.Seek(st.Size()-n, io.SeekStart); err != nil {
			return nil, false, err
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, n))
	return data, cut, err
}

type stopTool struct {
	m    *Manager
	name string
}

func (t *stopTool) Spec() llm.ToolSpec {
	if t.name == LegacyStop { // Claude Code's older KillShell
		return llm.ToolSpec{Name: t.name,
			Description: "Deprecated: use TaskStop. Kills a background shell by its id.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"shell_id":{"type":"string"}},"required":["shell_id"],"additionalProperties":false}`),
		}
	}
	return llm.ToolSpec{Name: t.name,
		Description: "Stops a running background task (and every process it started) by its id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string"},"shell_id":{"type":"string","description":"Deprecated: use task_id"}},"additionalProperties":false}`),
	}
}

func (t *stopTool) ReadOnly() bool { return false }

// Describe implements tool.Describer: stopping a job the session started changes only
// the session's own work.
func (t *stopTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return tool.DescribeSession(input)
}

func (t *stopTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	var in struct {
		TaskID  string `json:"task_id"`
		ShellID string `json:"shell_id"`
	}
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return tool.Result{}, fmt.Errorf("invalid %s input: %w", t.name, err)
	}
	id := strings.TrimSpace(in.TaskID)
	if id == "" {
		id = strings.TrimSpace(in.ShellID)
	}
	if id == "" {
		return tool.Result{}, errors.New("TaskStop needs task_id: the id a background Bash or agent call returned")
	}
	msg, err := t.m.Stop(id)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(msg), nil
}
