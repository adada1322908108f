package settings

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
)

// HooksFromYAML reads a hooks: block of a front matter (an agent's or a skill's) written
// as in settings files: event → list of {matcher, hooks: [{type, command, timeout,
// async, ...}]}. The YAML is read as JSON would be, so the keys are those of settings
// files (asyncRewake, not asyncrewake). It lives here, beside the types it fills, so the
// front matter reader below needs nothing of settings; the caller names the file.
func HooksFromYAML(n *yaml.Node) (map[string][]HookMatcher, error) {
	if n == nil || n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("expected a map of hook events, as in settings files")
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot read it as settings hooks: %v", err)
	}
	var out map[string][]HookMatcher
	if err := json.Unmarshal(data, &out); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, ": "); i > 0 && strings.HasPrefix(msg, "json") {
			msg = msg[i+2:]
		}
		return nil, fmt.Errorf("not in the shape of settings hooks (event: [{matcher, hooks: [{type, command}]}]): %s", msg)
	}
	return out, nil
}
