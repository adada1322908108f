//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// growForever is a workflow whose script holds ever more memory: without a bound the
// workflow engine would grow until the machine ran out.
const growForever = "export const meta = {name: 'grow', description: 'grows'};\n" +
	"const a = []; for (let i = 0; ; i++) { a.push('item ' + i + ' '.repeat(100)) }"

// A runaway script stops at the memory limit $OURO_WORKFLOW_MEMORY sets, with an error that
// says so: `ouro workflow run` prints it and fails, and a session that ran the script with
// the Workflow tool reads it in the run's notification.
func TestWorkflowRunawayMemoryStops(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "OURO_WORKFLOW_MEMORY=64MiB")
	e.fake(scripted.Turn{Text: "unused"})
	file := filepath.Join(e.dir, "grow.js")
	if err := os.WriteFile(file, []byte(growForever), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "more than its limit of 64 MiB, so it was stopped"
	_, stderr, code := e.run("", "workflow", "run", "grow.js")
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "OURO_WORKFLOW_MEMORY=128MiB") || !strings.Contains(stderr, " failed: ") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}

	in, _ := json.Marshal(map[string]any{"script": growForever})
	srv := e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Workflow", Input: in}}},
		scripted.Turn{Text: "Waiting for the workflow."}, scripted.Turn{Text: "The workflow ran out of memory."})
	out, stderr, code := e.run("", "-p", "run it", "--workflows", "--allowedTools", "Workflow")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var told bool
	for _, r := range srv.Requests() {
		body := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(r.Body))
		if strings.Contains(body, "<status>failed</status>") && strings.Contains(body, want) {
			told = true
		}
	}
	if !told {
		t.Fatalf("no request told the model the run failed at its memory limit:\n%s", srv.Requests()[len(srv.Requests())-1].Body)
	}

	// A limit that is not a size fails the run before the script starts, naming the variable.
	e.vars = append(e.vars, "OURO_WORKFLOW_MEMORY=lots")
	_, stderr, code = e.run("", "workflow", "run", "grow.js")
	if code == 0 || !strings.Contains(stderr, `OURO_WORKFLOW_MEMORY="lots" is not a memory size`) {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}
