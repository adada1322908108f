package sqlitestore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/workflow"
	"github.com/ouroagent/ouro/workflow/engine"
	"github.com/ouroagent/ouro/workflow/sqlitestore"
	"github.com/ouroagent/ouro/workflow/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) workflow.Store {
		s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestDamagedFileSaysWhatToDo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sqlitestore.Open(path)
	if err == nil || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("%v", err)
	}
}

// TestMain lets the kill test run the workflow in a child process.
func TestMain(m *testing.M) {
	if db := os.Getenv("OURO_WF_CHILD_DB"); db != "" {
		s, err := sqlitestore.Open(db)
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

// kill -9 during step 4 of 5, then resume: steps 1-3 are not redone (each side effect
// happens once) and the result equals that of a run never interrupted.
func TestKillNineThenResume(t *testing.T) {
	dir := t.TempDir()
	db, fx := filepath.Join(dir, "state.db"), filepath.Join(dir, "effects")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OURO_WF_CHILD_DB="+db, "OURO_WF_CHILD_FX="+fx)
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
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	lines := func() []string {
		b, _ := os.ReadFile(fx)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
	if got := lines(); len(got) != 3 {
		t.Fatalf("before resume: %v", got)
	}

	s, err := sqlitestore.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	killed, err := s.Run(context.Background(), "wf_killed-run")
	if err != nil || killed.Status != workflow.StatusRunning {
		t.Fatalf("the killed run: %+v %v", killed, err)
	}
	// Journaled running, it shows as stopped once its lease runs out (nobody renews it).
	if killed.Lease.IsZero() || killed.Shown(killed.Lease.Add(-time.Millisecond)) != workflow.StatusRunning ||
		killed.Shown(killed.Lease) != workflow.StatusStopped {
		t.Fatalf("the killed run's lease: %+v", killed)
	}
	res, err := engine.Run(context.Background(), workflow.Script{Source: storetest.FiveSteps},
		workflow.Options{Runner: storetest.SideEffects(fx, 0), Store: s, Resume: "wf_killed-run"})
	if err != nil || res.Status != workflow.StatusCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	got := lines()
	if len(got) != 5 {
		t.Fatalf("side effects after resume (want each of 5 steps once): %v", got)
	}
	seen := map[string]int{}
	for _, l := range got {
		seen[l]++
		if seen[l] > 1 {
			t.Fatalf("a finished step was redone: %v", got)
		}
	}
	if res.Replayed != 3 {
		t.Fatalf("replayed %d", res.Replayed)
	}
	clean, err := engine.Run(context.Background(), workflow.Script{Source: storetest.FiveSteps},
		workflow.Options{Runner: storetest.SideEffects(filepath.Join(dir, "clean"), 0)})
	if err != nil || string(clean.Value) != string(res.Value) {
		t.Fatalf("resumed %s, uninterrupted %s (%v)", res.Value, clean.Value, err)
	}
	calls, _ := s.Calls(context.Background(), res.RunID)
	if len(calls) != 5 || !calls[0].Replayed || calls[3].Replayed || calls[4].Status != workflow.CallDone {
		t.Fatalf("journal of the resumed run: %+v", calls)
	}
}

// A journal made before runs had leases opens with the column added: its run left
// "running" shows as stopped, and new runs keep their leases.
func TestOldJournalGainsLeases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE workflow_runs (id TEXT PRIMARY KEY, name TEXT NOT NULL, script_path TEXT NOT NULL,
		script TEXT NOT NULL, args TEXT NOT NULL, resumed_from TEXT NOT NULL, status TEXT NOT NULL, result TEXT NOT NULL,
		error TEXT NOT NULL, tokens INTEGER NOT NULL, started TEXT NOT NULL, finished TEXT NOT NULL);
		INSERT INTO workflow_runs VALUES ('wf_oldrun', 'old', '', 's', '', '', 'running', '', '', 3, '2026-01-02T03:04:05Z', '')`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second open finds the column there
		s, err := sqlitestore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background(), "wf_oldrun")
		if err != nil || r.Tokens != 3 || r.Shown(time.Now()) != workflow.StatusStopped {
			t.Fatalf("%+v %v", r, err)
		}
		s.Close()
	}
	s, _ := sqlitestore.Open(path)
	defer s.Close()
	lease := time.Now().Add(time.Hour).UTC()
	if err := s.CreateRun(context.Background(), workflow.RunRecord{ID: "wf_newrun", Status: workflow.StatusRunning, Started: time.Now(), Lease: lease}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Run(context.Background(), "wf_newrun"); err != nil || !r.Lease.Equal(lease) || r.Shown(time.Now()) != workflow.StatusRunning {
		t.Fatalf("%+v %v", r, err)
	}
}

// A run's lease is renewed while it runs, so a run longer than one lease still shows
// running; its end clears it.
func TestLeaseIsRenewedWhileRunning(t *testing.T) {
	saved := workflow.LeaseTerm
	workflow.LeaseTerm = 150 * time.Millisecond
	t.Cleanup(func() { workflow.LeaseTerm = saved })
	s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	release := make(chan struct{})
	done := make(chan workflow.Result, 1)
	go func() {
		res, _ := engine.Run(context.Background(), workflow.Script{Source: "export const meta = {name: 'slow', description: 'd'};\nreturn await agent('wait');"},
			workflow.Options{RunID: "wf_slowrun", Store: s, Runner: workflow.RunnerFunc(func(ctx context.Context, _ string, _ workflow.AgentOptions) (string, llm.Usage, error) {
				<-release
				return "ok", llm.Usage{}, nil
			})})
		done <- res
	}()
	time.Sleep(700 * time.Millisecond) // several lease terms
	r, err := s.Run(context.Background(), "wf_slowrun")
	if err != nil || r.Shown(time.Now()) != workflow.StatusRunning {
		t.Fatalf("a live run past its first lease: %+v %v", r, err)
	}
	close(release)
	if res := <-done; res.Status != workflow.StatusCompleted {
		t.Fatalf("%+v", res)
	}
	time.Sleep(300 * time.Millisecond) // no renewal writes over the end
	if r, _ = s.Run(context.Background(), "wf_slowrun"); r.Status != workflow.StatusCompleted || !r.Lease.IsZero() {
		t.Fatalf("after the end: %+v", r)
	}
}

// Two processes' stores on one state.db, each running a workflow at once: both journals
// are complete and neither run sees the other's calls.
func TestTwoStoresShareOneFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "state.db")
	var runs [2]workflow.Result
	errs := make(chan error, 2)
	for i := range runs {
		go func() {
			s, err := sqlitestore.Open(db)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			runs[i], err = engine.Run(context.Background(), workflow.Script{Source: storetest.FiveSteps},
				workflow.Options{Runner: storetest.SideEffects(filepath.Join(filepath.Dir(db), fmt.Sprint("fx", i)), 0), Store: s})
			errs <- err
		}()
	}
	for range runs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s, err := sqlitestore.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range runs {
		calls, err := s.Calls(context.Background(), r.RunID)
		if err != nil || r.Status != workflow.StatusCompleted || len(calls) != 5 {
			t.Fatalf("%+v: %d calls, %v", r, len(calls), err)
		}
	}
}
