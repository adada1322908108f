package subagent

import (
	"strings"
	"testing"
)

// skills: is read as a list or a comma-separated string; mcpServers: and memory:, which
// ouro does not honour, are said to be ignored instead of passing silently.
func TestDefinitionSkillsAndUnsupportedKeys(t *testing.T) {
	for _, head := range []string{"skills: [house-style, go-errors]", "skills: house-style, go-errors", "skills:\n  - house-style\n  - go-errors"} {
		d, warns, ok := ParseDefinition("a.md", []byte("---\nname: a\ndescription: b\n"+head+"\n---\nbody"))
		if !ok || len(warns) != 0 || strings.Join(d.Skills, ",") != "house-style,go-errors" {
			t.Errorf("%q: skills %v, warnings %v", head, d.Skills, warns)
		}
	}
	d, warns, ok := ParseDefinition("a.md", []byte("---\nname: a\ndescription: b\nskills: {x: 1}\nmcpServers: [github]\nmemory: project\n---\nbody"))
	if !ok || d.Skills != nil || len(warns) != 3 {
		t.Fatalf("skills %v, warnings %v", d.Skills, warns)
	}
	for i, want := range []string{"skills: expected a comma-separated string or a list of skill names", "mcpServers: ouro does not start", "memory: ouro keeps no memory"} {
		if !strings.Contains(warns[i].Message, want) {
			t.Errorf("warning %d = %q, want %q", i, warns[i].Message, want)
		}
	}
}
