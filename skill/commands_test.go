package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Commands in .claude/commands (and .ouro/commands, and the user's) are skills: named
// after the file, subfolders only group them, a skill of the same name wins, and their
// frontmatter is a skill's.
func TestDiscoverCommands(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	home := filepath.Join(base, "home")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	write(t, filepath.Join(proj, ".claude/commands/fix-issue.md"), "---\ndescription: Fix a GitHub issue\nargument-hint: [issue-number]\nallowed-tools: Bash(gh issue view:*), Read\nmodel: haiku\ndisable-model-invocation: true\n---\nFix issue $ARGUMENTS following our standards.\n")
	write(t, filepath.Join(proj, ".claude/commands/frontend/component.md"), "Create a React component named $ARGUMENTS.\n")
	write(t, filepath.Join(proj, ".claude/commands/review.md"), "---\ndescription: the command\n---\nCommand body\n")
	writeSkill(t, filepath.Join(proj, ".claude/skills"), "review", "review", "the skill")
	write(t, filepath.Join(proj, ".claude/commands/notes.txt"), "not a command")
	write(t, filepath.Join(proj, ".claude/commands/bad name.md"), "---\ndescription: x\n---\n")
	write(t, filepath.Join(home, ".claude/commands/fix-issue.md"), "---\ndescription: the user's\n---\nuser\n")
	write(t, filepath.Join(home, ".claude/commands/standup.md"), "# Write my standup\n\nSummarise yesterday's commits.\n")

	cat, warns := Discover(Options{Dir: proj, Home: home})
	got := strings.Join(cat.Names(), ",")
	if got != "component,fix-issue,review,standup" {
		t.Fatalf("names = %s (warnings %v)", got, warns)
	}
	fi, _ := cat.Get("fix-issue")
	if !fi.Command || fi.Scope != ScopeProject || fi.Description != "Fix a GitHub issue" || fi.ArgumentHint != "[issue-number]" ||
		fi.Model != "haiku" || !fi.DisableModelInvocation || strings.Join(fi.AllowedTools, "|") != "Bash(gh issue view:*)|Read" {
		t.Fatalf("fix-issue = %+v", fi)
	}
	if r, _ := cat.Get("review"); r.Command || r.Description != "the skill" {
		t.Fatalf("the skill must win over the command: %+v", r)
	}
	if s, _ := cat.Get("standup"); s.Scope != ScopeUser || s.Description != "Write my standup" {
		t.Fatalf("standup = %+v", s)
	}
	if !hasWarning(warns, "file name must be") {
		t.Fatalf("the unusable file name is not reported: %v", warns)
	}
	inv, err := cat.InvokeForUser(nil, "fix-issue", "123")
	if err != nil || !strings.Contains(inv.Text, "Fix issue 123 following") || strings.Contains(inv.Text, "description:") {
		t.Fatalf("invoke = %q, %v", inv.Text, err)
	}
	for _, s := range cat.ForModel() {
		if s.Name == "fix-issue" {
			t.Fatal("disable-model-invocation: true must keep the command from the model")
		}
	}
}

// A command folder's other files are not "bundled" with a command.
func TestCommandBundlesNothing(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".claude/commands/a.md"), "---\ndescription: a\n---\nbody")
	write(t, filepath.Join(dir, ".claude/commands/scripts/x.sh"), "echo")
	cat, _ := Discover(Options{Dir: dir, NoUser: true})
	inv, err := cat.Invoke(nil, "a", "")
	if err != nil || len(inv.Files) != 0 {
		t.Fatalf("files = %v, %v", inv.Files, err)
	}
}
