package wfproc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/engine"
	"github.com/ouroagent/ouro/workflow/sqlitestore"
	"github.com/ouroagent/ouro/workflow/wfproc"
)

// The test binary is the helper when OURO_WFPROC_HELPER is set.
func TestMain(m *testing.M) {
	if os.Getenv("OURO_WFPROC_HELPER") == "1" {
		err := wfproc.Serve(os.Stdin, os.Stdout, wfproc.Backend{
			Open:   func(p string) (workflow.Store, error) { return sqlitestore.Open(p) },
			Engine: func(s workflow.Store) workflow.Engine { return engine.Local{Store: s} },
			Check:  engine.Check,
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if f := os.Getenv("OURO_WFPROC_ENDED"); f != "" { // what an engine does after its last line
			time.Sleep(300 * time.Millisecond)
			os.WriteFile(f, []byte("ended"), 0o644)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func client(t *testing.T) wfproc.Client {
	t.Setenv("OURO_WFPROC_HELPER", "1")
	dir := t.TempDir()
	return wfproc.Client{Bin: os.Args[0], StatePath: filepath.Join(dir, "state.db"), CWD: dir}
}

const head = "export const meta = { name: 'p', description: 'proc' };\n"

func TestRunThroughTheHelper(t *testing.T) {
	c := client(t)
	ctx := context.Background()
	if _, err := c.Check(ctx, "return 1"); err == nil || !strings.Contains(err.Error(), "export const meta") {
		t.Fatalf("check: %v", err)
	}
	if m, err := c.Check(ctx, head); err != nil || m.Name != "p" {
		t.Fatalf("check: %+v %v", m, err)
	}
	var calls atomic.Int64
	runner := workflow.RunnerFunc(func(_ context.Context, p string, o workflow.AgentOptions) (string, llm.Usage, error) {
		calls.Add(1)
		if p == "die" {
			return "", llm.Usage{}, errors.New("died")
		}
		return o.Label + ":" + p, llm.Usage{OutputTokens: 5}, nil
	})
	var phases atomic.Int64
	src := head + "phase('one'); return [args.x, await agent('hi', {label: 'L'}), await agent('die'), await agent('v', {schema: {type: 'string'}})];"
	o := workflow.Options{Runner: runner, Args: []byte(`{"x": 3}`), Observe: func(e workflow.Event) {
		if e.Kind == "phase" {
			phases.Add(1)
		}
	}}
	res, err := c.Run(ctx, workflow.Script{Source: src}, o)
	if err != nil || res.Status != workflow.StatusCompleted || string(res.Value) != `[3,"L:hi",null,null]` || phases.Load() != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	// The journal's record carries the script: the Workflow tool resumes a run from it.
	if rec, err := c.Journal(ctx, res.RunID); err != nil || rec.Status != workflow.StatusCompleted || rec.Script != src {
		t.Fatalf("journal: %+v %v", rec, err)
	}
	if _, err := c.Journal(ctx, "wf_nothere"); !errors.Is(err, workflow.ErrNotFound) {
		t.Fatalf("missing run: %v", err)
	}
	show, err := c.Text(ctx, "show", res.RunID)
	if err != nil || !strings.Contains(show, "one\n") || !strings.Contains(show, `"L:hi"`) {
		t.Fatalf("show: %s %v", show, err)
	}
	// Resume with only the run id: the journaled script and args; the calls that finished
	// are not made again.
	before := calls.Load()
	o.Args = nil
	again, err := c.Run(ctx, workflow.Script{}, workflow.Options{Runner: runner, Resume: res.RunID})
	if err != nil || string(again.Value) != string(res.Value) || again.Replayed != 1 || calls.Load()-before != 1+engine.SchemaAttempts {
		t.Fatalf("resume: %+v %v calls=%d", again, err, calls.Load()-before)
	}
}

// An engine that has sent its result ends on its own (closing its journal, writing its
// OURO_PROFILE profiles) before Run returns: it is not killed as soon as the result is in.
func TestAFinishedEngineEndsOnItsOwn(t *testing.T) {
	c := client(t)
	ended := filepath.Join(t.TempDir(), "ended")
	t.Setenv("OURO_WFPROC_ENDED", ended)
	res, err := c.Run(context.Background(), workflow.Script{Source: head + "return 1"}, workflow.Options{Runner: workflow.RunnerFunc(
		func(context.Context, string, workflow.AgentOptions) (string, llm.Usage, error) {
			return "", llm.Usage{}, nil
		})})
	if err != nil || res.Status != workflow.StatusCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	if b, err := os.ReadFile(ended); err != nil || string(b) != "ended" {
		t.Fatalf("the engine was killed after its result: %v", err)
	}
}

// Cancelling the run kills the helper; the result says the run was interrupted.
func TestCancelStopsTheHelper(t *testing.T) {
	c := client(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	res, err := c.Run(ctx, workflow.Script{Source: head + "while (true) {}"}, workflow.Options{Runner: workflow.RunnerFunc(
		func(context.Context, string, workflow.AgentOptions) (string, llm.Usage, error) {
			return "", llm.Usage{}, nil
		})})
	if err != nil || res.Status != workflow.StatusInterrupted {
		t.Fatalf("%+v %v", res, err)
	}
}

// A stopped run (TaskStop, the session ending) gives the helper the time to record it
// as interrupted, so the journal does not say it still runs; the agents this side ran
// are cancelled at once.
func TestCancelRecordsTheRunInterrupted(t *testing.T) {
	c := client(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var cancelled atomic.Bool
	runner := workflow.RunnerFunc(func(actx context.Context, _ string, _ workflow.AgentOptions) (string, llm.Usage, error) {
		close(started)
		<-actx.Done()
		cancelled.Store(true)
		return "", llm.Usage{}, actx.Err()
	})
	go func() { <-started; cancel() }()
	res, err := c.Run(ctx, workflow.Script{Source: head + "return await agent('wait')"}, workflow.Options{Runner: runner, RunID: "wf_stopped1"})
	if err != nil || res.Status != workflow.StatusInterrupted || !cancelled.Load() {
		t.Fatalf("%+v %v cancelled=%v", res, err, cancelled.Load())
	}
	rec, err := c.Journal(context.Background(), "wf_stopped1")
	if err != nil || rec.Status != workflow.StatusInterrupted {
		t.Fatalf("journal: %+v %v", rec, err)
	}
}

// Self starts this very program in its engine mode, and only once the program has said
// it serves that mode (MaybeServe); before, it says why workflows are unavailable.
func TestSelfNeedsMaybeServe(t *testing.T) {
	wfproc.ForgetMaybeServe()
	t.Cleanup(wfproc.ForgetMaybeServe)
	if _, err := wfproc.Self("s.db", "/w"); err == nil || !strings.Contains(err.Error(), "wfserve.MaybeServe") {
		t.Fatalf("before MaybeServe: %v", err)
	}
	wfproc.MaybeServe(nil) // not started with ModeArg: returns at once
	c, err := wfproc.Self("s.db", "/w")
	exe, _ := os.Executable()
	if err != nil || c.Bin != exe || len(c.Args) != 1 || c.Args[0] != wfproc.ModeArg || c.StatePath != "s.db" || c.CWD != "/w" {
		t.Fatalf("after MaybeServe: %+v %v", c, err)
	}
}
