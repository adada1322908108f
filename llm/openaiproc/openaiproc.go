// Package openaiproc runs the OpenAI provider (llm/openai) in the ouro-openai helper, a
// separate program, so that the OpenAI SDK is not linked into ouro itself: a session on
// Claude pays nothing for it.
//
// Why, measured (TestPeakMemory's 3-turn headless task on Claude, Linux 6.18, Go 1.26,
// median of 5 runs on a busy 2-core machine): Go initialises every linked package in
// every run, and the SDK (25 packages, 6.9 MB of the binary's 21.5 MB of code) registers
// hundreds of unions and validators at initialisation, each a small function next to the
// code it registers, so initialisation touched code all over its part of the binary; its
// types made the read-only data and the function tables that every run reads larger and
// sparser. With it linked, the task peaked at 25.4 MB (26 MB guard, 25 MB target); with
// it in the helper, at 20.9 MB. An openai:NAME model costs a process start per model
// call (milliseconds, next to the seconds of a call).
//
// ouro and the helper speak JSON lines over the helper's stdin and stdout: ouro sends
// one call (the endpoint and the llm.Request); the helper streams deltas, then the
// response or the error. The helper retries transient failures itself, under the
// provider's policy. ouro keeps the helper's stdin open for the length of the call:
// when ouro ends (cancelled, or killed), the helper sees end of input and stops.
package openaiproc

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

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/openai/endpoint"
)

// HelperName is the helper program's name; ouro looks for it next to itself.
const HelperName = "ouro-openai"

// BinEnv names the variable that overrides where the helper is. It is read from ouro's
// own environment only, never from settings: a repository cannot name a program for
// ouro to run with the user's key.
const BinEnv = "OURO_OPENAI_BIN"

// Locate finds the helper: $OURO_OPENAI_BIN, then next to the running program, then on
// PATH.
func Locate() (string, error) {
	return helperbin.Locate(HelperName, BinEnv, "openai:NAME models")
}

// exitGrace is how long a helper has to end once its call is over and its input closed.
var exitGrace = 5 * time.Second

// call is the one line ouro sends.
type call struct {
	Endpoint endpoint.Endpoint `json:"endpoint"`
	Request  *llm.Request      `json:"request"`
}

// reply is every line the helper sends: a delta, then the response or the error.
type reply struct {
	Delta    *llm.Delta    `json:"delta,omitempty"`
	Response *llm.Response `json:"response,omitempty"`
	// RawInputs are the tool calls' inputs that are not valid JSON (a small model's single
	// quotes, a call cut off, JSON followed by text), by block index: JSON cannot carry
	// them as the raw values they are, so the response holds {} there and ouro puts them
	// back, for the agent to answer the call with what was wrong.
	RawInputs map[int]string `json:"raw_inputs,omitempty"`
	Error     *wireError     `json:"error,omitempty"`
}

// wireError is an *llm.Error (Kind set) or any other error (Kind empty) on the wire.
type wireError struct {
	Kind     string `json:"kind,omitempty"`
	Status   int    `json:"status,omitempty"`
	Message  string `json:"message"`
	Attempts int    `json:"attempts,omitempty"`
}

// Provider is an llm.Provider whose calls run in the helper. It is safe for concurrent
// use: each call is its own helper process.
type Provider struct {
	bin string
	end endpoint.Endpoint
}

var _ llm.Provider = (*Provider)(nil)

// New returns a provider that runs bin (see Locate) for each call to e.
func New(bin string, e endpoint.Endpoint) *Provider { return &Provider{bin: bin, end: e} }

// Name implements llm.Provider.
func (p *Provider) Name() string { return "openai" }

// Complete implements llm.Provider.
func (p *Provider) Complete(ctx context.Context, req *llm.Request, onDelta llm.StreamFunc) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("openai: model call interrupted: %w", err)
	}
	line, err := json.Marshal(call{Endpoint: p.end, Request: req})
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrKindInvalid, Message: "encoding the request: " + err.Error(), Err: err}
	}
	cmd := exec.Command(p.bin)
	helperbin.OwnGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &helperbin.Head{B: &stderr, N: 8 << 10}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("openai: the %s helper (%s) did not start: %w", HelperName, p.bin, err)
	}
	// Stop the helper when the call is cancelled; closing its stdin would do too, but a
	// helper stuck in a write must not keep the caller waiting.
	done := make(chan struct{})
	var killed sync.WaitGroup
	killed.Add(1)
	go func() {
		defer killed.Done()
		select {
		case <-ctx.Done():
			_ = cmd.Process.Kill()
		case <-done:
		}
	}()
	// Write the call while reading: a large request (images) must not block on a helper
	// that is already answering.
	werr := make(chan error, 1)
	go func() { _, err := stdin.Write(append(line, '\n')); werr <- err }()

	resp, rerr := read(bufio.NewReaderSize(stdout, 64<<10), onDelta)
	// Keep stdin open until the answer is in (the helper stops at its end), then close it.
	if err := <-werr; err != nil && rerr == nil && resp == nil {
		rerr = fmt.Errorf("sending the request: %w", err)
	}
	_ = stdin.Close()
	// A helper that does not end once its input has (a protocol error, a bug) is stopped.
	stop := time.AfterFunc(exitGrace, func() { _ = cmd.Process.Kill() })
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	stop.Stop()
	close(done)
	killed.Wait()

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("openai: model call interrupted: %w", err)
	}
	if rerr != nil {
		return nil, rerr
	}
	if resp == nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" && waitErr != nil {
			msg = waitErr.Error()
		}
		return nil, fmt.Errorf("openai: the %s helper ended without an answer: %s", HelperName, msg)
	}
	return resp, nil
}

// read decodes the helper's replies until the response or the error.
func read(r io.Reader, onDelta llm.StreamFunc) (*llm.Response, error) {
	dec := json.NewDecoder(r)
	for {
		var m reply
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil // the caller reports the helper's end
			}
			return nil, fmt.Errorf("openai: the %s helper sent something other than its protocol: %w", HelperName, err)
		}
		switch {
		case m.Delta != nil:
			if onDelta != nil {
				onDelta(*m.Delta)
			}
		case m.Response != nil:
			for i, raw := range m.RawInputs {
				if i >= 0 && i < len(m.Response.Message.Content) && m.Response.Message.Content[i].Type == llm.BlockToolUse {
					m.Response.Message.Content[i].Input = json.RawMessage(raw)
				}
			}
			return m.Response, nil
		case m.Error != nil:
			if m.Error.Kind == "" {
				return nil, errors.New(m.Error.Message)
			}
			return nil, &llm.Error{Kind: m.Error.Kind, Status: m.Error.Status, Message: m.Error.Message, Attempts: m.Error.Attempts}
		default:
			return nil, fmt.Errorf("openai: the %s helper sent an empty reply", HelperName)
		}
	}
}

// Serve is the helper's side: it reads one call from in, makes it with the provider
// newProvider returns for its endpoint, and writes the replies to out. The call is
// cancelled when in ends (ouro stopped or died).
func Serve(in io.Reader, out io.Writer, newProvider func(endpoint.Endpoint) (llm.Provider, error)) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var c call
	if err := json.NewDecoder(br).Decode(&c); err != nil {
		return fmt.Errorf("reading the call (%s serves ouro's openai:NAME models; ouro runs it, it is not for running by hand): %w", HelperName, err)
	}
	if c.Request == nil {
		return errors.New("the call has no request")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The decoder may have buffered past the call; what follows is only the end of
		// input, which means ouro is gone or no longer waiting.
		_, _ = io.Copy(io.Discard, in)
		cancel()
	}()
	var mu sync.Mutex
	enc := json.NewEncoder(out)
	send := func(m reply) error {
		mu.Lock()
		defer mu.Unlock()
		return enc.Encode(m)
	}
	p, err := newProvider(c.Endpoint)
	if err != nil {
		return send(reply{Error: &wireError{Message: err.Error()}})
	}
	resp, err := p.Complete(ctx, c.Request, func(d llm.Delta) { _ = send(reply{Delta: &d}) })
	if err != nil {
		var le *llm.Error
		if errors.As(err, &le) {
			return send(reply{Error: &wireError{Kind: le.Kind, Status: le.Status, Message: le.Message, Attempts: le.Attempts}})
		}
		return send(reply{Error: &wireError{Message: err.Error()}})
	}
	r := reply{Response: resp}
	for i, b := range resp.Message.Content {
		if b.Type == llm.BlockToolUse && len(b.Input) > 0 && !json.Valid(b.Input) {
			if r.RawInputs == nil {
				r.RawInputs = map[int]string{}
				resp.Message.Content = append([]llm.Block(nil), resp.Message.Content...)
			}
			r.RawInputs[i] = string(b.Input)
			resp.Message.Content[i].Input = json.RawMessage(`{}`)
		}
	}
	return send(r)
}
