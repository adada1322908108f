package tools

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// Each built-in tool describes its calls itself, as Claude Code's tool of its name does
// (what a rule, a hook's `if` or a policy with no registry reads a call by).
func TestBuiltinsDescribeTheirCalls(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := NewFileState()
	inputs := map[string][]string{
		"Bash":            {`{"command":"go test ./..."}`, `{}`},
		"Read":            {`{"file_path":"a.go"}`, `{}`},
		"Write":           {`{"file_path":"/x/a.go","content":""}`},
		"Edit":            {`{"file_path":"a.go","old_string":"a","new_string":"b"}`},
		"Glob":            {`{"pattern":"**/*.go"}`, `{"pattern":"/etc/*.conf"}`, `{"pattern":"../*.go","path":"src"}`},
		"Grep":            {`{"pattern":"x","path":"src"}`, `{"pattern":"x"}`},
		"LS":              {`{"path":"/tmp"}`},
		"WebFetch":        {`{"url":"https://example.com/a","prompt":"p"}`},
		"AskUserQuestion": {`{"questions":[]}`},
		"WebSearch":       {`{"query":"go release notes"}`, `{}`},
	}
	for _, tl := range []tool.Tool{NewBash(BashConfig{Dir: ws.CWD()}), NewRead(ws, files), NewWrite(ws, files), NewEdit(ws, files),
		NewGlob(ws), NewGrep(ws), NewLS(ws), NewWebFetch(WebFetchConfig{}), NewAskUserQuestion(nil), NewWebSearch(WebSearchConfig{})} {
		name := tl.Spec().Name
		if _, ok := tl.(tool.Describer); !ok {
			t.Errorf("%s describes nothing of its calls", name)
			continue
		}
		if len(inputs[name]) == 0 {
			t.Errorf("no input to try %s with", name)
		}
		for _, in := range inputs[name] {
			got, err := tool.Describe(tl, json.RawMessage(in))
			want, werr := tool.DescribeByName(tool.Call{Name: name, Input: json.RawMessage(in)})
			if err != nil || werr != nil || !reflect.DeepEqual(got, want) || got[0].Kind == tool.ActUnknown {
				t.Errorf("%s %s: describes %+v (%v); Claude Code's %s: %+v (%v)", name, in, got, err, name, want, werr)
			}
		}
	}
}
