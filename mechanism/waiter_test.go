package mechanism_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

// proc is a background command's process that ends when told (or when stopped).
type proc struct {
	end     chan background.Exit
	stopped chan struct{}
	once    sync.Once
}

func (p *proc) Wait() background.Exit {
	select {
	case e := <-p.end:
		return e
	case <-p.stopped:
		return background.Exit{Code: 143, Signal: "terminated"}
	}
}

func (p *proc) Stop() { p.once.Do(func() { close(p.stopped) }) }

// queue keeps the notifications the tasks send, as a session's queue does.
type queue struct {
	mu    sync.Mutex
	texts []string
}

func (q *queue) Notify(n tool.Notification) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.texts = append(q.texts, n.Text)
}

func (q *queue) take() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := strings.Join(q.texts, "\n")
	q.texts = nil
	return out
}

func start(t *testing.T, m *background.Manager, q *queue, desc string) (*proc, string) {
	t.Helper()
	p := &proc{end: make(chan background.Exit, 1), stopped: make(chan struct{})}
	x := tool.NewExec(tool.Call{ID: "t", Name: "Bash"}, nil, q)
	res := m.StartCommand(x, desc, "cmd "+desc, func(io.Writer) (background.Proc, error) { return p, nil })
	if res.IsError {
		t.Fatalf("start %s: %s", desc, res.Text())
	}
	return p, strings.TrimSuffix(strings.Fields(res.Text())[6], ".")
}

func TestWaiterHoldsTheRunForItsTasks(t *testing.T) {
	m := background.New(background.Config{Dir: t.TempDir()})
	q := &queue{}
	w := mechanism.Waiter{Manager: m, Take: q.take, Limit: 5 * time.Second}
	if d := w.BeforeStop(context.Background(), nil); d.Continue {
		t.Fatalf("nothing runs, yet: %+v", d)
	}
	p, id := start(t, m, q, "job")
	go func() { time.Sleep(50 * time.Millisecond); p.end <- background.Exit{} }()
	d := w.BeforeStop(context.Background(), nil)
	if !d.Continue || !strings.Contains(d.Message, "<task-id>"+id+"</task-id>") {
		t.Fatalf("after the task ended: %+v", d)
	}
	if d := w.BeforeStop(context.Background(), nil); d.Continue {
		t.Errorf("delivered twice: %+v", d)
	}

	_, id = start(t, m, q, "endless")
	w.Limit = 50 * time.Millisecond
	if d := w.BeforeStop(context.Background(), nil); !d.Continue || !strings.Contains(d.Message, "still running after 50ms: "+id) {
		t.Errorf("past the limit: %+v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := w.BeforeStop(ctx, nil); !d.Continue || !strings.Contains(d.Message, "The run ended while background tasks were still running: "+id) {
		t.Errorf("run over: %+v", d)
	}
	m.Close()
}

// Tasks that end close together, a queue of short commands draining, reach the model
// as one message: the Waiter settles before it continues.
func TestWaiterGathersTasksEndingTogether(t *testing.T) {
	m := background.New(background.Config{Dir: t.TempDir(), MaxRunning: 1})
	defer m.Close()
	q := &queue{}
	w := mechanism.Waiter{Manager: m, Take: q.take, Limit: 10 * time.Second}
	var ids []string
	var procs []*proc
	for _, d := range []string{"a", "b", "c"} {
		p, id := start(t, m, q, d) // b and c wait in the queue
		ids, procs = append(ids, id), append(procs, p)
	}
	go func() {
		for _, p := range procs {
			time.Sleep(100 * time.Millisecond)
			p.end <- background.Exit{}
		}
	}()
	d := w.BeforeStop(context.Background(), nil)
	for _, id := range ids {
		if !d.Continue || !strings.Contains(d.Message, "<task-id>"+id+"</task-id>") {
			t.Fatalf("one message does not carry all three (%s missing): %+v", id, d)
		}
	}
}
