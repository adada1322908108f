// Package workflow runs Claude Code's workflow scripts: plain JavaScript that fans work out
// to agents (agent, parallel, pipeline), in an embedded engine (goja: no cgo, no Node),
// with every agent() call journaled so that a killed run resumes without redoing what
// finished. The script cannot reach the filesystem, the network or the clock; Date.now(),
// Math.random() and new Date() throw so that a resumed run sees the same values.
//
// goja is only loaded here: nothing outside a workflow run imports this package's engine
// at init, so ordinary sessions do not pay for it.
package engine

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/ouroagent/ouro/workflow"
)

var errBudget = errors.New("the workflow's token budget is spent")

// Run checks script, then runs it to its end under o. The error is for a run that could
// not start (a bad script, an unknown resume id, no runner); a run that started reports
// how it ended in Result.Status.
func Run(ctx context.Context, script workflow.Script, o workflow.Options) (workflow.Result, error) {
	p, err := prepare(nameOf(script), script.Source)
	if err != nil {
		return workflow.Result{}, err
	}
	if o.Runner == nil {
		return workflow.Result{}, errors.New("workflow: no runner for agent() calls")
	}
	if len(o.Args) > 0 && !json.Valid(o.Args) {
		return workflow.Result{}, errors.New("args is not valid JSON")
	}
	if o.Store == nil {
		o.Store = workflow.NewMemStore()
	}
	if o.Concurrency <= 0 {
		o.Concurrency = workflow.DefaultConcurrency()
	}
	if o.RunID == "" {
		o.RunID = workflow.NewRunID()
	}
	if !workflow.ValidRunID(o.RunID) {
		return workflow.Result{}, fmt.Errorf("run id %q does not match ^wf_[a-z0-9-]{6,}$", o.RunID)
	}
	r := &run{o: o, id: o.RunID, sem: make(chan struct{}, o.Concurrency)}
	if o.Resume != "" {
		if r.replay, err = loadReplay(ctx, o.Store, o.Resume); err != nil {
			return workflow.Result{}, err
		}
	}
	rec := workflow.RunRecord{ID: r.id, Name: p.meta.Name, ScriptPath: script.Path, Script: script.Source,
		Args: string(o.Args), ResumedFrom: o.Resume, Status: workflow.StatusRunning, Started: time.Now().UTC()}
	rec.Lease = rec.Started.Add(workflow.LeaseTerm)
	if err := o.Store.CreateRun(ctx, rec); err != nil {
		return workflow.Result{}, fmt.Errorf("workflow journal: %w", err)
	}
	stopLease := keepLease(context.WithoutCancel(ctx), o.Store, rec)
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, fmt.Errorf("the workflow ran past its time limit of %s", o.Timeout))
		defer cancel()
	}
	rctx, cancel := context.WithCancelCause(ctx)
	r.ctx, r.cancel = rctx, cancel
	stopWatch := r.watchMemory(o.MemoryLimit)
	value, runErr := r.exec(p, o.Args, 0)
	stopWatch()
	cancel(errors.New("the workflow ended")) // agents the script left running stop here
	r.wg.Wait()
	stopLease() // before the end is recorded, so no renewal writes over it

	res := workflow.Result{RunID: r.id, Meta: p.meta, Value: value, Status: workflow.StatusCompleted}
	r.mu.Lock()
	res.Tokens, res.Agents, res.Replayed = r.spent, r.calls, r.replayed
	fatal := r.fatal
	r.mu.Unlock()
	if fatal != nil {
		runErr = fatal
	}
	if runErr != nil {
		res.Value = json.RawMessage("null")
		res.Error = runErr.Error()
		switch {
		case errors.Is(runErr, errBudget):
			res.Status = workflow.StatusBudget
		case ctx.Err() != nil && context.Cause(ctx) != nil && !errors.Is(runErr, errLimit):
			res.Status = workflow.StatusInterrupted
			res.Error = "interrupted: " + context.Cause(ctx).Error()
		default:
			res.Status = workflow.StatusFailed
		}
	}
	rec.Status, rec.Result, rec.Error, rec.Tokens, rec.Finished = res.Status, string(res.Value), res.Error, res.Tokens, time.Now().UTC()
	rec.Lease = time.Time{}
	if err := o.Store.UpdateRun(context.WithoutCancel(ctx), rec); err != nil && res.Error == "" {
		res.Error = "the journal could not record the end of the run: " + err.Error()
	}
	return res, nil
}

// keepLease renews rec's lease every workflow.LeaseTerm/3 until the returned function is
// called (it returns once no renewal is under way). A renewal that fails is tried again at
// the next tick: the run goes on, and shows as stopped only if renewals keep failing.
func keepLease(ctx context.Context, store workflow.Store, rec workflow.RunRecord) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(workflow.LeaseTerm / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				rec.Lease = now.UTC().Add(workflow.LeaseTerm)
				_ = store.UpdateRun(ctx, rec)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func nameOf(s workflow.Script) string {
	if s.Path != "" {
		return s.Path
	}
	if s.Name != "" {
		return s.Name
	}
	return "workflow.js"
}

// run is the state one run shares across its script and the nested workflows it starts.
type run struct {
	o      workflow.Options
	id     string
	ctx    context.Context
	cancel context.CancelCauseFunc
	sem    chan struct{}
	replay *replay
	wg     sync.WaitGroup

	mu       sync.Mutex
	calls    int // agent() calls so far; the next call's index
	spent    int
	replayed int
	fatal    error // a limit or the budget ended the run
}

var errLimit = errors.New("workflow limit")

// stop ends the run because of err (a limit, the budget): every agent is cancelled and the
// script is interrupted.
func (r *run) stop(err error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = err
	}
	r.mu.Unlock()
	r.cancel(err)
}

func (r *run) emit(e workflow.Event) {
	if r.o.Observe != nil {
		e.RunID = r.id
		r.o.Observe(e)
	}
}

//go:embed prelude.js
var preludeJS string

// loop is one script's runtime and its event loop: goja is single-threaded, so work done
// on other goroutines (agents) comes back as jobs the loop runs.
type loop struct {
	r        *run
	vm       *goja.Runtime
	jobs     chan func() error
	done     chan struct{}
	inflight int // operations started whose job has not run yet
	phase    string
	depth    int
	parse    goja.Callable // JSON.parse
	strfy    goja.Callable // JSON.stringify
}

// post hands f to the loop; dropped when the loop has ended.
func (l *loop) post(f func() error) {
	select {
	case l.jobs <- f:
	case <-l.done:
	}
}

// exec runs one script (the run's own or a nested one) to its end and returns what it
// returned, as JSON.
func (r *run) exec(p prepared, args json.RawMessage, depth int) (json.RawMessage, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(2000)
	l := &loop{r: r, vm: vm, jobs: make(chan func() error, 16), done: make(chan struct{}), depth: depth}
	defer close(l.done)
	stop := context.AfterFunc(r.ctx, func() { vm.Interrupt(context.Cause(r.ctx)) })
	defer stop()
	if err := l.install(args); err != nil {
		return nil, err
	}
	prog, err := goja.CompileAST(p.program, false)
	if err != nil {
		return nil, fmt.Errorf("the script does not compile: %v", err)
	}
	fnv, err := vm.RunProgram(prog)
	if err != nil {
		return nil, l.explain(err)
	}
	fn, _ := goja.AssertFunction(fnv)
	pv, err := fn(goja.Undefined())
	if err != nil {
		return nil, l.explain(err)
	}
	promise, _ := pv.Export().(*goja.Promise)
	if promise == nil {
		return nil, errors.New("the script did not run as an async function")
	}
	for promise.State() == goja.PromiseStatePending {
		if l.inflight == 0 {
			return nil, errors.New("the script is waiting on a promise that nothing will ever settle (no agent or workflow is running)")
		}
		select {
		case job := <-l.jobs:
			if err := job(); err != nil {
				return nil, l.explain(err)
			}
		case <-r.ctx.Done():
			return nil, context.Cause(r.ctx)
		}
	}
	if promise.State() == goja.PromiseStateRejected {
		return nil, fmt.Errorf("the script threw: %s", describe(promise.Result()))
	}
	return l.toJSON(promise.Result())
}

// explain turns what goja returned into the run's error: an interrupt carries its cause.
func (l *loop) explain(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if cause, ok := ie.Value().(error); ok {
			return cause
		}
		return fmt.Errorf("interrupted: %v", ie.Value())
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return fmt.Errorf("the script threw: %s", describe(ex.Value()))
	}
	return err
}

func describe(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok {
		if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
			return st.String()
		}
	}
	if v == nil {
		return "undefined"
	}
	return v.String()
}

func (l *loop) toJSON(v goja.Value) (json.RawMessage, error) {
	if v == nil || goja.IsUndefined(v) {
		return json.RawMessage("null"), nil
	}
	s, err := l.strfy(goja.Undefined(), v)
	if err != nil {
		return nil, fmt.Errorf("the script's result cannot be turned into JSON: %v", l.explain(err))
	}
	if goja.IsUndefined(s) {
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(s.String()), nil
}

func (l *loop) fromJSON(raw json.RawMessage) goja.Value {
	if len(raw) == 0 {
		return goja.Null()
	}
	v, err := l.parse(goja.Undefined(), l.vm.ToValue(string(raw)))
	if err != nil {
		return goja.Null()
	}
	return v
}

// install sets the globals the script sees.
func (l *loop) install(args json.RawMessage) error {
	vm := l.vm
	jsonObj := vm.Get("JSON").ToObject(vm)
	l.parse, _ = goja.AssertFunction(jsonObj.Get("parse"))
	l.strfy, _ = goja.AssertFunction(jsonObj.Get("stringify"))
	r := l.r
	natives := vm.NewObject()
	_ = natives.Set("checkItems", func(n int, fn string) {
		if n > workflow.MaxItems {
			panic(vm.NewGoError(fmt.Errorf("%s got %d items; the limit is %d per call: split the work into batches", fn, n, workflow.MaxItems)))
		}
	})
	_ = natives.Set("failed", func(what, why string) {
		r.emit(workflow.Event{Kind: "log", Label: what + " failed (null): " + why})
	})
	_ = natives.Set("budgetTotal", func() float64 {
		if r.o.Budget <= 0 {
			return math.Inf(1)
		}
		return float64(r.o.Budget)
	})
	_ = natives.Set("budgetSpent", func() int { r.mu.Lock(); defer r.mu.Unlock(); return r.spent })
	_ = natives.Set("budgetRemaining", func() float64 {
		if r.o.Budget <= 0 {
			return math.Inf(1)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return float64(max(0, r.o.Budget-r.spent))
	})
	pre, err := vm.RunScript("prelude.js", preludeJS)
	if err != nil {
		return fmt.Errorf("workflow prelude: %v", err)
	}
	preFn, _ := goja.AssertFunction(pre)
	if _, err := preFn(goja.Undefined(), vm.GlobalObject(), natives); err != nil {
		return fmt.Errorf("workflow prelude: %v", err)
	}
	a := goja.Undefined()
	if len(args) > 0 {
		a = l.fromJSON(args)
	}
	for name, v := range map[string]any{
		"args":     a,
		"agent":    l.agent,
		"phase":    l.phaseFn,
		"log":      l.logFn,
		"workflow": l.workflow,
	} {
		if err := vm.Set(name, v); err != nil {
			return err
		}
	}
	return nil
}

func (l *loop) phaseFn(title string) {
	l.phase = title
	l.r.emit(workflow.Event{Kind: "phase", Label: title, Phase: title})
}

func (l *loop) logFn(call goja.FunctionCall) goja.Value {
	msg := ""
	for i, a := range call.Arguments {
		if i > 0 {
			msg += " "
		}
		if o, ok := a.(*goja.Object); ok {
			if j, err := l.toJSON(o); err == nil {
				msg += string(j)
				continue
			}
		}
		msg += a.String()
	}
	l.r.emit(workflow.Event{Kind: "log", Label: msg, Phase: l.phase})
	return goja.Undefined()
}

// throw raises err as a JavaScript Error in the script.
func (l *loop) throw(format string, a ...any) {
	panic(l.vm.NewGoError(fmt.Errorf(format, a...)))
}
