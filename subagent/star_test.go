package subagent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tools: "*" (Claude Code's every tool) inherits the parent's tools, without a warning;
// before, "*" was an unknown tool and the agent was left with none.
func TestToolsStarInheritsAll(t *testing.T) {
	dir := t.TempDir()
	for name, tools := range map[string]string{"star": `"*"`, "star-list": `["*"]`} {
		body := "---\nname: " + name + "\ndescription: d\ntools: " + tools + "\n---\nYou help.\n"
		if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defs, warns := LoadFrom([]string{dir}, "project")
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	if len(defs) != 2 {
		t.Fatalf("defs = %+v", defs)
	}
	for _, d := range defs {
		if d.Tools != nil {
			t.Errorf("%s: tools = %v, want the parent's (nil)", d.Name, d.Tools)
		}
		if !strings.HasPrefix(d.Name, "star") {
			t.Errorf("name %q", d.Name)
		}
	}
}
