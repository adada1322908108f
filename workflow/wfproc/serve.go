package wfproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
)

// Backend is what the engine runs requests with: its journal and its engine.
type Backend struct {
	Open   func(statePath string) (workflow.Store, error)
	Engine func(workflow.Store) workflow.Engine
	Check  func(src string) (workflow.Meta, error)
	// MemoryLimit is what a run's script may use (workflow.Options.MemoryLimit); nil: no
	// limit. Its error (a bad setting) fails the run before it starts.
	MemoryLimit func() (int64, error)
}

// Serve answers one request from in on out (the engine mode's main). When in ends (ouro is
// gone) a run stops.
func Serve(in io.Reader, out io.Writer, b Backend) error {
	r := bufio.NewReaderSize(in, 1<<20)
	dec := json.NewDecoder(r)
	var req request
	if err := dec.Decode(&req); err != nil {
		return fmt.Errorf("the workflow engine mode (%s) reads one JSON request on stdin (ouro starts it, not by hand): %v", ModeArg, err)
	}
	enc := json.NewEncoder(out)
	var wmu sync.Mutex
	send := func(m message) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = enc.Encode(m)
	}
	fail := func(err error) error {
		send(message{Type: "fail", Error: err.Error(), NotFound: errors.Is(err, workflow.ErrNotFound)})
		return nil
	}
	if req.Op == "check" {
		m, err := b.Check(req.Source)
		if err != nil {
			return fail(err)
		}
		send(message{Type: "done", Meta: &m})
		return nil
	}
	store, err := b.Open(req.StatePath)
	if err != nil {
		return fail(err)
	}
	defer store.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	switch req.Op {
	case "journal":
		id, err := workflow.ResolveRunID(ctx, store, req.RunID)
		if err != nil {
			return fail(err)
		}
		rec, err := store.Run(ctx, id)
		if err != nil {
			return fail(err)
		}
		send(message{Type: "done", Run: &rec, Source: rec.Script})
		return nil
	case "list":
		var sb strings.Builder
		if err := List(ctx, &sb, store, req.CWD, b.Check); err != nil {
			return fail(err)
		}
		send(message{Type: "done", Output: sb.String()})
		return nil
	case "show":
		var sb strings.Builder
		if err := Show(ctx, &sb, store, req.RunID); err != nil {
			return fail(err)
		}
		send(message{Type: "done", Output: sb.String()})
		return nil
	case "run":
	default:
		return fail(fmt.Errorf("unknown request %q", req.Op))
	}

	var mu sync.Mutex
	pending := map[int]chan message{}
	next := 0
	go func() {
		for {
			var m message
			if err := dec.Decode(&m); err != nil {
				cancel(errors.New("ouro stopped the workflow")) // ouro is gone
				return
			}
			mu.Lock()
			ch := pending[m.Call]
			delete(pending, m.Call)
			mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}()
	runner := workflow.RunnerFunc(func(ctx context.Context, prompt string, o workflow.AgentOptions) (string, llm.Usage, error) {
		ch := make(chan message, 1)
		mu.Lock()
		next++
		id := next
		pending[id] = ch
		mu.Unlock()
		send(message{Type: "agent", Call: id, Prompt: prompt, Opts: &o, MaxTokens: o.MaxTokens})
		select {
		case m := <-ch:
			if m.Error != "" {
				return m.Text, m.Usage, errors.New(m.Error)
			}
			return m.Text, m.Usage, nil
		case <-ctx.Done():
			mu.Lock()
			delete(pending, id)
			mu.Unlock()
			return "", llm.Usage{}, context.Cause(ctx)
		}
	})
	var memLimit int64
	if b.MemoryLimit != nil {
		if memLimit, err = b.MemoryLimit(); err != nil {
			return fail(err)
		}
	}
	script := req.Script
	args := req.Args
	if script.Source == "" && req.Resume != "" {
		prev, err := store.Run(ctx, req.Resume)
		if err != nil {
			if errors.Is(err, workflow.ErrNotFound) {
				return fail(fmt.Errorf("there is no workflow run %s to resume", req.Resume))
			}
			return fail(err)
		}
		script = workflow.Script{Name: prev.Name, Path: prev.ScriptPath, Source: prev.Script}
		if len(args) == 0 && prev.Args != "" {
			args = json.RawMessage(prev.Args)
		}
	}
	res, err := b.Engine(store).Run(ctx, script, workflow.Options{
		Runner: runner, Store: store, Args: args, Resume: req.Resume, RunID: req.RunID, Budget: req.Budget, Timeout: req.Timeout,
		MemoryLimit: memLimit,
		Resolve: func(name string) (workflow.Script, error) {
			return workflow.FindSaved(workflow.SavedDirs(req.CWD), name)
		},
		Observe: func(e workflow.Event) { send(message{Type: "event", Event: &e}) },
	})
	if err != nil {
		return fail(err)
	}
	send(message{Type: "done", Result: &res})
	return nil
}

// List writes the saved workflows of cwd and the journal's recent runs.
func List(ctx context.Context, w io.Writer, store workflow.Store, cwd string, check func(string) (workflow.Meta, error)) error {
	dirs := workflow.SavedDirs(cwd)
	saved := workflow.ListSaved(dirs, check)
	if len(saved) == 0 {
		fmt.Fprintf(w, "No saved workflows (in %s).\n", strings.Join(dirs, " or "))
	} else {
		fmt.Fprintln(w, "Saved workflows:")
	}
	for _, s := range saved {
		if s.Err != nil {
			fmt.Fprintf(w, "  %-20s (does not parse: %v)\n", s.Name, s.Err)
			continue
		}
		fmt.Fprintf(w, "  %-20s %s\n", s.Name, s.Meta.Description)
	}
	runs, err := store.Runs(ctx)
	if err != nil {
		return err
	}
	if len(runs) > 0 {
		fmt.Fprintln(w, "Runs:")
	}
	now := time.Now()
	for i, r := range runs {
		if i == 20 {
			fmt.Fprintf(w, "  … and %d older\n", len(runs)-20)
			break
		}
		fmt.Fprintf(w, "  %s  %-16s %-10s %7d tokens  %s\n", r.ID, r.Shown(now), r.Name, r.Tokens, r.Started.Local().Format("2006-01-02 15:04"))
		if note := workflow.StoppedNote(r, runs, now); note != "" {
			fmt.Fprintf(w, "      %s\n", note)
		}
	}
	return nil
}

// Show writes a run (its id, or what workflow.ResolveRunID takes for one): its phases,
// each agent's status, tokens and result.
func Show(ctx context.Context, w io.Writer, store workflow.Store, arg string) error {
	id, err := workflow.ResolveRunID(ctx, store, arg)
	if errors.Is(err, workflow.ErrNotFound) {
		return fmt.Errorf("there is no workflow run %s ('ouro workflow list' shows the runs)", arg)
	}
	if err != nil {
		return err
	}
	r, err := store.Run(ctx, id)
	if err != nil {
		return err
	}
	calls, err := store.Calls(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s  %s  %s  %d tokens\n", r.ID, r.Name, r.Shown(time.Now()), r.Tokens)
	if r.Shown(time.Now()) == workflow.StatusStopped {
		fmt.Fprintf(w, "%s\n", workflow.ResumeHint(r.ID))
	}
	if r.ScriptPath != "" {
		fmt.Fprintf(w, "script: %s\n", r.ScriptPath)
	}
	if r.ResumedFrom != "" {
		fmt.Fprintf(w, "resumed from: %s\n", r.ResumedFrom)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	phase := "\x00"
	for _, c := range calls {
		if c.Phase != phase {
			phase = c.Phase
			title := phase
			if title == "" {
				title = "(no phase)"
			}
			fmt.Fprintf(w, "%s\n", title)
		}
		label := c.Label
		if label == "" {
			label = textcut.OneLine(c.Prompt, 50, "…")
		}
		status := c.Status
		if c.Replayed {
			status += " (replayed)"
		}
		out := c.Result
		if c.Status != workflow.CallDone {
			out = c.Error
		}
		fmt.Fprintf(w, "  #%-3d %-28s %-20s %6d tokens  %s\n", c.Index, label, status, c.Tokens, textcut.OneLine(out, 100, "…"))
	}
	if r.Result != "" {
		fmt.Fprintf(w, "result: %s\n", r.Result)
	}
	return nil
}
