//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// kill -9 of `ouro workflow run` and of the helper running its script, so that nothing
// records how the run ended: `ouro workflow list` shows it stopped (not running) with how
// to resume it once its lease runs out, and that resume finishes it.
func TestWorkflowDeadRunListsStopped(t *testing.T) {
	e := newEnv(t)
	script := `export const meta = { name: 'three', description: 'three steps' };
const out = [];
for (let i = 1; i <= 3; i++) out.push(await agent('do step ' + i, {label: 'step' + i}));
return out;`
	os.WriteFile(filepath.Join(e.dir, "three.js"), []byte(script), 0o644)
	// Step 2's model is overloaded and asks to be retried much later: the run is in flight.
	srv := e.fake(scripted.Turn{ExpectContains: "do step 1", Text: "one"},
		scripted.Turn{Fault: &scripted.Fault{Status: 529, Message: "overloaded", RetryAfter: 30}, Times: 10})
	c := e.cmd("workflow", "run", "three.js")
	var errb strings.Builder
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(srv.Requests()) < 2 {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("step 2 never started:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The helper runs the script (and keeps the journal): it dies first, so it cannot
	// record the run interrupted when it sees ouro gone.
	kids, err := exec.Command("pgrep", "-P", strconv.Itoa(c.Process.Pid)).Output()
	if err != nil || len(strings.Fields(string(kids))) == 0 {
		t.Fatalf("no helper process under ouro: %v %q", err, kids)
	}
	for _, f := range strings.Fields(string(kids)) {
		pid, _ := strconv.Atoi(f)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	c.Process.Kill()
	c.Wait()

	list, _, _ := e.run("", "workflow", "list")
	m := regexp.MustCompile(`(wf_[a-z0-9-]+)\s+running\s+three`).FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("the run killed a moment ago is not listed running (its lease has not run out):\n%s", list)
	}
	id := m[1]
	stopped := regexp.MustCompile(regexp.QuoteMeta(id) + `\s+stopped\s+three`)
	hint := fmt.Sprintf("resume it with 'ouro workflow show %s --resume'", id)
	deadline = time.Now().Add(40 * time.Second)
	for !stopped.MatchString(list) || !strings.Contains(list, hint) {
		if time.Now().After(deadline) {
			t.Fatalf("the dead run never listed as stopped with how to resume it:\n%s", list)
		}
		time.Sleep(time.Second)
		list, _, _ = e.run("", "workflow", "list")
	}
	if show, _, _ := e.run("", "workflow", "show", id); !strings.Contains(show, "stopped") || !strings.Contains(show, hint) {
		t.Fatalf("show:\n%s", show)
	}

	// The hint's command resumes it: step 1 is replayed, steps 2 and 3 run.
	srv = e.fake(scripted.Turn{ExpectContains: "do step 2", Text: "two"}, scripted.Turn{ExpectContains: "do step 3", Text: "three"})
	out, stderr, code := e.run("", "workflow", "show", id, "--resume")
	if code != 0 || !strings.Contains(stderr, "3 agents (1 replayed)") || !strings.Contains(out, `["one","two","three"]`) || srv.Remaining() != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, stderr)
	}
	list, _, _ = e.run("", "workflow", "list")
	resumed := regexp.MustCompile(`(wf_[a-z0-9-]+)\s+completed\s+three`).FindStringSubmatch(list)
	if !stopped.MatchString(list) || resumed == nil || strings.Contains(list, hint) ||
		!strings.Contains(list, "resumed as "+resumed[1]+" (completed)") {
		t.Fatalf("after the resume:\n%s", list)
	}
}
