package background

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// Work with its own id (a workflow run): TaskOutput and TaskStop reach it by that id, its
// end is notified as a workflow's with its result, a stop is not notified, and an id that
// is taken or unfit for a file name is refused.
func TestWorkRunsUnderItsOwnID(t *testing.T) {
	m := New(Config{Dir: t.TempDir()})
	s := newSink()
	release, wrote := make(chan struct{}), make(chan struct{})
	info, err := m.StartWork(exec("toolu_1", s), KindWorkflow, "wf_abc123", "review", func(ctx context.Context, out io.Writer) (string, error) {
		io.WriteString(out, "== Review\n")
		close(wrote)
		<-release
		return `{"held":2}`, nil
	})
	if err != nil || info.ID != "wf_abc123" || info.Kind != KindWorkflow || !strings.HasSuffix(info.Output, "wf_abc123.output") {
		t.Fatalf("%+v %v", info, err)
	}
	if _, err := m.StartWork(exec("toolu_2", s), KindWorkflow, "wf_abc123", "again", nil); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a taken id: %v", err)
	}
	for _, bad := range []string{"", "../x", "wf_a/b", "-rf", strings.Repeat("a", 101)} {
		if _, err := m.StartWork(exec("t", s), KindWorkflow, bad, "bad", nil); err == nil {
			t.Errorf("id %q accepted", bad)
		}
	}
	out, stop, _, _ := m.Tools()
	<-wrote
	res, err := out.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"task_id":"wf_abc123","block":false}`)))
	if err != nil || !strings.Contains(res.Text(), "<task_type>local_workflow</task_type>") || !strings.Contains(res.Text(), "== Review") {
		t.Fatalf("TaskOutput while running: %v %s", err, res.Text())
	}
	close(release)
	s.wait(t)
	n := s.all()[0]
	for _, want := range []string{"<task-id>wf_abc123</task-id>", "<tool-use-id>toolu_1</tool-use-id>", `<summary>Workflow "review" completed</summary>`, `<result>{"held":2}</result>`} {
		if !strings.Contains(n, want) {
			t.Errorf("notification lacks %q:\n%s", want, n)
		}
	}
	if !strings.Contains(m.Render(), "workflow") {
		t.Errorf("/tasks: %s", m.Render())
	}

	// A failed run says why; a stopped one is not notified.
	s2 := newSink()
	m.StartWork(exec("t2", s2), KindWorkflow, "wf_failed1", "breaks", func(context.Context, io.Writer) (string, error) {
		return "", errors.New("budget_exhausted: the workflow's token budget is spent")
	})
	s2.wait(t)
	if n := s2.all()[0]; !strings.Contains(n, "<status>failed</status>") || !strings.Contains(n, "budget_exhausted") {
		t.Errorf("%s", n)
	}
	s3 := newSink()
	m.StartWork(exec("t3", s3), KindWorkflow, "wf_stopped", "long", func(ctx context.Context, _ io.Writer) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	res, err = stop.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"task_id":"wf_stopped"}`)))
	if err != nil || !strings.Contains(res.Text(), "Successfully stopped task wf_stopped") {
		t.Fatalf("TaskStop: %v %s", err, res.Text())
	}
	if len(s3.all()) != 0 {
		t.Errorf("a stopped workflow was notified: %v", s3.all())
	}
}
