package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/ouroagent/ouro/eval"
	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/internal/natstest"
)

// TestMain lets the kill test start this binary as a worker that dies: "hang" takes a
// job and is killed while running it; "publish" runs its job, publishes the result and
// is killed before acknowledging it.
func TestMain(m *testing.M) {
	if role := os.Getenv("FLEET_DYING_WORKER"); role != "" {
		os.Exit(dying(role, os.Getenv("FLEET_STORE")))
	}
	os.Exit(m.Run())
}

func dying(role, url string) int {
	ctx := context.Background()
	cfg, _ := natsjs.Parse(url)
	c, err := natsjs.Connect(ctx, cfg, "dying worker")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	n, cons, err := streams(ctx, c, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	m, err := cons.Next(jetstream.FetchMaxWait(10 * time.Second))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var j Job
	json.Unmarshal(m.Data(), &j)
	if role == "publish" {
		out, _ := os.MkdirTemp("", "dying-worker-")
		res := run(ctx, WorkerOptions{Name: "dying", Out: out}, j, map[string][]eval.Task{}, m, time.Hour)
		data, _ := json.Marshal(res)
		if _, err := c.JS.Publish(ctx, n.results+"."+j.EvalID, data, jetstream.WithMsgID(j.EvalID+"."+j.key())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	fmt.Println(role, j.key())
	time.Sleep(time.Minute)
	return 0
}

// Two workers die holding jobs (kill -9): one mid-run, one after publishing its result
// but before acknowledging. Both jobs are redelivered after the ack wait and run by the
// live workers; the evaluation counts every run exactly once.
func TestKilledWorkersJobsAreRedeliveredAndCountedOnce(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	url := natstest.Server(t).URL()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "tasks")
	all, err := eval.LoadTasks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []eval.Task
	for _, tk := range all {
		if tk.Name == "go-scout-entry" || tk.Name == "go-scout-config" {
			tasks = append(tasks, tk)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := func() *natsjs.Conn {
		cfg, _ := natsjs.Parse(url)
		c, err := natsjs.Connect(ctx, cfg, "test")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	type outcome struct {
		rep eval.Report
		err error
	}
	coord := make(chan outcome, 1)
	go func() {
		rep, err := Coordinate(ctx, conn(), eval.Options{Tasks: tasks, TaskSet: dir, Model: eval.Scripted, Runs: 2,
			Out: t.TempDir()}, 2*time.Second)
		coord <- outcome{rep, err}
	}()
	c := conn()
	n := namesOf(c.Cfg)
	for { // until the 4 runs are queued
		if cons, err := c.JS.Consumer(ctx, n.jobsStream, n.consumer); err == nil {
			if info, err := cons.Info(ctx); err == nil && info.NumPending == 4 {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatal("the runs were never queued")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var killed []string
	for _, role := range []string{"hang", "publish"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "FLEET_DYING_WORKER="+role, "FLEET_STORE="+url)
		cmd.Stderr = os.Stderr
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		cmd.Process.Kill() // SIGKILL: no ack, no goodbye
		cmd.Wait()
		if !strings.HasPrefix(line, role+" ") {
			t.Fatalf("the %s worker said %q", role, line)
		}
		killed = append(killed, strings.TrimSpace(strings.TrimPrefix(line, role+" ")))
	}
	ran := make(chan int, 2)
	for i := range 2 {
		go func() {
			n, err := Work(ctx, conn(), WorkerOptions{Name: fmt.Sprint("live", i), Idle: 6 * time.Second, Out: t.TempDir()})
			if err != nil {
				t.Error(err)
			}
			ran <- n
		}()
	}
	o := <-coord
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.rep.Overall.Runs != 4 || o.rep.Overall.SuccessRate != 1 {
		t.Fatalf("overall %+v", o.rep.Overall)
	}
	for _, tr := range o.rep.Tasks {
		if len(tr.Runs) != 2 || tr.Runs[0].Run != 1 || tr.Runs[1].Run != 2 {
			t.Fatalf("%s: runs %+v", tr.Task, tr.Runs)
		}
	}
	if got := <-ran + <-ran; got != 4 {
		// 2 never taken, the hung one, and the published one run again.
		t.Fatalf("the live workers ran %d runs; the killed workers' jobs were not redelivered (killed holding %v)", got, killed)
	}
	st, err := c.JS.Stream(ctx, n.resultsStream)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := st.CachedInfo().State.Msgs; msgs != 4 {
		t.Fatalf("the results stream holds %d results for 4 runs: a duplicate was stored", msgs)
	}
}
