//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// bgBash is a Bash call with run_in_background.
func bgBash(cmd, desc string) scripted.ToolCall {
	in, _ := json.Marshal(map[string]any{"command": cmd, "description": desc, "run_in_background": true})
	return scripted.ToolCall{Name: "Bash", Input: in}
}

func bgToolCall(name string, input any) scripted.ToolCall {
	in, _ := json.Marshal(input)
	return scripted.ToolCall{Name: name, Input: in}
}

var bgIDRe = regexp.MustCompile(`Command running in background with ID: (b[0-9a-z]{8})\.`)

// bgMarker is a sleep duration no other process uses, to find the sleep in the process
// table whatever PID namespace it ran in.
var bgMarkerSeq int

func bgMarker() string {
	bgMarkerSeq++
	return fmt.Sprintf("%d.%05d", 700+os.Getpid()%90, bgMarkerSeq)
}

// sleepersOf lists the live processes running `sleep marker`.
func sleepersOf(marker string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cl, err := os.ReadFile(d + "/cmdline")
		if err != nil || !bytes.HasSuffix(cl, []byte("\x00"+marker+"\x00")) {
			continue
		}
		if st, err := os.ReadFile(d + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
				continue
			}
		}
		var pid int
		fmt.Sscanf(filepath.Base(d), "%d", &pid)
		out = append(out, pid)
	}
	return out
}

// noSleepers fails when `sleep marker` still runs a moment later (and kills it).
func noSleepers(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := sleepersOf(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("sleep %s outlived ouro: pids %v", marker, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The case: a background `sleep 2; echo done` lets the model go on working; the
// model stops while it runs, so the -p run waits for it and continues with its
// notification, which arrives exactly once and in a later request; nothing is left
// running once ouro exits.
func TestBackgroundBashNotifiesOnceAndHeadlessWaits(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{bgBash("sleep 2; echo done", "Wait, then say done")}},
		scripted.Turn{ExpectContains: "Command running in background with ID", ToolCalls: bash("echo still-working")},
		scripted.Turn{ExpectContains: "still-working", Text: "I will wait for the background task."},
		scripted.Turn{ExpectContains: "<task-notification>", Text: "The task finished and printed done."},
	)
	out, stderr, code := e.run("", "-p", "--output-format", "json", "start the slow job and keep working")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || srv.Remaining() != 0 {
		t.Fatalf("%d requests, %d steps left\n%s", len(reqs), srv.Remaining(), stderr)
	}
	m := bgIDRe.FindStringSubmatch(allText(reqs[1].Messages))
	if m == nil {
		t.Fatalf("no task id in the first result:\n%s", allText(reqs[1].Messages))
	}
	id := m[1]
	tag := "<task-id>" + id + "</task-id>"
	for i, r := range reqs[:3] {
		if strings.Contains(allText(r.Messages), tag) {
			t.Errorf("request %d already carries the notification: the call waited for the command", i+1)
		}
	}
	last := allText(reqs[3].Messages)
	if n := strings.Count(last, tag); n != 1 {
		t.Fatalf("the last request carries the notification %d times:\n%s", n, last)
	}
	for _, want := range []string{"<status>completed</status>", `Background command "Wait, then say done" completed (exit code 0)`, "<output-file>", "\ndone"} {
		if !strings.Contains(last, want) {
			t.Errorf("the notification lacks %q:\n%s", want, last)
		}
	}
	if !strings.Contains(out, "The task finished and printed done.") {
		t.Errorf("result: %s", out)
	}
	// The output file holds what the command printed, under the session's folder.
	file := regexp.MustCompile(`<output-file>([^<]+)</output-file>`).FindStringSubmatch(last)[1]
	if data, err := os.ReadFile(file); err != nil || string(data) != "done\n" {
		t.Errorf("output file %s: %q, %v", file, data, err)
	}
	if !strings.HasPrefix(file, filepath.Join(e.home, ".ouro")) {
		t.Errorf("output file %s is not under ouro's home", file)
	}
}

// What a -p run cannot wait for (its --max-duration ends first) is stopped, grandchildren
// and setsid daemons included, and stderr says so: nothing survives ouro.
func TestBackgroundHeadlessLeavesNoProcess(t *testing.T) {
	for _, mode := range bgModes {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars = append(e.vars, bgModeVars(mode)...)
			marker := bgMarker()
			e.fake(
				scripted.Turn{ToolCalls: []scripted.ToolCall{bgBash("setsid sleep "+marker+" >/dev/null 2>&1 & (nohup sleep "+marker+" >/dev/null 2>&1 &); sleep "+marker, "daemons")}},
				scripted.Turn{Text: "done for now"},
			)
			_, stderr, code := e.run("", "-p", "--max-duration", "3s", "start daemons")
			if code == 0 {
				t.Errorf("exit 0; want the wall-time limit reported")
			}
			if !strings.Contains(stderr, "was still running and has been stopped as the session ended") {
				t.Errorf("stderr does not say the task was stopped:\n%s", stderr)
			}
			noSleepers(t, marker)
		})
	}
}

// kill -9 of ouro while background tasks run: the kernel's parent-death signal reaches
// each task's launcher, which takes the whole tree with it. Resumed, the session tells
// the model, once, that those tasks ended with the process.
func TestBackgroundKill9LeavesNothing(t *testing.T) {
	for _, mode := range bgModes {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars = append(e.vars, bgModeVars(mode)...)
			marker := bgMarker()
			srv := e.fake(
				scripted.Turn{ToolCalls: []scripted.ToolCall{
					bgBash("setsid sleep "+marker+" >/dev/null 2>&1 & sleep "+marker, "one"),
					bgBash("( (sleep "+marker+" &) & ); sleep "+marker, "two"),
				}},
				scripted.Turn{ToolCalls: bash("sleep 30")},
				scripted.Turn{Text: "they were lost"}, // the notifications follow the prompt
				scripted.Turn{Text: "nothing new"},
			)
			id := bgSessionIDs[mode]
			c := e.cmd("-p", "--session-id", id, "start work")
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for len(sleepersOf(marker)) < 4 {
				if time.Now().After(deadline) {
					c.Process.Kill()
					c.Wait()
					t.Fatalf("the background sleeps never all started (%d)\n%s", len(sleepersOf(marker)), stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := c.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			c.Wait()
			noSleepers(t, marker)

			for _, p := range []string{"what happened", "and now"} {
				if _, stderr, code := e.run("", "-p", "-r", id, p); code != 0 {
					t.Fatalf("resume: exit %d\n%s", code, stderr)
				}
			}
			reqs := srv.Requests()
			for i, want := range map[int]int{len(reqs) - 2: 2, len(reqs) - 1: 2} {
				text := allText(reqs[i].Messages)
				if n := strings.Count(text, "<status>killed</status>"); n != want {
					t.Errorf("request %d tells of %d lost tasks, want %d:\n%s", i+1, n, want, text)
				}
			}
			if last := allText(reqs[len(reqs)-2].Messages); !strings.Contains(last, "was stopped (the ouro process running it ended first)") {
				t.Errorf("the lost tasks are not explained:\n%s", last)
			}
		})
	}
}

// A notification queued and not yet delivered when a run ends (its turn limit) is
// delivered, once, by the next run of the resumed session.
func TestBackgroundNotificationSurvivesResume(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		// It ends during the second call, not before that call's request (the gate file).
		scripted.Turn{ToolCalls: []scripted.ToolCall{bgBash("while [ ! -e gate ]; do sleep 0.05; done; echo finished-early", "quick")}},
		scripted.Turn{ToolCalls: bash("touch gate; sleep 2")},
		scripted.Turn{ExpectContains: "<task-notification>", Text: "got it"},
		scripted.Turn{ExpectContains: "again", Text: "nothing new"},
	)
	out, stderr, code := e.run("", "-p", "--max-turns", "2", "--allowedTools", "Bash(touch gate)", "--output-format", "json", "go")
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.SessionID == "" {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests in the first run", n)
	}
	if _, stderr, code = e.run("", "-p", "-r", res.SessionID, "continue"); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if _, stderr, code = e.run("", "-p", "-r", res.SessionID, "again"); code != 0 {
		t.Fatalf("second resume: exit %d\n%s", code, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if third := allText(reqs[2].Messages); !strings.Contains(third, "<status>completed</status>") || !strings.Contains(third, "finished-early") {
		t.Errorf("the resumed request lacks the completed task:\n%s", third)
	}
	for i, r := range reqs {
		want := map[int]int{0: 0, 1: 0, 2: 1, 3: 1}[i]
		if n := strings.Count(allText(r.Messages), "<task-notification>"); n != want {
			t.Errorf("request %d holds %d notifications, want %d:\n%s", i+1, n, want, allText(r.Messages))
		}
	}
}

// A background agent runs while the parent goes on; its report arrives as a
// notification with <result>.
func TestBackgroundAgentReports(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{
			bgToolCall("Task", map[string]any{"description": "Survey the repo", "prompt": "look around", "subagent_type": "general-purpose", "run_in_background": true}),
			bash("sleep 5")[0], // room for the child's turn, even under load
		}},
		// The child's only turn: its request comes while the parent's sleep runs.
		scripted.Turn{ExpectContains: "look around", Text: "The repo has one go.mod."},
		scripted.Turn{ExpectContains: "<task-notification>", Text: "The survey is back."},
	)
	out, stderr, code := e.run("", "-p", "survey in the background")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	last := allText(reqs[len(reqs)-1].Messages)
	for _, want := range []string{"Async agent launched successfully", `<summary>Agent "Survey the repo" completed</summary>`, "<result>The repo has one go.mod."} {
		if !strings.Contains(last, want) {
			t.Errorf("the last request lacks %q:\n%s", want, last)
		}
	}
	if strings.Count(last, "<task-notification>") != 1 {
		t.Errorf("notification count:\n%s", last)
	}
}

// Hostile use: 100 background starts in one turn get 8 running and the rest queued with
// their place named, and all 100 finish before the headless run ends; an output flood is
// capped with a marker; TaskStop of an id this session never started is refused.
func TestBackgroundAttacks(t *testing.T) {
	e := newEnv(t)
	var calls []scripted.ToolCall
	calls = append(calls, bgBash("yes | head -c 20000000; sleep 4", "flood"))
	for i := range 99 {
		cmd := fmt.Sprintf("sleep 4.%d", i%5)
		if i >= 7 {
			cmd = "sleep 0.1" // the queued ones: start once the first 8 end
		}
		calls = append(calls, bgBash(cmd, fmt.Sprintf("job %d", i)))
	}
	turns := []scripted.Turn{
		{ToolCalls: calls},
		// Notifications may arrive between any two requests: no expectation on the last
		// message here; the requests are checked afterwards.
		{ToolCalls: []scripted.ToolCall{bgToolCall("TaskStop", map[string]any{"task_id": "bnotmine00"})}},
		{Text: "ok"},
	}
	for range 110 { // at most one request per notification
		turns = append(turns, scripted.Turn{Text: "seen"})
	}
	srv := e.fake(turns...)
	_, stderr, code := e.run("", "-p", "--allowedTools", "Bash(yes *)", "attack")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	reqs := srv.Requests()
	second := allText(reqs[1].Messages)
	if started := len(bgIDRe.FindAllString(second, -1)); started != 8 {
		t.Errorf("%d background tasks started, want 8", started)
	}
	if queued := strings.Count(second, "; starts when one of the 8 running background tasks ends)"); queued != 92 || !strings.Contains(second, "(queued: position 92 of 92;") {
		t.Errorf("%d queued, want 92 (the last at 92 of 92)", queued)
	}
	if third := allText(reqs[2].Messages); !strings.Contains(third, `no background task "bnotmine00" in this session`) {
		t.Errorf("TaskStop of a foreign id was not refused:\n%s", third)
	}
	all := allText(reqs[len(reqs)-1].Messages)
	if n := strings.Count(all, "<task-notification>"); n != 100 {
		t.Errorf("%d notifications delivered, want 100", n)
	}
	file := regexp.MustCompile(`<output-file>([^<]+)</output-file>\n<status>completed</status>\n<summary>Background command "flood"`).FindStringSubmatch(all)
	if file == nil {
		i := strings.Index(all, `"flood"`)
		t.Fatalf("no flood notification: %s", all[max(0, i-600):min(len(all), i+300)])
	}
	st, err := os.Stat(file[1])
	if err != nil || st.Size() > 8<<20+200 {
		t.Fatalf("flood output: %v, %d bytes", err, st.Size())
	}
	f, _ := os.Open(file[1])
	defer f.Close()
	f.Seek(-200, io.SeekEnd)
	tail, _ := io.ReadAll(f)
	if !strings.Contains(string(tail), "output capped at") {
		t.Errorf("no cap marker: %q", tail)
	}
}

// In the REPL a task that ends while nobody types starts a turn of its own, carrying
// its notification; /tasks lists it.
func TestBackgroundWakesIdleREPL(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{bgBash("sleep 2; echo done", "nap")}},
		scripted.Turn{Text: "started it"},
		scripted.Turn{ExpectContains: "<task-notification>", Text: "the nap is over"},
	)
	c := e.cmd()
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	var mu sync.Mutex
	var seen strings.Builder
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			seen.WriteString(sc.Text() + "\n")
			mu.Unlock()
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitFor := func(s string) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					mu.Lock()
					defer mu.Unlock()
					t.Fatalf("output ended before %q:\n%s\n%s", s, seen.String(), stderr.String())
				}
				if strings.Contains(l, s) {
					return
				}
			case <-deadline:
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("no %q:\n%s\n%s", s, seen.String(), stderr.String())
			}
		}
	}
	io.WriteString(stdin, "nap in the background\n")
	waitFor("started it")
	waitFor("the nap is over") // nobody typed: the notification started the turn
	io.WriteString(stdin, "/tasks\n")
	waitFor("completed (exit code 0)")
	io.WriteString(stdin, "/exit\n")
	stdin.Close()
	c.Wait()
	if srv.Remaining() != 0 {
		t.Errorf("%d steps left", srv.Remaining())
	}
	reqs := srv.Requests()
	if n := strings.Count(allText(reqs[len(reqs)-1].Messages), "<task-notification>"); n != 1 {
		t.Errorf("%d notifications in the woken turn", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(seen.String(), "[background] <task-notification>") {
		t.Errorf("the woken turn was not shown:\n%s", seen.String())
	}
}

var _ = fakeserver.Recorded{}

// bgModes: the sandbox mode this machine probes, and the Landlock-only mode forced, where
// ouro supervises background commands itself (and its warden acts when ouro dies).
var bgModes = []string{"probed", sandbox.ModeLandlock}

var bgSessionIDs = map[string]string{"probed": "8d1f2c1e-3b6a-4c56-9f0e-1a2b3c4d5e6f", sandbox.ModeLandlock: "8d1f2c1e-3b6a-4c56-9f0e-1a2b3c4d5e70"}

func bgModeVars(mode string) []string {
	if mode == "probed" {
		return nil
	}
	return []string{sandbox.ModeEnv + "=" + mode}
}
