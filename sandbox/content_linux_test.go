//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// The skills, agents and commands folders inside a protected .claude or .ouro are
// writable from the sandbox where they exist, in both modes; everything else there stays
// read-only, a missing one cannot be created, and no symbolic link or .. leads out.
func TestContentFoldersAreWritable(t *testing.T) {
	requireLandlock(t)
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ws, home, elsewhere := realTemp(t), realTemp(t), realTemp(t)
			tree(t, ws, ".claude/settings.json", ".claude/settings.local.json", ".claude/hooks/h.sh", ".claude/skills/", ".claude/commands/c.md",
				".ouro/settings.json", ".ouro/agents/", ".git/hooks/", ".git/config", "src/main.go")
			tree(t, elsewhere, "target")
			p := FromSettings(settings.Sandbox{}, []string{ws}, home, "")

			ok := `set -e
mkdir -p .claude/skills/x && echo skill > .claude/skills/x/SKILL.md
echo agent > .ouro/agents/a.md
echo cmd >> .claude/commands/c.md
cd .claude/skills && echo rel > rel.md && mv rel.md x/rel.md && rm x/rel.md
echo done`
			if r := sh(t, p, mode, ws, ok); r.out != "done\n" {
				t.Fatalf("writing content folders: exit %d %q", r.code, r.out)
			}
			for f, want := range map[string]string{".claude/skills/x/SKILL.md": "skill\n", ".ouro/agents/a.md": "agent\n", ".claude/commands/c.md": "original\ncmd\n"} {
				if got := content(t, filepath.Join(ws, f)); got != want {
					t.Errorf("%s = %q, want %q", f, got, want)
				}
			}

			attempts := []struct{ name, script string }{
				{"settings", `echo evil > .claude/settings.json`},
				{"local settings", `echo evil > .claude/settings.local.json`},
				{"ouro settings", `echo evil > .ouro/settings.json`},
				{"hook", `echo evil > .claude/hooks/h.sh`},
				{"new hook", `echo evil > .claude/hooks/new.sh`},
				{"new folder", `mkdir .claude/newdir`},
				{"new file", `echo x > .claude/new.json`},
				{"missing content folder", `mkdir .ouro/skills`},
				{"dot-dot", `echo evil > .claude/skills/../settings.json`},
				{"dot-dot from inside", `cd .claude/skills && echo evil > ../settings.json`},
				{"link to settings", `ln -s ../settings.json .claude/skills/l && echo evil > .claude/skills/l`},
				{"hard link to settings", `ln .claude/settings.json .claude/skills/h && echo evil > .claude/skills/h`},
				{"move settings in", `mv .claude/settings.json .claude/skills/s`},
				{"move a skill out", `mv .claude/skills/x .claude/y`},
				{"rename the folder", `mv .claude/skills .claude/skills2`},
				{"remove the folder", `rm -rf .claude/skills`},
				{"replace the folder", `mv .claude/skills /tmp/s-$$ ; ln -s .. .claude/skills`},
			}
			var script strings.Builder
			for _, a := range attempts {
				fmt.Fprintf(&script, "if ( %s ) >/dev/null 2>&1; then echo %q; fi\n", a.script, "succeeded: "+a.name)
			}
			// The mounts refuse every attempt; without them, what succeeded is undone after
			// the command (see protect_linux.go), which the checks below see.
			if r, _ := shGuarded(t, p, mode, ws, script.String()); r.code != 0 || (r.out != "" && mode == modeMount) {
				t.Errorf("exit %d:\n%s", r.code, r.out)
			}
			for _, f := range []string{".claude/settings.json", ".claude/settings.local.json", ".claude/hooks/h.sh", ".ouro/settings.json"} {
				if got := content(t, filepath.Join(ws, f)); got != "original\n" {
					t.Errorf("%s is now %q", f, got)
				}
			}
			for _, f := range []string{".claude/newdir", ".claude/new.json", ".claude/hooks/new.sh", ".ouro/skills", ".claude/y", ".claude/skills2"} {
				if _, err := os.Lstat(filepath.Join(ws, f)); err == nil {
					t.Errorf("%s was created", f)
				}
			}
			if fi, err := os.Lstat(filepath.Join(ws, ".claude", "skills")); err != nil || !fi.IsDir() {
				t.Errorf(".claude/skills is no longer a folder: %v", err)
			}

			// A content folder that is a symbolic link grants nothing, wherever it points.
			os.Remove(filepath.Join(ws, ".ouro", "agents"))
			for name, target := range map[string]string{"skills": "../.claude", "agents": elsewhere, "commands": filepath.Join(ws, ".claude", "hooks")} {
				dir := ".claude"
				if name == "agents" {
					dir = ".ouro"
				}
				link := filepath.Join(ws, dir, name)
				os.RemoveAll(link)
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
			}
			p = FromSettings(settings.Sandbox{}, []string{ws}, home, "")
			for _, attack := range []string{
				"echo evil > .claude/skills/settings.json",
				"echo evil > .claude/skills/hooks/h.sh",
				"mkdir .claude/skills/newdir",
				"echo evil > .ouro/agents/target",
				"echo evil > .claude/commands/h.sh",
			} {
				if r, _ := shGuarded(t, p, mode, ws, attack); r.code == 0 && mode == modeMount {
					t.Errorf("%s: succeeded through a symbolic link", attack)
				}
			}
			if got := content(t, filepath.Join(elsewhere, "target")); got != "original\n" {
				t.Errorf("the target of .ouro/agents is now %q", got)
			}
			for _, f := range []string{".claude/settings.json", ".claude/hooks/h.sh"} {
				if got := content(t, filepath.Join(ws, f)); got != "original\n" {
					t.Errorf("%s is now %q", f, got)
				}
			}
		})
	}
}

// A content folder created after the policy was computed (by the Write tool, or by the
// user) is writable from the next command on: existence is checked at each launch.
func TestContentFolderCreatedLaterIsWritable(t *testing.T) {
	requireLandlock(t)
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ws, home := realTemp(t), realTemp(t)
			tree(t, ws, ".claude/settings.json", "src/")
			p := FromSettings(settings.Sandbox{}, []string{ws}, home, "")
			r, restored := shGuarded(t, p, mode, ws, "mkdir -p .claude/skills/deploy")
			if exists(filepath.Join(ws, ".claude", "skills")) {
				t.Fatal("a missing .claude/skills was created from the sandbox")
			}
			if mode == modeLandlock {
				// Made, then taken back: the note says so.
				if !strings.Contains(restored, filepath.Join(ws, ".claude", "skills")+" (created)") {
					t.Errorf("note %q does not say .claude/skills was taken back", restored)
				}
				tree(t, ws, ".claude/skills/deploy/")
				if r, _ := shGuarded(t, p, mode, ws, "echo s > .claude/skills/deploy/SKILL.md && echo ok"); r.out != "ok\n" || !exists(filepath.Join(ws, ".claude/skills/deploy/SKILL.md")) {
					t.Errorf("after the folder was made: %d %q", r.code, r.out)
				}
				return
			}
			note := Diagnose(p, r.out, ws)
			for _, want := range []string{filepath.Join(ws, ".claude", "skills") + " is missing", "Write tool", "skills/<name>/SKILL.md"} {
				if !strings.Contains(note, want) {
					t.Errorf("note %q\ndoes not say %q (output %q)", note, want, r.out)
				}
			}
			tree(t, ws, ".claude/skills/deploy/")
			if r := sh(t, p, mode, ws, "echo s > .claude/skills/deploy/SKILL.md && echo ok"); r.out != "ok\n" {
				t.Errorf("after the folder was made: %d %q", r.code, r.out)
			}
		})
	}
}
