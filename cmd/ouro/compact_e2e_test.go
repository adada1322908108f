//go:build unix

package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A session whose tool outputs outgrow a small context window is compacted as it goes:
// the summary requests carry the session, every request the fake server receives keeps
// its tool_use/tool_result pairs (it refuses any that does not), and the run completes.
func TestCompactionThroughBinary(t *testing.T) {
	e := newEnv(t)
	seq := func(i int) scripted.Turn {
		return scripted.Turn{Text: fmt.Sprintf("step %d", i), ToolCalls: bash(fmt.Sprintf("seq 1 %d", 3000+i))}
	}
	summary := scripted.Turn{ExpectContains: "Here is the session so far", Text: "Summary: the user asked to count; seq ran several times."}
	srv := e.fake(seq(1), seq(2), seq(3), summary, seq(4), seq(5), summary, scripted.Turn{Text: "done"})
	out, stderr, code := e.run("", "-p", "count", "--context-window", "20000", "--allowedTools", "Bash(seq *)", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 8 || srv.Remaining() != 0 {
		t.Fatalf("%d requests, %d steps left", len(reqs), srv.Remaining())
	}
	sum := reqs[3].Messages[0].Text()
	if !strings.Contains(sum, "seq 1 3001") || !strings.Contains(sum, "[tool result]") {
		t.Fatalf("the summary request does not carry the session:\n%.600s", sum)
	}
	after := reqs[4].Messages[0].Text()
	if !strings.Contains(after, "Summary: the user asked to count") {
		t.Fatalf("the history after compaction does not start from the summary:\n%.300s", after)
	}
}
