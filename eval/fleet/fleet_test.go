package fleet_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ouroagent/ouro/eval"
	"github.com/ouroagent/ouro/eval/fleet"
	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/internal/natstest"
)

func taskSet(t *testing.T, names ...string) (string, []eval.Task) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "tasks")
	all, err := eval.LoadTasks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []eval.Task
	for _, tk := range all {
		for _, n := range names {
			if tk.Name == n {
				out = append(out, tk)
			}
		}
	}
	return dir, out
}

func connect(t *testing.T, url string) *natsjs.Conn {
	cfg, err := natsjs.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := natsjs.Connect(context.Background(), cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestCoordinateWithWorkers(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	url := natstest.Server(t).URL()
	dir, tasks := taskSet(t, "go-scout-entry", "go-scout-config")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan int, 2)
	for i := range 2 {
		go func() {
			n, err := fleet.Work(ctx, connect(t, url), fleet.WorkerOptions{Name: fmt.Sprint("w", i), Idle: 5 * time.Second, Out: t.TempDir()})
			if err != nil {
				t.Error(err)
			}
			done <- n
		}()
	}
	var progress bytes.Buffer
	rep, err := fleet.Coordinate(ctx, connect(t, url), eval.Options{Tasks: tasks, TaskSet: dir, Model: eval.Scripted, Runs: 2,
		Out: t.TempDir(), Progress: &progress}, 2*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	if rep.Overall.Runs != 4 || rep.Overall.SuccessRate != 1 {
		t.Fatalf("%+v\n%s", rep.Overall, progress.String())
	}
	if n := <-done + <-done; n != 4 {
		t.Fatalf("workers ran %d runs, want 4", n)
	}
	_ = os.Getpid
}
