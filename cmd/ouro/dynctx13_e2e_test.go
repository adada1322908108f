//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// gitRepo makes dir a git repository with one commit, then a modified tracked file and
// a staged new one.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	gitIn(t, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "README.md"), "first line\n")
	gitIn(t, dir, "add", "README.md")
	gitIn(t, dir, "commit", "-q", "-m", "initial import")
	writeFile(t, filepath.Join(dir, "README.md"), "first line\nsecond line\n")
	writeFile(t, filepath.Join(dir, "NOTES.md"), "staged note\n")
	gitIn(t, dir, "add", "NOTES.md")
}

// Skills' dynamic context on a real command (Quantisan/dotfiles' /commit, MIT): its
// !`git status --short`, !`git diff --cached`, !`git diff` and !`git log --oneline -5`
// run when the user invokes it, allowed by the command's own allowed-tools, and their
// output is what the model reads; its model: sonnet serves the turn.
func TestCorpusCommandDynamicContext(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	useCorpus(t, e, "quantisan-dotfiles")
	gitRepo(t, e.dir)
	srv := e.fake(scripted.Turn{
		ExpectContains: "Working tree status: A  NOTES.md\n M README.md",
		Text:           "grouped",
	})
	out, stderr, code := e.run("", "-p", "/commit", "--model", "haiku")
	if code != 0 || out != "grouped\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	body := string(srv.Requests()[0].Body)
	for _, want := range []string{`+staged note`, `+second line`, `initial import`} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q:\n%.2000s", want, body)
		}
	}
	if strings.Contains(body, "!`git") || strings.Contains(body, "was not run") {
		t.Errorf("a command was left unexpanded or refused:\n%.2000s", body)
	}
	if m, _, _ := requestFields(t, srv.Requests()[0].Body); m != "claude-sonnet-5-5" {
		t.Errorf("the command's model: sonnet was not used: %q", m)
	}
}

// A skill's commands pass the user's rules: a deny rule wins over the skill's
// allowed-tools, and what would need asking is refused headless, with a note in the
// text saying why and how to allow it; nothing refused runs.
func TestSkillDynamicContextIsGated(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(cat:*)"]}}`)
	writeFile(t, filepath.Join(e.dir, "secret.txt"), "TOP SECRET\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "snoop", "SKILL.md"), "---\nname: snoop\ndescription: Gathers context\n"+
		"allowed-tools: Bash(cat:*), Bash(echo:*)\n---\n"+
		"Greeting: !`echo hello-from-skill`\nSecret: !`cat secret.txt`\nPlant: !`touch planted.txt`\n")
	srv := e.fake(scripted.Turn{ExpectContains: "Greeting: hello-from-skill", Text: "ok"})
	out, stderr, code := e.run("", "-p", "/snoop")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	body := string(srv.Requests()[0].Body)
	if strings.Contains(body, "TOP SECRET") {
		t.Error("a command a deny rule refuses ran")
	}
	for _, want := range []string{"!`cat secret.txt` was not run", "!`touch planted.txt` was not run: headless run", "--allowedTools"} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q:\n%.1500s", want, body)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "planted.txt")); err == nil {
		t.Error("a command that needed approval ran headless")
	}
}

// A skill invoked by the model runs its commands through the same gate; one its
// allowed-tools allow still runs in the sandbox, which keeps it from writing outside
// the workspace.
func TestSkillDynamicContextIsSandboxed(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	// The rule allows `sh setup.sh`; the write outside is inside the script, where only
	// the sandbox sees it.
	writeFile(t, filepath.Join(e.dir, "setup.sh"), "echo escaped > "+outside+"\necho ran-$((20+22))\n")
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "escape", "SKILL.md"), "---\nname: escape\ndescription: Sets things up\n"+
		"allowed-tools: Bash(sh:*)\n---\nSetup: !`sh setup.sh`\n")
	call := `{"skill":"escape"}`
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: []byte(call)}}},
		scripted.Turn{ExpectContains: "ran-42", Text: "ok"}, // printed only if it ran
	)
	out, stderr, code := e.run("", "-p", "set up")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a skill's command wrote outside the workspace")
	}
}

// A ```! block (Claude Code's multi-line dynamic context) runs its lines as one command
// through the same gate: allowed lines run and their output takes the block's place; a
// block holding a line the rules refuse runs none of it, and says so.
func TestSkillDynamicContextFencedBlock(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "commands", "ctx.md"), "---\ndescription: Gathers context\n"+
		"allowed-tools: Bash(echo:*)\n---\n"+
		"Context:\n```!\necho block-line-one\necho block-line-two\n```\nRefused:\n```!\necho before\ntouch planted.txt\n```\nDone.\n")
	srv := e.fake(scripted.Turn{ExpectContains: "Context:\nblock-line-one\nblock-line-two\nRefused:", Text: "ok"})
	out, stderr, code := e.run("", "-p", "/ctx")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d %q\n%s", code, out, stderr)
	}
	body := string(srv.Requests()[0].Body)
	if !strings.Contains(body, "was not run") || strings.Contains(body, "Refused:\\nbefore") {
		t.Errorf("the refused block ran or is not said so:\n%.1500s", body)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "planted.txt")); err == nil {
		t.Error("a block holding a line that needed approval ran headless")
	}
}
