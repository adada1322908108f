// Package tool defines what a tool is to ouro and the registry that dispatches calls to
// tools by name. The registry is the one place every call passes through, so the rules
// that hold for every tool (unknown names, malformed input, panics) live here.
package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// Tool is one action the model can take.
type Tool interface {
	// Spec is what the model sees: name, description, JSON schema of the input.
	Spec() llm.ToolSpec
	// ReadOnly reports whether the tool only observes (never writes files or runs
	// commands); read-only calls may run concurrently.
	ReadOnly() bool
	// Run executes one call: x carries the call itself (its tool_use id, name and input,
	// which the registry has validated against the schema) and what the tool may do while
	// it runs (report progress, notify the session); ctx cancels it. A returned error
	// becomes an is_error result carrying its text; a Result may also set IsError itself.
	Run(ctx context.Context, x *Exec) (Result, error)
}

// InputReadOnly is implemented by tools whose effect depends on the input (a Task call
// delegating to a read-only agent type only reads; one delegating to a general agent may
// write). When present it decides instead of ReadOnly for each call.
type InputReadOnly interface {
	ReadOnlyInput(input json.RawMessage) bool
}

// IsReadOnly reports whether a call of t with input only observes.
func IsReadOnly(t Tool, input json.RawMessage) bool {
	if ir, ok := t.(InputReadOnly); ok {
		return ir.ReadOnlyInput(input)
	}
	return t.ReadOnly()
}

// Call is one tool_use from the model.
type Call struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// Result is what a call produced.
type Result struct {
	Content []llm.Block // text and image blocks
	IsError bool
	// NeedsInput is set by a tool that asked the user something that nobody is there to
	// answer (a headless run): the loop answers every call, then ends the run as
	// needs_input with this question.
	NeedsInput string
	// Files lists the files this call changed, for the audit.
	Files []FileChange
	// ChangedState tells the registry that this call changed session state that later
	// calls depend on (a Read that lets an Edit go ahead), even though the tool only reads.
	ChangedState bool
	// Abort, when set, ends the run as failed with this reason once every call of the
	// turn has its result (e.g. the same failing call repeated with nothing changed).
	Abort string
	// Omitted is how many characters of what the call produced the tool itself left out
	// of Content (saying so in the text), e.g. the middle of a huge command output. When
	// the output budget saves the result to a file, that file lacks them too, and the
	// note the model reads says so instead of calling the file the full output.
	Omitted int64
}

// FileChange is one file a call wrote: its path and the SHA-256 of its content before
// (empty for a new file) and after.
type FileChange struct {
	Path   string `json:"path"`
	Before string `json:"sha256_before,omitempty"`
	After  string `json:"sha256_after"`
}

// Text returns a successful text result.
func Text(s string) Result { return Result{Content: []llm.Block{llm.TextBlock(s)}} }

// Errorf returns an error result.
func Errorf(format string, args ...any) Result {
	return Result{Content: []llm.Block{llm.TextBlock(fmt.Sprintf(format, args...))}, IsError: true}
}

// Interrupted is the result for a call that was cancelled or never ran because the turn
// was interrupted.
func Interrupted() Result {
	return Errorf("Interrupted: the call was stopped before it finished (the turn was interrupted or ran out of time); it may not have run, or run only in part.")
}

// Text concatenates the result's text blocks.
func (r Result) Text() string {
	var sb strings.Builder
	for _, b := range r.Content {
		if b.Type == llm.BlockText {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// Block turns the result into the tool_result block answering call id.
func (r Result) Block(id string) llm.Block {
	var content []llm.Block
	for _, b := range r.Content {
		if b.Type != llm.BlockText || b.Text != "" {
			content = append(content, b)
		}
	}
	if len(content) == 0 {
		content = []llm.Block{llm.TextBlock("(no output)")}
	}
	return llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: content, IsError: r.IsError}
}

// Options tune the rules every call goes through.
type Options struct {
	// OutputBudget is how many characters of a result the model sees (0 means
	// DefaultOutputBudget, <0 no limit); past it the full text is spilled to SpillDir.
	OutputBudget int
	// SpillDir receives oversized outputs (the session's tool-results folder).
	SpillDir string
	// MaxRepeats is how many refused repetitions of a failed call in a row end the run
	// (0 means DefaultMaxRepeats).
	MaxRepeats int
	// Notify is the session's notification sink, handed to every call (Exec.Notify); nil
	// drops notifications.
	Notify Notifier
}

// Registry holds the tools offered to the model and dispatches calls to them. It keeps
// per-session state (failed calls, whether anything changed since), so each session and
// each subagent has its own. It is safe for concurrent use by read-only calls.
type Registry struct {
	// set guards tools, schemas and order: MCP servers add and remove tools while a
	// session runs (list_changed), and background agents read the set meanwhile.
	set     sync.RWMutex
	tools   map[string]Tool
	schemas map[string]*schema
	order   []string
	opts    Options

	mu       sync.Mutex
	gen      uint64 // advanced by every call that may change state
	failures map[string]failure
	streak   int
	deferred map[string]bool // deferred tools: true until loaded (deferred.go)
	loaded   []string        // deferred tools in the order they were loaded
}

// NewRegistry returns a registry holding tools; it panics on a duplicate name or a broken
// schema, which are programming errors.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}, schemas: map[string]*schema{}, failures: map[string]failure{}}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			panic(err)
		}
	}
	return r
}

// Add registers t.
func (r *Registry) Add(t Tool) error {
	spec := t.Spec() // outside the lock: ToolSearch's Spec reads the set
	name := spec.Name
	if name == "" {
		return errors.New("tool: a tool needs a name")
	}
	sch, err := compileSchema(name, spec.InputSchema)
	if err != nil {
		return err
	}
	r.set.Lock()
	defer r.set.Unlock()
	if _, dup := r.tools[name]; dup {
		return fmt.Errorf("tool: %q is registered twice", name)
	}
	r.schemas[name] = sch
	r.tools[name] = t
	r.order = append(r.order, name)
	return nil
}

// Remove takes a tool out of what the model is offered.
func (r *Registry) Remove(name string) {
	r.set.Lock()
	defer r.set.Unlock()
	if _, ok := r.tools[name]; !ok {
		return
	}
	delete(r.tools, name)
	delete(r.schemas, name)
	r.mu.Lock()
	delete(r.deferred, name)
	r.loaded = slices.DeleteFunc(r.loaded, func(n string) bool { return n == name })
	r.mu.Unlock()
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.set.RLock()
	defer r.set.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the tools in registration order.
func (r *Registry) Names() []string {
	r.set.RLock()
	defer r.set.RUnlock()
	return append([]string(nil), r.order...)
}

// Specs lists the specs of the tools offered: the tools that are not deferred in
// registration order, then the deferred ones loaded so far in the order they were loaded.
// Loading a tool so only adds to the end of the list: a server's prompt cache keeps every
// earlier tool (and, where tools come after the system prompt, the system prompt too).
func (r *Registry) Specs() []llm.ToolSpec {
	r.set.RLock()
	offered := make([]Tool, 0, len(r.order))
	r.mu.Lock()
	for _, n := range r.order {
		if _, deferred := r.deferred[n]; !deferred {
			offered = append(offered, r.tools[n])
		}
	}
	for _, n := range r.loaded {
		if t, ok := r.tools[n]; ok {
			offered = append(offered, t)
		}
	}
	r.mu.Unlock()
	r.set.RUnlock()
	// Spec is called outside the lock: ToolSearch's lists the deferred tools, which reads
	// the set again.
	out := make([]llm.ToolSpec, 0, len(offered))
	for _, t := range offered {
		out = append(out, t.Spec())
	}
	return out
}

// SetOptions sets the output budget, spill directory and repetition bound.
func (r *Registry) SetOptions(o Options) { r.opts = o }

// Run checks one call and, if it is valid, runs it (Check, then RunValid). It never
// panics and always returns a result.
func (r *Registry) Run(ctx context.Context, c Call) Result {
	v, bad, ok := r.Check(c)
	if !ok {
		return bad
	}
	return r.RunValid(ctx, v, nil)
}

// RunValid runs a checked call. It never panics and always returns a result: a call
// identical to one that failed while nothing changed is not run again; a panic in a tool
// becomes an error result; and an output past the budget is spilled to a file the model
// can Read. onProgress (may be nil) receives the tool's progress reports while it runs. A Valid made by
// another registry (or the zero Valid) is checked again against this one.
func (r *Registry) RunValid(ctx context.Context, v Valid, onProgress func(Call, Progress)) Result {
	if v.reg != r {
		var bad Result
		var ok bool
		if v, bad, ok = r.Check(v.call); !ok {
			return bad
		}
	}
	c := v.call
	key := callKey(c)
	if res, blocked := r.checkRepeat(key, c.Name); blocked {
		return res
	}
	x := &Exec{Call: c, progress: onProgress, notify: r.opts.Notify}
	res, ran := r.execute(ctx, v.tool, x)
	x.ended.Store(true)
	mayChange := ran && !v.ReadOnly()
	if ctx.Err() != nil {
		// An interrupted call is no evidence either way: never refuse its retry.
		r.touch(mayChange)
	} else {
		r.record(key, mayChange || res.ChangedState, res)
	}
	r.applyBudget(v.tool, c, &res)
	return res
}

// Check validates a call without running it: the tool must exist and the input must be
// an object that fits its schema. Only a call that passes becomes a Valid, the one thing
// RunValid runs. The loop checks before asking permission, so a malformed call is reported
// as what it is, never put to a rule or a person; on failure bad is the result to send.
func (r *Registry) Check(c Call) (v Valid, bad Result, ok bool) {
	r.set.RLock()
	t, sch := r.tools[c.Name], r.schemas[c.Name]
	r.set.RUnlock()
	if t == nil {
		names := r.Names()
		sort.Strings(names)
		return Valid{}, Errorf("Unknown tool %q. The tools that exist are: %s.", c.Name, strings.Join(names, ", ")), false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(c.Input, &obj); err != nil || obj == nil {
		return Valid{}, Errorf("Invalid input for %s: the input must be a JSON object, got %s.", c.Name, textcut.Bytes(string(c.Input), 200, "…")), false
	}
	if err := sch.check(c.Input); err != nil {
		hint := ""
		if r.hidden(c.Name) {
			hint = fmt.Sprintf("\nIts schema is not loaded: call %s with query \"select:%s\" to read it.", ToolSearchName, c.Name)
		}
		return Valid{}, Errorf("Invalid input for %s; the call was not run:\n%s%s", c.Name, err, hint), false
	}
	r.Load(c.Name) // a deferred tool called by name is offered from now on
	return Valid{call: c, tool: t, reg: r}, Result{}, true
}

// execute runs a checked call; ran reports whether the tool itself was invoked.
func (r *Registry) execute(ctx context.Context, t Tool, x *Exec) (res Result, ran bool) {
	if err := ctx.Err(); err != nil {
		return Interrupted(), false
	}
	defer func() {
		if p := recover(); p != nil {
			ran = true
			res = Errorf("Tool %s crashed: %v. This is a bug in ouro, not in your input; try another way.\n%s", x.Name, p, textcut.Bytes(string(debug.Stack()), 2000, "…"))
		}
	}()
	out, err := t.Run(ctx, x)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return Interrupted(), true
		}
		out.IsError = true
		msg := err.Error()
		if txt := out.Text(); txt != "" {
			msg = txt + "\n" + msg
		}
		out.Content = []llm.Block{llm.TextBlock(msg)}
	}
	return out, true
}
