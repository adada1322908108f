//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	mailnats "github.com/ouroagent/ouro/mailbox/natsstore"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
)

// chaosModel is the model of a fleet under faults: a worker given task N completes it
// (TaskUpdate, id done-N), then says so. A trap set for a worker holds its first request
// on the next task it is given until the trap is sprung, telling the test which task.
type chaosModel struct {
	mu    sync.Mutex
	traps map[string]*trap
	lost  map[string]bool // workers told a write was refused: their claim was gone
}

type trap struct {
	caught  chan string // the task it caught
	release chan struct{}
	once    sync.Once
}

func (m *chaosModel) set(worker string) *trap {
	tr := &trap{caught: make(chan string, 1), release: make(chan struct{})}
	m.mu.Lock()
	m.traps[worker] = tr
	m.mu.Unlock()
	return tr
}

func (m *chaosModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	turn := scripted.Turn{Text: "ready"}
	sm := teammateRE.FindSubmatch(body)
	claims := claimRE.FindAllSubmatch(body, -1)
	if sm != nil && claims != nil {
		name, n := string(sm[1]), string(claims[len(claims)-1][1])
		fresh := !bytes.Contains(body, []byte(`"done-`+n+`"`))
		m.mu.Lock()
		tr := m.traps[name]
		if tr != nil && fresh {
			delete(m.traps, name)
		}
		if bytes.Contains(body, []byte("is no longer yours")) {
			m.lost[name] = true
		}
		m.mu.Unlock()
		if tr != nil && fresh {
			tr.caught <- n
			select {
			case <-tr.release:
			case <-r.Context().Done():
				return
			}
		}
		if fresh {
			turn = scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("done-"+n, "TaskUpdate", map[string]string{"taskId": n, "status": "completed"})}}
		} else {
			turn = scripted.Turn{Text: "done " + n}
		}
	}
	srv, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{turn}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	srv.ServeHTTP(w, r)
}

// Four worker processes work a 40-task graph on the embedded 3-node cluster while two
// are killed -9 mid-task, one is paused past its lease (its task taken over, its late
// write refused) and a node dies. Every task is completed exactly once, its completion
// reported to the lead exactly once, no task is left claimed, ouro team status sums to
// the work done, and no process is left.
func TestChaosFleetUnderKillsPausesAndANodeLoss(t *testing.T) {
	c := natstest.Start3(t)
	url := c.URL() + "?timeout=20s"
	ctx := context.Background()
	ts, err := harness.OpenTaskStore(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	board := task.NewBoard(task.Config{Store: ts, List: "chaos", Holder: "lead"})
	const tasks = 40
	for i := 1; i <= tasks; i++ {
		if _, err := board.Create(ctx, fmt.Sprint("job ", i), "", "", nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := 5; i <= tasks; i++ { // four chains
		if _, err := board.Update(ctx, fmt.Sprint(i), task.Update{AddBlockedBy: []string{fmt.Sprint(i - 4)}}); err != nil {
			t.Fatal(err)
		}
	}
	m := &chaosModel{traps: map[string]*trap{}, lost: map[string]bool{}}
	hs := httptest.NewServer(m)
	defer hs.Close()
	workers := []string{"w1", "w2", "w3", "w4"}
	cmds := map[string]*lockedBuffer{}
	procs := map[string]*struct {
		pid  int
		done chan error
	}{}
	// Traps on w1, w2 and w3 before they start: each is caught on its first task.
	trapped := map[string]*trap{"w1": m.set("w1"), "w2": m.set("w2"), "w3": m.set("w3")}
	for _, w := range workers {
		e := newEnv(t)
		e.vars = append(e.vars, "OURO_TASK_LEASE=2s", "ANTHROPIC_BASE_URL="+hs.URL, "ANTHROPIC_API_KEY=test-key")
		cmd := e.cmd("team", "worker", "--store", url, "--team", "chaos", "--name", w)
		out := &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		p := &struct {
			pid  int
			done chan error
		}{pid: cmd.Process.Pid, done: make(chan error, 1)}
		go func() { p.done <- cmd.Wait() }()
		cmds[w], procs[w] = out, p
	}
	caught := map[string]string{}
	for _, w := range []string{"w1", "w2", "w3"} {
		select {
		case caught[w] = <-trapped[w].caught:
		case <-time.After(60 * time.Second):
			t.Fatalf("%s never took a task:\n%s", w, cmds[w])
		}
	}
	// w1 and w2 die mid-task; w3 is paused with its task; a node dies.
	for _, w := range []string{"w1", "w2"} {
		syscall.Kill(procs[w].pid, syscall.SIGKILL)
		<-procs[w].done
		close(trapped[w].release)
	}
	syscall.Kill(procs["w3"].pid, syscall.SIGSTOP)
	close(trapped["w3"].release) // its answer waits in its socket
	c.Kill(2)
	if !waitFor(90*time.Second, func() bool {
		x, err := board.Get(ctx, caught["w3"])
		return err == nil && x.Status == task.Completed && x.Owner != "w3"
	}) {
		t.Fatalf("w3's task #%s was not taken over while w3 was paused:\n%s", caught["w3"], cmds["w4"])
	}
	syscall.Kill(procs["w3"].pid, syscall.SIGCONT)
	for _, w := range []string{"w3", "w4"} {
		select {
		case err := <-procs[w].done:
			if err != nil || !strings.Contains(cmds[w].String(), w+" stopped: no open task remains") {
				t.Fatalf("%s: %v\n%s", w, err, cmds[w])
			}
		case <-time.After(120 * time.Second):
			t.Fatalf("%s did not finish:\n%s", w, cmds[w])
		}
	}
	for _, w := range workers {
		if pidAlive(procs[w].pid) {
			t.Errorf("%s (pid %d) is still running", w, procs[w].pid)
		}
	}

	all, err := board.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range all {
		if x.Status != task.Completed || x.Holder != "" {
			t.Errorf("task #%s: %s, holder %q", x.ID, x.Status, x.Holder)
		}
	}
	mail, err := mailnats.Open(ctx, url, mailnats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mail.Close()
	ms, err := mail.Recent(ctx, "chaos", 1000)
	if err != nil {
		t.Fatal(err)
	}
	reported := map[string]int{}
	for _, msg := range ms {
		if msg.To != team.Lead {
			continue
		}
		var id string
		if _, err := fmt.Sscanf(msg.Text, "Completed task #%s", &id); err == nil {
			reported[strings.TrimSuffix(id, ":")]++
		}
	}
	for i := 1; i <= tasks; i++ {
		if n := reported[fmt.Sprint(i)]; n != 1 {
			t.Errorf("task #%d was reported %d times", i, n)
		}
	}
	m.mu.Lock()
	lost := m.lost["w3"]
	m.mu.Unlock()
	if !lost {
		t.Errorf("w3's late write on #%s was not refused as no longer its own", caught["w3"])
	}
	e := newEnv(t)
	out, errOut, code := e.run("", "team", "status", "--store", url, "--team", "chaos", "--json")
	if code != 0 {
		t.Fatalf("team status: %d %s", code, errOut)
	}
	var st struct {
		Workers []struct {
			Name      string `json:"name"`
			TasksDone int    `json:"tasks_done"`
		} `json:"workers"`
		Queue struct {
			Completed int `json:"completed"`
		} `json:"queue"`
		Unavailable []string `json:"unavailable"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, w := range st.Workers {
		done += w.TasksDone
	}
	if done != tasks || st.Queue.Completed != tasks || len(st.Workers) != 4 || len(st.Unavailable) != 0 {
		t.Errorf("team status: %d done by %d workers, %d completed, unavailable %q:\n%s", done, len(st.Workers), st.Queue.Completed, st.Unavailable, out)
	}
}
