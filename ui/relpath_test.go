package ui

import (
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

func TestToolSummaryShowsWorkspacePathsRelative(t *testing.T) {
	call := func(name string, in map[string]string) tool.Call {
		b, _ := json.Marshal(in)
		return tool.Call{Name: name, Input: b}
	}
	for _, c := range []struct {
		call tool.Call
		want string
	}{
		{call("Read", map[string]string{"file_path": "/ws/proj/foo.go"}), "foo.go"},
		{call("Edit", map[string]string{"file_path": "/ws/proj/pkg/a/b.go", "old_string": "x"}), "pkg/a/b.go"},
		{call("Read", map[string]string{"file_path": "/ws/projother/x.go"}), "/ws/projother/x.go"}, // a sibling, not inside
		{call("Read", map[string]string{"file_path": "/etc/hosts"}), "/etc/hosts"},
		{call("Read", map[string]string{"file_path": "rel/x.go"}), "rel/x.go"},
		{call("Grep", map[string]string{"pattern": "TODO", "path": "/ws/proj/cmd"}), "TODO cmd"},
		{call("Glob", map[string]string{"pattern": "**/*.go", "path": "/ws/proj"}), "**/*.go ."},
		{call("Bash", map[string]string{"command": "cat /ws/proj/foo.go"}), "cat /ws/proj/foo.go"}, // a command is shown as run
	} {
		if got := ToolSummary(c.call, "/ws/proj"); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.call.Name, c.call.Input, got, c.want)
		}
	}
	in := []byte(`{"file_path":"/ws/proj/foo.go"}`)
	if got := callSummary("Read", RelInput(in, "/ws/proj")); got != "foo.go" {
		t.Errorf("the line interface shows %q", got)
	}
	if got := ToolSummary(call("Read", map[string]string{"file_path": "/ws/proj/foo.go"}), ""); got != "/ws/proj/foo.go" {
		t.Errorf("no workspace: %q", got)
	}
}

// A search shows its query, not its JSON (WebSearch, ToolSearch).
func TestCallSummaryShowsQuery(t *testing.T) {
	in := []byte(`{"query":"go 1.24 release notes","allowed_domains":["go.dev"]}`)
	if got := callSummary("WebSearch", in); got != "go 1.24 release notes" {
		t.Errorf("summary = %q", got)
	}
}
