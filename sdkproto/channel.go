// Package sdkproto speaks the control protocol of the Claude Agent SDKs (Python
// claude-agent-sdk, TypeScript @anthropic-ai/claude-agent-sdk), so a program written for
// them can use ouro as its CLI. Both sides send control_request lines and answer each
// with a control_response carrying the same request_id, next to the ordinary user and
// assistant messages of --input-format/--output-format stream-json.
//
// The shapes were matched against claude-agent-sdk-python 0.2.143 (bundled CLI 2.1.240):
// src/claude_agent_sdk/_internal/query.py (the control protocol),
// _internal/transport/subprocess_cli.py (the command line) and types.py (the shapes).
// Nothing of it is copied; this is an independent implementation of the wire format.
package sdkproto

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultTimeout bounds how long ouro waits for the SDK to answer a request it sent
// (can_use_tool, hook_callback, mcp_message), unless a hook gives its own timeout.
const DefaultTimeout = 5 * time.Minute

// ErrClosed is returned for requests still waiting when the SDK's side of standard input
// ends: nobody is left to answer them.
var ErrClosed = errors.New("the SDK closed standard input before answering")

// Line is one line of standard input as the control protocol reads it.
type Line struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
}

// Request is a control_request the SDK sent: its id, subtype and whole body.
type Request struct {
	ID      string
	Subtype string
	Body    json.RawMessage
}

// ParseRequest reads the body of a control_request line.
func ParseRequest(l Line) (Request, error) {
	if l.RequestID == "" {
		return Request{}, fmt.Errorf("a control_request needs a \"request_id\"")
	}
	var head struct {
		Subtype string `json:"subtype"`
	}
	if len(l.Request) == 0 || json.Unmarshal(l.Request, &head) != nil {
		return Request{ID: l.RequestID}, fmt.Errorf("control_request %s: \"request\" must be an object with a \"subtype\"", l.RequestID)
	}
	if head.Subtype == "" {
		return Request{ID: l.RequestID}, fmt.Errorf("control_request %s has no \"subtype\"", l.RequestID)
	}
	return Request{ID: l.RequestID, Subtype: head.Subtype, Body: l.Request}, nil
}

// Channel is ouro's end of the control protocol: it sends requests to the SDK and waits
// for their answers, and writes the answers to the SDK's requests. Safe for concurrent
// use.
type Channel struct {
	write func(v any) error
	// Timeout bounds each request without its own (DefaultTimeout when 0).
	Timeout time.Duration

	seq     atomic.Uint64
	prefix  string
	mu      sync.Mutex
	pending map[string]chan reply
	closed  bool
}

type reply struct {
	body json.RawMessage
	err  error
}

// NewChannel returns a channel that writes each line with write (one JSON value per
// line; write must serialise concurrent calls).
func NewChannel(write func(v any) error) *Channel {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &Channel{write: write, prefix: hex.EncodeToString(b), pending: map[string]chan reply{}}
}

type controlRequest struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Request   any    `json:"request"`
}

type controlResponse struct {
	Type     string `json:"type"`
	Response any    `json:"response"`
}

type successBody struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Response  any    `json:"response"`
}

type errorBody struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Error     string `json:"error"`
}

// Call sends a control_request to the SDK and returns the "response" object of its
// success answer. An error answer, a timeout (timeout, or the channel's when 0), ctx
// ending or standard input closing return an error; the SDK is then told to cancel the
// request (control_cancel_request), so a late answer is ignored.
func (c *Channel) Call(ctx context.Context, subtype string, body map[string]any, timeout time.Duration) (json.RawMessage, error) {
	if timeout <= 0 {
		timeout = c.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	id := fmt.Sprintf("ouro_%d_%s", c.seq.Add(1), c.prefix)
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.pending[id] = ch
	c.mu.Unlock()
	req := map[string]any{"subtype": subtype}
	for k, v := range body {
		req[k] = v
	}
	if err := c.write(controlRequest{Type: "control_request", RequestID: id, Request: req}); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("sending %s to the SDK: %w", subtype, err)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.body, r.err
	case <-ctx.Done():
		c.cancel(id)
		return nil, ctx.Err()
	case <-t.C:
		c.cancel(id)
		return nil, fmt.Errorf("the SDK did not answer %s within %s", subtype, timeout)
	}
}

func (c *Channel) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// cancel forgets a request and tells the SDK to stop working on it.
func (c *Channel) cancel(id string) {
	c.forget(id)
	_ = c.write(map[string]string{"type": "control_cancel_request", "request_id": id})
}

// Deliver routes a control_response line to the request waiting for it. A response to
// no waiting request (unknown, answered twice, timed out) is an error for the caller to
// report; it changes nothing.
func (c *Channel) Deliver(l Line) error {
	var r struct {
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Response  json.RawMessage `json:"response"`
		Error     string          `json:"error"`
	}
	if len(l.Response) == 0 || json.Unmarshal(l.Response, &r) != nil {
		return fmt.Errorf("a control_response needs \"response\": {\"subtype\":\"success\"|\"error\",\"request_id\":...}")
	}
	c.mu.Lock()
	ch, ok := c.pending[r.RequestID]
	delete(c.pending, r.RequestID)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("control_response for request %q, which ouro is not waiting for (unknown, already answered or timed out); ignored", r.RequestID)
	}
	switch r.Subtype {
	case "success":
		ch <- reply{body: r.Response}
	case "error":
		msg := r.Error
		if msg == "" {
			msg = "no message"
		}
		ch <- reply{err: fmt.Errorf("the SDK answered with an error: %s", msg)}
	default:
		ch <- reply{err: fmt.Errorf("the SDK's control_response has subtype %q; expected success or error", r.Subtype)}
	}
	return nil
}

// Close fails every request still waiting (standard input ended) and every later one.
func (c *Channel) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		ch <- reply{err: ErrClosed}
		delete(c.pending, id)
	}
}

// Respond answers the SDK's request id with success and resp (nil: an empty object).
func (c *Channel) Respond(id string, resp any) error {
	if resp == nil {
		resp = map[string]any{}
	}
	return c.write(controlResponse{Type: "control_response", Response: successBody{Subtype: "success", RequestID: id, Response: resp}})
}

// RespondError answers the SDK's request id with an error message.
func (c *Channel) RespondError(id, msg string) error {
	return c.write(controlResponse{Type: "control_response", Response: errorBody{Subtype: "error", RequestID: id, Error: msg}})
}
