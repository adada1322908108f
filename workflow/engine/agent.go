package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
)

// SchemaAttempts is how often an agent with a schema is asked for an answer that fits it.
const SchemaAttempts = 3

// agent is the script's agent(prompt, opts?): it returns a promise of the agent's final
// text, or of the validated object when opts.schema is given, or of null if the agent died.
func (l *loop) agent(call goja.FunctionCall) goja.Value {
	pv := call.Argument(0)
	if _, ok := pv.Export().(string); !ok {
		l.throw("agent() takes a prompt string as its first argument, got %s", typeName(pv))
	}
	prompt := pv.String()
	if strings.TrimSpace(prompt) == "" {
		l.throw("agent() got an empty prompt: say what the agent should do")
	}
	var opts workflow.AgentOptions
	if ov := call.Argument(1); !goja.IsUndefined(ov) && !goja.IsNull(ov) {
		if _, ok := ov.(*goja.Object); !ok {
			l.throw("agent()'s second argument must be an options object, got %s", typeName(ov))
		}
		raw, err := l.toJSON(ov)
		if err != nil {
			l.throw("agent() options: %v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&opts); err != nil {
			l.throw("agent() options: %v (the options are label, phase, schema, model, effort, isolation, agentType)", err)
		}
	}
	var schema *jsonschema.Resolved
	if len(opts.Schema) > 0 && string(opts.Schema) != "null" {
		var err error
		if schema, err = compileSchema(opts.Schema); err != nil {
			l.throw("agent() schema: %v", err)
		}
	}
	switch opts.Isolation {
	case "", "worktree": // the runner gives the agent a fresh git worktree (subagent.Direct)
	default:
		l.throw("agent() isolation %q is unknown; the only value is 'worktree'", opts.Isolation)
	}
	if opts.Effort != "" && !slices.Contains(llm.Efforts, opts.Effort) {
		l.throw("agent() effort %q is unknown; it is one of %s (or left out for the model's default)", opts.Effort, strings.Join(llm.Efforts, ", "))
	}
	if opts.Phase == "" {
		opts.Phase = l.phase
	}
	r := l.r
	r.mu.Lock()
	if r.calls >= workflow.MaxAgents {
		r.mu.Unlock()
		err := fmt.Errorf("%w: the run started %d agents, the most one run may (run the rest as another workflow)", errLimit, workflow.MaxAgents)
		r.stop(err)
		l.throw("%v", err)
	}
	index := r.calls
	r.calls++
	r.mu.Unlock()

	hash := callHash(prompt, opts)
	promise, resolve, _ := l.vm.NewPromise()
	entry := workflow.CallRecord{RunID: r.id, Index: index, Hash: hash, Label: opts.Label, Phase: opts.Phase, Prompt: prompt}
	if hit, ok := r.replay.take(hash); ok {
		entry.Status, entry.Result, entry.Tokens, entry.Replayed = workflow.CallDone, hit.Result, hit.Tokens, true
		r.mu.Lock()
		r.replayed++
		r.mu.Unlock()
		if err := r.o.Store.PutCall(r.ctx, entry); err != nil {
			r.stop(fmt.Errorf("the workflow journal cannot be written: %w", err))
		}
		r.emit(workflow.Event{Kind: "agent_end", Index: index, Label: opts.Label, Phase: opts.Phase, Status: "replayed", Tokens: hit.Tokens})
		if err := resolve(l.fromJSON(json.RawMessage(hit.Result))); err != nil {
			panic(err)
		}
		return l.vm.ToValue(promise)
	}
	l.inflight++
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		result := r.runAgent(entry, prompt, opts, schema)
		l.post(func() error {
			l.inflight--
			if result == nil {
				return resolve(goja.Null())
			}
			return resolve(l.fromJSON(result))
		})
	}()
	return l.vm.ToValue(promise)
}

// runAgent runs one live agent call under the concurrency bound and the budget, journals
// it and returns its result as JSON (nil when the agent died or never fit the schema).
func (r *run) runAgent(entry workflow.CallRecord, prompt string, opts workflow.AgentOptions, schema *jsonschema.Resolved) json.RawMessage {
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	case <-r.ctx.Done():
		return nil
	}
	if r.remaining() == 0 {
		r.stop(fmt.Errorf("%w (%d tokens)", errBudget, r.o.Budget))
		return nil
	}
	ctx := r.ctx
	entry.Status, entry.Started = workflow.CallRunning, time.Now().UTC()
	if err := r.o.Store.PutCall(ctx, entry); err != nil {
		r.stop(fmt.Errorf("the workflow journal cannot be written: %w", err))
		return nil
	}
	r.emit(workflow.Event{Kind: "agent_start", Index: entry.Index, Label: opts.Label, Phase: opts.Phase})
	var result json.RawMessage
	var failure string
	ask := prompt
	if schema != nil {
		ask = prompt + "\n\n" + schemaInstruction(opts.Schema)
	}
	for attempt := 1; ; attempt++ {
		o := opts
		if rem := r.remaining(); rem > 0 {
			o.MaxTokens = rem
		}
		text, usage, err := r.o.Runner.Agent(ctx, ask, o)
		tokens := usage.InputTokens + usage.OutputTokens + usage.CacheCreationInputTokens + usage.CacheReadInputTokens
		entry.Tokens += tokens
		r.mu.Lock()
		r.spent += tokens
		r.mu.Unlock()
		if err != nil {
			failure = err.Error()
			break
		}
		if schema == nil {
			result, _ = json.Marshal(text)
			break
		}
		v, verr := fitSchema(text, schema)
		if verr == nil {
			result = v
			break
		}
		failure = "the answer did not fit the schema: " + verr.Error()
		if attempt >= SchemaAttempts || r.remaining() == 0 || ctx.Err() != nil {
			break
		}
		ask = prompt + "\n\n" + schemaInstruction(opts.Schema) +
			"\n\nYour previous answer did not fit the schema (" + verr.Error() + "). Answer again with only the JSON."
	}
	entry.Finished = time.Now().UTC()
	if result != nil {
		entry.Status, entry.Result = workflow.CallDone, string(result)
	} else {
		entry.Status, entry.Error = workflow.CallFailed, failure
	}
	if ctx.Err() != nil && result == nil {
		entry.Status, entry.Error = workflow.CallInterrupted, context.Cause(ctx).Error()
	}
	if err := r.o.Store.PutCall(context.WithoutCancel(ctx), entry); err != nil {
		r.stop(fmt.Errorf("the workflow journal cannot be written: %w", err))
	}
	r.emit(workflow.Event{Kind: "agent_end", Index: entry.Index, Label: opts.Label, Phase: opts.Phase, Status: entry.Status, Tokens: entry.Tokens})
	if r.o.Budget > 0 && r.remaining() == 0 {
		r.stop(fmt.Errorf("%w (%d tokens)", errBudget, r.o.Budget))
	}
	return result
}

// remaining is what is left of the budget: -1 when there is none, else ≥ 0.
func (r *run) remaining() int {
	if r.o.Budget <= 0 {
		return -1
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(0, r.o.Budget-r.spent)
}

// callHash identifies an agent() call by its prompt and options, for resume.
func callHash(prompt string, o workflow.AgentOptions) string {
	o.MaxTokens = 0
	if len(o.Schema) > 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, o.Schema) == nil {
			o.Schema = buf.Bytes()
		}
	}
	b, _ := json.Marshal(struct {
		P string                `json:"p"`
		O workflow.AgentOptions `json:"o"`
	}{prompt, o})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// compileSchema resolves an agent() schema with the validator ouro checks tool inputs
// with (github.com/google/jsonschema-go).
func compileSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var root jsonschema.Schema
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("not a JSON schema: %v", err)
	}
	root.Schema = "" // the validator knows two drafts only; nothing here depends on the draft
	return root.Resolve(nil)
}

func schemaInstruction(schema json.RawMessage) string {
	return "Answer with only a JSON value that fits this JSON Schema (no prose around it):\n" + string(schema)
}

// fitSchema finds the JSON in an agent's answer (bare, or in a ``` fence) and validates it.
func fitSchema(text string, s *jsonschema.Resolved) (json.RawMessage, error) {
	cand := strings.TrimSpace(text)
	if i := strings.Index(cand, "```"); i >= 0 {
		rest := cand[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			cand = strings.TrimSpace(rest[:j])
		}
	}
	if !json.Valid([]byte(cand)) {
		start := strings.IndexAny(cand, "{[")
		end := strings.LastIndexAny(cand, "}]")
		if start < 0 || end < start || !json.Valid([]byte(cand[start:end+1])) {
			return nil, errors.New("no JSON value found in the answer")
		}
		cand = cand[start : end+1]
	}
	var inst any
	if err := json.Unmarshal([]byte(cand), &inst); err != nil {
		return nil, err
	}
	if err := s.Validate(inst); err != nil {
		msg := err.Error()
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		return nil, errors.New(msg)
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, []byte(cand))
	return buf.Bytes(), nil
}

func typeName(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	return v.ExportType().String()
}

// workflow is the script's workflow(nameOrRef, args?): it runs a saved workflow as part
// of this run (its agents count toward this run's limits and budget, and are journaled
// with it) and returns a promise of what it returned. Nesting is one level deep.
func (l *loop) workflow(call goja.FunctionCall) goja.Value {
	if l.depth > 0 {
		l.throw("workflow() cannot be called from a nested workflow: nesting is one level deep")
	}
	name := call.Argument(0)
	if _, ok := name.Export().(string); !ok {
		l.throw("workflow() takes the name of a saved workflow, got %s", typeName(name))
	}
	if l.r.o.Resolve == nil {
		l.throw("workflow(%q): saved workflows are not available in this run", name.String())
	}
	s, err := l.r.o.Resolve(name.String())
	if err != nil {
		l.throw("workflow(%q): %v", name.String(), err)
	}
	p, err := prepare(nameOf(s), s.Source)
	if err != nil {
		l.throw("workflow(%q): %v", name.String(), err)
	}
	var args json.RawMessage
	if a := call.Argument(1); !goja.IsUndefined(a) {
		if args, err = l.toJSON(a); err != nil {
			l.throw("workflow(%q) args: %v", name.String(), err)
		}
	}
	promise, resolve, reject := l.vm.NewPromise()
	l.inflight++
	r := l.r
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		v, err := r.exec(p, args, l.depth+1)
		l.post(func() error {
			l.inflight--
			if err != nil {
				return reject(l.vm.NewGoError(fmt.Errorf("workflow(%q): %v", name.String(), err)))
			}
			return resolve(l.fromJSON(v))
		})
	}()
	return l.vm.ToValue(promise)
}
