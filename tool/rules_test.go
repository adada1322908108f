package tool_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// scriptedTool returns a fixed result and counts its runs.
type scriptedTool struct {
	name     string
	readOnly bool
	schema   string
	result   func(in json.RawMessage) (tool.Result, error)
	runs     int
}

func (s *scriptedTool) Spec() llm.ToolSpec {
	sch := s.schema
	if sch == "" {
		sch = `{"type":"object"}`
	}
	return llm.ToolSpec{Name: s.name, Description: "d", InputSchema: json.RawMessage(sch)}
}
func (s *scriptedTool) ReadOnly() bool { return s.readOnly }
func (s *scriptedTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	in := x.Input
	s.runs++
	return s.result(in)
}

const editSchema = `{"type":"object","additionalProperties":false,"required":["file_path","old_string"],
 "properties":{"file_path":{"type":"string","description":"absolute path of the file"},
  "old_string":{"type":"string"},"replace_all":{"type":"boolean"},
  "mode":{"type":"string","enum":["fast","slow"]}}}`

func TestSchemaValidationNamesFieldValueAndAllowed(t *testing.T) {
	ed := &scriptedTool{name: "Edit", schema: editSchema, result: func(json.RawMessage) (tool.Result, error) { return tool.Text("ok"), nil }}
	r := tool.NewRegistry(ed)
	cases := []struct {
		input string
		want  []string
	}{
		{`{"old_string":"a"}`, []string{"file_path: missing, but it is required", "absolute path of the file"}},
		{`{"file_path":42,"old_string":"a"}`, []string{"file_path: got 42", `want "string"`}},
		{`{"file_path":"/x","old_string":"a","replace_all":"yes"}`, []string{`replace_all: got "yes"`, "boolean"}},
		{`{"file_path":"/x","old_string":"a","mode":"medium"}`, []string{`mode: got "medium"`, `one of ["fast","slow"]`}},
		{`{"file_path":"/x","old_string":"a","colour":"red"}`, []string{"colour: not a field of this tool", "file_path, mode, old_string, replace_all"}},
	}
	for _, c := range cases {
		res := r.Run(context.Background(), tool.Call{ID: "t", Name: "Edit", Input: json.RawMessage(c.input)})
		if !res.IsError {
			t.Errorf("%s: accepted", c.input)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(res.Text(), w) {
				t.Errorf("%s: error lacks %q:\n%s", c.input, w, res.Text())
			}
		}
	}
	if ed.runs != 0 {
		t.Fatalf("the tool ran %d times on invalid input", ed.runs)
	}
	if res := r.Run(context.Background(), tool.Call{ID: "t", Name: "Edit", Input: json.RawMessage(`{"file_path":"/x","old_string":"a"}`)}); res.IsError {
		t.Fatalf("valid input refused: %s", res.Text())
	}
}

func TestBrokenSchemaRefusedAtRegistration(t *testing.T) {
	r := tool.NewRegistry()
	err := r.Add(&scriptedTool{name: "Bad", schema: `{"type":"objekt"}`})
	if err == nil || !strings.Contains(err.Error(), "Bad") {
		t.Fatalf("err = %v", err)
	}
}

func TestOutputBudgetSpillsFullText(t *testing.T) {
	var lines []string
	for i := range 5000 {
		lines = append(lines, "line "+strings.Repeat("x", 10)+" "+strconv.Itoa(i))
	}
	full := strings.Join(lines, "\n")
	big := &scriptedTool{name: "Big", readOnly: true, result: func(json.RawMessage) (tool.Result, error) { return tool.Text(full), nil }}
	dir := filepath.Join(t.TempDir(), "tool-results")
	r := tool.NewRegistry(big)
	r.SetOptions(tool.Options{OutputBudget: 2000, SpillDir: dir})
	res := r.Run(context.Background(), tool.Call{ID: "toolu_9", Name: "Big", Input: json.RawMessage(`{}`)})
	text := res.Text()
	if len([]rune(text)) > 2400 {
		t.Fatalf("result not within budget: %d characters", len([]rune(text)))
	}
	if !strings.HasPrefix(text, "line xxxxxxxxxx 0\n") || !strings.HasSuffix(text, "line xxxxxxxxxx 4999") {
		t.Fatalf("head or tail missing:\n%s", text)
	}
	path := filepath.Join(dir, "toolu_9.txt")
	if !strings.Contains(text, "left out of this view") || !strings.Contains(text, path) {
		t.Fatalf("no explicit note naming the spill file:\n%s", text)
	}
	if p, whole := tool.SpillFile(text); p != path || !whole {
		t.Errorf("SpillFile = %q, %v; want %s, the full output", p, whole, path)
	}
	saved, err := os.ReadFile(path)
	if err != nil || string(saved) != full {
		t.Fatalf("spill file: %v, %d bytes of %d", err, len(saved), len(full))
	}
	// Within the budget nothing changes.
	r.SetOptions(tool.Options{OutputBudget: -1})
	if res := r.Run(context.Background(), tool.Call{ID: "toolu_10", Name: "Big", Input: json.RawMessage(`{}`)}); res.Text() != full {
		t.Fatal("an unlimited budget still cut the output")
	}
}

func TestOutputBudgetWithoutSpillDirSaysSo(t *testing.T) {
	big := &scriptedTool{name: "Big", readOnly: true, result: func(json.RawMessage) (tool.Result, error) { return tool.Text(strings.Repeat("é", 5000)), nil }}
	r := tool.NewRegistry(big)
	r.SetOptions(tool.Options{OutputBudget: 1000})
	text := r.Run(context.Background(), tool.Call{ID: "a", Name: "Big", Input: json.RawMessage(`{}`)}).Text()
	if !strings.Contains(text, "could not be saved") || !strings.Contains(text, "4000 characters") {
		t.Fatalf("note:\n%s", text)
	}
}

func TestRepeatedFailureWithNothingChanged(t *testing.T) {
	read := &scriptedTool{name: "Read", readOnly: true, result: func(json.RawMessage) (tool.Result, error) { return tool.Errorf("no such file"), nil }}
	write := &scriptedTool{name: "Write", result: func(json.RawMessage) (tool.Result, error) { return tool.Text("written"), nil }}
	r := tool.NewRegistry(read, write)
	ctx := context.Background()
	call := func(name, in string) tool.Result {
		return r.Run(ctx, tool.Call{ID: "x", Name: name, Input: json.RawMessage(in)})
	}
	if res := call("Read", `{"file_path":"/a","limit":5}`); !res.IsError || read.runs != 1 {
		t.Fatal("first failure should run")
	}
	// The same call, keys reordered and spaced differently, is not run again.
	res := call("Read", `{ "limit": 5, "file_path": "/a" }`)
	if read.runs != 1 || !strings.Contains(res.Text(), "cannot produce new evidence") {
		t.Fatalf("repeat ran or was not explained: runs=%d %s", read.runs, res.Text())
	}
	if !strings.Contains(res.Text(), "no such file") || res.Abort != "" {
		t.Fatalf("earlier error missing or aborted too early: %+v", res)
	}
	// A different call is fine; a write changes the world, so the read may run again.
	call("Write", `{"file_path":"/a"}`)
	call("Read", `{"file_path":"/a","limit":5}`)
	if read.runs != 2 {
		t.Fatalf("read after a write did not run: %d", read.runs)
	}
	// Three refusals in a row end the run.
	var last tool.Result
	for range 3 {
		last = call("Read", `{"file_path":"/a","limit":5}`)
	}
	if read.runs != 2 || !strings.Contains(last.Abort, "3 times in a row") {
		t.Fatalf("runs=%d abort=%q", read.runs, last.Abort)
	}
}

func TestSuccessAndInterruptionAreNotBlocked(t *testing.T) {
	fail := true
	flaky := &scriptedTool{name: "T", readOnly: true, result: func(json.RawMessage) (tool.Result, error) {
		if fail {
			return tool.Errorf("boom"), nil
		}
		return tool.Text("ok"), nil
	}}
	r := tool.NewRegistry(flaky)
	c := tool.Call{ID: "1", Name: "T", Input: json.RawMessage(`{}`)}
	fail = false
	r.Run(context.Background(), c)
	r.Run(context.Background(), c)
	if flaky.runs != 2 {
		t.Fatal("a successful call was blocked from repeating")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Run(ctx, c) // interrupted before running
	r.Run(context.Background(), c)
	if flaky.runs != 3 {
		t.Fatalf("a call after an interruption was blocked: runs=%d", flaky.runs)
	}
}

// A result the tool already shortened (Result.Omitted) is saved as it is, and the note
// says the file holds what the tool returned, not the full output.
func TestOutputBudgetSpillOfShortenedResultSaysWhatItHolds(t *testing.T) {
	shown := strings.Repeat("h\n", 2000) + "[... 1,000,000 characters omitted ...]\n" + strings.Repeat("t\n", 2000)
	big := &scriptedTool{name: "Big", readOnly: true, result: func(json.RawMessage) (tool.Result, error) {
		res := tool.Text(shown)
		res.Omitted = 1_000_000
		return res, nil
	}}
	dir := t.TempDir()
	r := tool.NewRegistry(big)
	r.SetOptions(tool.Options{OutputBudget: 1000, SpillDir: dir})
	text := r.Run(context.Background(), tool.Call{ID: "c1", Name: "Big", Input: json.RawMessage(`{}`)}).Text()
	if strings.Contains(text, "full output") || !strings.Contains(text, "1,000,000 characters of its output were already left out by the tool") {
		t.Fatalf("note:\n%s", text[1000:])
	}
	path, full := tool.SpillFile(text)
	if path != filepath.Join(dir, "c1.txt") || full {
		t.Fatalf("SpillFile = %q, %v", path, full)
	}
	if saved, err := os.ReadFile(path); err != nil || string(saved) != shown {
		t.Fatalf("spill file: %v, %d bytes", err, len(saved))
	}
}
