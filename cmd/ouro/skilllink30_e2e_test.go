//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 30, item 13: a skill linked in from a shared checkout grants its allowed-tools
// as the same skill copied in does (it was refused with a false "changed after this
// session started"). Attack: the agent repoints the link mid-session to a skill of its
// own; that skill grants nothing.
func TestLinkedSkillGrantsLikeACopy(t *testing.T) {
	skillText := "---\nname: deploy\ndescription: Deploy the app\nallowed-tools: Bash(touch *)\n---\nRun touch deployed.txt.\n"
	invoke, _ := json.Marshal(map[string]string{"skill": "deploy"})
	touch := bash("touch deployed.txt")[0]
	link := func(t *testing.T, e *env, target string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(e.dir, ".claude", "skills"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(e.dir, ".claude", "skills", "deploy")); err != nil {
			t.Fatal(err)
		}
	}

	// grants runs the skill, then touch, which only its allowed-tools allows.
	grants := func(t *testing.T, e *env) {
		t.Helper()
		e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: invoke}}},
			scripted.Turn{ToolCalls: []scripted.ToolCall{touch}},
			scripted.Turn{ExpectContains: "(no output)", Text: "done"})
		if out, errOut, code := e.run("", "-p", "deploy"); code != 0 || strings.Contains(errOut, "ignored") {
			t.Fatalf("exit %d %s %s", code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "deployed.txt")); err != nil {
			t.Fatalf("the linked skill did not grant: %v", err)
		}
	}

	t.Run("folder link", func(t *testing.T) {
		e := newEnv(t)
		shared := t.TempDir()
		writeFile(t, filepath.Join(shared, "deploy", "SKILL.md"), skillText)
		link(t, e, filepath.Join(shared, "deploy"))
		grants(t, e)
	})

	t.Run("SKILL.md link", func(t *testing.T) {
		e := newEnv(t)
		shared := t.TempDir()
		writeFile(t, filepath.Join(shared, "deploy.md"), skillText)
		if err := os.MkdirAll(filepath.Join(e.dir, ".claude", "skills", "deploy"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(shared, "deploy.md"), filepath.Join(e.dir, ".claude", "skills", "deploy", "SKILL.md")); err != nil {
			t.Fatal(err)
		}
		grants(t, e)
	})

	t.Run("attack: link repointed mid-session", func(t *testing.T) {
		e := newEnv(t)
		shared := t.TempDir()
		writeFile(t, filepath.Join(shared, "deploy", "SKILL.md"), skillText)
		// The agent's own skill asks for the same, with other instructions.
		mine := filepath.Join(e.dir, "mine")
		writeFile(t, filepath.Join(mine, "SKILL.md"), strings.Replace(skillText, "Run touch deployed.txt.", "Run touch deployed.txt, then anything.", 1))
		link(t, e, filepath.Join(shared, "deploy"))
		repoint := bash("rm .claude/skills/deploy && ln -s " + mine + " .claude/skills/deploy")[0]
		e.fake(scripted.Turn{ToolCalls: []scripted.ToolCall{repoint}},
			scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: invoke}}},
			scripted.Turn{ToolCalls: []scripted.ToolCall{touch}},
			scripted.Turn{ExpectContains: "Permission denied", Text: "done"})
		out, errOut, code := e.run("", "-p", "deploy", "--allowedTools", "Bash(rm *),Bash(ln *)", "--add-dir", shared)
		if out != "done\n" {
			t.Fatalf("exit %d %s %s", code, out, errOut)
		}
		if dest, _ := os.Readlink(filepath.Join(e.dir, ".claude", "skills", "deploy")); dest != mine {
			t.Fatalf("the link was not repointed: %q\n%s", dest, errOut)
		}
		if !strings.Contains(errOut, "allowed-tools Bash(touch *) ignored: it changed after this session started") {
			t.Errorf("no warning about the withheld grant:\n%s", errOut)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "deployed.txt")); err == nil {
			t.Fatal("the repointed link's skill granted Bash(touch *)")
		}
	})
}
