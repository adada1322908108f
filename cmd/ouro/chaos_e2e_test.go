//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	mailnats "github.com/ouroagent/ouro/mailbox/natsstore"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/team"
)

// lateTasks: the tasks after it are the last of their chains (chaosModel.late).
const lateTasks = 36

// chaosUsage is what every answer of the chaos model costs: the workers' records must
// add up to it exactly.
var chaosUsage = llm.Usage{InputTokens: 1000, OutputTokens: 100}

// reportRE finds a completion report: a message's text (a line of its own after its
// <teammate-message> tag, whose summary attribute repeats its start) or a stored one.
var reportRE = regexp.MustCompile(`(?m)^Completed task #(\d+):`)

// reportsIn lists the tasks whose completion reports the text blocks of a request's
// messages carry, once per delivery.
func reportsIn(body []byte) []string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	var ids []string
	for _, m := range req.Messages {
		var texts []string
		var s string
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(m.Content, &s) == nil {
			texts = append(texts, s)
		} else if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "text" {
					texts = append(texts, b.Text)
				}
			}
		}
		for _, text := range texts {
			for _, sm := range reportRE.FindAllStringSubmatch(text, -1) {
				ids = append(ids, sm[1])
			}
		}
	}
	return ids
}

// chaosModel is the model of a fleet under faults: a worker given task N completes it
// (TaskUpdate, id done-N), then says so. A trap set for a worker holds its first request
// on the next task it is given until the trap is sprung, telling the test which task.
// The lead tells w4 it is there (so its team is in use), then acknowledges whatever its
// workers report; the lead's trap holds the first request that brings it new reports
// once it has heard of half the tasks, for the test to kill the lead then.
type chaosModel struct {
	mu    sync.Mutex
	traps map[string]*trap
	all   []*trap
	lost  map[string]bool // workers told a write was refused: their claim was gone
	// served counts the answers each worker got, by model (a trapped request of a worker
	// killed meanwhile is not counted: it was never answered).
	served map[string]map[string]int
	// lead: every request of the lead's processes, the process it came from, the
	// reports seen so far, and its trap.
	lead     []leadRequest
	leadGen  int
	heard    map[string]bool
	leadTrap *trap
	// late holds the completion of the last task of each chain until the lead has been
	// killed: its next process has reports to hear, whatever the pace of either side.
	late *trap
}

type leadRequest struct {
	gen  int
	body string
}

type trap struct {
	caught  chan string // the task it caught
	release chan struct{}
	once    sync.Once
	// sleep, when set, has the caught request answered at once with a Bash call that runs
	// `sleep <sleep>` (the worker is killed while its sandboxed command runs) instead of
	// held: that answer is not counted, its run never ends.
	sleep string
}

func newTrap() *trap { return &trap{caught: make(chan string, 1), release: make(chan struct{})} }

// open lets the request it holds (or will catch) go on.
func (tr *trap) open() { tr.once.Do(func() { close(tr.release) }) }

func (m *chaosModel) set(worker string) *trap {
	tr := newTrap()
	m.mu.Lock()
	m.traps[worker] = tr
	m.all = append(m.all, tr)
	m.mu.Unlock()
	return tr
}

// openAll opens every trap: a test that fails leaves no request held (the server's
// Close waits for them).
func (m *chaosModel) openAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, tr := range m.all {
		tr.open()
	}
}

func (m *chaosModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &req)
	sm := teammateRE.FindSubmatch(body)
	if sm == nil {
		m.serveLead(w, r, body)
		return
	}
	name := string(sm[1])
	turn := scripted.Turn{Text: "ready"}
	if claims := claimRE.FindAllSubmatch(body, -1); claims != nil {
		n := string(claims[len(claims)-1][1])
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
			if tr.sleep != "" {
				m.answer(w, r, scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("sleep-"+n, "Bash", map[string]string{"command": "sleep " + tr.sleep})}})
				return
			}
			select {
			case <-tr.release:
			case <-r.Context().Done():
				return
			}
		}
		if k, _ := strconv.Atoi(n); fresh && k > lateTasks {
			select {
			case <-m.late.release:
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
	m.mu.Lock()
	if m.served[name] == nil {
		m.served[name] = map[string]int{}
	}
	m.served[name][req.Model]++
	m.mu.Unlock()
	m.answer(w, r, turn)
}

func (m *chaosModel) serveLead(w http.ResponseWriter, r *http.Request, body []byte) {
	m.mu.Lock()
	m.lead = append(m.lead, leadRequest{gen: m.leadGen, body: string(body)})
	fresh := false
	for _, id := range reportsIn(body) {
		if !m.heard[id] {
			m.heard[id], fresh = true, true
		}
	}
	tr := m.leadTrap
	if tr != nil && fresh && len(m.heard) >= 20 {
		m.leadTrap = nil
	} else {
		tr = nil
	}
	m.mu.Unlock()
	if tr != nil {
		tr.caught <- ""
		select {
		case <-tr.release:
		case <-r.Context().Done():
		}
		return // its process was killed waiting for this answer
	}
	turn := scripted.Turn{Text: "Acknowledged."}
	if !bytes.Contains(body, []byte(`"lead-hello"`)) {
		turn = scripted.Turn{ToolCalls: []scripted.ToolCall{idCall("lead-hello", "SendMessage",
			map[string]string{"to": "w4", "message": "I am the lead: report each task you complete.", "summary": "hello"})}}
	}
	m.answer(w, r, turn)
}

func (m *chaosModel) answer(w http.ResponseWriter, r *http.Request, turn scripted.Turn) {
	u := chaosUsage
	turn.Usage = &u
	srv, err := fakeserver.New(&scripted.Script{Turns: []scripted.Turn{turn}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	srv.ServeHTTP(w, r)
}

// chaosProc is a process of the chaos test and its end.
type chaosProc struct {
	cmd   *exec.Cmd
	out   *lockedBuffer
	ended chan struct{}
	err   error // once ended is closed
}

func startChaos(cmd *exec.Cmd) (*chaosProc, error) {
	p := &chaosProc{cmd: cmd, out: &lockedBuffer{}, ended: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.ended)
	}()
	return p, nil
}

// markedProcesses lists the live processes whose environment holds mark (every process
// the test started and whatever they started, wherever it was reparented), where /proc
// can say.
func markedProcesses(mark string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(mark+"\x00")) {
			continue
		}
		var pid int
		fmt.Sscan(filepath.Base(d), &pid)
		if !pidAlive(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return out
}

// A lead and four worker processes work a 40-task graph on the embedded 3-node cluster
// while two workers are killed -9 mid-task (each while its sandboxed command runs, which
// must die with it; w1 is then started again under its name), one is paused past its
// lease (its task taken over, its late write refused), a node dies and the lead is killed
// -9 while its model reads the reports it was just handed. The lead is a real headless
// session (ouro -p): it ends when no report waits, so it is continued with -c, as a
// person or a cron job would, until the work is done. Every task is completed exactly
// once; every completion report reaches the lead's model exactly once across its
// processes (counted in what its requests carried, and in its mailbox); no task is left
// claimed; ouro team status's tasks done, tokens and cost add up to what the workers did
// and were answered (w1's record counting both its processes); and no process the test
// started, or one of them started, is left.
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
	m := &chaosModel{traps: map[string]*trap{}, lost: map[string]bool{}, served: map[string]map[string]int{}, heard: map[string]bool{}, late: newTrap()}
	m.all = append(m.all, m.late)
	hs := httptest.NewServer(m)
	defer hs.Close()
	defer m.openAll()
	mark := fmt.Sprintf("OURO_CHAOS_TEST=%d-%d", os.Getpid(), time.Now().UnixNano())
	vars := []string{"OURO_TASK_LEASE=2s", "ANTHROPIC_BASE_URL=" + hs.URL, "ANTHROPIC_API_KEY=test-key", mark}
	workers := []string{"w1", "w2", "w3", "w4"}
	procs := map[string]*chaosProc{}
	start := func(w string) {
		e := newEnv(t)
		e.vars = append(e.vars, vars...)
		p, err := startChaos(e.cmd("team", "worker", "--store", url, "--team", "chaos", "--name", w, "--allowedTools", "Bash(sleep *)"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.cmd.Process.Kill() })
		procs[w] = p
	}
	// w1, w2 and w3 start with traps set: each is caught on its first task (one of the
	// four heads of the chains); then w4 starts.
	trapped := map[string]*trap{"w1": m.set("w1"), "w2": m.set("w2"), "w3": m.set("w3")}
	for _, w := range []string{"w1", "w2"} {
		trapped[w].sleep = bgMarker()
	}
	caught := map[string]string{}
	for _, w := range []string{"w1", "w2", "w3"} {
		start(w)
	}
	for _, w := range []string{"w1", "w2", "w3"} {
		select {
		case caught[w] = <-trapped[w].caught:
		case <-time.After(90 * time.Second):
			t.Fatalf("%s never took a task:\n%s", w, procs[w].out)
		}
	}
	start("w4")
	if !waitFor(90*time.Second, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.served["w4"]) > 0
	}) {
		t.Fatalf("w4 never took a task:\n%s", procs["w4"].out)
	}

	// The lead: one session, run again with -c each time it ends, until the workers are
	// gone and it has heard everything. Its trap is set before it starts.
	le := newEnv(t)
	le.vars = append(le.vars, vars...)
	leadTrap := newTrap()
	m.mu.Lock()
	m.leadTrap = leadTrap
	m.all = append(m.all, leadTrap)
	m.mu.Unlock()
	mail, err := mailnats.Open(ctx, url, mailnats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mail.Close()
	var leadMu sync.Mutex
	var leads []*chaosProc
	var leadErr error
	workersGone, quit := make(chan struct{}), make(chan struct{})
	leadDone := make(chan struct{})
	leadDeadline := time.Now().Add(8 * time.Minute)
	defer func() { // a failing test stops the lead's loop and whatever lead runs
		select {
		case <-quit:
		default:
			close(quit)
		}
		leadMu.Lock()
		if len(leads) > 0 {
			leads[len(leads)-1].cmd.Process.Kill()
		}
		leadMu.Unlock()
		<-leadDone
	}()
	go func() {
		defer close(leadDone)
		for gen := 0; time.Now().Before(leadDeadline); gen++ {
			select {
			case <-quit:
				return
			case <-workersGone:
				m.mu.Lock()
				heard := len(m.heard)
				m.mu.Unlock()
				if n, err := mail.Waiting(ctx, "chaos", team.Lead); err == nil && n == 0 && heard == tasks {
					return
				}
			default:
			}
			args := []string{"-p", "--store", url, "--task-list", "chaos", "--output-format", "json"}
			prompt := "Lead the chaos team: acknowledge each report your workers send."
			if gen > 0 {
				args, prompt = append(args, "-c"), "Go on leading the team."
			}
			m.mu.Lock()
			m.leadGen = gen
			m.mu.Unlock()
			leadMu.Lock()
			p, err := startChaos(le.cmd(append(args, prompt)...))
			if err != nil {
				leadErr = err
				leadMu.Unlock()
				return
			}
			leads = append(leads, p)
			leadMu.Unlock()
			<-p.ended
			time.Sleep(time.Second) // it ends when nothing waits: look again a second later
		}
	}()

	// w1 and w2 die mid-task, each while its sandboxed command runs, which dies with it;
	// w3 is paused with its task; a node dies.
	for _, w := range []string{"w1", "w2"} {
		if !waitFor(90*time.Second, func() bool { return len(sleepersOf(trapped[w].sleep)) > 0 }) {
			t.Fatalf("%s's command never started:\n%s", w, procs[w].out)
		}
		syscall.Kill(procs[w].cmd.Process.Pid, syscall.SIGKILL)
		<-procs[w].ended
		noSleepers(t, trapped[w].sleep)
	}
	killed1 := procs["w1"]
	start("w1") // started again under its name, on another machine
	syscall.Kill(procs["w3"].cmd.Process.Pid, syscall.SIGSTOP)
	trapped["w3"].open() // its answer waits in its socket
	c.Kill(2)
	if !waitFor(2*time.Minute, func() bool {
		x, err := board.Get(ctx, caught["w3"])
		return err == nil && x.Status == task.Completed && x.Owner != "w3"
	}) {
		t.Fatalf("w3's task #%s was not taken over while w3 was paused:\n%s", caught["w3"], procs["w4"].out)
	}
	syscall.Kill(procs["w3"].cmd.Process.Pid, syscall.SIGCONT)

	// The lead is killed -9 while its model holds reports it was just handed.
	var killedLead *chaosProc
	select {
	case <-leadTrap.caught:
		leadMu.Lock()
		killedLead = leads[len(leads)-1]
		leadMu.Unlock()
		syscall.Kill(killedLead.cmd.Process.Pid, syscall.SIGKILL)
		leadTrap.open()
		m.late.open()
	case <-time.After(4 * time.Minute):
		leadMu.Lock()
		n := len(leads)
		leadMu.Unlock()
		t.Fatalf("the lead never heard of 20 tasks (%d processes)", n)
	}

	for _, w := range []string{"w1", "w3", "w4"} {
		select {
		case <-procs[w].ended:
			if err := procs[w].err; err != nil || !strings.Contains(procs[w].out.String(), w+" stopped: no open task remains") {
				t.Fatalf("%s: %v\n%s", w, err, procs[w].out)
			}
		case <-time.After(3 * time.Minute):
			t.Fatalf("%s did not finish:\n%s", w, procs[w].out)
		}
	}
	close(workersGone)
	<-leadDone
	leadMu.Lock()
	defer leadMu.Unlock()
	if leadErr != nil {
		t.Fatalf("starting the lead: %v", leadErr)
	}
	for i, p := range leads {
		err := p.err
		var ee *exec.ExitError
		switch {
		case p == killedLead:
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Errorf("lead process %d was to die of kill -9: %v", i, err)
			}
		case err != nil:
			t.Errorf("lead process %d: %v\n%s", i, err, p.out)
		}
	}

	// Every report reached the lead's model exactly once across its processes: none is
	// missing from the conversation its last process carried on, no request carried one
	// twice, and nothing is left in its mailbox.
	m.mu.Lock()
	heard, reqs := len(m.heard), m.lead
	m.mu.Unlock()
	t.Logf("the lead: %d processes, %d requests", len(leads), len(reqs))
	if heard != tasks {
		t.Errorf("the lead's model heard of %d of the %d tasks (%d lead processes)", heard, tasks, len(leads))
	}
	if len(reqs) == 0 {
		t.Fatal("the lead made no request")
	}
	for i, r := range reqs {
		count := map[string]int{}
		for _, id := range reportsIn([]byte(r.body)) {
			count[id]++
		}
		for id, n := range count {
			if n > 1 {
				t.Errorf("lead request %d (process %d) carries the report of #%s %d times", i, r.gen, id, n)
			}
		}
		if i == len(reqs)-1 {
			for id := 1; id <= tasks; id++ {
				if count[fmt.Sprint(id)] != 1 {
					t.Errorf("the lead's final conversation (process %d of %d) carries the report of #%d %d times", r.gen, len(leads), id, count[fmt.Sprint(id)])
				}
			}
		}
	}
	killedGen := -1
	for i, p := range leads {
		if p == killedLead {
			killedGen = i
		}
	}
	if killedGen < 0 || reqs[len(reqs)-1].gen <= killedGen {
		t.Errorf("the lead was never continued after its process %d was killed", killedGen)
	}
	if n, err := mail.Waiting(ctx, "chaos", team.Lead); err != nil || n != 0 {
		t.Errorf("the lead's mailbox still holds %d message(s) (%v)", n, err)
	}
	ms, err := mail.Recent(ctx, "chaos", 1000)
	if err != nil {
		t.Fatal(err)
	}
	reported := map[string]int{}
	for _, msg := range ms {
		if sm := reportRE.FindStringSubmatch(msg.Text); msg.To == team.Lead && sm != nil && strings.HasPrefix(msg.Text, sm[0]) {
			reported[sm[1]]++
		}
	}
	for i := 1; i <= tasks; i++ {
		if n := reported[fmt.Sprint(i)]; n != 1 {
			t.Errorf("task #%d was reported %d times", i, n)
		}
	}

	// Every task completed once, none left claimed; w3's late write was refused.
	all, err := board.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doneBy := map[string]int{}
	for _, x := range all {
		if x.Status != task.Completed || x.Holder != "" {
			t.Errorf("task #%s: %s, holder %q", x.ID, x.Status, x.Holder)
		}
		doneBy[x.Owner]++
	}
	m.mu.Lock()
	lost := m.lost["w3"]
	m.mu.Unlock()
	if !lost {
		t.Errorf("w3's late write on #%s was not refused as no longer its own", caught["w3"])
	}

	// ouro team status adds up to the work done: each worker's tasks, and the tokens and
	// cost of every answer it got.
	out, errOut, code := newEnv(t).run("", "team", "status", "--store", url, "--team", "chaos", "--json")
	if code != 0 {
		t.Fatalf("team status: %d %s", code, errOut)
	}
	var st fleetStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Queue.Completed != tasks || len(st.Workers) != 4 || len(st.Claimed) != 0 || len(st.Unavailable) != 0 {
		t.Errorf("team status: %d workers, %d completed, %d claimed, unavailable %q:\n%s", len(st.Workers), st.Queue.Completed, len(st.Claimed), st.Unavailable, out)
	}
	sumDone, sumTokens, sumCost := 0, 0, 0.0
	for _, w := range st.Workers {
		m.mu.Lock()
		tokens, cost := 0, 0.0
		for model, n := range m.served[w.Name] {
			tokens += n * chaosUsage.Total()
			cost += float64(n) * llm.LookupModel(model).Cost(chaosUsage)
		}
		m.mu.Unlock()
		if want := map[bool]int{true: 2, false: 1}[w.Name == "w1"]; w.Runs != want {
			t.Errorf("team status counts %d run(s) of %s, want %d", w.Runs, w.Name, want)
		}
		if w.TasksDone != doneBy[w.Name] || w.Tokens != tokens || math.Abs(w.CostUSD-cost) > 1e-9 {
			t.Errorf("team status shows %s with %d done, %d tokens, $%.6f; it completed %d and was answered %d tokens, $%.6f",
				w.Name, w.TasksDone, w.Tokens, w.CostUSD, doneBy[w.Name], tokens, cost)
		}
		sumDone, sumTokens, sumCost = sumDone+w.TasksDone, sumTokens+w.Tokens, sumCost+w.CostUSD
	}
	if sumDone != tasks || st.Tokens != sumTokens || math.Abs(st.CostUSD-sumCost) > 1e-9 || sumTokens == 0 || sumCost == 0 {
		t.Errorf("team status totals: %d tokens, $%.6f; its workers: %d done, %d tokens, $%.6f", st.Tokens, st.CostUSD, sumDone, sumTokens, sumCost)
	}

	// No process is left: not the workers, not the lead's, nothing they started.
	if pidAlive(killed1.cmd.Process.Pid) {
		t.Errorf("w1's first process (pid %d) is still running", killed1.cmd.Process.Pid)
	}
	for _, w := range workers {
		if pidAlive(procs[w].cmd.Process.Pid) {
			t.Errorf("%s (pid %d) is still running", w, procs[w].cmd.Process.Pid)
		}
	}
	for i, p := range leads {
		if pidAlive(p.cmd.Process.Pid) {
			t.Errorf("lead process %d (pid %d) is still running", i, p.cmd.Process.Pid)
		}
	}
	if left := markedProcesses(mark); len(left) > 0 {
		t.Errorf("processes left:\n%s", strings.Join(left, "\n"))
	}
}
