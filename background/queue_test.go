package background

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/tool"
)

// queuedStart starts a command expected to wait; it returns the id and the fake process
// its spawn makes once it starts (spawned receives it).
func queuedStart(t *testing.T, m *Manager, x *tool.Exec, desc string, spawned chan<- *fakeProc) (string, string) {
	t.Helper()
	res := m.StartCommand(x, desc, "cmd "+desc, func(out io.Writer) (Proc, error) {
		p := newFake(out)
		spawned <- p
		return p, nil
	})
	if res.IsError {
		t.Fatalf("start %s: %s", desc, res.Text())
	}
	return strings.TrimSuffix(strings.Fields(res.Text())[6], "."), res.Text()
}

// Past MaxRunning a shell command waits: the model is told its place, /tasks and
// TaskOutput show it, an agent is still refused, TaskStop takes one out of the queue,
// and the head starts when a running task ends.
func TestLimitQueuesShellCommands(t *testing.T) {
	m := New(Config{Dir: t.TempDir(), MaxRunning: 2})
	defer m.Close()
	s := newSink()
	var events []string
	var evMu sync.Mutex
	m.cfg.OnEvent = func(e Event) { evMu.Lock(); events = append(events, e.Type+" "+e.Info.ID); evMu.Unlock() }
	p1, _ := start(t, m, exec("t1", s), "one")
	start(t, m, exec("t2", s), "two")
	spawned := make(chan *fakeProc, 4)
	id3, res3 := queuedStart(t, m, exec("t3", s), "three", spawned)
	id4, res4 := queuedStart(t, m, exec("t4", s), "four", spawned)
	id5, _ := queuedStart(t, m, exec("t5", s), "five", spawned)
	if !strings.Contains(res3, "Command queued in background with ID: "+id3+" (queued: position 1 of 1; starts when one of the 2 running background tasks ends)") {
		t.Errorf("third: %s", res3)
	}
	if !strings.Contains(res4, "position 2 of 2") {
		t.Errorf("fourth: %s", res4)
	}
	if len(spawned) != 0 || m.Running() != 2 || m.Queued() != 3 {
		t.Fatalf("spawned %d, running %d, queued %d", len(spawned), m.Running(), m.Queued())
	}
	if r := m.Render(); !strings.Contains(r, id4+"  shell  queued 2 of 3") {
		t.Errorf("/tasks:\n%s", r)
	}
	out, _, _, _ := m.Tools()
	got, err := out.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"task_id":"`+id5+`","block":false}`)))
	if err != nil || !strings.Contains(got.Text(), "<status>queued</status>") || !strings.Contains(got.Text(), "<queue_position>3 of 3;") {
		t.Errorf("TaskOutput of a queued task: %v %s", err, got.Text())
	}
	if res := m.StartAgent(exec("t6", s), "agent", func(context.Context, io.Writer) (string, error) { return "", nil }); !res.IsError {
		t.Errorf("an agent started past the limit: %s", res.Text())
	}
	msg, err := m.Stop(id4)
	if err != nil || !strings.Contains(msg, "Removed task "+id4) || !strings.Contains(msg, "(it was 2 of 3)") {
		t.Fatalf("stop queued: %q %v", msg, err)
	}
	if pos, n := m.Position(id5); pos != 2 || n != 2 {
		t.Errorf("after the stop the last is %d of %d", pos, n)
	}
	p1.end <- Exit{}
	s.wait(t)
	var p3 *fakeProc
	select {
	case p3 = <-spawned:
	case <-time.After(10 * time.Second):
		t.Fatal("the queue's head did not start when a slot freed")
	}
	for deadline := time.Now().Add(10 * time.Second); m.Queued() != 1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if i := infoByID(m, id3); i.Status != StatusRunning || i.Queued.IsZero() || i.Started.Before(i.Queued) {
		t.Errorf("head after the slot freed: %+v", i)
	}
	if i := infoByID(m, id4); i.Status != StatusKilled {
		t.Errorf("stopped queued task: %+v", i)
	}
	io.WriteString(p3.out, "three ran\n")
	p3.end <- Exit{}
	s.wait(t)
	if n := s.all()[1]; !strings.Contains(n, "<task-id>"+id3+"</task-id>") || !strings.Contains(n, "three ran") {
		t.Errorf("the queued command's notification:\n%s", n)
	}
	<-spawned // five started in three's slot
	evMu.Lock()
	ev := strings.Join(events, ",")
	evMu.Unlock()
	for _, want := range []string{"queued " + id3, "stopped " + id4, "started " + id3, "started " + id5} {
		if !strings.Contains(ev, want) {
			t.Errorf("events lack %q: %s", want, ev)
		}
	}
}

func infoByID(m *Manager, id string) Info {
	for _, i := range m.List() {
		if i.ID == id {
			return i
		}
	}
	return Info{}
}

// Waiting commands start in the order they came, one per freed slot.
func TestQueueIsFirstComeFirstStarted(t *testing.T) {
	m := New(Config{Dir: t.TempDir(), MaxRunning: 1})
	defer m.Close()
	s := newSink()
	first, _ := start(t, m, exec("t0", s), "first")
	var order []string
	var mu sync.Mutex
	procs := make(chan *fakeProc, 8)
	for _, d := range []string{"a", "b", "c", "d", "e"} {
		res := m.StartCommand(exec("t", s), d, d, func(out io.Writer) (Proc, error) {
			mu.Lock()
			order = append(order, d)
			mu.Unlock()
			p := newFake(out)
			procs <- p
			return p, nil
		})
		if !strings.Contains(res.Text(), "queued") {
			t.Fatalf("%s: %s", d, res.Text())
		}
	}
	first.end <- Exit{}
	for range 5 {
		select {
		case p := <-procs:
			if m.Running() != 1 {
				t.Errorf("running %d with a limit of 1", m.Running())
			}
			p.end <- Exit{}
		case <-time.After(10 * time.Second):
			t.Fatal("the queue stalled")
		}
	}
	for range 6 {
		s.wait(t)
	}
	if got := strings.Join(order, ""); got != "abcde" {
		t.Errorf("started in the order %q", got)
	}
}

// A queued command whose process cannot start ends failed, and says why, without
// stopping the rest of the queue.
func TestQueuedSpawnFailureIsNotified(t *testing.T) {
	m := New(Config{Dir: t.TempDir(), MaxRunning: 1})
	defer m.Close()
	s := newSink()
	first, _ := start(t, m, exec("t0", s), "first")
	m.StartCommand(exec("t1", s), "broken", "x", func(io.Writer) (Proc, error) { return nil, io.ErrClosedPipe })
	spawned := make(chan *fakeProc, 1)
	queuedStart(t, m, exec("t2", s), "after", spawned)
	first.end <- Exit{}
	s.wait(t)
	s.wait(t)
	if n := strings.Join(s.all(), "\n"); !strings.Contains(n, `"broken" failed: the queued command could not start: io: read/write on closed pipe`) {
		t.Errorf("notifications:\n%s", n)
	}
	select {
	case p := <-spawned:
		p.end <- Exit{}
	case <-time.After(10 * time.Second):
		t.Fatal("the command after the broken one never started")
	}
}

// Close drops what waits: each ends killed, never started, is returned (the session
// warns of it), and its spawn is never called.
func TestCloseDropsTheQueue(t *testing.T) {
	m := New(Config{Dir: t.TempDir(), MaxRunning: 1})
	s := newSink()
	start(t, m, exec("t0", s), "running")
	idQ, _ := queuedStart(t, m, exec("t1", s), "waiting", make(chan *fakeProc))
	out, _, _, _ := m.Tools()
	blocked := make(chan string, 1)
	go func() {
		res, _ := out.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"task_id":"`+idQ+`","timeout":20000}`)))
		blocked <- res.Text()
	}()
	time.Sleep(20 * time.Millisecond)
	stopped := m.Close()
	if len(stopped) != 2 {
		t.Fatalf("Close returned %d tasks", len(stopped))
	}
	q := stopped[1]
	if q.ID != idQ || q.Status != StatusKilled || !q.Started.IsZero() {
		t.Errorf("the queued one: %+v", q)
	}
	select {
	case got := <-blocked:
		if !strings.Contains(got, "<status>killed</status>") {
			t.Errorf("TaskOutput waiting on it: %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("TaskOutput still waits on a dropped task")
	}
	if len(s.all()) != 0 {
		t.Errorf("notified on close: %q", s.all())
	}
}
