//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/internal/natstest"
	"github.com/ouroagent/ouro/llm/scripted"
)

// Three processes on three "machines" (each its own HOME) share one task list on a
// 3-node JetStream cluster through --store, OURO_STORE and store.url in the user's
// settings; they race to claim the same 12 tasks while a NATS node is killed, and every
// task is claimed exactly once. The machines' own state.db files hold no task.
func TestNATSStoreThreeProcessesShareAList(t *testing.T) {
	c := natstest.Start3(t)
	// A process that connects just as the node dies waits for the new meta leader: on a
	// loaded CI machine that can take longer than the default 5 s.
	url := c.URL() + "?timeout=20s"
	machines := make([]*env, 3)
	for i := range machines {
		machines[i] = newEnv(t)
	}
	m0, m1, m2 := machines[0], machines[1], machines[2]
	m1.vars = append(m1.vars, "OURO_STORE="+url)
	os.MkdirAll(filepath.Join(m2.home, ".ouro"), 0o700)
	settings, _ := json.Marshal(map[string]any{"store": map[string]string{"url": url}})
	if err := os.WriteFile(filepath.Join(m2.home, ".ouro", "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 12; i++ {
		if _, errOut, code := m0.run("", "tasks", "--store", url, "--list", "fleet", "add", fmt.Sprint("job ", i)); code != 0 {
			t.Fatal(errOut)
		}
	}
	owners := []string{"alpha", "beta", "gamma"}
	for i, m := range machines {
		var calls []scripted.ToolCall
		for _, id := range rand12(i) {
			calls = append(calls, tcall("TaskUpdate", map[string]string{"taskId": fmt.Sprint(id), "owner": owners[i]}))
		}
		m.fake(scripted.Turn{ToolCalls: calls[:6]}, scripted.Turn{ToolCalls: calls[6:]}, scripted.Turn{Text: "claimed what I could"})
	}
	var wg sync.WaitGroup
	outs := make([]string, 3)
	for i, m := range machines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"-p", "--task-list", "fleet", "--output-format", "stream-json", "--verbose", "claim"}
			if i == 0 {
				args = append([]string{"--store", url}, args...)
			}
			cmd := m.cmd(args...)
			var o, er bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &er
			if err := cmd.Run(); err != nil {
				t.Errorf("process %d: %v\n%s", i, err, er.String())
			}
			outs[i] = o.String()
		}()
	}
	time.Sleep(300 * time.Millisecond)
	c.Kill(2) // a node dies while they claim
	wg.Wait()
	won := 0
	for i, o := range outs {
		won += strings.Count(o, "(claimed by "+owners[i]+")")
	}
	// The check reads the list once the cluster has settled after the node's death: on a
	// loaded 2-core machine the stream's new leader may take longer than one read's
	// bound, which says nothing about the claims. Three tries, each bounded.
	var list, errOut string
	code := 1
	for try := 0; try < 3 && code != 0; try++ {
		if try > 0 {
			time.Sleep(2 * time.Second)
		}
		list, errOut, code = m1.run("", "tasks", "--list", "fleet")
	}
	if code != 0 {
		t.Fatal(errOut)
	}
	owned := 0
	for i, o := range owners {
		n := strings.Count(list, "(owner: "+o+")")
		owned += n
		if w := strings.Count(outs[i], "(claimed by "+o+")"); w != n {
			t.Errorf("%s won %d claims, owns %d:\n%s", o, w, n, list)
		}
	}
	if won != 12 || owned != 12 {
		t.Fatalf("%d claims won, %d tasks owned, want 12 each:\n%s", won, owned, list)
	}
	// Without a store the machine's own list is empty: the tasks live on the cluster.
	if local, _, _ := m0.run("", "tasks", "--list", "fleet"); !strings.Contains(local, "No tasks") {
		t.Fatalf("the local state.db holds the shared list:\n%s", local)
	}
}

// rand12 is a fixed permutation of 1..12 per process, so that they collide.
func rand12(seed int) []int {
	ids := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	if seed%2 == 1 {
		slices.Reverse(ids)
	}
	if seed == 2 {
		ids = append(ids[6:], ids[:6]...)
	}
	return ids
}

// Bad store URLs, unreachable servers and servers without JetStream are refused with a
// message saying what to do; a repository's settings cannot choose the store.
func TestNATSStoreBadInputs(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "nats://" + l.Addr().String() + "?timeout=500ms"
	l.Close()
	noJS := natstest.NoJetStream(t) + "?timeout=1s"
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tasks", "--store", "redis://localhost:6379", "--list", "x", "add", "x"}, "no store URL"},
		{[]string{"tasks", "--store", "nats://h:4222?bogus=1", "--list", "x", "add", "x"}, "unknown option"},
		{[]string{"tasks", "--store", dead, "--list", "x", "add", "x"}, "cannot reach a NATS server"},
		{[]string{"tasks", "--store", noJS, "--list", "x", "add", "x"}, "no JetStream"},
		{[]string{"-p", "--store", "postgres://db", "hello"}, "--store: \"postgres://db\" is no store URL"},
		{[]string{"eval", "--store", "nats://h:4222", "--tasks", "."}, "--store without --workers"},
		{[]string{"eval", "--workers", "--tasks", filepath.Join(moduleRoot(t), "eval", "tasks")}, "needs a NATS JetStream server"},
		{[]string{"eval", "worker"}, "needs a NATS JetStream server"},
		{[]string{"eval", "worker", "--store", noJS}, "no JetStream"},
	} {
		_, errOut, code := e.run("", c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("ouro %s: exit %d, %s; want an error saying %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
	bad := newEnv(t)
	bad.vars = append(bad.vars, "OURO_STORE=file:///tmp/x")
	if _, errOut, code := bad.run("", "tasks", "--list", "x", "add", "x"); code == 0 || !strings.Contains(errOut, "OURO_STORE") {
		t.Errorf("a bad OURO_STORE: exit %d %s", code, errOut)
	}

	// A session whose store cannot be reached runs; its task tools say why they fail.
	e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskCreate", map[string]string{"subject": "x", "description": "y"})}},
		scripted.Turn{ExpectContains: "cannot reach a NATS server", Text: "the store is down"})
	if out, errOut, code := e.run("", "-p", "--store", dead, "plan"); code != 0 || out != "the store is down\n" {
		t.Fatalf("a session with an unreachable store: exit %d %s %s", code, out, errOut)
	}

	// A repository pointing store.url at its own server is ignored, with a warning.
	repo := newEnv(t)
	os.MkdirAll(filepath.Join(repo.dir, ".ouro"), 0o755)
	os.WriteFile(filepath.Join(repo.dir, ".ouro", "settings.json"), []byte(`{"store": {"url": "`+dead+`"}}`), 0o644)
	repo.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskCreate", map[string]string{"subject": "stays local", "description": "y"})}},
		scripted.Turn{ExpectContains: "Task #1 created", Text: "done"})
	out, errOut, code := repo.run("", "-p", "--task-list", "mine", "plan")
	if code != 0 || out != "done\n" || !strings.Contains(errOut, "store.url is ignored") {
		t.Fatalf("a repository's store.url: exit %d %s %s", code, out, errOut)
	}
	if local, _, _ := repo.run("", "tasks", "--list", "mine"); !strings.Contains(local, "stays local") {
		t.Fatalf("the task did not stay in the local state.db:\n%s", local)
	}
}

// A workflow killed with kill -9 on one machine resumes on another through the
// journal on JetStream: the finished steps are not redone.
func TestNATSWorkflowResumesOnAnotherMachine(t *testing.T) {
	url := natstest.Server(t).URL()
	a, b := newEnv(t), newEnv(t)
	b.dir = a.dir // the same checkout on both machines
	for _, m := range []*env{a, b} {
		m.vars = append(m.vars, "OURO_STORE="+url)
	}
	script := `export const meta = { name: 'five', description: 'five steps with side effects' };
const out = [];
for (let i = 1; i <= 5; i++) out.push(await agent('do step ' + i, {label: 'step' + i}));
return out;`
	os.WriteFile(filepath.Join(a.dir, "five.js"), []byte(script), 0o644)
	step := func(i int) []scripted.Turn {
		in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(a.dir, fmt.Sprintf("effect-%d", i)), "content": fmt.Sprint(i)})
		return []scripted.Turn{
			{ExpectContains: fmt.Sprintf("do step %d", i), ToolCalls: []scripted.ToolCall{{Name: "Write", Input: in}}},
			{Text: fmt.Sprintf("step %d done", i)},
		}
	}
	var turns []scripted.Turn
	for i := 1; i <= 3; i++ {
		turns = append(turns, step(i)...)
	}
	turns = append(turns, scripted.Turn{Fault: &scripted.Fault{Status: 529, Message: "overloaded", RetryAfter: 30}, Times: 10})
	srv := a.fake(turns...)
	c := a.cmd("workflow", "run", "five.js", "--allowedTools", "Write")
	var errb strings.Builder
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(srv.Requests()) < 7 {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("step 4 never started:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.Process.Kill()
	c.Wait()
	list, errOut, _ := b.run("", "workflow", "list")
	id := regexp.MustCompile(`(wf_[a-z0-9-]+)\s+running`).FindStringSubmatch(list)
	if id == nil {
		t.Fatalf("machine b does not see the killed run as running:\n%s\n%s", list, errOut)
	}
	var rest []scripted.Turn
	for i := 4; i <= 5; i++ {
		rest = append(rest, step(i)...)
	}
	srv = b.fake(rest...)
	out, stderr, code := b.run("", "workflow", "run", "five.js", "--allowedTools", "Write", "--resume", id[1])
	if code != 0 || !strings.Contains(stderr, "5 agents (3 replayed)") || srv.Remaining() != 0 {
		t.Fatalf("resume on machine b: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, r := range srv.Requests() {
		for i := 1; i <= 3; i++ {
			if strings.Contains(string(r.Body), fmt.Sprintf("do step %d", i)) {
				t.Fatalf("finished step %d was redone", i)
			}
		}
	}
	if local, _, _ := a.run("", "workflow", "list"); !strings.Contains(local, id[1]) {
		t.Fatalf("machine a does not see the run:\n%s", local)
	}
}

// An evaluation put on the fleet's queue and run by 3 worker processes gives the same
// metrics, per task and overall, as the same evaluation run locally, and a report of the
// same form (results.json, report.html, one trajectory per run).
func TestNATSEvalOnThreeWorkers(t *testing.T) {
	url := natstest.Server(t).URL()
	e := newEnv(t)
	tasks := filepath.Join(moduleRoot(t), "eval", "tasks")
	sel := []string{"--task", "go-scout-entry", "--task", "go-fix-stack", "--task", "go-scout-config", "--runs", "2"}
	local := filepath.Join(e.home, "local")
	if out, stderr, code := e.run("", append([]string{"eval", "--model", "scripted", "--tasks", tasks, "--out", local}, sel...)...); code != 0 {
		t.Fatalf("local eval: exit %d\n%s\n%s", code, out, stderr)
	}
	var workers []*bytes.Buffer
	var procs []func() error
	for i := range 3 {
		// The working copies' path is part of every prompt, so the context tokens depend
		// on its length: the workers work under a folder named as long as "local".
		w := e.cmd("eval", "worker", "--store", url, "--idle", "8s", "--name", fmt.Sprint("w", i), "--out", filepath.Join(e.home, "fleet"))
		var errb bytes.Buffer
		w.Stderr = &errb
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Process.Kill(); w.Wait() })
		workers = append(workers, &errb)
		procs = append(procs, w.Wait)
	}
	dist := filepath.Join(e.home, "dist")
	out, stderr, code := e.run("", append([]string{"eval", "--model", "scripted", "--tasks", tasks, "--out", dist, "--workers", "--store", url}, sel...)...)
	if code != 0 {
		t.Fatalf("distributed eval: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"SUCCESS", "OVERALL"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	type metrics map[string]any
	read := func(dir string) (metrics, map[string]metrics) {
		var rep struct {
			Overall metrics `json:"overall"`
			Tasks   []struct {
				Task    string  `json:"task"`
				Metrics metrics `json:"metrics"`
			} `json:"tasks"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil || json.Unmarshal(data, &rep) != nil {
			t.Fatalf("%s/results.json: %v", dir, err)
		}
		per := map[string]metrics{}
		for _, tr := range rep.Tasks {
			per[tr.Task] = tr.Metrics
		}
		return rep.Overall, per
	}
	lo, lt := read(local)
	do, dt := read(dist)
	if fmt.Sprint(lo) != fmt.Sprint(do) || fmt.Sprint(lt) != fmt.Sprint(dt) {
		t.Fatalf("metrics differ:\nlocal       %v\n            %v\ndistributed %v\n            %v", lo, lt, do, dt)
	}
	if lo["runs"].(float64) != 6 {
		t.Fatalf("local overall %v: want 6 runs", lo)
	}
	if m, _ := filepath.Glob(filepath.Join(dist, "trajectories", "*.jsonl")); len(m) != 6 {
		t.Errorf("%d trajectories for 6 runs", len(m))
	}
	if _, err := os.Stat(filepath.Join(dist, "report.html")); err != nil {
		t.Error(err)
	}
	for _, p := range procs {
		p()
	}
	busy := 0
	for _, w := range workers {
		if !strings.Contains(w.String(), " 0 runs done") {
			busy++
		}
	}
	if busy < 2 {
		t.Errorf("only %d of 3 workers ran anything:\n%s", busy, workers[0].String())
	}
}

// ouro doctor says where tasks and messages are kept: state.db, a shared store it
// reached, one it cannot reach (a warning), one without JetStream, and a bad URL (fatal).
func TestDoctorShowsTheStore(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "ANTHROPIC_API_KEY=test-key") // without a key doctor exits 1 (a run could not start)
	if out, _, code := e.run("", "doctor"); code != 0 || !strings.Contains(out, "state.db on this machine") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	srv := natstest.Server(t)
	e.vars = append(e.vars, "OURO_STORE="+srv.URL())
	if out, _, code := e.run("", "doctor"); code != 0 || !strings.Contains(out, "NATS JetStream, reachable") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	e.vars = append(e.vars, "OURO_STORE="+natstest.NoJetStream(t))
	if out, _, code := e.run("", "doctor"); code != 0 || !strings.Contains(out, "has no JetStream") {
		t.Fatalf("a server without JetStream should be a warning: exit %d\n%s", code, out)
	}
	e.vars = append(e.vars, "OURO_STORE=redis://localhost")
	if out, _, code := e.run("", "doctor"); code != 1 || !strings.Contains(out, "no store URL") {
		t.Fatalf("a bad store URL should stop a run: exit %d\n%s", code, out)
	}
}
