package tool_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// describing is a fake that says what its calls do.
type describing struct {
	*fake
	acts []tool.Action
}

func (d describing) Describe(json.RawMessage) ([]tool.Action, error) { return d.acts, nil }

// The registry asks the registered tool; a registered tool that describes nothing does
// something unknown, even under a Claude Code name; a name it lacks is read as Claude
// Code's tool of that name.
func TestRegistryDescribe(t *testing.T) {
	write := []tool.Action{{Kind: tool.ActWrite, Paths: []string{"x"}}}
	reg := tool.NewRegistry(describing{named("Frob"), write}, named("Read"))
	for _, c := range []struct {
		call tool.Call
		want []tool.Action
	}{
		{call("Frob", `{}`), write},
		{call("Read", `{"file_path":"a"}`), []tool.Action{{Kind: tool.ActUnknown}}},
		{call("MultiEdit", `{"file_path":"a"}`), []tool.Action{{Kind: tool.ActWrite, Paths: []string{"a"}}}},
		{call("Bash", `{"command":"ls"}`), []tool.Action{{Kind: tool.ActExec, Command: "ls"}}},
		{call("Agent", `{"subagent_type":"Explore"}`), []tool.Action{{Kind: tool.ActSession, Name: "Explore", Also: []string{"Task"}}}},
		{call("CronCreate", `{"durable":true}`), []tool.Action{{Kind: tool.ActUnknown}}},
		{call("CronCreate", `{"durable":false}`), []tool.Action{{Kind: tool.ActSession}}},
		{call("Glob", `{"pattern":"/etc/*.conf"}`), []tool.Action{{Kind: tool.ActRead, Search: true, Paths: []string{"/etc"}}}},
		{call("Glob", `{"pattern":"../*.go","path":"src"}`), []tool.Action{{Kind: tool.ActRead, Search: true, Paths: []string{"."}}}},
		{call("mcp__srv__x", `{}`), []tool.Action{{Kind: tool.ActUnknown}}},
	} {
		got, err := reg.Describe(c.call)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Describe(%s %s) = %+v, %v; want %+v", c.call.Name, c.call.Input, got, err, c.want)
		}
	}
	if _, err := reg.Describe(call("Write", `{"file_path":7}`)); err == nil || !strings.Contains(err.Error(), "file_path") {
		t.Errorf("a malformed path was described: %v", err)
	}
}

// Every Claude Code tool whose rules take a specifier says what its calls do, with the
// kind its specifier matches.
func TestClaudeCodeSpecifiersMatchKinds(t *testing.T) {
	want := map[tool.Specifier][]tool.Kind{
		tool.SpecCommand: {tool.ActExec}, tool.SpecPath: {tool.ActRead, tool.ActWrite},
		tool.SpecDomain: {tool.ActNet}, tool.SpecName: {tool.ActSession},
	}
	for _, cc := range tool.ClaudeCode() {
		if cc.Specifier == tool.SpecNone {
			continue
		}
		if cc.Describe == nil {
			if cc.Equivalent == "" {
				t.Errorf("%s takes a specifier but describes nothing", cc.Name)
			}
			continue
		}
		acts, err := cc.Describe(json.RawMessage(`{}`))
		if err != nil || len(acts) != 1 {
			t.Errorf("%s: %v, %v", cc.Name, acts, err)
			continue
		}
		ok := false
		for _, k := range want[cc.Specifier] {
			ok = ok || acts[0].Kind == k
		}
		if !ok || acts[0].Kind != cc.Kind {
			t.Errorf("%s: specifier %d, kind %s, describes %s", cc.Name, cc.Specifier, cc.Kind, acts[0].Kind)
		}
	}
}
