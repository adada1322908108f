// Package wfproc runs workflows in a process of their own: ouro itself, started again in
// its workflow engine mode (ModeArg; see MaybeServe), so that a script's heap is capped
// by that process's limits (the engine's memory limit, and on Linux RLIMIT_DATA as a
// backstop), a script that runs away cannot take the session with it, and killing the
// engine (ouro's cancel, kill -9) leaves a run that resumes. It is the same binary: one
// install gives workflows.
//
// ouro and the engine speak JSON lines over the engine's stdin and stdout: ouro sends one
// request; for a run, the engine asks ouro for each agent() call (ouro runs it as a
// subagent of the session, under its permissions) and reports progress, then the
// result. The engine keeps the journal in state.db.
//
// The JavaScript engine (goja) used to live in a separate ouro-workflow program, to keep
// it out of the memory of runs that start no workflow; linked into ouro it costs every
// run the pages its larger binary touches at start (the README's memory figures are
// measured with it linked).
package wfproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ouroagent/ouro/internal/profile"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
)

// ModeArg, as a program's first argument, starts it as the workflow engine (MaybeServe).
const ModeArg = "__ouro_workflow"

// serves says the program called MaybeServe: started with ModeArg, it is the engine.
var serves atomic.Bool

// MaybeServe makes this program the workflow engine when it was started as one (first
// argument ModeArg): it answers one request on stdin and stdout with backend's journal
// and engine, then exits. Otherwise it returns at once, and records that the program can
// run workflows by starting itself again (Self). ouro's main calls it first thing (through
// workflow/wfserve); a program built on ouro's packages that offers workflows must too.
func MaybeServe(backend func() Backend) {
	if len(os.Args) < 2 || os.Args[1] != ModeArg {
		serves.Store(true)
		return
	}
	stop := profile.Start() // OURO_PROFILE: the engine's own profiles (see profile.ChildEnv)
	err := Serve(os.Stdin, os.Stdout, backend())
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ouro workflow engine:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// Self is the engine as this very program started in its engine mode, with its journal
// at statePath and saved workflows in cwd. The error says why workflows are not available:
// the program never called MaybeServe, so started again it would not be an engine.
func Self(statePath, cwd string) (Client, error) {
	if !serves.Load() {
		return Client{}, errors.New("workflows are not available in this program: it does not serve ouro's workflow engine mode (a program built on ouro's packages calls wfserve.MaybeServe first thing in main)")
	}
	exe, err := os.Executable()
	if err != nil {
		return Client{}, fmt.Errorf("workflows need this program's own path, to start it as the workflow engine: %w", err)
	}
	return Client{Bin: exe, Args: []string{ModeArg}, StatePath: statePath, CWD: cwd}, nil
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

// stopGrace is how long a stopped engine has to record the end of its run.
const stopGrace = 5 * time.Second

// Client is a workflow.Engine in a process of its own.
type Client struct {
	Bin       string   // the program (see Self)
	Args      []string // its arguments (ModeArg)
	Env       []string // its environment; nil: this process's
	StatePath string   // state.db
	CWD       string   // the project (saved workflows)
}

var _ workflow.Engine = Client{}

// conn is one engine process.
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
	cmd := exec.CommandContext(ctx, c.Bin, c.Args...)
	cmd.Dir = c.CWD
	cmd.Env = c.Env
	ownGroup(cmd) // a Ctrl-C interrupts ouro's turn, not a background run
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &head{b: &stderr, n: 64 << 10}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the workflow engine (%s) did not start: %w", c.Bin, err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(stdout, 1<<20))
	k := &conn{cmd: cmd, enc: json.NewEncoder(stdin), dec: dec, stderr: &stderr, stdin: stdin}
	if err := k.send(req); err != nil {
		k.close()
		return nil, fmt.Errorf("the workflow engine: %w", err)
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

// finish lets an engine that has answered its last line end on its own (close its
// journal, write its OURO_PROFILE profiles) and kills it, with kill, only when it has not
// within stopGrace.
func (k *conn) finish(kill func()) {
	t := time.AfterFunc(stopGrace, kill)
	defer t.Stop()
	k.close()
}

// gone explains an engine that stopped answering.
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
		return fmt.Errorf("the workflow engine ran out of the memory it may use (a backstop at four times the script's limit, for an allocation too large to watch; %s raises it): %s", "OURO_WORKFLOW_MEMORY", textcut.Bytes(msg, 300, "…"))
	}
	return fmt.Errorf("the workflow engine ended without an answer: %s", msg)
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

// Text runs the engine's list (id "") or show (a run id) and returns what it prints.
func (c Client) Text(ctx context.Context, op, id string) (string, error) {
	m, err := c.once(ctx, request{Op: op, RunID: id})
	return m.Output, err
}

// Run implements workflow.Engine: the engine runs the script; each agent() call comes
// back here to o.Runner. Cancelling ctx kills the engine: the journal keeps every call
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
	// The run's own context stops the engine: its stdin closes, so it records the run as
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
			stopAgents() // agents still running stop
			k.finish(cancel)
			if m.Result == nil {
				return workflow.Result{}, errors.New("the workflow engine answered without a result")
			}
			return *m.Result, nil
		case "fail":
			stopAgents()
			k.finish(cancel)
			return workflow.Result{}, errors.New(m.Error)
		}
	}
}

// head keeps the first n bytes written to b (the engine's stderr, for the error that
// reports its failure) and drops the rest, never failing the write.
type head struct {
	b *bytes.Buffer
	n int
}

func (h *head) Write(p []byte) (int, error) {
	if room := h.n - h.b.Len(); room > 0 {
		h.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
