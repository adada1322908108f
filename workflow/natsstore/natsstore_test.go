package natsstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/engine"
	"github.com/ouroagent/ouro/workflow/natsstore"
	"github.com/ouroagent/ouro/workflow/storetest"
)

// contract runs the journal contract on url, each test in a namespace of its own.
func contract(t *testing.T, url string) {
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) workflow.Store {
		s, err := natsstore.Open(context.Background(), fmt.Sprintf("%s?ns=w%d", url, n.Add(1)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestContractSingleServer(t *testing.T) { contract(t, natstest.Server(t).URL()) }

func TestContractCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("3-node cluster")
	}
	contract(t, natstest.Start3(t).URL())
}

// TestMain lets the kill test run the workflow in another process.
func TestMain(m *testing.M) {
	if url := os.Getenv("OURO_WF_CHILD_STORE"); url != "" {
		s, err := natsstore.Open(context.Background(), url)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		_, err = engine.Run(context.Background(), workflow.Script{Source: storetest.FiveSteps},
			workflow.Options{Runner: storetest.SideEffects(os.Getenv("OURO_WF_CHILD_FX"), 4), Store: s, RunID: "wf_killed-run"})
		fmt.Fprintln(os.Stderr, "the child was not killed:", err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// A run killed with kill -9 in one process during step 4 of 5 is resumed by another
// process through the cluster: steps 1-3 are not redone, and the result equals that of a
// run never interrupted. A node of the cluster is killed between the two.
func TestKilledRunResumesElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("3-node cluster")
	}
	c := natstest.Start3(t)
	url := c.URL()
	dir := t.TempDir()
	fx := filepath.Join(dir, "effects")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OURO_WF_CHILD_STORE="+url, "OURO_WF_CHILD_FX="+fx)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(fx + ".started"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("step 4 never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	c.Kill(1)
	c.WaitLeader()
	lines := func() []string {
		b, _ := os.ReadFile(fx)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
	if got := lines(); len(got) != 3 {
		t.Fatalf("before resume: %v", got)
	}
	// A node was just killed: the bucket's stream may take a while to elect a leader on a
	// busy machine, so opening is tried again for a while before it counts as a failure.
	var s *natsstore.Store
	var err error
	for try := 0; ; try++ {
		if s, err = natsstore.Open(context.Background(), url); err == nil || try > 5 {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var killed workflow.RunRecord
	for try := 0; ; try++ { // the bucket's stream may still be electing a leader
		if killed, err = s.Run(context.Background(), "wf_killed-run"); err == nil || try > 50 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil || killed.Status != workflow.StatusRunning {
		t.Fatalf("the killed run: %+v %v", killed, err)
	}
	res, err := engine.Run(context.Background(), workflow.Script{Source: storetest.FiveSteps},
		workflow.Options{Runner: storetest.SideEffects(fx, 0), Store: s, Resume: "wf_killed-run"})
	if err != nil || res.Status != workflow.StatusCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	got := lines()
	seen := map[string]int{}
	for _, l := range got {
		if seen[l]++; seen[l] > 1 {
			t.Fatalf("a finished step was redone: %v", got)
		}
	}
	if len(got) != 5 || res.Replayed != 3 {
		t.Fatalf("side effects after resume %v, replayed %d; want 5 steps once each, 3 replayed", got, res.Replayed)
	}
	clean, err := engine.Run(context.Background(), workflow.Script{Source: storetest.FiveSteps},
		workflow.Options{Runner: storetest.SideEffects(filepath.Join(dir, "clean"), 0)})
	if err != nil || string(clean.Value) != string(res.Value) {
		t.Fatalf("resumed %s, uninterrupted %s (%v)", res.Value, clean.Value, err)
	}
}

func TestBadRunIDs(t *testing.T) {
	s, err := natsstore.Open(context.Background(), natstest.Server(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.CreateRun(ctx, workflow.RunRecord{ID: "wf_a.>*"}); err == nil {
		t.Fatal("a run id with subject wildcards was accepted")
	}
	if _, err := s.Run(ctx, "wf_x.*"); err != workflow.ErrNotFound {
		t.Fatalf("%v", err)
	}
	if calls, err := s.Calls(ctx, ">"); err != nil || len(calls) != 0 {
		t.Fatalf("%v %v", calls, err)
	}
}
