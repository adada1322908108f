// Package wfproc runs workflows in the ouro-workflow helper, a separate program, so that
// the JavaScript engine (goja) and its reflection are never linked into ouro itself: a
// session that runs no workflow pays nothing for them.
//
// What linking goja into ouro costs, measured (TestPeakMemory's 3-turn task, Linux 6.18,
// Go 1.26): goja's JSON.stringify reaches objectGoReflect, whose reflect Type.Method(i)
// makes the linker keep every exported method of every type used in an interface (so
// text/template's evalField too, which TestPeakMemory refuses): the binary grows from
// 43.9 to 57.1 MB and --version from 7.9 to 9.0 MB. Package initialisation allocates
// only 270 KB more (google/pprof/profile 154 KB, regexp2 38 KB, goja/parser 38 KB), but
// the runtime's start-up touches twice the itabs (908 → 1,780, each with its type) and
// the larger binary's init code: the task's peak moves to the end of initialisation, before
// internal/lean can drop those pages, and rises from 22.9 to 26.4 MB (29.1 to 33.5 MB
// with OURO_KEEP_INIT_PAGES=1). Releasing init pages once more at internal/lean's own
// initialisation gets 25.9 MB, still over the 25 MB target. Hence this helper. ouro and the helper speak JSON
// lines over the helper's stdin and stdout: ouro sends one request; for a run, the helper
// asks ouro for each agent() call (ouro runs it as a subagent of the session, under its
// permissions) and reports progress, then the result. The helper keeps the journal in
// state.db, so killing it (ouro's cancel, kill -9) leaves a run that resumes.
package wfproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/helperbin"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
)

// HelperName is the helper program's name; ouro looks for it next to itself.
const HelperName = "ouro-workflow"

// Locate finds the helper: $OURO_WORKFLOW_BIN, then next to the running program, then on
// PATH.
func Locate() (string, error) {
	return helperbin.Locate(HelperName, "OURO_WORKFLOW_BIN", "workflows")
}

// request is what ouro sends first.
type request struct {
	Op        string          `json:"op"` // check, run, journal, list, show
	StatePath string          `json:"state_path"`
	CWD       string          `json:"cwd"`
	Source    string          `json:"source,omitempty"`
	Script    workflow.Script `json:"script"`
	Args      json.RawMessage `json:"args,omitempty"`
	Resume    string          `json:"resume,omitempty"`
	RunID     string          `json:"run_id,omitempty"`
	Budget    int             `json:"budget,omitempty"`
	Timeout   time.Duration   `json:"timeout,omitempty"`
}

// message is every later line, either way.
type message struct {
	Type      string                 `json:"type"` // agent, answer, event, done, fail
	Call      int                    `json:"call,omitempty"`
	Prompt    string                 `json:"prompt,omitempty"`
	Opts      *workflow.AgentOptions `json:"opts,omitempty"`
	MaxTokens int                    `json:"max_tokens,omitempty"`
	Text      string                 `json:"text,omitempty"`
	Usage     llm.Usage              `json:"usage"`
	Error     string                 `json:"error,omitempty"`
	NotFound  bool                   `json:"not_found,omitempty"`
	Event     *workflow.Event        `json:"event,omitempty"`
	Result    *workflow.Result       `json:"result,omitempty"`
	Meta      *workflow.Meta         `json:"meta,omitempty"`
	Run       *workflow.RunRecord    `json:"run,omitempty"`
	Source    string                 `json:"source,omitempty"` // the run's script (RunRecord leaves it out of JSON)
	Output    string                 `json:"output,omitempty"`
}

// stopGrace is how long a stopped helper has to record the end of its run.
const stopGrace = 5 * time.Second

// Client is a workflow.Engine in the helper.
type Client struct {
	Bin       string // the helper program
	StatePath string // state.db
	CWD       string // the project (saved workflows)
}

var _ workflow.Engine = Client{}

// conn is one helper process.
type conn struct {
	cmd    *exec.Cmd
	enc    *json.Encoder
	wmu    sync.Mutex
	dec    *json.Decoder
	stderr *bytes.Buffer
	stdin  io.WriteCloser
}

func (c Client) start(ctx context.Context, req request) (*conn, error) {
	req.StatePath, req.CWD = c.StatePath, c.CWD
	cmd := exec.CommandContext(ctx, c.Bin)
	cmd.Dir = c.CWD
	helperbin.OwnGroup(cmd) // a Ctrl-C interrupts ouro's turn, not a background run
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &helperbin.Head{B: &stderr, N: 64 << 10}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the workflow helper %s did not start: %w", c.Bin, err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(stdout, 1<<20))
	k := &conn{cmd: cmd, enc: json.NewEncoder(stdin), dec: dec, stderr: &stderr, stdin: stdin}
	if err := k.send(req); err != nil {
		k.close()
		return nil, fmt.Errorf("the workflow helper: %w", err)
	}
	return k, nil
}

func (k *conn) send(v any) error {
	k.wmu.Lock()
	defer k.wmu.Unlock()
	return k.enc.Encode(v)
}

func (k *conn) close() error {
	k.stdin.Close()
	return k.cmd.Wait()
}

// gone explains a helper that stopped answering.
func (k *conn) gone(err error) error {
	werr := k.close()
	msg := strings.TrimSpace(k.stderr.String())
	if msg == "" && werr != nil {
		msg = werr.Error()
	}
	if msg == "" && err != nil {
		msg = err.Error()
	}
	if strings.Contains(msg, "out of memory") {
		return fmt.Errorf("the workflow helper ran out of the memory it may use (a backstop at four times the script's limit, for an allocation too large to watch; %s raises it): %s", "OURO_WORKFLOW_MEMORY", textcut.Bytes(msg, 300, "…"))
	}
	return fmt.Errorf("the workflow helper ended without an answer: %s", msg)
}

// once sends a request that has a single answer.
func (c Client) once(ctx context.Context, req request) (message, error) {
	k, err := c.start(ctx, req)
	if err != nil {
		return message{}, err
	}
	var m message
	if err := k.dec.Decode(&m); err != nil {
		return message{}, k.gone(err)
	}
	k.close()
	if m.Type == "fail" {
		if m.NotFound {
			return m, workflow.ErrNotFound
		}
		return m, errors.New(m.Error)
	}
	return m, nil
}

// Check implements workflow.Engine.
func (c Client) Check(ctx context.Context, src string) (workflow.Meta, error) {
	m, err := c.once(ctx, request{Op: "check", Source: src})
	if err != nil || m.Meta == nil {
		return workflow.Meta{}, err
	}
	return *m.Meta, nil
}

// Journal implements workflow.Engine.
func (c Client) Journal(ctx context.Context, id string) (workflow.RunRecord, error) {
	m, err := c.once(ctx, request{Op: "journal", RunID: id})
	if err != nil || m.Run == nil {
		return workflow.RunRecord{}, err
	}
	rec := *m.Run
	rec.Script = m.Source
	return rec, nil
}

// Text runs the helper's list (id "") or show (a run id) and returns what it prints.
func (c Client) Text(ctx context.Context, op, id string) (string, error) {
	m, err := c.once(ctx, request{Op: op, RunID: id})
	return m.Output, err
}

// Run implements workflow.Engine: the helper runs the script; each agent() call comes
// back here to o.Runner. Cancelling ctx kills the helper: the journal keeps every call
// it finished, so the run resumes.
func (c Client) Run(ctx context.Context, s workflow.Script, o workflow.Options) (workflow.Result, error) {
	if o.Runner == nil {
		return workflow.Result{}, errors.New("workflow: no runner for agent() calls")
	}
	if o.RunID == "" {
		o.RunID = workflow.NewRunID()
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	k, err := c.start(hctx, request{Op: "run", Script: s, Args: o.Args, Resume: o.Resume, RunID: o.RunID, Budget: o.Budget, Timeout: o.Timeout})
	if err != nil {
		return workflow.Result{}, err
	}
	// The run's own context stops the helper: its stdin closes, so it records the run as
	// interrupted in the journal and answers; one that does not within stopGrace is
	// killed (the journal then still says running; the run resumes all the same).
	actx, stopAgents := context.WithCancel(hctx) // the agents this side runs
	defer stopAgents()
	stop := context.AfterFunc(ctx, func() {
		stopAgents()
		k.wmu.Lock()
		k.stdin.Close()
		k.wmu.Unlock()
		time.AfterFunc(stopGrace, cancel)
	})
	defer stop()
	var agents sync.WaitGroup
	defer agents.Wait()
	for {
		var m message
		if err := k.dec.Decode(&m); err != nil {
			cancel()
			if ctx.Err() != nil {
				k.close()
				return workflow.Result{RunID: o.RunID, Status: workflow.StatusInterrupted, Value: json.RawMessage("null"),
					Error: "interrupted: " + context.Cause(ctx).Error()}, nil
			}
			return workflow.Result{}, k.gone(err)
		}
		switch m.Type {
		case "agent":
			opts := workflow.AgentOptions{}
			if m.Opts != nil {
				opts = *m.Opts
			}
			opts.MaxTokens = m.MaxTokens
			agents.Add(1)
			go func() {
				defer agents.Done()
				text, u, err := o.Runner.Agent(actx, m.Prompt, opts)
				a := message{Type: "answer", Call: m.Call, Text: text, Usage: u}
				if err != nil {
					a.Error = err.Error()
					if a.Error == "" {
						a.Error = "the agent failed"
					}
				}
				_ = k.send(a)
			}()
		case "event":
			if m.Event != nil && o.Observe != nil {
				o.Observe(*m.Event)
			}
		case "done":
			cancel() // agents still running stop
			k.close()
			if m.Result == nil {
				return workflow.Result{}, errors.New("the workflow helper answered without a result")
			}
			return *m.Result, nil
		case "fail":
			cancel()
			k.close()
			return workflow.Result{}, errors.New(m.Error)
		}
	}
}
