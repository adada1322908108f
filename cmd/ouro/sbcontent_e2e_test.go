//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// Skills, agents and commands are ordinary content, as in Claude Code: a sandboxed Bash
// command writes a skill into an existing .claude/skills/deploy/ as into any folder of
// the workspace. The settings beside it stay read-only for the same command, whatever
// the permission mode lets through (issue 12, item 6).
func TestSandboxedBashWritesSkillsButNotSettings(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	for _, c := range []struct {
		name  string
		flags []string
		// refusal is what the settings write is answered with: the permission rules ask
		// about it (denied headless), and bypass lets it through to the sandbox.
		refusal string
	}{
		{"allowedTools Bash", []string{"--allowedTools", "Bash"}, "a protected path"},
		{"bypass", []string{"--permission-mode", "bypassPermissions"}, "is kept read-only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeSettings(t, e.dir, `{}`)
			for _, d := range []string{".claude/skills/deploy", ".claude/agents"} {
				if err := os.MkdirAll(filepath.Join(e.dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			e.fake(
				scripted.Turn{ToolCalls: bash(`printf -- '---\nname: deploy\ndescription: ship it\n---\nRun make deploy.\n' > .claude/skills/deploy/SKILL.md && echo reviewer > .claude/agents/reviewer.md && echo skill-written`)},
				scripted.Turn{ExpectContains: "skill-written", ToolCalls: bash(`echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.json && echo settings-written`)},
				// A write the permission rules cannot see (a program's own), from inside the
				// content folder: only the sandbox stands in its way.
				scripted.Turn{ExpectContains: c.refusal, ToolCalls: bash(`cd .claude/skills/deploy && python3 -c "open('../../settings.json', 'w').write('evil')" && echo settings-written`)},
				scripted.Turn{ExpectContains: "Sandbox: ", Text: "done"},
			)
			out, stderr, code := e.run("", append([]string{"-p", "add a deploy skill", "--output-format", "json"}, c.flags...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			if b, err := os.ReadFile(filepath.Join(e.dir, ".claude", "skills", "deploy", "SKILL.md")); err != nil || !strings.Contains(string(b), "name: deploy") {
				t.Errorf("the skill was not written: %q, %v\n%s", b, err, stderr)
			}
			if b, err := os.ReadFile(filepath.Join(e.dir, ".claude", "agents", "reviewer.md")); err != nil || string(b) != "reviewer\n" {
				t.Errorf("the agent was not written: %q, %v", b, err)
			}
			if b, _ := os.ReadFile(filepath.Join(e.dir, ".claude", "settings.json")); string(b) != "{}" {
				t.Errorf(".claude/settings.json was changed from the sandbox: %q", b)
			}
		})
	}
}
