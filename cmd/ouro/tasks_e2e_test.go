//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/sqlitestore"
)

func tcall(name string, in any) scripted.ToolCall {
	b, _ := json.Marshal(in)
	return scripted.ToolCall{Name: name, Input: b}
}

// fakeAlso starts another fake model for a second process of the same env (same home):
// the copy of the env's variables points at the new server.
func (e *env) fakeAlso(turns ...scripted.Turn) (*fakeserver.Server, *env) {
	e.t.Helper()
	other := &env{t: e.t, home: e.home, dir: e.dir, vars: slices.Clone(e.vars)}
	return other.fake(turns...), other
}

// The task tools are the default plan tools: the model plans with dependencies, completes
// a task and learns what it unblocked; stream-json carries each change of the list, and
// `ouro tasks` shows the list the session used.
func TestTasksPlanThroughTheBinary(t *testing.T) {
	e := newEnv(t)
	create := func(s string) scripted.ToolCall {
		return tcall("TaskCreate", map[string]string{"subject": s, "description": s + " well", "activeForm": s + "ing"})
	}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{create("Write the parser"), create("Test the parser")}},
		scripted.Turn{ExpectContains: "Task #2 created successfully: Test the parser",
			ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]any{"taskId": "2", "addBlockedBy": []string{"1"}})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]any{"taskId": "1", "addBlockedBy": []string{"2"}})}},
		scripted.Turn{ExpectContains: "cycle: #1 → #2 → #1",
			ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]any{"taskId": "1", "owner": "main", "status": "in_progress"})}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})}},
		scripted.Turn{ExpectContains: "Unblocked: #2 Test the parser", Text: "Parser written; tests next."},
	)
	out, errOut, code := e.run("", "-p", "--output-format", "stream-json", "--verbose", "write a parser")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var snaps [][]any
	for _, l := range parseLines(t, out) {
		if l["type"] == "system" && l["subtype"] == "init" {
			tools := fmt.Sprint(l["tools"])
			if !strings.Contains(tools, "TaskCreate") || strings.Contains(tools, "TodoWrite") {
				t.Errorf("default tools %s: the task tools replace TodoWrite", tools)
			}
		}
		if l["type"] == "system" && l["subtype"] == "task_list" {
			snaps = append(snaps, l["tasks"].([]any))
		}
	}
	if len(snaps) < 4 {
		t.Fatalf("%d task_list events, want one per change\n%s", len(snaps), out)
	}
	last, _ := json.Marshal(snaps[len(snaps)-1])
	var got []struct {
		ID, Subject, Status, Owner string
		BlockedBy                  []string
	}
	json.Unmarshal(last, &got)
	if len(got) != 2 || got[0].Status != "completed" || got[0].Owner != "main" ||
		got[1].Subject != "Test the parser" || got[1].Status != "pending" || got[1].BlockedBy == nil || len(got[1].BlockedBy) != 0 {
		t.Fatalf("last task_list event: %s", last)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".ouro", "state.db")); err != nil {
		t.Fatalf("state.db under ouro's home: %v", err)
	}
	list, errOut, code := e.run("", "tasks")
	if code != 0 || !strings.Contains(list, "#1 [completed] Write the parser (owner: main)") || !strings.Contains(list, "#2 [pending] Test the parser") {
		t.Fatalf("ouro tasks: exit %d\n%s%s", code, list, errOut)
	}
}

// TodoWrite is not offered by default but stays available by name (--tools).
func TestTodoWriteStillByName(t *testing.T) {
	e := newEnv(t)
	todos := map[string]any{"todos": []map[string]string{{"content": "a", "status": "in_progress", "activeForm": "doing a"}}}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TodoWrite", todos)}},
		scripted.Turn{ExpectContains: "Todos have been modified successfully", Text: "ok"},
	)
	out, errOut, code := e.run("", "-p", "--tools", "TodoWrite,Read", "plan")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
}

// Two processes racing to claim the same ten tasks of a shared list: every task ends
// with exactly one owner, the one whose claim succeeded.
func TestTasksTwoProcessesRaceToClaim(t *testing.T) {
	e := newEnv(t)
	for i := 1; i <= 10; i++ {
		if _, errOut, code := e.run("", "tasks", "--list", "race", "add", fmt.Sprint("job ", i)); code != 0 {
			t.Fatal(errOut)
		}
	}
	claims := func(owner string) []scripted.Turn {
		var calls []scripted.ToolCall
		for i := 1; i <= 10; i++ {
			calls = append(calls, tcall("TaskUpdate", map[string]string{"taskId": fmt.Sprint(i), "owner": owner}))
		}
		return []scripted.Turn{{ToolCalls: calls}, {Text: "claimed what I could"}}
	}
	e.fake(claims("alpha")...)
	_, other := e.fakeAlso(claims("beta")...)
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, en := range []*env{e, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := en.cmd("-p", "--task-list", "race", "--output-format", "stream-json", "--verbose", "claim")
			var o, er bytes.Buffer
			c.Stdout, c.Stderr = &o, &er
			if err := c.Run(); err != nil {
				t.Errorf("process %d: %v\n%s", i, err, er.String())
			}
			outs[i] = o.String()
		}()
	}
	wg.Wait()
	won := map[string]int{"alpha": strings.Count(outs[0], "(claimed by alpha)"), "beta": strings.Count(outs[1], "(claimed by beta)")}
	list, _, _ := e.run("", "tasks", "--list", "race")
	owned := map[string]int{"alpha": strings.Count(list, "(owner: alpha)"), "beta": strings.Count(list, "(owner: beta)")}
	if won["alpha"]+won["beta"] != 10 || won["alpha"] != owned["alpha"] || won["beta"] != owned["beta"] {
		t.Fatalf("claims won %v, owners in the list %v:\n%s", won, owned, list)
	}
}

// kill -9 of a process holding a claim: while it lives its lease is renewed; once it is
// dead the lease runs out, the task goes back to pending with a note, and another process
// claims it.
func TestTasksClaimOfKilledProcessLapses(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "OURO_TASK_LEASE=2s")
	if _, errOut, code := e.run("", "tasks", "--list", "team", "add", "Migrate the schema"); code != 0 {
		t.Fatal(errOut)
	}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]string{"taskId": "1", "owner": "alpha", "status": "in_progress"})}},
		scripted.Turn{ExpectContains: "claimed by alpha", ToolCalls: bash("sleep 60")},
		scripted.Turn{Text: "never reached"},
	)
	c := e.cmd("-p", "--task-list", "team", "migrate")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	kill := func() {
		if !killed {
			killed = true
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Wait()
		}
	}
	defer kill()
	show := func() string { out, _, _ := e.run("", "tasks", "--list", "team", "show", "1"); return out }
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(show(), "Owner: alpha") {
		if time.Now().After(deadline) {
			t.Fatalf("the claim never showed\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Alive for two and a half leases: the claim holds (renewed), and nobody else may
	// complete it.
	time.Sleep(5 * time.Second)
	if _, errOut, code := e.run("", "tasks", "--list", "team", "done", "1"); code == 0 || !strings.Contains(errOut, `claimed by "alpha" in another session`) {
		t.Fatalf("completing a live claim of another session: exit %d, %s", code, errOut)
	}
	kill()
	time.Sleep(2500 * time.Millisecond)
	got := show()
	if !strings.Contains(got, "Status: pending") || strings.Contains(got, "Owner:") || !strings.Contains(got, `claim by "alpha" lapsed`) {
		t.Fatalf("after the holder died and its lease ran out:\n%s", got)
	}
	_, other := e.fakeAlso(
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskUpdate", map[string]string{"taskId": "1", "owner": "beta"})}},
		scripted.Turn{ExpectContains: "claimed by beta", Text: "mine now"},
	)
	if out, errOut, code := other.run("", "-p", "--task-list", "team", "take over"); code != 0 || out != "mine now\n" {
		t.Fatalf("claiming the lapsed task: exit %d %s%s", code, out, errOut)
	}
}

// A damaged state.db: a session that never plans is not affected; one that plans gets a
// tool error that says what to do, and goes on.
func TestTasksDamagedStateDB(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.home, ".ouro"), 0o700)
	if err := os.WriteFile(filepath.Join(e.home, ".ouro", "state.db"), bytes.Repeat([]byte("garbage!"), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fake(
		scripted.Turn{Text: "hello"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskCreate", map[string]string{"subject": "x", "description": "y"})}},
		scripted.Turn{ExpectContains: "damaged or not an SQLite database", Text: "the task list is broken; carrying on"},
	)
	if out, errOut, code := e.run("", "-p", "hi"); code != 0 || out != "hello\n" {
		t.Fatalf("a session that never plans: exit %d %s%s", code, out, errOut)
	}
	if out, errOut, code := e.run("", "-p", "plan"); code != 0 || !strings.Contains(out, "carrying on") {
		t.Fatalf("a session that plans: exit %d %s%s", code, out, errOut)
	}
	if _, errOut, code := e.run("", "tasks", "--list", "x"); code == 0 || !strings.Contains(errOut, "move it aside") {
		t.Fatalf("ouro tasks on a damaged state.db: exit %d %s", code, errOut)
	}
}

// A state.db with a damaged middle page, and one emptied to zero bytes: `ouro tasks`
// refuses both with the way out (it listed the damaged one, and the empty one as a new,
// empty list), a session's TaskCreate gets the same refusal as its tool error, nothing
// is written into either file, and once the file is moved aside a new store starts.
func TestTasksRefuseDamagedOrEmptiedStateDB(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.home, ".ouro", "state.db")
	s, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if _, err := s.Create(context.Background(), "big", task.Task{Subject: fmt.Sprint("job ", i+1), Description: strings.Repeat("d", 600), Status: task.Pending}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := e.run("", "tasks", "--list", "big"); code != 0 || !strings.Contains(out, "job 200") {
		t.Fatalf("ouro tasks on the intact store: exit %d %s%s", code, clipOut(out), errOut)
	}
	damaged := slices.Clone(good)
	const page = 4096
	mid := len(damaged) / page / 2
	copy(damaged[mid*page:(mid+1)*page], bytes.Repeat([]byte{0x5a}, page))

	for _, c := range []struct {
		name, want string
		content    []byte
	}{
		{"a damaged middle page", "is damaged", damaged},
		{"an emptied file", "is empty (0 bytes)", nil},
	} {
		if err := os.WriteFile(path, c.content, 0o600); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := e.run("", "tasks", "--list", "big")
		if code == 0 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "move it aside") || !strings.Contains(errOut, path) {
			t.Errorf("%s: ouro tasks: exit %d, out %q\n%s", c.name, code, clipOut(out), errOut)
		}
		srv := e.fake(
			scripted.Turn{ToolCalls: []scripted.ToolCall{tcall("TaskCreate", map[string]string{"subject": "x", "description": "y"})}},
			scripted.Turn{Text: "carrying on"},
		)
		if out, errOut, code := e.run("", "-p", "--task-list", "big", "plan"); code != 0 || out != "carrying on\n" {
			t.Fatalf("%s: a session that plans: exit %d %s%s", c.name, code, out, errOut)
		}
		if r := wtResults(srv)["toolu_01_01"]; !strings.Contains(r, c.want) || !strings.Contains(r, "move it aside") {
			t.Errorf("%s: TaskCreate's result: %s", c.name, r)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, c.content) {
			t.Errorf("%s: the file was written (%d bytes, was %d)", c.name, len(after), len(c.content))
		}
	}
	if err := os.Rename(path, path+".damaged"); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := e.run("", "tasks", "--list", "big"); code != 0 || !strings.Contains(out, "No tasks in list big.") {
		t.Fatalf("after moving it aside: exit %d %s%s", code, out, errOut)
	}
}

// Issue 14's done-criterion through the binary: 8 ouro processes, each making 1,000
// claim attempts (TaskUpdate owner, in its own random order) on one shared list of 1,000
// tasks, produce no double claim: every task is claimed exactly once, by the process its
// owner names, and each process's transcript counts exactly the claims it won.
func TestTasksEightProcessesThousandClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("8 processes × 1,000 claims")
	}
	const procs, tasks = 8, 1000
	e := newEnv(t)
	s, err := sqlitestore.Open(filepath.Join(e.home, ".ouro", "state.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range tasks {
		if _, err := s.Create(ctx, "race", task.Task{Subject: fmt.Sprint("job ", i+1), Status: task.Pending}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := map[string]int{}
	start := time.Now()
	for p := range procs {
		owner := fmt.Sprint("p", p)
		var calls []scripted.ToolCall
		for _, i := range rand.Perm(tasks) {
			c := tcall("TaskUpdate", map[string]string{"taskId": fmt.Sprint(i + 1), "owner": owner})
			c.ID = fmt.Sprintf("toolu_%s_%d", owner, i)
			calls = append(calls, c)
		}
		_, en := e.fakeAlso(scripted.Turn{ToolCalls: calls}, scripted.Turn{Text: "done"})
		en.dir = t.TempDir() // a directory of its own, so its transcript is told apart
		os.WriteFile(filepath.Join(en.dir, "go.mod"), []byte("module example.com/p\n"), 0o644)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, errOut, code := en.run("", "-p", "--task-list", "race", "claim"); code != 0 || out != "done\n" {
				t.Errorf("%s: exit %d %s%s", owner, code, out, errOut)
			}
			won := 0
			filepath.WalkDir(filepath.Join(e.home, ".ouro", "projects"), func(path string, d os.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(path, ".jsonl") && strings.Contains(path, session.Slug(en.dir)) {
					data, _ := os.ReadFile(path)
					won += strings.Count(string(data), "(claimed by "+owner+")")
				}
				return nil
			})
			mu.Lock()
			wins[owner] = won
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("%d ouro processes × %d claim attempts in %s; claims won: %v", procs, tasks, time.Since(start).Round(time.Millisecond), wins)
	list, errOut, code := e.run("", "tasks", "--list", "race")
	if code != 0 {
		t.Fatal(errOut)
	}
	total := 0
	for p := range procs {
		owner := fmt.Sprint("p", p)
		owned := strings.Count(list, "(owner: "+owner+")")
		if owned != wins[owner] {
			t.Errorf("%s won %d claims but owns %d tasks", owner, wins[owner], owned)
		}
		total += wins[owner]
	}
	if total != tasks || strings.Count(list, "(owner: ") != tasks {
		t.Errorf("%d claims won, %d tasks owned, want %d each", total, strings.Count(list, "(owner: "), tasks)
	}
}
