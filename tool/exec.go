package tool

import (
	"encoding/json"
	"sync/atomic"
)

// Exec is one call as its tool runs it: the call (tool_use id, name, input) and what the
// tool may do while it runs besides returning a result. Cancellation is the context Run
// receives. A tool that needs its call's id (to name a child transcript, to tag progress or
// a later notification) reads it here; nothing has to recover it from events.
type Exec struct {
	Call
	progress func(Call, Progress)
	notify   Notifier
	ended    atomic.Bool // Run returned: later progress is dropped
}

// Progress is an update from a call that is still running, for the people watching (the
// REPL, stream-json, an MCP client's progress notifications). It never reaches the model.
type Progress struct {
	// Message says what the call is doing now.
	Message string
	// Done and Total measure how far it got, when the tool knows (Total 0: unknown).
	Done, Total float64
}

// Notification is something a tool wants the model to learn later, outside its result
// (a background command that finished, a message that arrived): the session delivers it
// into the conversation before the next model call, exactly once.
type Notification struct {
	// From is the call that produced it.
	From Call
	// Text is what the model reads (for example a <task-notification> block).
	Text string
}

// Notifier is the session's notification sink.
type Notifier interface {
	Notify(Notification)
}

// NotifierFunc adapts a function to Notifier.
type NotifierFunc func(Notification)

// Notify calls f.
func (f NotifierFunc) Notify(n Notification) { f(n) }

// NewExec returns an Exec for running a tool directly, outside a registry (tests, or ouro
// itself running a command the model did not ask for): progress goes to onProgress and
// notifications to sink, either of which may be nil (then they are dropped). The input is
// not validated: that is the registry's job for calls the model makes.
func NewExec(c Call, onProgress func(Call, Progress), sink Notifier) *Exec {
	if len(c.Input) == 0 {
		c.Input = json.RawMessage(`{}`)
	}
	return &Exec{Call: c, progress: onProgress, notify: sink}
}

// Progress reports how the call is going. Safe to call from any goroutine; once Run has
// returned, reports are dropped (a goroutine the tool left behind cannot speak for a call
// that has its result).
func (x *Exec) Progress(p Progress) {
	if x.progress != nil && !x.ended.Load() {
		x.progress(x.Call, p)
	}
}

// Notify hands text to the session for the model to read before its next request. It
// reports whether a sink was there to take it (a tool run directly may have none).
func (x *Exec) Notify(text string) bool {
	if x.notify == nil {
		return false
	}
	x.notify.Notify(Notification{From: x.Call, Text: text})
	return true
}

// Valid is a call the registry checked: its tool exists and its input fits the tool's
// schema. Only Registry.Check makes one, so Registry.Run cannot be reached with input that
// skipped validation; a gate that rewrites the input must have the new call checked again.
type Valid struct {
	call Call
	tool Tool
	reg  *Registry
}

// Call returns the checked call.
func (v Valid) Call() Call { return v.call }

// Tool returns the tool that will run the call.
func (v Valid) Tool() Tool { return v.tool }

// ReadOnly reports whether the call only observes.
func (v Valid) ReadOnly() bool { return v.tool != nil && IsReadOnly(v.tool, v.call.Input) }

// ExecInput returns an Exec carrying only input (no id, name, progress or sink): for
// running a tool directly in tests.
func ExecInput(input json.RawMessage) *Exec { return NewExec(Call{Input: input}, nil, nil) }
