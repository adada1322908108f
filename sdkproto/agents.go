package sdkproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/subagent"
)

// agentJSON is one agent of the SDK's agents option (the initialize request's "agents",
// Claude Code's --agents): {"description", "prompt", "tools", "disallowedTools", "model",
// "maxTurns", "permissionMode"}.
type agentJSON struct {
	Description     string   `json:"description"`
	Prompt          string   `json:"prompt"`
	Tools           []string `json:"tools,omitempty"`
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	Model           string   `json:"model,omitempty"`
	MaxTurns        int      `json:"maxTurns,omitempty"`
	PermissionMode  string   `json:"permissionMode,omitempty"`
}

// ParseAgents reads agent definitions given as JSON (name → definition). Each one goes
// through the same checks as a .claude/agents file (its name, model and tools), so an
// agent given this way can do no more than one written in a file. source names where the
// JSON came from, in errors.
func ParseAgents(data []byte, source string) ([]subagent.Definition, error) {
	var m map[string]agentJSON
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: agents must be a JSON object {\"name\": {\"description\": ..., \"prompt\": ...}}: %v", source, err)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var defs []subagent.Definition
	for _, name := range names {
		a := m[name]
		if strings.TrimSpace(a.Description) == "" || strings.TrimSpace(a.Prompt) == "" {
			return nil, fmt.Errorf("%s: agent %q needs a \"description\" and a \"prompt\"", source, name)
		}
		// The definition as a file would hold it; JSON values are YAML flow scalars.
		var b bytes.Buffer
		b.WriteString("---\n")
		field := func(k string, v any) {
			j, _ := json.Marshal(v)
			fmt.Fprintf(&b, "%s: %s\n", k, j)
		}
		field("name", name)
		field("description", a.Description)
		if a.Tools != nil {
			field("tools", a.Tools)
		}
		if a.DisallowedTools != nil {
			field("disallowedTools", a.DisallowedTools)
		}
		if a.Model != "" {
			field("model", a.Model)
		}
		if a.MaxTurns > 0 {
			field("maxTurns", a.MaxTurns)
		}
		if a.PermissionMode != "" {
			field("permissionMode", a.PermissionMode)
		}
		b.WriteString("---\n")
		b.WriteString(a.Prompt)
		d, warns, ok := subagent.ParseDefinition(source+" agent "+name, b.Bytes())
		if !ok || len(warns) > 0 {
			msgs := make([]string, 0, len(warns))
			for _, w := range warns {
				msgs = append(msgs, w.Message)
			}
			return nil, fmt.Errorf("%s: agent %q: %s", source, name, strings.Join(msgs, "; "))
		}
		d.Path, d.Source = "", "sdk"
		defs = append(defs, d)
	}
	return defs, nil
}
