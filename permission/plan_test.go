package permission

import (
	"context"
	"strings"
	"testing"
)

// TestPlanModeWritesNothingWhateverAllowRulesSay: in plan mode, user allow rules on
// writing (Write, Edit(**), Bash(*)) do not let a file be written, by a file tool or by
// a shell command; reads stay allowed.
func TestPlanModeWritesNothingWhateverAllowRulesSay(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "plan", rules{allow: []string{"Write", "Edit", "Edit(**)", "MultiEdit", "NotebookEdit", "Bash(*)"}})
	denied := []struct{ tool, in string }{
		{"Write", `{"file_path":"{P}/x.txt","content":"x"}`},
		{"Edit", `{"file_path":"{P}/src/a.go","old_string":"a","new_string":"b"}`},
		{"MultiEdit", `{"file_path":"{P}/src/a.go","edits":[]}`},
		{"NotebookEdit", `{"notebook_path":"{P}/n.ipynb","new_source":"x"}`},
		{"Write", `{"file_path":"{O}/x.txt","content":"x"}`},
		{"Bash", bash("sort --ou=x a")},
		{"Bash", bash("sort -o x a")},
		{"Bash", bash("echo hi > notes.txt")},
		{"Bash", bash("rm src/a.go")},
		{"Bash", bash("sed --in s/a/b/ src/a.go")},
		{"Bash", bash("env --ch=src touch y")},
		{"Bash", bash("git diff --outp=d.txt")},
	}
	for _, c := range denied {
		v := p.Check(context.Background(), e.call(c.tool, c.in))
		if v.Behavior != Deny || !v.FromMode || !strings.Contains(v.Reason, "plan mode") {
			t.Errorf("plan mode %s %s = %v (%s: %s), want a denial by the mode", c.tool, c.in, v.Behavior, v.Source, v.Reason)
		}
	}
	allowed := []struct{ tool, in string }{
		{"Read", `{"file_path":"{P}/src/a.go"}`},
		{"Grep", `{"pattern":"x","path":"{P}"}`},
		{"Bash", bash("ls src")},
		{"Bash", bash("sort --rev a")},
		{"Bash", bash("go test ./...")}, // allowed by Bash(*), and writes no file it names
	}
	for _, c := range allowed {
		if v := p.Check(context.Background(), e.call(c.tool, c.in)); v.Behavior != Allow {
			t.Errorf("plan mode %s %s = %v (%s: %s), want allow", c.tool, c.in, v.Behavior, v.Source, v.Reason)
		}
	}
}
