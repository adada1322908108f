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

// NotebookEdit through the binary (issue 30, item 17), on nbformat's own test notebook:
// Read shows the cells with their ids, ToolSearch loads NotebookEdit (deferred, so the
// first request stays small), the edit replaces one cell and clears its outputs; a deny
// rule naming the notebook refuses the edit, in acceptEdits mode too.
func TestNotebookEditThroughBinary(t *testing.T) {
	e := newEnv(t)
	data, err := os.ReadFile("../../tools/testdata/notebooks/test4.5.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	nb := filepath.Join(e.dir, "analysis.ipynb")
	if err := os.WriteFile(nb, data, 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(name string, in any) []scripted.ToolCall {
		b, _ := json.Marshal(in)
		return []scripted.ToolCall{{Name: name, Input: b}}
	}
	srv := e.fake(
		scripted.Turn{ToolCalls: call("Read", map[string]string{"file_path": nb})},
		scripted.Turn{ExpectContains: `<cell id="38f37a24" type="code" execution_count="1">`, ToolCalls: call("ToolSearch", map[string]string{"query": "select:NotebookEdit"})},
		scripted.Turn{ExpectContains: "NotebookEdit", ToolCalls: call("NotebookEdit", map[string]string{"notebook_path": nb, "cell_id": "38f37a24", "new_source": "print('goodbye')"})},
		scripted.Turn{ExpectContains: "denied", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "say goodbye", "--permission-mode", "acceptEdits",
		"--settings", `{"permissions":{"deny":["NotebookEdit(analysis.ipynb)"]}}`)
	after, _ := os.ReadFile(nb)
	if string(after) != string(data) {
		t.Fatalf("a denied NotebookEdit changed the notebook (exit %d)\n%s", code, stderr)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d steps left (exit %d)\n%s\n%s", srv.Remaining(), code, out, stderr)
	}

	// Without the deny rule the edit lands.
	e2 := newEnv(t)
	if err := os.WriteFile(filepath.Join(e2.dir, "analysis.ipynb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	nb = filepath.Join(e2.dir, "analysis.ipynb")
	srv = e2.fake(
		scripted.Turn{ToolCalls: call("Read", map[string]string{"file_path": nb})},
		scripted.Turn{ExpectContains: `<cell id="38f37a24"`, ToolCalls: call("ToolSearch", map[string]string{"query": "select:NotebookEdit"})},
		scripted.Turn{ToolCalls: call("NotebookEdit", map[string]string{"notebook_path": nb, "cell_id": "38f37a24", "new_source": "print('goodbye')"})},
		scripted.Turn{ExpectContains: "Replaced the source of code cell 38f37a24", Text: "done"},
	)
	out, stderr, code = e2.run("", "-p", "say goodbye", "--permission-mode", "acceptEdits")
	if code != 0 || out != "done\n" || srv.Remaining() != 0 {
		t.Fatalf("exit %d, %d steps left\n%s\n%s", code, srv.Remaining(), out, stderr)
	}
	after, _ = os.ReadFile(nb)
	var got struct {
		Cells []struct {
			ID      string            `json:"id"`
			Source  []string          `json:"source"`
			Outputs []json.RawMessage `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(after, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Cells[3]
	if c.ID != "38f37a24" || strings.Join(c.Source, "") != "print('goodbye')" || len(c.Outputs) != 0 {
		t.Fatalf("the edited cell: %+v", c)
	}
	// The first request does not carry NotebookEdit's schema (it is deferred).
	if strings.Contains(string(srv.Requests()[0].Body), `"notebook_path"`) {
		t.Error("the first request carries NotebookEdit's schema")
	}
}
