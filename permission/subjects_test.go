package permission

import (
	"encoding/json"
	"testing"

	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// A rule matches a call as the policy reads it: each command of a Bash line, a file
// tool's path from the working directory, WebFetch's host, an agent's name.
func TestRuleMatchesCall(t *testing.T) {
	call := func(name string, in map[string]string) tool.Call {
		b, _ := json.Marshal(in)
		return tool.Call{Name: name, Input: b}
	}
	for _, c := range []struct {
		rule string
		call tool.Call
		want bool
	}{
		{"Bash(gh api *)", call("Bash", map[string]string{"command": "cd x && gh api repos/a"}), true},
		{"Bash(gh api *)", call("Bash", map[string]string{"command": "gh pr list"}), false},
		{"Bash(CI=1 make *)", call("Bash", map[string]string{"command": "CI=1 make test"}), true},
		{"Edit(src/**)", call("Edit", map[string]string{"file_path": "src/a.go"}), true},
		{"Edit(src/**)", call("Write", map[string]string{"file_path": "/w/docs/a.md"}), false},
		{"WebFetch(domain:go.dev)", call("WebFetch", map[string]string{"url": "https://go.dev/doc"}), true},
		{"Task(Explore)", call("Task", map[string]string{"subagent_type": "Explore"}), true},
		{"Bash(ls *)", tool.Call{Name: "Bash", Input: json.RawMessage(`{broken`)}, false},
	} {
		r, err := ParseRule(settings.Rule{Text: c.rule, Root: "/w"})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.MatchesCall(c.call, "/w", "/home/u"); got != c.want {
			t.Errorf("%s on %s %s: %v", c.rule, c.call.Name, c.call.Input, got)
		}
	}
}
